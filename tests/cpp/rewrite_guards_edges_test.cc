// SPDX-License-Identifier: Apache-2.0
//
// The set-field primitives of models/src/ovs/rewrite.cc (OVS v3.1.0
// lib/packets.c packet_set_*, lib/odp-execute.c) on packets they cannot
// rewrite, and at the edges of the rewrites they do:
//  - SetEth needs an Ethernet header, SetIpv4 / SetIpv6 an IP header of their
//    own version and full length (odp_set_ipv4 / odp_set_ipv6 act only when
//    the flow's dl_type says so and dp_packet_l3 is there);
//  - dec_ttl and set ECN-CE act on IPv4 or IPv6 headers only; a TTL or hop
//    limit of 1 or less is not decremented (the packet goes to the
//    controller, ofproto-dpif-xlate.c compose_dec_ttl), and CE is set only on
//    an ECN-capable transport (RFC 3168 section 5; ECT(0)/ECT(1) -> CE);
//  - a UDP header cut short gets no checksum update (packet_set_ipv4_addr
//    touches the UDP checksum only with a whole UDP header in
//    dp_packet_l4_size);
//  - an SCTP port rewrite keeps the CRC32c right by its XOR delta
//    (packet_set_sctp_port).
// Frames: scapy, as each comment says; checksums checked with the plain
// oracle of test_util.h.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/rewrite.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Hex;
using testing::OracleIpv4HeaderOk;
using testing::Parsed;

// Ether()/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/Raw(b"query")
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c7175"
    "657279";
// Ether()/IPv6(src="fd00::2",dst="fd00::1")/TCP(sport=1000,dport=80,flags="A"), TC 0.
const std::string kTcp6 =
    "0a8f394fe0738abf7e2f058486dd6000000000140640fd000000000000000000000000000002"
    "fd00000000000000000000000000000103e8005000000000000000005010200091980000";

TEST(RewriteGuardsEdges, EachSetNeedsItsHeader) {
  Packet short_eth(FromHex("0200000000020200000000010800"));
  short_eth.Resize(13);
  const MacAddr mac{2, 0, 0, 0, 0, 9};
  EXPECT_FALSE(SetEth(short_eth, mac, mac));
  EXPECT_EQ(ToHex(short_eth.bytes()), "02000000000202000000000108");

  Ipv4Set s4;
  s4.ttl = 9;
  Ipv6Set s6;
  s6.hlimit = 9;
  Packet v6 = Parsed(kTcp6);
  Packet v4 = Parsed(kUdp);
  EXPECT_FALSE(SetIpv4(v6, s4));
  EXPECT_FALSE(SetIpv6(v4, s6));
  EXPECT_EQ(Hex(v6), kTcp6);
  EXPECT_EQ(Hex(v4), kUdp);
  // 19 and 39 bytes of L3.
  Packet v4_cut(FromHex(kUdp.substr(0, 2 * (14 + 19))));
  v4_cut.l3_ofs = 14;
  EXPECT_FALSE(SetIpv4(v4_cut, s4));
  EXPECT_FALSE(DecTtl(v4_cut));
  EXPECT_FALSE(SetEcnCe(v4_cut));
  Packet v6_cut(FromHex(kTcp6.substr(0, 2 * (14 + 39))));
  v6_cut.l3_ofs = 14;
  EXPECT_FALSE(SetIpv6(v6_cut, s6));
  EXPECT_FALSE(DecTtl(v6_cut));
  EXPECT_FALSE(SetEcnCe(v6_cut));
  // No L3 at all.
  v4.l3_ofs = kNoOffset;
  EXPECT_FALSE(SetIpv4(v4, s4));
  EXPECT_FALSE(DecTtl(v4));
  EXPECT_FALSE(SetEcnCe(v4));
  EXPECT_FALSE(SetL4Ports(v4, 1, 2));
  // L3 but no L4: no ports to set.
  Packet no_l4 = Parsed(kUdp);
  no_l4.l4_ofs = kNoOffset;
  EXPECT_FALSE(SetL4Ports(no_l4, 1, 2));
  EXPECT_EQ(Hex(no_l4), kUdp);
}

TEST(RewriteGuardsEdges, AVersionOtherThanFourOrSixIsNotIp) {
  // G with version nibble 5: neither an IPv4 nor an IPv6 header.
  Packet p = Parsed(testing::kFrameG);
  p.data()[14] = 0x55;
  p.data()[15] = 0x03;  // ECN bits set: still no CE
  const Bytes before = p.bytes();
  EXPECT_FALSE(DecTtl(p));
  EXPECT_FALSE(SetEcnCe(p));
  EXPECT_EQ(p.bytes(), before);
}

TEST(RewriteGuardsEdges, HopLimitAndTtlOfOneAreNotDecremented) {
  Packet v6 = Parsed(kTcp6);
  v6.data()[21] = 1;
  EXPECT_FALSE(DecTtl(v6));
  EXPECT_EQ(v6.data()[21], 1);
  v6.data()[21] = 2;
  EXPECT_TRUE(DecTtl(v6));
  EXPECT_EQ(v6.data()[21], 1);
  // IPv4 TTL 2 -> 1 with the header checksum updated (status unknown).
  Packet v4 = Parsed(testing::Sub(kUdp, "401166c3", "0211a4c3"));
  ASSERT_TRUE(OracleIpv4HeaderOk(v4.bytes(), 14));
  EXPECT_TRUE(DecTtl(v4));
  EXPECT_EQ(v4.data()[22], 1);
  EXPECT_TRUE(OracleIpv4HeaderOk(v4.bytes(), 14));
  EXPECT_FALSE(DecTtl(v4));
  EXPECT_EQ(v4.data()[22], 1);
}

TEST(RewriteGuardsEdges, Ipv6EcnCeOnlyOnAnEcnCapableTransport) {
  Packet not_ect = Parsed(kTcp6);
  EXPECT_FALSE(SetEcnCe(not_ect));
  EXPECT_EQ(Hex(not_ect), kTcp6);
  // TC 0xb9 (DSCP 46, ECT(1)) -> 0xbb: the first word 6b90_0000 -> 6bb0_0000.
  Packet ect = Parsed(testing::Sub(kTcp6, "60000000", "6b900000"));
  EXPECT_TRUE(SetEcnCe(ect));
  EXPECT_EQ(GetBe32(ect.data() + 14), 0x6bb00000u);
  // ECT(0) 0x02 -> 0x03, flow label kept.
  Packet ect0 = Parsed(testing::Sub(kTcp6, "60000000", "602abcde"));
  EXPECT_TRUE(SetEcnCe(ect0));
  EXPECT_EQ(GetBe32(ect0.data() + 14), 0x603abcdeu);
}

TEST(RewriteGuardsEdges, Ipv6FlowLabelAndMaskedTrafficClass) {
  Packet p = Parsed(testing::Sub(kTcp6, "60000000", "6b912345"));
  Ipv6Set s;
  s.flow_label = 0xfabcde;  // only 20 bits are a flow label
  EXPECT_TRUE(SetIpv6(p, s));
  EXPECT_EQ(GetBe32(p.data() + 14), 0x6b9abcdeu);
  // mod_nw_tos: the DSCP bits only, ECN kept.
  Ipv6Set tos;
  tos.tclass = 0x20;
  tos.tclass_mask = 0xfc;
  EXPECT_TRUE(SetIpv6(p, tos));
  EXPECT_EQ(GetBe32(p.data() + 14), 0x621abcdeu);
  // TCP untouched: neither is in the pseudo-header.
  EXPECT_EQ(Hex(p).substr(2 * 54), kTcp6.substr(2 * 54));
}

TEST(RewriteGuardsEdges, UdpHeaderCutShortGetsNoChecksumUpdate) {
  // kUdp with 7 bytes of UDP: the checksum field is not all there.
  Packet p(FromHex(kUdp.substr(0, 2 * (34 + 7))));
  p.l3_ofs = 14;
  p.l4_ofs = 34;
  Ipv4Set s;
  s.dst = std::array<uint8_t, 4>{10, 0, 0, 9};
  EXPECT_TRUE(SetIpv4(p, s));
  const Bytes b = p.bytes();
  EXPECT_EQ(ToHex(&b[30], 4), "0a000009");
  EXPECT_TRUE(OracleIpv4HeaderOk(b, 14));
  EXPECT_EQ(ToHex(&b[34], 7), "13880035000d88");
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kUnknown);
}

TEST(RewriteGuardsEdges, SctpDestinationPortKeepsTheCrc) {
  // Ether()/IP(src="192.168.123.2",dst="192.168.123.1")/SCTP(sport=5000,dport=6000,
  // tag=0x01020304)/Raw(bytes(range(16))) and the same with dport=81.
  const std::string before =
      "02000000000202000000000108004500003000000000408402f6c0a87b02c0a87b011388177001020304a7c0"
      "ffe4000102030405060708090a0b0c0d0e0f";
  const std::string after =
      "02000000000202000000000108004500003000000000408402f6c0a87b02c0a87b01138800510102030490e4"
      "760f000102030405060708090a0b0c0d0e0f";
  Packet p = Parsed(before);
  EXPECT_TRUE(SetL4Ports(p, std::nullopt, 81));
  EXPECT_EQ(Hex(p), after);
  // The same port again changes nothing.
  EXPECT_TRUE(SetL4Ports(p, 5000, 81));
  EXPECT_EQ(Hex(p), after);
  // A valid status is left for completion instead (rule M).
  Packet q = Parsed(before);
  q.offloads.set_l4(CsumStatus::kGood);
  EXPECT_TRUE(SetL4Ports(q, std::nullopt, 81));
  EXPECT_EQ(q.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(Hex(q).substr(0, 2 * 38), after.substr(0, 2 * 38));
  EXPECT_EQ(Hex(q).substr(2 * 42), before.substr(2 * 42));  // CRC as it was
}

}  // namespace
}  // namespace offlab
