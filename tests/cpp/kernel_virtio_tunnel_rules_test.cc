// virtio_net_hdr_tnl_to_skb / virtio_net_hdr_tnl_from_skb rules the other
// virtio tests leave out: each offset bound at its edge for either outer and
// inner family, a tunnel header with no inner type or without NEEDS_CSUM,
// the inner rules' refusal handed back unchanged, and the outer family and
// tunnel-checksum flag written back into a header.
//
// Source: torvalds/linux v6.18 (v6.18.19 line numbers)
// include/linux/virtio_net.h. virtio_net_hdr_tnl_to_skb: (:284-288) an
// inner type (gso_type without ECN and tunnel bits) of none or UDP is
// -EINVAL; (:290-292) no VIRTIO_NET_HDR_F_NEEDS_CSUM is -EINVAL; (:295-306)
// outer_th < ETH_HLEN + sizeof(iphdr) (sizeof(ipv6hdr) for
// GSO_UDP_TUNNEL_IPV6), inner_nh < outer_th + sizeof(udphdr), or
// inner_th (csum_start) < inner_nh + sizeof(iphdr) (ipv6hdr for an inner
// TCPV6) is -EINVAL; (:308-312) __virtio_net_hdr_to_skb runs on the gso
// type without the tunnel bits and its error is returned.
// virtio_net_hdr_tnl_from_skb: (:410-415) the inner header through
// virtio_net_hdr_from_skb, whose error is returned, never DATA_VALID;
// (:417-420) skb->protocol ETH_P_IPV6 gives GSO_UDP_TUNNEL_IPV6, else
// _IPV4; (:422-423) SKB_GSO_UDP_TUNNEL_CSUM sets F_UDP_TUNNEL_CSUM.
// With NEEDS_CSUM the to_skb side reads offsets only, so the frames here
// are filler of the right length (the from_skb side reads the ethertype).
#include <gtest/gtest.h>

#include "offlab/linux/virtio_net.h"

namespace offlab::kernel {
namespace {

constexpr uint8_t kTnl4 = vnet::kGsoUdpTunnelIpv4;
constexpr uint8_t kTnl6 = vnet::kGsoUdpTunnelIpv6;

// NEEDS_CSUM, TCP check at csum_start + 16, gso_size 1000.
VnetHdrTunnel Tnl(uint8_t gso, uint16_t outer_th, uint16_t inner_nh, uint16_t inner_th) {
  VnetHdrTunnel t;
  t.hdr.flags = VnetHdr::kNeedsCsum;
  t.hdr.gso_type = gso;
  t.hdr.gso_size = 1000;
  t.hdr.csum_start = inner_th;
  t.hdr.csum_offset = 16;
  t.outer_th_offset = outer_th;
  t.inner_nh_offset = inner_nh;
  return t;
}

// 4000 bytes: longer than one segment after any of the offsets used here.
std::string ToSkb(const VnetHdrTunnel& t, SkBuff* s = nullptr) {
  SkBuff local;
  SkBuff& skb = s ? *s : local;
  skb.pkt = Packet(Bytes(4000, 'x'));
  return VirtioNetHdrTnlToSkb(skb, t, true, true);
}

const char* const kOrder = "tunnel offsets out of order";

TEST(KernelVirtioTunnelRules, OuterTransportOffsetLeavesRoomForTheOuterFamily) {
  // IPv4 outer: ETH_HLEN + 20 = 34 is the least outer_th.
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 64, 84)), "");
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 33, 64, 84)), kOrder);
  // IPv6 outer: ETH_HLEN + 40 = 54; 34 is no longer enough.
  EXPECT_EQ(ToSkb(Tnl(kTnl6 | VnetHdr::kGsoTcpv4, 54, 84, 104)), "");
  EXPECT_EQ(ToSkb(Tnl(kTnl6 | VnetHdr::kGsoTcpv4, 53, 84, 104)), kOrder);
  EXPECT_EQ(ToSkb(Tnl(kTnl6 | VnetHdr::kGsoTcpv4, 34, 84, 104)), kOrder);
}

TEST(KernelVirtioTunnelRules, InnerNetworkHeaderStartsAfterTheOuterUdpHeader) {
  // inner_nh = outer_th + 8 is allowed (no VXLAN header, no inner MAC).
  SkBuff s;
  ASSERT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 42, 62), &s), "");
  EXPECT_EQ(s.pkt.l4_ofs, 34);
  EXPECT_EQ(s.pkt.inner_l3_ofs, 42);
  EXPECT_EQ(s.pkt.inner_l4_ofs, 62);
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 41, 62)), kOrder);
}

TEST(KernelVirtioTunnelRules, InnerTransportHeaderLeavesRoomForTheInnerFamily) {
  // Inner TCPV4: inner_nh + 20; inner TCPV6: inner_nh + 40.
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 64, 83)), kOrder);
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv6, 34, 64, 84)), kOrder);
  EXPECT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv6, 34, 64, 103)), kOrder);
  SkBuff s;
  ASSERT_EQ(ToSkb(Tnl(kTnl4 | VnetHdr::kGsoTcpv6, 34, 64, 104), &s), "");
  EXPECT_EQ(s.gso_type, gso::kTcpv6 | gso::kDodgy | gso::kUdpTunnel);
}

TEST(KernelVirtioTunnelRules, ATunnelBitAloneOrWithoutNeedsCsumIsRefused) {
  const char* const no_inner = "tunnel GSO without an inner TCP/USO type";
  EXPECT_EQ(ToSkb(Tnl(kTnl4, 34, 64, 84)), no_inner);
  // ECN is masked off before the inner type is looked at.
  EXPECT_EQ(ToSkb(Tnl(kTnl6 | VnetHdr::kGsoEcn, 54, 84, 104)), no_inner);
  VnetHdrTunnel t = Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 64, 84);
  t.hdr.flags = 0;
  SkBuff s;
  EXPECT_EQ(ToSkb(t, &s), "tunnel GSO without NEEDS_CSUM");
  EXPECT_FALSE(s.is_gso());
}

TEST(KernelVirtioTunnelRules, TheInnerRulesRefusalIsReturnedAsIs) {
  // TCPV4 with the checksum at +6 (UDP's): __virtio_net_hdr_to_skb's
  // csum_offset check for TSO refuses it, and no tunnel state is set.
  VnetHdrTunnel t = Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 64, 84);
  t.hdr.csum_offset = 6;
  SkBuff s;
  EXPECT_EQ(ToSkb(t, &s), "TSO csum_offset is not the TCP check");
  EXPECT_FALSE(s.encapsulation);
  EXPECT_FALSE(s.gso_type & (gso::kUdpTunnel | gso::kUdpTunnelCsum));
  // gso_size 0: the inner rules see the type without its tunnel bit (0x1).
  t = Tnl(kTnl4 | VnetHdr::kGsoTcpv4, 34, 64, 84);
  t.hdr.gso_size = 0;
  EXPECT_EQ(ToSkb(t), "gso_size 0 with gso_type 0x1");
}

// A TSO skb inside a UDP tunnel whose outer ethertype is `et`.
SkBuff TunnelGsoSkb(uint16_t et, uint32_t tnl_gso) {
  SkBuff s;
  Bytes f(4000, 'x');
  f[12] = static_cast<uint8_t>(et >> 8), f[13] = static_cast<uint8_t>(et);
  s.pkt = Packet(f);
  s.pkt.l4_ofs = 54;
  s.pkt.inner_l3_ofs = 84;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 104, s.csum_offset = 16;
  s.gso_size = 1000, s.gso_type = gso::kTcpv4 | tnl_gso;
  s.encapsulation = true;
  return s;
}

TEST(KernelVirtioTunnelRules, FromSkbNamesTheOuterFamilyAndTheTunnelChecksum) {
  VnetHdrTunnel h;
  ASSERT_EQ(VirtioNetHdrTnlFromSkb(TunnelGsoSkb(0x86dd, gso::kUdpTunnelCsum), true, true, &h), "");
  EXPECT_EQ(h.hdr.gso_type, VnetHdr::kGsoTcpv4 | kTnl6);
  EXPECT_EQ(h.hdr.flags, VnetHdr::kNeedsCsum | vnet::kFlagUdpTunnelCsum);
  EXPECT_EQ(h.outer_th_offset, 54);
  EXPECT_EQ(h.inner_nh_offset, 84);
  ASSERT_EQ(VirtioNetHdrTnlFromSkb(TunnelGsoSkb(0x0800, gso::kUdpTunnel), true, true, &h), "");
  EXPECT_EQ(h.hdr.gso_type, VnetHdr::kGsoTcpv4 | kTnl4);
  EXPECT_EQ(h.hdr.flags, VnetHdr::kNeedsCsum);
}

TEST(KernelVirtioTunnelRules, FromSkbNeverSaysDataValidForATunnel) {
  // CHECKSUM_UNNECESSARY would be DATA_VALID on the plain path; the tunnel
  // path asks virtio_net_hdr_from_skb with has_data_valid false.
  SkBuff s = TunnelGsoSkb(0x0800, gso::kUdpTunnel);
  s.ip_summed = IpSummed::kUnnecessary;
  VnetHdrTunnel h;
  ASSERT_EQ(VirtioNetHdrTnlFromSkb(s, true, true, &h), "");
  EXPECT_EQ(h.hdr.flags, 0);
}

TEST(KernelVirtioTunnelRules, FromSkbHandsBackTheInnerTypesRefusal) {
  // UFO in a tunnel: virtio_net_hdr_from_skb has no header type for it.
  SkBuff s = TunnelGsoSkb(0x0800, gso::kUdpTunnel);
  s.gso_type = gso::kUdp | gso::kUdpTunnel;
  VnetHdrTunnel h;
  EXPECT_NE(VirtioNetHdrTnlFromSkb(s, true, true, &h), "");
  EXPECT_EQ(h.hdr.gso_type & (kTnl4 | kTnl6), 0);
}

}  // namespace
}  // namespace offlab::kernel
