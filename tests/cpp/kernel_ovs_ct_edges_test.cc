// Edges of the OVS ct() action's checksum handling (models/src/linux/
// ovs_dp_ct.cc): pskb_trim_rcsum of Ethernet padding after an odd IP
// length, before and after v4.20, a PARTIAL checksum field that would be
// cut, nothing to cut; and ct() on a frame that is not IP, has no network
// header, or is a fragment. Sums by test_util.h's plain-loop oracle.
//
// Source: torvalds/linux v6.18 net/core/skbuff.c pskb_trim_rcsum_slow
// ("skb->csum = csum_block_sub(skb->csum, skb_checksum(skb, len, delta,
// 0), len)"; "if (offset + sizeof(__sum16) > hdlen) return -EINVAL"),
// include/linux/skbuff.h pskb_trim_rcsum ("if (likely(len >= skb->len))
// return 0"), 88078d98d1bb / d55bef5059dd (v4.20: COMPLETE survives a trim;
// before it became CHECKSUM_NONE), net/openvswitch/conntrack.c
// ovs_ct_execute (-EINVAL without an IP network header; handle_fragments).
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/ovs_dp_ct.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleSum;

// IPv4 UDP with one data byte (IP length 29, odd) and 17 bytes of 0xaa
// padding to the 60-byte Ethernet minimum, COMPLETE from the IP header.
SkBuff Padded() {
  Bytes f = Ipv4Frame(17, "1f900035000900000b");
  f.resize(60, 0xaa);
  SkBuff s;
  s.pkt = Packet(f);
  s.ip_summed = IpSummed::kComplete;
  s.csum_from = 14;
  s.csum = OracleSum(f.data() + 14, f.size() - 14);
  return s;
}

TEST(KernelOvsCtEdges, TrimmingOddLengthPaddingKeepsTheCompleteSumRight) {
  // The 17 padding bytes start at an odd offset from skb->data: their sum
  // is taken out byte-rotated, leaving the sum of the 29 IP bytes.
  SkBuff s = Padded();
  const Bytes want(s.pkt.data() + 14, s.pkt.data() + 43);
  ASSERT_EQ(PskbTrimRcsum(s, 29), 0);
  EXPECT_EQ(s.len(), 43u);
  EXPECT_EQ(s.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(s.csum % 0xffff, OracleSum(want.data(), want.size()) % 0xffff);
  // v4.19: the sum is dropped instead.
  SkBuff old = Padded();
  ASSERT_EQ(PskbTrimRcsum(old, 29, KernelVersion{4, 19, false}), 0);
  EXPECT_EQ(old.ip_summed, IpSummed::kNone);
  EXPECT_EQ(old.len(), 43u);
}

TEST(KernelOvsCtEdges, TrimRefusalsAndNoOps) {
  // Nothing to cut: len at or past the end.
  SkBuff s = Padded();
  ASSERT_EQ(PskbTrimRcsum(s, 46), 0);
  EXPECT_EQ(s.len(), 60u);
  // PARTIAL whose field (34 + 6 .. 42) would not survive a cut to 27 bytes
  // after the IP header start (14 + 27 = 41).
  SkBuff p = Padded();
  p.ip_summed = IpSummed::kPartial, p.csum_start = 34, p.csum_offset = 6;
  EXPECT_EQ(PskbTrimRcsum(p, 27), -22);
  EXPECT_EQ(p.len(), 60u);
  // 28 bytes keep it: trimmed.
  EXPECT_EQ(PskbTrimRcsum(p, 28), 0);
  EXPECT_EQ(p.len(), 42u);
}

TEST(KernelOvsCtEdges, CtNeedsAnIpNetworkHeader) {
  NfConntrackConfig cfg;
  // ARP: not IPv4 or IPv6.
  SkBuff arp;
  arp.pkt =
      Packet(FromHex(testing::H(testing::kKernelEth + "0806 0001080006040001 8abf7e2f0584 0a000001"
                                                      "000000000000 0a000002")));
  OvsSkb a = OvsVportReceive(std::move(arp));
  EXPECT_EQ(OvsCtExecute(a, {}, cfg).err, -22);
  // A network header before skb->data.
  SkBuff ip;
  ip.pkt = Packet(Ipv4Frame(17, "1f900035000900000b"));
  OvsSkb b = OvsVportReceive(std::move(ip));
  b.skb.csum_from = 20;
  EXPECT_EQ(OvsCtExecute(b, {}, cfg).err, -22);
  // A fragment: handle_fragments is not modelled; skb->data back at the MAC
  // header.
  SkBuff frag;
  frag.pkt = Packet(Ipv4Frame(17, "1f900035000900000b", 0x2000));
  OvsSkb c = OvsVportReceive(std::move(frag));
  const OvsCtOutcome o = OvsCtExecute(c, {}, cfg);
  EXPECT_EQ(o.err, -22);
  EXPECT_FALSE(o.looked_up);
  EXPECT_EQ(c.skb.csum_from, 0);
}

}  // namespace
}  // namespace offlab::kernel
