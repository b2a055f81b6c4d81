// The parts of virtio_net_hdr_to_skb / _tnl_to_skb / _from_skb that read
// the IP version: the header's GSO type against the frame's ethertype, the
// UFO retry as IPv6, the inner IP version of a tunnelled USO packet, and
// TCPv6 GSO back into a header.
//
// Source: torvalds/linux v6.18 (v6.18.19 line numbers) include/linux/virtio_net.h:
// virtio_net_hdr_match_proto (:12-26) TCPV4 only for ETH_P_IP; the
// dissection retry (:135-140) "UFO does not specify ipv4 or 6: try both";
// virtio_net_hdr_tnl_to_skb (:284-288) an inner type of none or UDP (UFO) is
// -EINVAL, (:314-326) for UDP_L4 the inner version nibble decides the
// minimal inner network header (sizeof(struct ipv6hdr) or iphdr) the inner
// transport offset must leave room for; virtio_net_hdr_from_skb
// (:221-235) SKB_GSO_TCPV6 -> VIRTIO_NET_HDR_GSO_TCPV6.
// Frames are laid out by hand; checksums do not matter to these checks.
#include <gtest/gtest.h>

#include "offlab/linux/virtio_net.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;

VnetHdr Hdr(uint8_t flags, uint8_t gso, uint16_t gso_size, uint16_t cs, uint16_t co) {
  VnetHdr h;
  h.flags = flags, h.gso_type = gso, h.gso_size = gso_size;
  h.csum_start = cs, h.csum_offset = co;
  return h;
}

SkBuff Skb(const Bytes& b, bool nh = false) {
  SkBuff s;
  s.pkt = Packet(b);
  if (nh) s.pkt.l3_ofs = 14;
  return s;
}

// Ethernet type `et`, IPv4 / TCP, 3000 payload bytes.
Bytes Tcp4(const std::string& et) {
  Bytes f = FromHex(H("020202020202 040404040404" + et +
                      "45000bcc 00010000 4006 0000 0a000001 0a000002"
                      "04d20050 00000001 00000000 5010 03e8 0000 0000"));
  f.resize(f.size() + 3000, 'x');
  return f;
}

// Ethernet type `et`, IPv6 next header `nh` with 3008 payload bytes: an
// 8-byte UDP header (or TCP-like filler) and 3000 bytes.
Bytes Ip6(const std::string& et, const std::string& nh) {
  Bytes f = FromHex(H("020202020202 040404040404" + et + "60000000 0bc0" + nh +
                      "40 20010db8000000000000000000000001 20010db8000000000000000000000002"
                      "d4781451 0bc0 0000"));
  f.resize(f.size() + 3000, 'x');
  return f;
}

TEST(KernelVirtioHdrProto, Tcpv4GsoTypeMatchesOnlyAnIpv4Ethertype) {
  // No NEEDS_CSUM, network header set, protocol from the frame.
  SkBuff v4 = Skb(Tcp4("0800"), true);
  ASSERT_EQ(VirtioNetHdrToSkb(v4, Hdr(0, VnetHdr::kGsoTcpv4, 1000, 0, 0), {0, true}), "");
  EXPECT_EQ(v4.pkt.l4_ofs, 34);
  EXPECT_EQ(v4.gso_type, gso::kTcpv4 | gso::kDodgy);
  // The same header over an IPv6 ethertype: match_proto false, -EINVAL.
  SkBuff v6 = Skb(Ip6("86dd", "06"), true);
  EXPECT_NE(VirtioNetHdrToSkb(v6, Hdr(0, VnetHdr::kGsoTcpv4, 1000, 0, 0), {0, true}), "");
  EXPECT_FALSE(v6.is_gso());
}

TEST(KernelVirtioHdrProto, UfoWithoutAnEthertypeIsRetriedAsIpv6) {
  // Type 0: virtio_net_hdr_set_proto takes ETH_P_IP for UFO; the IPv6
  // header does not dissect as IPv4, so the retry as ETH_P_IPV6 finds the
  // UDP header after the 40-byte IPv6 header.
  SkBuff s = Skb(Ip6("0000", "11"), true);
  ASSERT_EQ(VirtioNetHdrToSkb(s, Hdr(0, VnetHdr::kGsoUdp, 1000, 0, 0), {0, true}), "");
  EXPECT_EQ(s.pkt.l4_ofs, 54);
  EXPECT_EQ(s.gso_type, gso::kUdp | gso::kDodgy);
}

// Outer Ethernet/IPv4/UDP/VXLAN and the inner Ethernet header, then
// `inner_l3` from byte 64 (the inner network header).
Bytes Tunnel(const Bytes& inner_l3) {
  Bytes f =
      FromHex(H("020202020202 040404040404 0800"
                "45000000 00010000 4011 0000 0a000101 0a000102"
                "c0de12b5 0000 0000 08000000 00002a00 020202020202 040404040404 0800"));
  f.insert(f.end(), inner_l3.begin(), inner_l3.end());
  return f;
}

TEST(KernelVirtioHdrProto, TunnelledUsoReadsTheInnerIpVersion) {
  // Inner IPv4 (20 bytes) then UDP at 84: room enough.
  Bytes in4 = FromHex(H("45000bd4 00010000 4011 0000 0a000001 0a000002 d4781451 0bc0 0000"));
  in4.resize(in4.size() + 3000, 'x');
  VnetHdrTunnel t{Hdr(VnetHdr::kNeedsCsum, vnet::kGsoUdpTunnelIpv4 | vnet::kGsoUdpL4, 1000, 84, 6),
                  34, 64};
  SkBuff s = Skb(Tunnel(in4));
  ASSERT_EQ(VirtioNetHdrTnlToSkb(s, t, true, true), "");
  EXPECT_EQ(s.gso_type, gso::kUdpL4 | gso::kDodgy | gso::kUdpTunnel);
  EXPECT_EQ(s.pkt.inner_l4_ofs, 84);
  EXPECT_TRUE(s.encapsulation);
  // The same offsets over an inner IPv6 header: 84 < 64 + 40, -EINVAL.
  Bytes in6 = in4;
  in6[0] = 0x60;
  SkBuff v6 = Skb(Tunnel(in6));
  EXPECT_NE(VirtioNetHdrTnlToSkb(v6, t, true, true), "");
  EXPECT_FALSE(v6.encapsulation);
  // ... and with the inner UDP header after the 40 bytes it is accepted.
  VnetHdrTunnel t6 = t;
  t6.hdr.csum_start = 104;
  SkBuff ok6 = Skb(Tunnel(in6));
  ASSERT_EQ(VirtioNetHdrTnlToSkb(ok6, t6, true, true), "");
  EXPECT_EQ(ok6.pkt.inner_l4_ofs, 104);
}

TEST(KernelVirtioHdrProto, TunnelGsoCarryingUfoIsRefused) {
  Bytes in4 = FromHex(H("45000bd4 00010000 4011 0000 0a000001 0a000002 d4781451 0bc0 0000"));
  in4.resize(in4.size() + 3000, 'x');
  VnetHdrTunnel t{Hdr(VnetHdr::kNeedsCsum, vnet::kGsoUdpTunnelIpv4 | VnetHdr::kGsoUdp, 1000, 84, 6),
                  34, 64};
  SkBuff s = Skb(Tunnel(in4));
  EXPECT_EQ(VirtioNetHdrTnlToSkb(s, t, true, true), "tunnel GSO without an inner TCP/USO type");
  EXPECT_FALSE(s.is_gso());
}

TEST(KernelVirtioHdrProto, Tcpv6GsoBecomesTheTcpv6HeaderType) {
  SkBuff s = Skb(Ip6("86dd", "06"));
  s.ip_summed = IpSummed::kPartial, s.csum_start = 54, s.csum_offset = 16;
  s.gso_size = 1000, s.gso_type = gso::kTcpv6;
  VnetHdr h;
  ASSERT_EQ(VirtioNetHdrFromSkb(s, true, &h), "");
  EXPECT_EQ(h.gso_type, VnetHdr::kGsoTcpv6);
  EXPECT_EQ(h.gso_size, 1000);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
}

}  // namespace
}  // namespace offlab::kernel
