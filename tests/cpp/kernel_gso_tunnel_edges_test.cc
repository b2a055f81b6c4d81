// Edges of UDP-tunnel software GSO (models/src/linux/gso_segment_tunnel.cc,
// __skb_udp_tunnel_segment): an skb with no inner MAC header (an
// IP-in-UDP encapsulation the model does not have), an inner MAC header
// inside the UDP header or past the end, and an outer UDP checksum that
// comes out 0 in software (CSUM_MANGLED_0). Checksums by test_util.h's
// plain-loop oracle.
//
// Source: torvalds/linux 7d0a66e4bb90 (v6.18) net/ipv4/udp_offload.c
// skb_udp_tunnel_segment (ENCAP_TYPE_ETHER needs the inner MAC header),
// __skb_udp_tunnel_segment ("tnl_hlen = skb_inner_mac_header(skb) -
// skb_transport_header(skb); if (unlikely(!pskb_may_pull(skb, tnl_hlen)))
// goto out;" with segs = ERR_PTR(-EINVAL); "uh->check = gso_make_checksum
// (skb, ~uh->check); if (uh->check == 0) uh->check = CSUM_MANGLED_0").
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/gso_segment.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::OracleL4Ok;
using testing::OraclePseudo;
using testing::OracleSum;
using testing::Put16;

DeviceFeatures Dev(uint64_t f) { return DeviceFeatures{f, 0, 65536, 65535, 1500}; }

// Outer Ethernet/IPv4/UDP 4789/VXLAN + inner Ethernet/IPv4/TCP with
// `payload` bytes, as a PARTIAL UDP_TUNNEL_CSUM TSO skb of MSS 1000: inner
// MAC at 50, inner IPv4 at 64, inner TCP at 84.
SkBuff VxlanTso(size_t payload, uint16_t vni_hi = 0) {
  Bytes inner =
      Ipv4Frame(6, "d478145100000001000000005010010000000000" + std::string(2 * payload, 'c'));
  size_t len = 0;
  Put16(inner, 50, static_cast<uint16_t>(OraclePseudo(inner, 14, 34, 6, &len)));
  Bytes f = Ipv4Frame(17, "c00012b5000000000800000000000000");
  f.insert(f.end(), inner.begin(), inner.end());
  Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  Put16(f, 24, 0);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 38, static_cast<uint16_t>(f.size() - 34));
  Put16(f, 46, vni_hi);
  // The outer UDP field: the pseudo-header sum for the whole length, as
  // udp_set_csum leaves a GSO skb.
  Put16(f, 40, static_cast<uint16_t>(OraclePseudo(f, 14, 34, 17, &len)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14, s.pkt.l4_ofs = 34;
  s.pkt.inner_l2_ofs = 50, s.pkt.inner_l3_ofs = 64, s.pkt.inner_l4_ofs = 84;
  s.encapsulation = true;
  s.ip_summed = IpSummed::kPartial, s.csum_start = 84, s.csum_offset = 16;
  s.gso_size = 1000;
  s.gso_type = gso::kTcpv4 | gso::kUdpTunnelCsum;
  s.gso_segs = static_cast<uint16_t>((payload + 999) / 1000);
  return s;
}

GsoResult Segment(const SkBuff& s, Counters* c) {
  return SkbGsoSegment(s, netif::kSg, Dev(netif::kSg), XmitOptions{}, kLabKernel, c);
}

TEST(KernelGsoTunnelEdges, NoInnerMacHeaderIsNotModelled) {
  // An inner network header with no inner MAC header before it is
  // ENCAP_TYPE_IPPROTO (FOU/GUE): not modelled, -EPROTONOSUPPORT.
  for (uint16_t l2 : {kNoOffset, uint16_t{64}}) {
    SkBuff s = VxlanTso(3000);
    s.pkt.inner_l2_ofs = l2;
    Counters c;
    const GsoResult r = Segment(s, &c);
    EXPECT_EQ(r.err, gso_err::kProtoNoSupport) << l2;
    EXPECT_EQ(c.Get("gso_not_modelled"), 1u) << l2;
  }
}

TEST(KernelGsoTunnelEdges, AnInnerMacHeaderOutsideTheTunnelIsInvalid) {
  // Inside the 8-byte UDP header (tunnel header length negative), or past
  // the end of the packet.
  for (uint16_t l2 : {uint16_t{38}, uint16_t{40}}) {
    SkBuff s = VxlanTso(3000);
    s.pkt.inner_l2_ofs = l2;
    Counters c;
    EXPECT_EQ(Segment(s, &c).err, gso_err::kInval) << l2;
    EXPECT_EQ(c.Get("gso_error"), 1u);
  }
  SkBuff far = VxlanTso(3000);
  far.pkt.inner_l3_ofs = static_cast<uint16_t>(far.len() + 20);
  far.pkt.inner_l2_ofs = static_cast<uint16_t>(far.len() + 6);
  Counters c;
  EXPECT_EQ(Segment(far, &c).err, gso_err::kInval);
}

TEST(KernelGsoTunnelEdges, AnOuterChecksumOfZeroIsMangled) {
  // Device without checksum offload: inner and outer checksums in
  // software. Segment 0's outer UDP sum moves by the VNI's top two bytes
  // alone (outside the inner TCP checksum): make it 0xffff so the checksum
  // computes to 0, sent as 0xffff (RFC 768).
  Counters c;
  GsoResult probe = Segment(VxlanTso(3000), &c);
  ASSERT_EQ(probe.err, 0);
  Bytes w = probe.segs.at(0).pkt.bytes();
  ASSERT_TRUE(OracleL4Ok(w, 14, 34, 17));
  Put16(w, 40, 0);
  size_t len = 0;
  const uint32_t s = OracleSum(&w[34], w.size() - 34, OraclePseudo(w, 14, 34, 17, &len));
  const GsoResult r = Segment(VxlanTso(3000, static_cast<uint16_t>(~s)), &c);
  ASSERT_EQ(r.err, 0);
  const Bytes& z = r.segs.at(0).pkt.bytes();
  EXPECT_EQ(Be16(z, 40), 0xffff);
  EXPECT_TRUE(OracleL4Ok(z, 14, 34, 17));
  EXPECT_TRUE(OracleL4Ok(z, 64, 84, 6));
}

}  // namespace
}  // namespace offlab::kernel
