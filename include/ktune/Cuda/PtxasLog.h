//===- ktune/Cuda/PtxasLog.h - Resources from `ptxas -v` --------*- C++ -*-===//
//
// With --ptxas-options=-v the NVRTC program log holds, per function, the
// registers, spills, stack frame, static shared memory and barriers. One
// program compiles many instantiations, so the log is split by function:
// "Compiling entry function '<mangled>'" opens an entry's block, "Function
// properties for <mangled>" names the function that the stack and spill line
// after it belongs to, and the "Used N registers" line belongs to the entry.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_PTXASLOG_H
#define KTUNE_CUDA_PTXASLOG_H

#include <map>
#include <string>
#include <string_view>

namespace ktune {

struct PtxasFunctionInfo {
  bool entry = false; // a __global__ function
  int registers = -1; // -1: not reported
  int barriers = 0;
  int smemStatic = 0;      // bytes
  int stackFrame = 0;      // bytes
  int cumulativeStack = 0; // bytes, including callees
  int spillStores = 0, spillLoads = 0; // bytes
  std::string log;         // the log lines about this function
};

/// Function (mangled name) -> what ptxas reported about it. Lines it does not
/// understand are ignored.
std::map<std::string, PtxasFunctionInfo> parsePtxasLog(std::string_view log);

} // namespace ktune

#endif
