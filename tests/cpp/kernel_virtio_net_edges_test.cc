// Edges of the virtio-net header <-> skb conversions (models/src/linux/
// virtio_net.cc): the dissection branch of __virtio_net_hdr_to_skb for UFO
// (either IP family, the IPv6 retry), a GSO header with no network header
// yet, a cut-short transport header, GSO_BY_FRAGS; skb_headlen of a
// page-frag skb for UDP, tunnel and short headers; the tunnel header's
// offsets when the skb has none. Rules: include/linux/virtio_net.h (v6.18)
// as cited by the model; lengths and offsets counted by hand.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/virtio_net.h"

namespace offlab::kernel {
namespace {

using offlab::testing::Ipv4Frame;
using offlab::testing::Ipv6Frame;

const std::string kTcp = "04d2005000000001000000005010ffff00000000";  // 20 bytes, doff 5

VnetHdr Hdr(uint8_t flags, uint8_t gso, uint16_t gso_size, uint16_t cs = 0, uint16_t co = 0) {
  VnetHdr h;
  h.flags = flags, h.gso_type = gso, h.gso_size = gso_size;
  h.csum_start = cs, h.csum_offset = co;
  return h;
}

// An skb as AF_PACKET hands it over: network header set at 14.
SkBuff Sent(const Bytes& f) {
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  return s;
}

// UDP header (8 bytes, 1234 -> 9000, length 8 + n, no checksum) and n
// bytes of 0x55.
std::string Udp(size_t n) {
  char h[24];
  std::snprintf(h, sizeof h, "04d22328%04zx0000", 8 + n);
  return h + std::string(2 * n, '5');
}

TEST(KernelVirtioNetEdges, UfoMatchesAnIpv6FrameAndIsDissected) {
  // virtio_net_hdr_match_proto: VIRTIO_NET_HDR_GSO_UDP matches ETH_P_IPV6
  // too; the dissection finds UDP at 14 + 40 = 54. UFO's gso_size may leave
  // out the UDP header: the skb is GSO when len - thoff (1062 - 54 = 1008)
  // is above gso_size.
  SkBuff s = Sent(Ipv6Frame(17, "", Udp(1000)));
  ASSERT_EQ(VirtioNetHdrToSkb(s, Hdr(0, VnetHdr::kGsoUdp, 1000), {0, true}), "");
  EXPECT_EQ(s.pkt.l4_ofs, 54);
  EXPECT_EQ(s.gso_type, gso::kUdp | gso::kDodgy);
  EXPECT_EQ(s.gso_size, 1000);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  // 1008 bytes from the UDP header with gso_size 1008: one segment, no GSO.
  SkBuff one = Sent(Ipv6Frame(17, "", Udp(1000)));
  ASSERT_EQ(VirtioNetHdrToSkb(one, Hdr(0, VnetHdr::kGsoUdp, 1008), {0, true}), "");
  EXPECT_FALSE(one.is_gso());
}

TEST(KernelVirtioNetEdges, UfoOverANonIpEthertypeIsRefused) {
  Bytes f = Ipv4Frame(17, Udp(1000));
  f[12] = 0x08, f[13] = 0x06;  // ARP
  SkBuff s = Sent(f);
  EXPECT_NE(VirtioNetHdrToSkb(s, Hdr(0, VnetHdr::kGsoUdp, 500), {0, true}), "");
  EXPECT_FALSE(s.is_gso());
}

TEST(KernelVirtioNetEdges, UfoWithoutAnEthertypeRetriesAsIpv6) {
  // virtio_net_hdr_set_proto makes a UFO skb IPv4; when that dissection
  // fails (an IPv6 header read as IPv4 has ihl 0) "UFO does not specify
  // ipv4 or 6: try both" retries with ETH_P_IPV6.
  Bytes f = Ipv6Frame(17, "", Udp(1000));
  f[12] = f[13] = 0;
  SkBuff s = Sent(f);
  ASSERT_EQ(VirtioNetHdrToSkb(s, Hdr(0, VnetHdr::kGsoUdp, 500), {0, true}), "");
  EXPECT_EQ(s.pkt.l4_ofs, 54);
  EXPECT_TRUE(s.is_gso());
  // TCPv4 gets no retry: the same bytes under a TCPv4 header are refused.
  Bytes t = Ipv6Frame(6, "", kTcp + std::string(2000, '0'));
  t[12] = t[13] = 0;
  SkBuff tcp = Sent(t);
  EXPECT_NE(VirtioNetHdrToSkb(tcp, Hdr(0, VnetHdr::kGsoTcpv4, 500), {0, true}), "");
}

TEST(KernelVirtioNetEdges, ADissectedTransportHeaderMustHoldAMinimalHeader) {
  // thoff 34 + sizeof(tcphdr) 20 = 54 > the 44-byte packet: -EINVAL, as is
  // a network header that cannot be dissected (ihl 4).
  SkBuff cut = Sent(Ipv4Frame(6, "04d20050000000010000"));
  EXPECT_NE(VirtioNetHdrToSkb(cut, Hdr(0, VnetHdr::kGsoTcpv4, 500), {0x0800, true}), "");
  Bytes f = Ipv4Frame(6, kTcp + std::string(2000, '0'));
  f[14] = 0x44;
  SkBuff ihl = Sent(f);
  EXPECT_NE(VirtioNetHdrToSkb(ihl, Hdr(0, VnetHdr::kGsoTcpv4, 500), {0x0800, true}), "");
}

TEST(KernelVirtioNetEdges, WithoutANetworkHeaderOnlyTheMinimalLengthIsChecked) {
  // The dissection needs skb_network_header_was_set: without it (TAP
  // before eth_type_trans) only nh_min_len + thlen is checked, so a TCPv4
  // header over a UDP packet passes and the transport header is not set.
  SkBuff s;
  s.pkt = Packet(Ipv4Frame(17, Udp(1000)));
  ASSERT_EQ(VirtioNetHdrToSkb(s, Hdr(0, VnetHdr::kGsoTcpv4, 500), {0x0800, true}), "");
  EXPECT_EQ(s.pkt.l4_ofs, kNoOffset);
  EXPECT_EQ(s.gso_type, gso::kTcpv4 | gso::kDodgy);
  // 20 + 20 = 40 bytes is the minimum: a 39-byte skb is refused.
  SkBuff tiny;
  tiny.pkt = Packet(Bytes(39, 0));
  EXPECT_NE(VirtioNetHdrToSkb(tiny, Hdr(0, VnetHdr::kGsoTcpv4, 5), {}), "");
  SkBuff forty;
  forty.pkt = Packet(Bytes(40, 0));
  EXPECT_EQ(VirtioNetHdrToSkb(forty, Hdr(0, VnetHdr::kGsoTcpv4, 5), {}), "");
}

TEST(KernelVirtioNetEdges, GsoByFragsIsRefused) {
  // __virtio_net_hdr_to_skb: "if (gso_size == GSO_BY_FRAGS) return
  // -EINVAL" -- 0xfffe is an ordinary (large) size.
  const Bytes f = Ipv4Frame(6, kTcp + std::string(2000, '0'));
  SkBuff s = Sent(f);
  EXPECT_NE(VirtioNetHdrToSkb(s, Hdr(1, VnetHdr::kGsoTcpv4, kGsoByFrags, 34, 16)), "");
  SkBuff ok = Sent(f);
  EXPECT_EQ(VirtioNetHdrToSkb(ok, Hdr(1, VnetHdr::kGsoTcpv4, 0xfffe, 34, 16)), "");
  EXPECT_FALSE(ok.is_gso());  // 1000 bytes of payload: one segment
}

// A page-frag GSO skb (nr_frags > 0): skb_headlen is the pulled headers.
SkBuff PageFragGso(const Bytes& f, uint32_t type, uint16_t l4) {
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = l4;
  s.ip_summed = IpSummed::kPartial, s.csum_start = l4;
  s.csum_offset = (type & gso::kUdpL4) ? 6 : 16;
  s.gso_size = 500, s.gso_type = type;
  s.nr_frags = 2;
  return s;
}

TEST(KernelVirtioNetEdges, HdrLenOfAPageFragSkb) {
  VnetHdr h;
  // USO: up to the end of the 8-byte UDP header, 34 + 8.
  ASSERT_EQ(VirtioNetHdrFromSkb(PageFragGso(Ipv4Frame(17, Udp(1000)), gso::kUdpL4, 34), true, &h),
            "");
  EXPECT_EQ(h.hdr_len, 42);
  EXPECT_EQ(h.gso_type, vnet::kGsoUdpL4);
  // TCP with data offset 8 (32-byte header): 34 + 32.
  Bytes opts = Ipv4Frame(6, "04d2005000000001000000008010ffff00000000" + std::string(24, '1') +
                                std::string(2000, '0'));
  ASSERT_EQ(VirtioNetHdrFromSkb(PageFragGso(opts, gso::kTcpv4, 34), true, &h), "");
  EXPECT_EQ(h.hdr_len, 66);
  // No transport header known, or one whose 20 bytes are not all there:
  // the whole length.
  SkBuff none = PageFragGso(opts, gso::kTcpv4, 34);
  none.pkt.l4_ofs = kNoOffset;
  ASSERT_EQ(VirtioNetHdrFromSkb(none, true, &h), "");
  EXPECT_EQ(h.hdr_len, opts.size());
  SkBuff late = PageFragGso(opts, gso::kTcpv4, static_cast<uint16_t>(opts.size() - 19));
  ASSERT_EQ(VirtioNetHdrFromSkb(late, true, &h), "");
  EXPECT_EQ(h.hdr_len, opts.size());
}

TEST(KernelVirtioNetEdges, HdrLenOfAnEncapsulatedPageFragSkbEndsAtTheInnerTcpHeader) {
  // Outer IPv4 (14) + UDP (34) + VXLAN (42) + inner Ethernet (50) + inner
  // IPv4 (64) + inner TCP at 84: the headers end at 84 + 20 = 104, not at
  // the outer UDP header's 42.
  Bytes inner = Ipv4Frame(6, kTcp + std::string(2000, '0'));
  Bytes f = Ipv4Frame(17, "12b512b5" + std::string(8, '0') + "0800000000002a00");
  f.insert(f.end(), inner.begin(), inner.end());
  SkBuff s = PageFragGso(f, gso::kTcpv4 | gso::kUdpTunnel, 34);
  s.encapsulation = true;
  s.pkt.inner_l3_ofs = 64, s.pkt.inner_l4_ofs = 84;
  s.csum_start = 84, s.csum_offset = 16;
  VnetHdrTunnel t;
  ASSERT_EQ(VirtioNetHdrTnlFromSkb(s, true, true, &t), "");
  EXPECT_EQ(t.hdr.hdr_len, 104);
  EXPECT_EQ(t.hdr.gso_type, vnet::kGsoUdpTunnelIpv4 | VnetHdr::kGsoTcpv4);
  EXPECT_EQ(t.inner_nh_offset, 64);
  EXPECT_EQ(t.outer_th_offset, 34);
  // Offsets the skb does not have are written as 0.
  s.pkt.inner_l3_ofs = kNoOffset, s.pkt.l4_ofs = kNoOffset;
  ASSERT_EQ(VirtioNetHdrTnlFromSkb(s, true, true, &t), "");
  EXPECT_EQ(t.inner_nh_offset, 0);
  EXPECT_EQ(t.outer_th_offset, 0);
}

TEST(KernelVirtioNetEdges, HdrLenOfAChainLongerThanTheSkbIsTheWholeLength) {
  // A frag_list that claims every byte (or more) leaves no first frame to
  // measure: the model answers skb->len rather than a wrapped length.
  SkBuff s = PageFragGso(Ipv4Frame(6, kTcp + std::string(2000, '0')), gso::kTcpv4, 34);
  s.nr_frags = 0;
  s.frag_list_lens = {static_cast<uint32_t>(s.len())};
  VnetHdr h;
  ASSERT_EQ(VirtioNetHdrFromSkb(s, true, &h), "");
  EXPECT_EQ(h.hdr_len, s.len());
  s.frag_list_lens = {static_cast<uint32_t>(s.len() - 1)};
  ASSERT_EQ(VirtioNetHdrFromSkb(s, true, &h), "");
  EXPECT_EQ(h.hdr_len, 1);
}

}  // namespace
}  // namespace offlab::kernel
