// Edges of the skb checksum helpers (models/src/linux/skb_csum.cc, skb.cc):
// the csum_level ceiling, skb_csum_unnecessary for csum_valid and PARTIAL,
// skb_postpull_rcsum on a skb that is not COMPLETE, skb_checksum_help's
// CSUM_MANGLED_0 and its refusal of offsets past the end, a pseudo-header
// sum for a header that is not all there, and the name of an ip_summed
// value outside the enum.
//
// Source: torvalds/linux v6.18 include/linux/skbuff.h
// (__skb_incr_checksum_unnecessary, skb_csum_unnecessary,
// skb_postpull_rcsum), net/core/dev.c skb_checksum_help ("csum_fold(csum)
// ?: CSUM_MANGLED_0"). Sums: test_util.h's plain-loop oracle.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/skb_csum.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

SkBuff Skb(const Bytes& f) {
  SkBuff s;
  s.pkt = Packet(f);
  return s;
}

TEST(KernelSkbCsumEdges, CsumLevelStopsAtTheMaximum) {
  // __skb_incr_checksum_unnecessary: "if (skb->csum_level <
  // SKB_MAX_CSUM_LEVEL) skb->csum_level++" -- 3 stays 3; 2 becomes 3.
  SkBuff s;
  s.ip_summed = IpSummed::kUnnecessary;
  s.csum_level = 2;
  SkbIncrChecksumUnnecessary(s);
  EXPECT_EQ(s.csum_level, 3);
  SkbIncrChecksumUnnecessary(s);
  EXPECT_EQ(s.csum_level, 3);
  EXPECT_EQ(s.ip_summed, IpSummed::kUnnecessary);
  // COMPLETE and PARTIAL are left as they are.
  for (IpSummed st : {IpSummed::kComplete, IpSummed::kPartial}) {
    SkBuff o;
    o.ip_summed = st;
    SkbIncrChecksumUnnecessary(o);
    EXPECT_EQ(o.ip_summed, st);
    EXPECT_EQ(o.csum_level, 0);
  }
}

TEST(KernelSkbCsumEdges, CsumUnnecessaryForCsumValidAndPartial) {
  // skb_csum_unnecessary: UNNECESSARY, or csum_valid, or PARTIAL with
  // skb_checksum_start_offset(skb) >= 0 (csum_start at or after data).
  SkBuff valid;
  valid.csum_valid = true;
  EXPECT_TRUE(SkbCsumUnnecessary(valid));
  SkBuff complete;
  complete.ip_summed = IpSummed::kComplete;
  EXPECT_FALSE(SkbCsumUnnecessary(complete));
  SkBuff partial;
  partial.ip_summed = IpSummed::kPartial;
  partial.csum_start = 34;
  EXPECT_TRUE(SkbCsumUnnecessary(partial, 34));
  EXPECT_TRUE(SkbCsumUnnecessary(partial, 14));
  EXPECT_FALSE(SkbCsumUnnecessary(partial, 35));
}

TEST(KernelSkbCsumEdges, PostpullOnANonCompleteSkbOnlyMovesTheStart) {
  // skb_postpull_rcsum touches skb->csum only for CHECKSUM_COMPLETE.
  SkBuff s = Skb(Ipv4Frame(6, "d478145100000001000000005010010000000000"));
  s.ip_summed = IpSummed::kUnnecessary;
  s.csum = 0x1234;
  s.csum_from = 0;
  SkbPostpullRcsum(s, 14);
  EXPECT_EQ(s.csum, 0x1234u);
  EXPECT_EQ(s.csum_from, 14);
  // A pull past the end leaves the start at the end.
  SkbPostpullRcsum(s, 100);
  EXPECT_EQ(s.csum_from, s.len());
  // COMPLETE: the 20 IPv4 header bytes (which sum to 0xffff, i.e. -0) come
  // out and the sum stays the same value mod 0xffff.
  SkBuff c = Skb(Ipv4Frame(6, "d478145100000001000000005010010000000000"));
  c.ip_summed = IpSummed::kComplete;
  c.csum_from = 14;
  c.csum = OracleSum(c.pkt.data() + 14, c.len() - 14);
  const uint32_t tcp_sum = OracleSum(c.pkt.data() + 34, c.len() - 34);
  SkbPostpullRcsum(c, 20);
  EXPECT_EQ(c.csum_from, 34);
  EXPECT_EQ(c.csum % 0xffff, tcp_sum % 0xffff);
}

TEST(KernelSkbCsumEdges, SkbChecksumPastTheEndAddsNothing) {
  SkBuff s = Skb(Ipv4Frame(17, "1f9000350008abcd"));
  EXPECT_EQ(SkbChecksum(s, s.len(), 4, 0x55), 0x55u);
  EXPECT_EQ(SkbChecksum(s, s.len() + 3, 4, 0x55), 0x55u);
  // A length past the end is cut at the end: the last two bytes only.
  EXPECT_EQ(SkbChecksum(s, s.len() - 2, 100, 0) % 0xffff, 0xabcdu);
}

TEST(KernelSkbCsumEdges, PseudoHeaderSumNeedsTheWholeHeader) {
  // 19 bytes of an IPv4 header, 39 of an IPv6 one: no pseudo header.
  const Bytes v4 = Ipv4Frame(6, "");
  EXPECT_EQ(PseudoHeaderSum(Skb(Bytes(v4.begin(), v4.begin() + 33)), 14, 6, 20), 0u);
  const Bytes v6 = Ipv6Frame(6, "", "");
  EXPECT_EQ(PseudoHeaderSum(Skb(Bytes(v6.begin(), v6.begin() + 53)), 14, 6, 20), 0u);
  EXPECT_NE(PseudoHeaderSum(Skb(v6), 14, 6, 20), 0u);
  // Version 5 is neither.
  Bytes v5 = v4;
  v5[14] = 0x55;
  EXPECT_EQ(PseudoHeaderSum(Skb(v5), 14, 6, 20), 0u);
}

TEST(KernelSkbCsumEdges, ChecksumHelpRefusesOffsetsPastTheEnd) {
  const Bytes f = Ipv4Frame(6, "d478145100000001000000005010010000000000");
  for (auto [start, off] : {std::pair<uint16_t, uint16_t>{54, 0}, {34, 19}, {53, 0}}) {
    SkBuff s = Skb(f);
    s.ip_summed = IpSummed::kPartial;
    s.csum_start = start, s.csum_offset = off;
    EXPECT_FALSE(SkbCompletePartial(s)) << start << "+" << off;
    EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
    EXPECT_EQ(s.pkt.bytes(), f);
  }
  // The field's last byte at the last byte of the packet is fine.
  SkBuff ok = Skb(f);
  ok.ip_summed = IpSummed::kPartial;
  ok.csum_start = 34, ok.csum_offset = 18;
  EXPECT_TRUE(SkbCompletePartial(ok));
  EXPECT_EQ(ok.ip_summed, IpSummed::kNone);
}

TEST(KernelSkbCsumEdges, ChecksumHelpStoresAZeroResultAsAllOnes) {
  // skb_checksum_help: "csum_fold(csum) ?: CSUM_MANGLED_0" for any
  // protocol, TCP included. The TCP field holds the pseudo-header sum; a
  // payload word is chosen so that everything sums to 0xffff (fold 0).
  Bytes f = Ipv4Frame(6, "d4781451000000010000000050100100000000000000");
  size_t len = 0;
  const uint32_t pseudo = OraclePseudo(f, 14, 34, 6, &len);
  Put16(f, 50, static_cast<uint16_t>(pseudo));
  const uint32_t s = OracleSum(&f[34], len);
  Put16(f, 54, static_cast<uint16_t>(~s));
  SkBuff p = Skb(f);
  p.ip_summed = IpSummed::kPartial;
  p.csum_start = 34, p.csum_offset = 16;
  ASSERT_TRUE(SkbCompletePartial(p));
  EXPECT_EQ(Be16(p.pkt.bytes(), 50), 0xffff);
}

TEST(KernelSkbCsumEdges, AnIpSummedOutsideTheEnumHasNoName) {
  EXPECT_STREQ(IpSummedName(static_cast<IpSummed>(7)), "?");
  EXPECT_STREQ(IpSummedName(IpSummed::kPartial), "PARTIAL");
  EXPECT_EQ(GsoTypeToString(0), "none");
  EXPECT_EQ(GsoTypeToString(gso::kTcpv6 | gso::kPartial), "tcpv6|partial");
}

}  // namespace
}  // namespace offlab::kernel
