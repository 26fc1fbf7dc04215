//===- DeviceChecks.cpp - Whether a run wrote what it should --------------===//
//
// After a verified run: the guard bytes around every buffer (a kernel that
// wrote out of bounds changed them), and each output compared with the
// reference on the device (mismatches, the first one's values, non-finite
// values).
//
//===----------------------------------------------------------------------===//
#include "DeviceSession.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Support/Try.h"

#include <bit>

namespace ktune::worker {

WStatus DeviceSession::fillGuards(const Buffer &b) {
  KTUNE_CU(cuMemsetD8Async(b.base, GuardPattern, GuardBytes, Stream));
  KTUNE_CU(cuMemsetD8Async(b.ptr + b.bytes, GuardPattern, GuardBytes, Stream));
  return {};
}

WStatus DeviceSession::checkGuards(const Buffer &b, uint64_t &before,
                                   uint64_t &after) {
  std::vector<unsigned char> host(2 * GuardBytes);
  KTUNE_CU(cuMemcpyDtoHAsync(host.data(), b.base, GuardBytes, Stream));
  KTUNE_CU(cuMemcpyDtoHAsync(host.data() + GuardBytes, b.ptr + b.bytes,
                             GuardBytes, Stream));
  KTUNE_CU(cuStreamSynchronize(Stream));
  before = after = 0;
  for (size_t i = 0; i < GuardBytes; ++i) {
    before += host[i] != GuardPattern;
    after += host[GuardBytes + i] != GuardPattern;
  }
  if (before || after)
    KTUNE_WTRY(fillGuards(b));
  return {};
}

WExpected<protocol::BufferCheck> DeviceSession::compare(const Buffer &b) {
  protocol::BufferCheck c;
  c.name = b.spec.name;
  if (b.spec.count == 0)
    return c;
  KTUNE_TRY_ASSIGN(auto cmp,
                   helper(HelperNames.compare, b.spec.dtype, "compare"));
  KTUNE_CU(
      cuMemsetD8Async(Stats, 0, CompareStatsWords * sizeof(uint64_t), Stream));
  KTUNE_CU(cuMemsetD8Async(Stats + CompareFirstIndex * sizeof(uint64_t), 0xff,
                           sizeof(uint64_t), Stream));
  CUdeviceptr got = b.ptr, want = b.reference, stats = Stats;
  unsigned long long n = static_cast<unsigned long long>(b.spec.count);
  double atol = b.spec.atol, rtol = b.spec.rtol;
  void *params[] = {&got, &want, &n, &atol, &rtol, &stats};
  KTUNE_WTRY(launchHelper(cmp, b.spec.count, params));
  uint64_t words[CompareStatsWords] = {};
  KTUNE_CU(cuMemcpyDtoHAsync(words, Stats, sizeof(words), Stream));
  KTUNE_CU(cuStreamSynchronize(Stream));
  c.mismatches = words[CompareMismatches];
  c.firstIndex =
      words[CompareFirstIndex] == ~0ull ? 0 : words[CompareFirstIndex];
  c.maxAbsErr = std::bit_cast<double>(words[CompareMaxAbsErrBits]);
  c.nonFinite = words[CompareNonFinite];
  c.wantNonFinite = words[CompareWantNonFinite];
  if (c.mismatches > 0) {
    KTUNE_TRY_ASSIGN(auto read,
                     helper(HelperNames.readPair, b.spec.dtype, "read"));
    unsigned long long index = c.firstIndex;
    CUdeviceptr out = PairValues;
    void *readParams[] = {&got, &want, &index, &out};
    KTUNE_CU(
        cuLaunchKernel(read, 1, 1, 1, 1, 1, 1, 0, Stream, readParams, nullptr));
    double pair[2] = {0, 0};
    KTUNE_CU(cuMemcpyDtoHAsync(pair, PairValues, sizeof(pair), Stream));
    KTUNE_CU(cuStreamSynchronize(Stream));
    c.got = pair[0];
    c.want = pair[1];
  }
  return c;
}

} // namespace ktune::worker
