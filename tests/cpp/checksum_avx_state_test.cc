// SPDX-License-Identifier: Apache-2.0
//
// The AVX2 checksum must not leave the upper halves of the YMM registers in
// use: after it, every legacy SSE instruction in the process (libc, DPDK's
// PMDs, ns-3) pays a state-transition penalty, which halved hw-replay's
// transmit rate. XGETBV with ECX=1 reads XINUSE, whose bit 2 is that state
// (Intel SDM vol. 1, 13.6 "Processor tracking of XSAVE-managed state").
#include <cpuid.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "offlab/net/checksum.h"

namespace offlab {
namespace {

bool XinuseReadable() {
  unsigned a, b, c, d;
  // CPUID.(EAX=0DH, ECX=1):EAX[2]: XGETBV with ECX=1 is supported.
  return __get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & (1u << 2));
}

uint64_t Xinuse() {
  uint32_t lo, hi;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

TEST(ChecksumAvxState, TheVectorSumLeavesTheUpperYmmStateUnused) {
  if (!__builtin_cpu_supports("avx2") || !XinuseReadable()) {
    GTEST_SKIP() << "no AVX2 or no XGETBV(1) on this CPU";
  }
  const std::vector<uint8_t> data(4096, 0xab);  // long enough for the AVX2 path
  const uint16_t sum = csum::Compute(data.data(), data.size());
  const uint64_t inuse = Xinuse();
  EXPECT_EQ(inuse & (1u << 2), 0u) << "XINUSE " << std::hex << inuse;
  // 2048 words of 0xabab: 2048 * 0xabab = 0x55d5800, folded 0x5800 + 0x55d = 0x5d5d,
  // complemented 0xa2a2.
  EXPECT_EQ(sum, 0xa2a2);
}

}  // namespace
}  // namespace offlab
