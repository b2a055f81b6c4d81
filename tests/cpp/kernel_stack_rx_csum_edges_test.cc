// Edges of the receive checksum steps (models/src/linux/stack_rx_csum.cc):
// pskb_trim_rcsum of an odd tail (the sum's byte lanes), a pull behind
// the sum's start, a PARTIAL checksum start behind skb->data, a COMPLETE
// sum still covering the IP header when validation starts, csum_level
// before v3.18, a device sum that does not verify, and a long packet's
// deferred check. Sums by test_util.h's plain-loop oracle.
//
// Source: torvalds/linux v6.18 include/linux/skbuff.h
// skb_csum_unnecessary (skb_checksum_start_offset >= 0),
// __skb_checksum_validate_needed / _complete, __skb_checksum_validate
// (CHECKSUM_BREAK 76; "skb_checksum_complete_unset" in udp4_csum_init),
// __skb_decr_checksum_unnecessary (csum_level, v3.18), net/core/skbuff.c
// pskb_trim_rcsum_slow (csum_block_sub: the tail's sum byte-swapped when it
// starts at an odd offset).
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_test_skb.h"
#include "offlab/linux/stack_rx_csum.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

SkBuff Complete(const Bytes& f, size_t from) {
  SkBuff s;
  s.pkt = Packet(f);
  s.ip_summed = IpSummed::kComplete;
  s.csum_from = static_cast<uint16_t>(from);
  s.csum = OracleSum(f.data() + from, f.size() - from);
  return s;
}

TEST(KernelStackRxCsumEdges, TrimmingAnOddTailKeepsTheSumOfWhatIsLeft) {
  // 29 IP bytes kept after data = 14; the 7 trimmed start at an odd
  // distance (29) from the sum's start.
  Bytes f = Ipv4Frame(17, "1f900035000900000b");
  f.resize(50, 0xa5);
  SkBuff s = Complete(f, 14);
  TrimRcsum(s, 14, 29, kLabKernel);
  ASSERT_EQ(s.len(), 43u);
  EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(s.csum % 0xffff, OracleSum(f.data() + 14, 29) % 0xffff);
  // Nothing past the end to trim: unchanged.
  SkBuff same = Complete(f, 14);
  TrimRcsum(same, 14, 36, kLabKernel);
  EXPECT_EQ(same.len(), 50u);
}

TEST(KernelStackRxCsumEdges, APullBehindTheSumsStartLeavesIt) {
  // The sum starts at 34; pulling the 20 bytes at 14 removes nothing from
  // it (they were never in it).
  const Bytes f = Ipv4Frame(17, "1f900035000c000001020304");
  SkBuff s = Complete(f, 34);
  const uint32_t before = s.csum;
  EXPECT_EQ(PullRcsum(s, 14, 20, kLabKernel), 34u);
  EXPECT_EQ(s.csum, before);
  EXPECT_EQ(s.csum_from, 34);
}

TEST(KernelStackRxCsumEdges, APartialStartBehindDataIsNotUnnecessary) {
  SkBuff p;
  p.ip_summed = IpSummed::kPartial;
  p.csum_start = 34;
  EXPECT_TRUE(CsumUnnecessaryAt(p, 34));
  EXPECT_FALSE(CsumUnnecessaryAt(p, 42));
}

// IPv4 UDP 8080 -> 53 with `n` data bytes, checksum right.
Bytes Udp(size_t n) {
  char h[24];
  std::snprintf(h, sizeof h, "1f900035%04zx0000", 8 + n);
  Bytes f = Ipv4Frame(17, h + std::string(2 * n, '3'));
  Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  return f;
}

uint64_t Pseudo(const Bytes& f) {
  size_t len = 0;
  return OraclePseudo(f, 14, 34, 17, &len);
}

TEST(KernelStackRxCsumEdges, ACompleteSumFromTheIpHeaderIsPulledFirst) {
  // The device sum starts at the IPv4 header (14): validation at the UDP
  // header (34) pulls the header out first, then the sum verifies.
  const Bytes f = Udp(20);
  SkBuff s = Complete(f, 14);
  const CsumValidation r = SkbChecksumValidate(s, 34, Pseudo(f), false, true, 1, kLabKernel);
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.deferred);
  EXPECT_TRUE(s.csum_valid);
  EXPECT_EQ(s.csum_from, 34);
}

TEST(KernelStackRxCsumEdges, CsumLevelIsSpentFromV318Only) {
  const Bytes f = Udp(20);
  SkBuff s;
  s.pkt = Packet(f);
  s.ip_summed = IpSummed::kUnnecessary;
  s.csum_level = 1;
  SkbChecksumValidate(s, 34, Pseudo(f), false, true, 1, KernelVersion{3, 14, false});
  EXPECT_EQ(s.ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(s.csum_level, 1);
  EXPECT_TRUE(s.csum_valid);
  SkbChecksumValidate(s, 34, Pseudo(f), false, true, 1, kLabKernel);
  EXPECT_EQ(s.csum_level, 0);
  SkbChecksumValidate(s, 34, Pseudo(f), false, true, 1, kLabKernel);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
}

TEST(KernelStackRxCsumEdges, ADeviceSumThatDoesNotVerify) {
  // Short packet (28 UDP bytes <= CHECKSUM_BREAK): checked at once in
  // software, the wrong device sum replaced: error, since the bytes are
  // wrong too.
  Bytes bad = Udp(20);
  bad[44] ^= 0x10;
  SkBuff s = Complete(bad, 34);
  s.csum += 1;
  EXPECT_TRUE(SkbChecksumValidate(s, 34, Pseudo(bad), false, true, 1, kLabKernel).error);
  // Long packet (108 bytes > 76): deferred, and the failed COMPLETE is
  // dropped (NONE) for the full check later.
  const Bytes big = Udp(100);
  SkBuff l = Complete(big, 34);
  l.csum += 1;
  const CsumValidation r = SkbChecksumValidate(l, 34, Pseudo(big), false, true, 1, kLabKernel);
  EXPECT_TRUE(r.deferred);
  EXPECT_FALSE(r.error);
  EXPECT_EQ(l.ip_summed, IpSummed::kNone);
  // The full check then finds the packet right.
  EXPECT_FALSE(SkbChecksumCompleteAt(l, 34, Pseudo(big)));
}

}  // namespace
}  // namespace offlab::kernel
