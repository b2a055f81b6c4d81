// Kernel version gates of the UDP tunnels (udp_tunnel.cc, vxlan.h,
// vxlan_xmit.cc, vxlan_rcv.cc): each checked at exactly the release that
// brought the change and at the release before it.
//  - 4.0: VXLAN remote checksum offload (RCO) on transmit and receive;
//  - 4.1: skb_remcsum_process may leave the inner skb CHECKSUM_PARTIAL
//    ("net: Infrastructure for CHECKSUM_PARTIAL with remote checksum
//    offload"); 4.0 resolves it at once;
//  - 4.6: local checksum offload (LCO): iptunnel_handle_offloads keeps an
//    inner PARTIAL, udp_set_csum leaves the outer checksum PARTIAL, and
//    VXLAN sends outer IPv4 UDP checksums by default;
//  - 5.7: b723748750ec "tunnel: Propagate ECT(1) when decapsulating as
//    recommended by RFC6040" ([PATCH net], 27 Apr 2020; in 5.4.41);
//  - 6.14: vxlan_rcv counts a reserved-flag header as rx_frame_errors.
// Expected bytes and sums come from the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "kernel_test_skb.h"
#include "kernel_vxlan_pair.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleSum;
using testing::Put16;

KernelVersion V(int maj, int min) { return KernelVersion{maj, min, false}; }

using vxlan_pair::Inner4;
using vxlan_pair::kUdp;
using vxlan_pair::Rx;
using vxlan_pair::Tx;

// The inner UDP datagram as the local stack hands it down: CHECKSUM_PARTIAL
// at the UDP checksum field.
SkBuff PartialInner() {
  SkBuff in;
  in.pkt = Packet(Inner4(0));
  in.pkt.l3_ofs = 14;
  in.pkt.l4_ofs = 34;
  in.ip_summed = IpSummed::kPartial;
  in.csum_start = 34;
  in.csum_offset = 6;
  return in;
}

SkBuff FromBytes(const Bytes& b) {
  SkBuff s;
  s.pkt = Packet(b);
  return s;
}

// `inner` sent by a lab-kernel VXLAN device, with outer TOS `tos`.
SkBuff Wire(const Bytes& inner, uint8_t tos) {
  VxlanXmitResult x = VxlanXmit(FromBytes(inner), Tx(), UnderlayRoute{});
  EXPECT_TRUE(x.sent) << x.reason;
  Bytes b = x.skb.pkt.bytes();
  b[15] = tos;
  Put16(b, 24, 0);
  Put16(b, 24, static_cast<uint16_t>(~OracleSum(&b[14], 20)));
  Put16(b, 40, 0);  // no outer UDP checksum
  return FromBytes(b);
}

TEST(KernelVersionGatesTunnel, HandleOffloadsKeepsInnerPartialFrom46) {
  auto after = [](KernelVersion kv) {
    SkBuff s = PartialInner();
    IptunnelHandleOffloads(s, gso::kUdpTunnelCsum, true, kv);
    return s;
  };
  const SkBuff old = after(V(4, 5)), now = after(V(4, 6));
  EXPECT_EQ(old.ip_summed, IpSummed::kNone);
  EXPECT_FALSE(old.encapsulation);
  EXPECT_EQ(now.ip_summed, IpSummed::kPartial);
  EXPECT_TRUE(now.encapsulation);
}

TEST(KernelVersionGatesTunnel, UdpSetCsumLeavesOuterPartialFrom46) {
  // A CHECKSUM_NONE packet behind a UDP header, no device checksum
  // feature: 4.5 sums it in software, 4.6 leaves it to LCO/the stack.
  const std::array<uint8_t, 4> src{10, 1, 0, 1}, dst{10, 1, 0, 2};
  auto after = [&](KernelVersion kv) {
    SkBuff s = FromBytes(Bytes{0x9c, 0x40, 0x12, 0xb5, 0, 12, 0, 0, 1, 2, 3, 4});
    s.pkt.l4_ofs = 0;
    UdpSetCsum(s, false, src.data(), dst.data(), false, 0, kv);
    return s;
  };
  EXPECT_EQ(after(V(4, 5)).ip_summed, IpSummed::kUnnecessary);
  const SkBuff now = after(V(4, 6));
  EXPECT_EQ(now.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(now.csum_start, 0);
  EXPECT_EQ(now.csum_offset, 6);
}

TEST(KernelVersionGatesTunnel, VxlanUdpChecksumByDefaultFrom46) {
  VxlanConfig c;
  EXPECT_FALSE(c.UdpCsumTx(V(4, 5)));
  EXPECT_TRUE(c.UdpCsumTx(V(4, 6)));
}

TEST(KernelVersionGatesTunnel, VxlanRcoTransmitFrom40) {
  VxlanConfig c = Tx();
  c.remcsum_tx = true;
  auto rco_flag = [&](KernelVersion kv) {
    VxlanXmitResult x = VxlanXmit(PartialInner(), c, UnderlayRoute{}, kv);
    EXPECT_TRUE(x.sent) << x.reason;
    return (x.skb.pkt.bytes().at(43) & 0x20) != 0;  // VXLAN_HF_RCO
  };
  EXPECT_FALSE(rco_flag(V(3, 19)));
  EXPECT_TRUE(rco_flag(V(4, 0)));
}

TEST(KernelVersionGatesTunnel, VxlanRcoReceiveFrom40PartialFrom41) {
  VxlanConfig tx = Tx();
  tx.remcsum_tx = true;
  VxlanXmitResult x = VxlanXmit(PartialInner(), tx, UnderlayRoute{}, V(4, 0));
  ASSERT_TRUE(x.sent) << x.reason;
  ASSERT_TRUE(x.skb.pkt.bytes().at(43) & 0x20);
  VxlanConfig rx = Rx();
  rx.remcsum_rx = true;
  // 3.19 knows no RCO flag: an invalid header.
  VxlanRcvResult r = VxlanRcv(FromBytes(x.skb.pkt.bytes()), rx, V(3, 19));
  EXPECT_FALSE(r.delivered);
  EXPECT_EQ(r.reason, "VXLAN_INVALID_HDR");
  // 4.0 resolves the inner checksum at once; 4.1 leaves it PARTIAL.
  r = VxlanRcv(FromBytes(x.skb.pkt.bytes()), rx, V(4, 0));
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_NE(r.skb.ip_summed, IpSummed::kPartial);
  r = VxlanRcv(FromBytes(x.skb.pkt.bytes()), rx, V(4, 1));
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kPartial);
}

TEST(KernelVersionGatesTunnel, VxlanEct1PropagatedFrom57) {
  const SkBuff wire = Wire(Inner4(0x02), 0x01);
  VxlanRcvResult r = VxlanRcv(wire, Rx(), V(5, 6));
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(0x02)));
  r = VxlanRcv(wire, Rx(), V(5, 7));
  ASSERT_TRUE(r.delivered) << r.reason;
  EXPECT_EQ(ToHex(r.skb.pkt.bytes()), ToHex(Inner4(0x01)));
}

TEST(KernelVersionGatesTunnel, VxlanReservedFlagIsAFrameErrorFrom614) {
  Bytes b = Wire(Inner4(0), 0).pkt.bytes();
  b[45] = 0x01;  // a reserved bit of the VXLAN flags word (no UDP checksum)
  for (int minor : {13, 14}) {
    Counters c;
    VxlanRcvResult r = VxlanRcv(FromBytes(b), Rx(), V(6, minor), &c);
    EXPECT_FALSE(r.delivered);
    EXPECT_EQ(r.reason, "VXLAN_INVALID_HDR");
    EXPECT_EQ(c.Get("vx0:rx_frame_errors"), minor == 14 ? 1u : 0u) << minor;
  }
}

}  // namespace
}  // namespace offlab::kernel
