// Edges of vxlan_xmit / vxlan_build_skb (models/src/linux/vxlan_xmit.cc):
// remote checksum offload on a GSO skb, which keeps its inner
// CHECKSUM_PARTIAL for the segmentation (a non-GSO skb gives it up).
//
// Source: torvalds/linux v6.18 drivers/net/vxlan/vxlan_core.c
// vxlan_build_skb ("if (type & SKB_GSO_TUNNEL_REMCSUM) { ... vx_flags |=
// VXLAN_HF_RCO; if (!skb_is_gso(skb)) { skb->ip_summed = CHECKSUM_NONE;
// skb->encapsulation = 0; } }").
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/vxlan.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::NetworkSkb;

VxlanConfig Cfg() {
  VxlanConfig c;
  c.name = "vx0";
  c.vni = 42;
  c.dstport = 4789;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  c.remcsum_tx = true;
  return c;
}

// An inner IPv4/TCP skb, PARTIAL at the TCP header (34), `mss` > 0 for GSO.
SkBuff Inner(uint16_t mss) {
  SkBuff s =
      NetworkSkb(Ipv4Frame(6, "d478145100000001000000005010010000000000" + std::string(4000, '1')),
                 IpSummed::kPartial);
  s.csum_from = 0;
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 34;
  s.csum_start = 34, s.csum_offset = 16;
  if (mss) s.gso_size = mss, s.gso_type = gso::kTcpv4, s.gso_segs = 4;
  return s;
}

TEST(KernelVxlanXmitEdges, RemoteChecksumOffloadOnAGsoSkbKeepsItPartial) {
  const VxlanXmitResult g = VxlanXmit(Inner(500), Cfg(), UnderlayRoute{});
  ASSERT_TRUE(g.sent) << g.reason;
  const Bytes& b = g.skb.pkt.bytes();
  EXPECT_EQ(b[43] & 0x20, 0x20);  // VXLAN_HF_RCO
  EXPECT_EQ(g.skb.ip_summed, IpSummed::kPartial);
  EXPECT_TRUE(g.skb.encapsulation);
  EXPECT_TRUE(g.skb.gso_type & gso::kTunnelRemcsum);
  // The same request on a non-GSO skb: the receiver finishes the inner
  // checksum, the skb is sent with no inner checksum state.
  const VxlanXmitResult n = VxlanXmit(Inner(0), Cfg(), UnderlayRoute{});
  ASSERT_TRUE(n.sent) << n.reason;
  EXPECT_EQ(n.skb.pkt.bytes()[43] & 0x20, 0x20);
  EXPECT_FALSE(n.skb.encapsulation);
}

}  // namespace
}  // namespace offlab::kernel
