//===- ktune/Support/CompilerMessage.h - Reading compiler logs --*- C++ -*-===//
//
// NVRTC, nvcc and host compilers report errors as `file(12): error: ...` or
// `file:12:3: error: ...`. ktune shows a person the first of them with its
// place (a default configuration that does not compile stops a run with
// it), and counts failures by their first message.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_COMPILERMESSAGE_H
#define KTUNE_SUPPORT_COMPILERMESSAGE_H

#include <cstddef>
#include <optional>
#include <string>

namespace ktune {

struct CompilerMessage {
  std::string where;   // "file:line"
  std::string message; // the rest: "error: identifier "uint" is undefined"
};

/// "x.tpl.cu(12): error: ..." and "x.cpp:12:3: error: ..." -> where and
/// message; nullopt for a line in neither form.
std::optional<CompilerMessage> parseCompilerMessage(const std::string &line);

/// The first error message in a log (lines, or a reason whose messages are
/// joined by " | "), with its place; nullopt when none names one.
std::optional<CompilerMessage> firstCompilerError(const std::string &log);

/// The first `maxLines` lines of a log that say "error", else its last
/// lines: what an error message quotes of a failed compile.
std::string firstCompilerErrors(const std::string &log, size_t maxLines = 4);

} // namespace ktune

#endif
