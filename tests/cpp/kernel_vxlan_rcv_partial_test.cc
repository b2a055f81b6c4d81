// A VXLAN frame that arrives CHECKSUM_PARTIAL (from a local sender over a
// veth, the outer UDP checksum still to be filled in at csum_start 34):
// pulling the outer UDP and VXLAN headers leaves the checksum start behind
// skb->data.
//
// Source: include/linux/skbuff.h skb_postpull_rcsum (torvalds/linux
// 31b33dfb0a14, v4.7): "else if (skb->ip_summed == CHECKSUM_PARTIAL &&
// skb_checksum_start_offset(skb) < 0) skb->ip_summed = CHECKSUM_NONE;",
// reached from __iptunnel_pull_header's skb_pull_rcsum in vxlan_rcv; before
// v4.7 the skb stayed PARTIAL. The UDP socket takes a PARTIAL skb as
// verified (skb_csum_unnecessary), so both are delivered.
#include <gtest/gtest.h>

#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/vxlan.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;

TEST(KernelVxlanRcvPartial, PulledChecksumStartTurnsTheSkbNoneSinceV47) {
  VxlanConfig tx;
  tx.name = "vx0";
  tx.vni = 42;
  tx.dstport = 4789;
  tx.local = {10, 1, 0, 1};
  tx.remote = {10, 1, 0, 2};
  tx.udp_csum = false;
  SkBuff in;
  in.pkt = Packet(Ipv4Frame(17, "1f900035000c000000010203"));
  VxlanXmitResult x = VxlanXmit(in, tx, UnderlayRoute{});
  ASSERT_TRUE(x.sent) << x.reason;
  VxlanConfig rx = tx;
  rx.mac = {0x02, 0, 0, 0, 0x01, 0x0b};
  rx.local = tx.remote;
  rx.remote = tx.local;
  SkBuff wire;
  wire.pkt = Packet(x.skb.pkt.bytes());
  wire.ip_summed = IpSummed::kPartial;
  wire.csum_start = 34;  // the outer UDP header
  wire.csum_offset = 6;
  VxlanRcvResult r = VxlanRcv(wire, rx, kLabKernel);
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);
  r = VxlanRcv(wire, rx, {4, 6});
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
}

}  // namespace
}  // namespace offlab::kernel
