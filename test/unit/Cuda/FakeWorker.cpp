//===- FakeWorker.cpp - A stand-in worker for process-handling tests ------===//
//
// Speaks JSON lines like ktune-worker but does no CUDA: argv[1] picks a
// misbehaviour on the second request (hang, crash, exit, garbage) to test
// that the tuner survives its worker.
//
//===----------------------------------------------------------------------===//
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "echo";
  std::string line;
  int count = 0;
  while (std::getline(std::cin, line)) {
    ++count;
    if (count == 2) {
      if (mode == "hang")
        for (;;)
          std::this_thread::sleep_for(std::chrono::seconds(1));
      if (mode == "crash")
        std::abort();
      if (mode == "exit")
        return 0;
      if (mode == "garbage") {
        std::cout << "this is not json\n" << std::flush;
        continue;
      }
    }
    auto request = nlohmann::json::parse(line);
    std::cout << nlohmann::json{{"ok", true}, {"echo", request}}.dump() << "\n"
              << std::flush;
  }
  return 0;
}
