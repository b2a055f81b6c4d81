// SPDX-License-Identifier: Apache-2.0
//
// PopHeader and the tunnel recognisers (models/src/ovs/tunnel.cc) on outer
// headers that are not a tunnel OVS decapsulates or are cut short. OVS v3.1.0
// lib/netdev-native-tnl.c: parse_gre_header (360-416) refuses a GRE header
// whose C/K/S words run past the packet (gre_header_len: 4 bytes plus 4 for
// each of C, K, S) and one whose checksum over the GRE header and payload is
// not 0 (RFC 2784 section 2.1); netdev_vxlan_pop_header and
// netdev_geneve_pop_header refuse fewer than VXLAN_HLEN / GENEVE_BASE_HLEN
// bytes; the offlab port is an Ethernet port, so a GRE payload other than
// ETH_TYPE_TEB (0x6558) is refused too (a layer-3 packet type). Every refusal
// is a drop counted as datapath_drop_tunnel_pop_error (lib/dpif-netdev.c).
// A bad outer checksum the NIC reported is a drop without a software check
// (native_tnl_l3csum_err / native_tnl_l4csum_err, netdev_tnl_ip_extract_tnl_md
// and udp_extract_tnl_md).
// Frames: Ether(src="aa:66:aa:66:00:00",dst="aa:66:aa:66:00:01")/
// IP(src="1.1.2.88",dst="1.1.2.92",flags="DF",ttl=64) built here, the IPv4
// header checksum from the plain oracle.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;

// The outer frame around `l4` (hex), then `pad` zero bytes of Ethernet
// padding outside the IP total length.
Packet Outer(uint8_t proto, const std::string& l4, size_t pad = 0) {
  Bytes f =
      FromHex(H("aa66aa660001aa66aa6600000800 45000000 0000 4000 40 00 0000"
                "010102580101025c" +
                l4));
  f[23] = proto;
  testing::Put16(f, 16, static_cast<uint16_t>(f.size() - 14));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(f.data() + 14, 20)));
  f.resize(f.size() + pad, 0);
  Packet p(f);
  Parse(p);
  return p;
}

struct Pop {
  bool ok;
  std::string why;
  uint64_t drops;
};

Pop PopOf(Packet& p) {
  Counters c;
  std::string why;
  const bool ok = PopHeader(p, &c, &why);
  return {ok, why, c.Get("datapath_drop_tunnel_pop_error")};
}

void ExpectRefused(Packet p, const std::string& why) {
  const Bytes before = p.bytes();
  const Pop r = PopOf(p);
  EXPECT_FALSE(r.ok) << why;
  EXPECT_EQ(r.why, why);
  EXPECT_EQ(r.drops, 1u) << why;
  EXPECT_EQ(p.bytes(), before) << why;
  EXPECT_FALSE(p.md.tunnel.present) << why;
}

const std::string kInner = testdata::kG;  // 118 bytes

TEST(TunnelPopEdges, NotATunnel) {
  // UDP to 53, and a TCP segment.
  ExpectRefused(Outer(17, "c000003500100000 0000000000000000"),
                "decap: not a VXLAN, Geneve or GRE packet");
  ExpectRefused(testing::Parsed(testdata::kG), "decap: not a VXLAN, Geneve or GRE packet");
}

TEST(TunnelPopEdges, GreHeaderCutShort) {
  // Two bytes of GRE (the rest of the frame is padding).
  ExpectRefused(Outer(47, "0000", 20), "decap: GRE header truncated");
  // S set: 4 + 4 bytes needed, 6 there.
  ExpectRefused(Outer(47, "1000 6558 0000", 20), "decap: GRE header truncated");
  // C set, the checksum word cut: refused as a bad checksum.
  ExpectRefused(Outer(47, "8000 6558 00", 20), "decap: GRE checksum bad");
}

TEST(TunnelPopEdges, GrePayloadOtherThanEthernetIsRefused) {
  ExpectRefused(Outer(47, "0000 0800 " + kInner.substr(28)), "decap: GRE payload is not Ethernet");
}

// The GRE header with C set and its checksum over header and payload.
std::string GreWithCsum(const std::string& rest) {
  Bytes g = FromHex(H("8000 6558 0000 0000" + rest));
  testing::Put16(g, 4, static_cast<uint16_t>(~testing::OracleSum(g.data(), g.size())));
  return ToHex(g);
}

TEST(TunnelPopEdges, GreChecksumVerifiedInSoftware) {
  const std::string good = GreWithCsum(kInner);
  Packet p = Outer(47, good);
  const Pop r = PopOf(p);
  ASSERT_TRUE(r.ok) << r.why;
  EXPECT_EQ(testing::Hex(p), kInner);
  EXPECT_TRUE(p.md.tunnel.csum);
  EXPECT_EQ(p.md.tunnel.type, TunnelType::kGre);
  // One payload bit flipped.
  std::string bad = good;
  bad[bad.size() - 1] = bad.back() == '0' ? '1' : '0';
  ExpectRefused(Outer(47, bad), "decap: GRE checksum bad");
}

TEST(TunnelPopEdges, GreKeyAndSequenceAreSkipped) {
  // K and S: key 0x01020304, sequence 9, then the inner frame.
  Packet p = Outer(47, "3000 6558 01020304 00000009" + kInner);
  const Pop r = PopOf(p);
  ASSERT_TRUE(r.ok) << r.why;
  EXPECT_EQ(testing::Hex(p), kInner);
  EXPECT_EQ(p.md.tunnel.key, 0x01020304u);
  EXPECT_FALSE(p.md.tunnel.csum);
}

TEST(TunnelPopEdges, InnerFrameShorterThanEthernet) {
  // VXLAN (flags I, VNI 5) followed by 13 bytes.
  ExpectRefused(Outer(17, "c00012b5001d0000 0800000000000500 00112233445566778899aabbcc"),
                "decap: inner frame shorter than Ethernet");
  // Geneve with the same 13 bytes.
  ExpectRefused(Outer(17, "c00017c1001d0000 0000655800000500 00112233445566778899aabbcc"),
                "decap: inner frame shorter than Ethernet");
}

TEST(TunnelPopEdges, OuterChecksumsReportedBadAreDroppedUnchecked) {
  const std::string vxlan = "c00012b5" + ToHex(Bytes{0, 8 + 8 + 118}) + "1234" +
                            "0800000000000500" + kInner;  // UDP checksum 1234: present
  Packet ip_bad = Outer(17, vxlan);
  ip_bad.offloads.set_ip(CsumStatus::kBad);
  Counters c;
  std::string why;
  EXPECT_FALSE(PopHeader(ip_bad, &c, &why));
  EXPECT_EQ(why, "decap: outer IPv4 checksum bad");
  EXPECT_EQ(c.Get("native_tnl_l3csum_err"), 1u);
  EXPECT_EQ(c.Get("native_tnl_l3csum_checked"), 0u);

  Packet udp_bad = Outer(17, vxlan);
  udp_bad.offloads.set_ip(CsumStatus::kGood);
  udp_bad.offloads.set_l4(CsumStatus::kBad);
  EXPECT_FALSE(PopHeader(udp_bad, &c, &why));
  EXPECT_EQ(why, "decap: outer UDP checksum bad");
  EXPECT_EQ(c.Get("native_tnl_l4csum_err"), 1u);
  EXPECT_EQ(c.Get("native_tnl_l4csum_checked"), 0u);
  EXPECT_EQ(c.Get("datapath_drop_tunnel_pop_error"), 2u);

  // Reported good: trusted although 1234 is not the checksum.
  Packet trusted = Outer(17, vxlan);
  trusted.offloads.set_ip(CsumStatus::kGood);
  trusted.offloads.set_l4(CsumStatus::kGood);
  ASSERT_TRUE(PopHeader(trusted, &c, &why)) << why;
  EXPECT_EQ(testing::Hex(trusted), kInner);
  EXPECT_EQ(trusted.md.tunnel.key, 5u);
  EXPECT_TRUE(trusted.md.tunnel.csum);
  EXPECT_EQ(c.Get("native_tnl_l4csum_checked"), 0u);
}

TEST(TunnelPopEdges, DetectAndInnerOffsetGuards) {
  Packet gre = Outer(47, "0000 6558" + kInner);
  EXPECT_EQ(DetectTunnel(gre), TunnelType::kGre);
  EXPECT_EQ(TunnelInnerOffset(gre), 14 + 20 + 4);
  EXPECT_EQ(TunnelInnerOffset(gre, TunnelType::kNone), kNoOffset);
  // K and C: 4 + 4 + 4 bytes of GRE.
  Packet gre_kc = Outer(47, "a000 6558 00000000 00000001" + kInner);
  EXPECT_EQ(TunnelInnerOffset(gre_kc), 14 + 20 + 12);
  // GRE of 2 bytes, and of 4 bytes with no frame after it.
  EXPECT_EQ(TunnelInnerOffset(Outer(47, "0000", 20), TunnelType::kGre), kNoOffset);
  EXPECT_EQ(TunnelInnerOffset(Outer(47, "0000 6558", 20), TunnelType::kGre), kNoOffset);
  // Geneve: 12 bytes of L4 are less than UDP + Geneve base header.
  Packet geneve_short = Outer(17, "c00017c1000c0000 00006558", 20);
  EXPECT_EQ(DetectTunnel(geneve_short), TunnelType::kGeneve);
  EXPECT_EQ(TunnelInnerOffset(geneve_short), kNoOffset);
  // Geneve with one option word (opt_len 1): the frame starts 4 bytes later.
  Packet geneve_opt = Outer(17, "c00017c1008a0000 0100655800000500 01020100" + kInner);
  EXPECT_EQ(TunnelInnerOffset(geneve_opt), 14 + 20 + 8 + 8 + 4);

  // Offsets outside the frame, and a UDP header cut short, are no tunnel.
  Packet odd = Outer(17, "c00012b5001d0000 0800000000000500" + kInner);
  ASSERT_EQ(DetectTunnel(odd), TunnelType::kVxlan);
  odd.l4_ofs = static_cast<uint16_t>(odd.size() + 1);
  EXPECT_EQ(DetectTunnel(odd), TunnelType::kNone);
  odd.l4_ofs = static_cast<uint16_t>(odd.size() - 4);
  EXPECT_EQ(DetectTunnel(odd), TunnelType::kNone);
  odd.l4_ofs = 34;
  odd.l3_ofs = static_cast<uint16_t>(odd.size() + 1);
  EXPECT_EQ(DetectTunnel(odd), TunnelType::kNone);
  odd.l3_ofs = kNoOffset;
  EXPECT_EQ(DetectTunnel(odd), TunnelType::kNone);
}

}  // namespace
}  // namespace offlab
