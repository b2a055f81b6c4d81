// vxlan_rcv's ECN decapsulation and its device-down drop.
//
// torvalds/linux v6.18 drivers/net/vxlan/vxlan_core.c vxlan_rcv():
// vxlan_ecn_decapsulate(vs, oiph, skb) -> IP_ECN_decapsulate /
// IP6_ECN_decapsulate -> include/net/inet_ecn.h INET_ECN_decapsulate():
// __INET_ECN_decapsulate returns 2 for an outer CE over a not-ECT inner
// (dropped: rx_frame_errors + rx_errors), 1 for an outer ECT over a not-ECT
// inner (kept as is, vxlan_ecn_decapsulate accepts err <= 1), else 0 with
// set_ce = outer is CE -> INET_ECN_set_ce(skb), or for an outer ECT(1)
// INET_ECN_set_ect1 (an ECT(0) inner becomes ECT(1)): IP_ECN_set_ce (the IPv4 TOS
// gets the CE bits and the header checksum is patched incrementally) or
// IP6_ECN_set_ce (the traffic class gets the CE bits; a CHECKSUM_COMPLETE
// skb->csum is adjusted by csum_sub(csum_add(..., to), from) of the first
// word). Then `if (unlikely(!(vxlan->dev->flags & IFF_UP)))` ->
// dev_dstats_rx_dropped, SKB_DROP_REASON_DEV_READY.
// Before any of it, a CHECKSUM_COMPLETE sum that still covers the MAC
// header loses it (v6.18 net/ethernet/eth.c eth_type_trans:
// skb_pull_inline(skb, ETH_HLEN) + skb_postpull_rcsum(skb, eth, ETH_HLEN)).
// Expected bytes and sums come from the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "kernel_vxlan_pair.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleL4Csum;
using testing::OracleSum;
using testing::Put16;

using vxlan_pair::Inner4;
using vxlan_pair::kUdp;
using vxlan_pair::Rx;
using vxlan_pair::Tx;

// The inner frame with its IPv6 traffic class set to `ds`.
Bytes Inner6(uint8_t ds) {
  Bytes f = Ipv6Frame(17, "", kUdp);
  f[14] = static_cast<uint8_t>(0x60 | (ds >> 4));
  f[15] = static_cast<uint8_t>(ds << 4);
  return f;
}

// `inner` in VXLAN over IPv4 with outer TOS `tos`, as it arrives on the
// wire: outer IPv4 checksum redone by the oracle; outer UDP checksum 0 or,
// with `udp_csum`, filled in by the oracle.
SkBuff Wire(const Bytes& inner, uint8_t tos, bool udp_csum) {
  SkBuff in;
  in.pkt = Packet(inner);
  VxlanXmitResult x = VxlanXmit(in, Tx(), UnderlayRoute{});
  EXPECT_TRUE(x.sent) << x.reason;
  Bytes b = x.skb.pkt.bytes();
  b[15] = tos;
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~OracleSum(&b[14], 20)));
  Put16(b, 40, 0);
  if (udp_csum) Put16(b, 40, OracleL4Csum(b, 14, 34, 17, 6));
  SkBuff s;
  s.pkt = Packet(b);
  return s;
}

TEST(KernelVxlanEcnDecap, OuterCeMarksAnEctInnerIpv4AndPatchesItsChecksum) {
  Counters c;
  VxlanRcvResult r = VxlanRcv(Wire(Inner4(0x02), 0x03, false), Rx(), kLabKernel, &c);
  ASSERT_TRUE(r.delivered) << r.reason;
  // IP_ECN_set_ce: TOS 0x02 -> 0x03, the header checksum still verifies.
  Bytes want = Inner4(0x03);
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(want));
  EXPECT_EQ(OracleSum(&r.skb.pkt.bytes()[14], 20), 0xffffu);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 1u);
}

TEST(KernelVxlanEcnDecap, OuterCeMarksAnEctInnerIpv6AndAdjustsTheCompleteSum) {
  // With the outer UDP checksum verified the tunnel socket converts the
  // skb to CHECKSUM_COMPLETE; IP6_ECN_set_ce must keep skb->csum the sum of
  // the bytes it covers.
  VxlanRcvResult r = VxlanRcv(Wire(Inner6(0x01), 0x03, true), Rx());
  ASSERT_TRUE(r.delivered) << r.reason;
  const Bytes& got = r.skb.pkt.bytes();
  EXPECT_EQ(ToHex(got), ToHex(Inner6(0x03)));
  ASSERT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  const uint32_t covered = OracleSum(got.data() + r.skb.csum_from, got.size() - r.skb.csum_from);
  EXPECT_EQ(OracleSum(nullptr, 0, r.skb.csum), covered);
}

TEST(KernelVxlanEcnDecap, OuterCeOverNotEctInnerIpv6IsAFrameError) {
  Counters c;
  VxlanRcvResult r = VxlanRcv(Wire(Inner6(0x00), 0x03, false), Rx(), kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(r.reason, "IP_TUNNEL_ECN");
  EXPECT_EQ(c.Get("vx0:rx_frame_errors"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_errors"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 0u);
}

TEST(KernelVxlanEcnDecap, OuterEctOverNotEctInnerIsDeliveredUnchanged) {
  // __INET_ECN_decapsulate returns 1: logged at most, never dropped.
  VxlanRcvResult r = VxlanRcv(Wire(Inner6(0x00), 0x02, false), Rx());
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner6(0x00)));
  r = VxlanRcv(Wire(Inner4(0x00), 0x01, false), Rx());
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(0x00)));
}

TEST(KernelVxlanEcnDecap, OuterEct1MakesAnEct0InnerEct1) {
  // INET_ECN_decapsulate: rc 0 and not CE, outer ECT(1) ->
  // INET_ECN_set_ect1: IP_ECN_set_ect1 (tos ^= INET_ECN_MASK, check +=
  // htons(1)) / IP6_ECN_set_ect1 (word ^= htonl(INET_ECN_MASK << 20),
  // skb->csum adjusted when COMPLETE); only an ECT(0) inner changes.
  VxlanRcvResult r = VxlanRcv(Wire(Inner4(0x02), 0x01, false), Rx());
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(0x01)));
  r = VxlanRcv(Wire(Inner6(0x02), 0x01, true), Rx());
  ASSERT_TRUE(r.delivered) << r.reason;
  const Bytes& got = r.skb.pkt.bytes();
  EXPECT_EQ(ToHex(got), ToHex(Inner6(0x01)));
  ASSERT_EQ(r.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(OracleSum(nullptr, 0, r.skb.csum),
            OracleSum(got.data() + r.skb.csum_from, got.size() - r.skb.csum_from));
  // CE and ECT(1) inners stay as they are.
  for (uint8_t ds : {0x01, 0x03}) {
    r = VxlanRcv(Wire(Inner4(ds), 0x01, false), Rx());
    EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(ds))) << int{ds};
  }
  // Before the ECT(1) propagation (v5.9) the inner kept ECT(0).
  r = VxlanRcv(Wire(Inner4(0x02), 0x01, false), Rx(), KernelVersion{5, 4});
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(0x02)));
}

TEST(KernelVxlanEcnDecap, DeviceDownDropsAfterTheHeaderChecks) {
  VxlanConfig rx = Rx();
  rx.up = false;
  Counters c;
  VxlanRcvResult r = VxlanRcv(Wire(Inner4(0x00), 0x00, false), rx, kLabKernel, &c);
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(r.reason, "DEV_READY");
  EXPECT_EQ(c.Get("vx0:rx_dropped"), 1u);
  EXPECT_EQ(c.Get("vx0:rx_packets"), 0u);
  EXPECT_EQ(c.Get("Udp:InDatagrams"), 1u);  // the socket took it first
}

TEST(KernelVxlanEcnDecap, CompleteSumFromTheMacHeaderIsPulledFirst) {
  // A driver's CHECKSUM_COMPLETE over the whole frame (skb->data still at
  // the MAC header): the same inner skb as with the sum from the IP header.
  SkBuff mac = Wire(Inner4(0x00), 0x00, true);
  const Bytes b = mac.pkt.bytes();
  mac.ip_summed = IpSummed::kComplete;
  mac.csum_from = 0;
  mac.csum = OracleSum(b.data(), b.size());
  SkBuff ip = testing::NetworkSkb(b, IpSummed::kComplete);
  VxlanRcvResult a = VxlanRcv(mac, Rx());
  VxlanRcvResult want = VxlanRcv(ip, Rx());
  ASSERT_TRUE(a.delivered) << a.reason;
  ASSERT_TRUE(want.delivered) << want.reason;
  EXPECT_EQ(a.skb.ip_summed, IpSummed::kComplete);
  // Good for the inner UDP: the sum from the inner IP header, plus the
  // inner pseudo header sum, verifies (the inner check field is 0, so the
  // covered bytes sum to what the oracle says).
  const Bytes& got = a.skb.pkt.bytes();
  EXPECT_EQ(OracleSum(nullptr, 0, a.skb.csum),
            OracleSum(got.data() + a.skb.csum_from, got.size() - a.skb.csum_from));
  EXPECT_EQ(OracleSum(nullptr, 0, a.skb.csum), OracleSum(nullptr, 0, want.skb.csum));
  EXPECT_EQ(Be16(got, 14 + 20 + 6), 0);
}

}  // namespace
}  // namespace offlab::kernel
