// Edges of validate_xmit_skb / skb_checksum_help (models/src/linux/
// xmit.cc): a PARTIAL skb whose checksum start lies outside its linear
// bytes (frag_list members after a short head, or past the end) is
// refused and, on a device without checksum offload, dropped; a page-frag
// skb without network or transport offsets still has its checksum field
// in the linear area. Sums by test_util.h's plain-loop oracle.
//
// Source: torvalds/linux v6.18 net/core/dev.c skb_checksum_help ("if
// (WARN_ON_ONCE(offset >= skb_headlen(skb))) ... ret = -EINVAL"; "offset +=
// skb->csum_offset; if (WARN_ON_ONCE(offset + sizeof(__sum16) >
// skb_headlen(skb)))"), validate_xmit_skb ("if (skb->ip_summed ==
// CHECKSUM_PARTIAL) { ... skb_set_transport_header(skb,
// skb_checksum_start_offset(skb)); if (skb_csum_hwoffload_help(skb,
// features)) goto out_kfree_skb; }").
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/xmit.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::Put16;

// IPv4 TCP with 100 payload bytes as a local CHECKSUM_PARTIAL skb.
SkBuff Partial() {
  Bytes f = Ipv4Frame(6, "d478145100000001000000005010010000000000" + std::string(200, '7'));
  size_t len = 0;
  Put16(f, 50, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 6, &len)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 34, s.csum_offset = 16;
  return s;
}

DeviceFeatures Dev(uint64_t f) { return DeviceFeatures{f, 0, 65536, 65535, 1500}; }

TEST(KernelXmitEdges, ChecksumStartOutsideTheLinearBytesIsRefused) {
  // A head of 24 own bytes and a frag_list member of 130: csum_start 34 is
  // not in skb_headlen.
  SkBuff s = Partial();
  s.frag_list_lens = {static_cast<uint32_t>(s.len() - 24)};
  const Bytes before = s.pkt.bytes();
  EXPECT_EQ(SkbChecksumHelp(s), -22);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(s.pkt.bytes(), before);
}

TEST(KernelXmitEdges, ABogusChecksumStartIsDroppedWithoutOffload) {
  // csum_start past the end: the transport header is not moved there, and
  // skb_checksum_help refuses it: validate_xmit_skb frees the skb.
  SkBuff s = Partial();
  s.csum_start = static_cast<uint16_t>(s.len() + 5);
  Counters c;
  EXPECT_TRUE(ValidateXmitSkb(s, Dev(netif::kSg), kLabKernel, &c).empty());
  EXPECT_EQ(c.Get("tx_drop_csum"), 1u);
  EXPECT_EQ(c.Get("tx_dropped"), 1u);
  // A device that takes a TCP checksum field gets it as it is, its
  // transport header left at 34.
  const auto out = ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum), kLabKernel, &c);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ip_summed, IpSummed::kPartial);
  EXPECT_EQ(out[0].pkt.l4_ofs, 34);
}

TEST(KernelXmitEdges, APageFragSkbWithoutOffsetsStillHoldsItsChecksumField) {
  // The linear area of a page-frag skb runs at least to the checksum field
  // of a PARTIAL skb, even with no network or transport header recorded.
  SkBuff s = Partial();
  s.nr_frags = 1;
  s.pkt.l3_ofs = kNoOffset, s.pkt.l4_ofs = kNoOffset;
  Counters c;
  ASSERT_EQ(SkbChecksumHelp(s, &c), 0);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  EXPECT_EQ(Be16(s.pkt.bytes(), 50), OracleL4Csum(s.pkt.bytes(), 14, 34, 6, 16));
  EXPECT_EQ(c.Get("xmit_csum_help"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
