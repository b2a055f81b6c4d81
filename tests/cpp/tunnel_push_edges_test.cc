// SPDX-License-Identifier: Apache-2.0
//
// Tunnel encapsulation (models/src/ovs/tunnel.cc) at its configuration edges:
//  - TunnelConfig::Validate: a VXLAN or Geneve VNI is 24 bits (RFC 7348
//    section 5, RFC 8926 section 3.4); a GRE key is 32 (RFC 2890 section 2.1);
//    a tunnel needs a type;
//  - the GRE header carries C, K and S words in that order, each 4 bytes
//    (RFC 2890; OVS v3.1.0 lib/netdev-native-tnl.c netdev_gre_build_header),
//    the checksum over GRE header and payload (RFC 2784 section 2.1);
//  - df off leaves the IPv4 flags clear, a configured UDP destination port
//    replaces the IANA default (netdev_tnl_push_udp_header);
//  - the outer TOS is the port's plus the inner ECN bits, CE sent as ECT(0)
//    (ofproto/tunnel.c tnl_port_send; "ECN fields are always inherited"); a
//    packet that is not IP inherits nothing;
//  - GTP-U has an IPv4 underlay only in offlab; a carried packet without an
//    L4 offset has no inner L4 offset.
// The inner frame is G (ovs_frames.h); R3Tunnel (test_util.h) addresses.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/tunnel.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::OracleSum;
using testing::Parsed;
using testing::R3Tunnel;

std::string ValidateError(const TunnelConfig& c) {
  try {
    c.Validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TunnelPushEdges, VniIs24BitsGreKeyIs32) {
  TunnelConfig c = R3Tunnel(false);
  c.key = 0xffffff;
  EXPECT_EQ(ValidateError(c), "");
  c.key = 0x1000000;
  EXPECT_EQ(ValidateError(c), "tunnel: VNI exceeds 24 bits");
  c.type = TunnelType::kGeneve;
  EXPECT_EQ(ValidateError(c), "tunnel: VNI exceeds 24 bits");
  c.key = 0xffffff;
  EXPECT_EQ(ValidateError(c), "");
  c.type = TunnelType::kGre;
  c.key = 0xffffffff;
  EXPECT_EQ(ValidateError(c), "");
  c.type = TunnelType::kNone;
  EXPECT_EQ(ValidateError(c), "tunnel: type must be vxlan, geneve or gre");
  PacketBatch b{Parsed(testdata::kG)};
  EXPECT_THROW(PushHeader(b, c), Error);
}

TEST(TunnelPushEdges, GreSequenceWithoutKey) {
  TunnelConfig c = R3Tunnel(false, TunnelType::kGre);
  c.gre_key = false;
  c.gre_seq = true;
  const Packet p = testing::Push(Parsed(testdata::kG), c);
  const Bytes b = p.bytes();
  // Eth 14 + IPv4 20 + GRE 4 + sequence 4, then G.
  ASSERT_EQ(b.size(), 14u + 20u + 8u + 118u);
  EXPECT_EQ(ToHex(&b[34], 4), "10006558");  // S only, ETH_TYPE_TEB
  EXPECT_EQ(ToHex(&b[42], 118), testdata::kG);
  EXPECT_EQ(p.inner_l2_ofs, 42);
}

TEST(TunnelPushEdges, GreChecksumKeyAndSequence) {
  TunnelConfig c = R3Tunnel(true, TunnelType::kGre);
  c.gre_seq = true;
  c.key = 0xa0b0c0d0;
  const Packet p = testing::Push(Parsed(testdata::kG), c);
  const Bytes b = p.bytes();
  ASSERT_EQ(b.size(), 14u + 20u + 16u + 118u);
  EXPECT_EQ(ToHex(&b[34], 4), "b0006558");  // C, K, S
  EXPECT_EQ(ToHex(&b[40], 2), "0000");      // reserved1
  EXPECT_EQ(GetBe32(&b[42]), 0xa0b0c0d0u);  // the key follows the checksum word
  EXPECT_EQ(ToHex(&b[50], 118), testdata::kG);
  // The checksum covers the GRE header and the payload.
  EXPECT_EQ(OracleSum(b.data() + 34, b.size() - 34), 0xffffu);
}

TEST(TunnelPushEdges, DfOffAndAConfiguredUdpPort) {
  TunnelConfig c = R3Tunnel(false);
  c.df = false;
  c.udp_dst = 8472;
  const Bytes b = testing::Push(Parsed(testdata::kG), c).bytes();
  EXPECT_EQ(Be16(b, 20), 0x0000);  // no DF
  EXPECT_EQ(Be16(b, 36), 8472);
  EXPECT_EQ(Be16(b, 34), 57363);
  // Geneve's default port otherwise.
  const Bytes g = testing::Push(Parsed(testdata::kG), R3Tunnel(false, TunnelType::kGeneve)).bytes();
  EXPECT_EQ(Be16(g, 20), 0x4000);
  EXPECT_EQ(Be16(g, 36), 6081);
}

uint8_t OuterTosOf(const std::string& inner_hex, uint8_t port_tos) {
  TunnelConfig c = R3Tunnel(false);
  c.tos = port_tos;
  return testing::Push(Parsed(inner_hex), c).bytes()[15];
}

TEST(TunnelPushEdges, OuterTosInheritsOnlyTheInnerEcn) {
  // IPv6 inner, traffic class 0xb3 (DSCP 44, CE): outer = 0x20 | ECT(0).
  const std::string v6 =
      "0a8f394fe0738abf7e2f058486dd 6b300000 0014 0640 fd000000000000000000000000000002"
      "fd000000000000000000000000000001 03e8005000000000000000005010200091980000";
  EXPECT_EQ(OuterTosOf(testing::H(v6), 0x20), 0x22);
  // traffic class 0x01 (ECT(1)) is inherited as is.
  EXPECT_EQ(OuterTosOf(testing::H(testing::Sub(v6, "6b30", "6010")), 0x20), 0x21);
  // IPv4 inner TOS 0xb9: ECN ECT(1) only, not the DSCP.
  EXPECT_EQ(OuterTosOf(testing::Sub(testdata::kG, "4500", "45b9"), 0x00), 0x01);
  // ARP (htype 0x0001 reads as version 0, "ECN" 0x01): nothing inherited.
  const std::string arp =
      "02000000000202000000000108060001080006040001020000000001 0a000001 000000000000 0a000002";
  EXPECT_EQ(OuterTosOf(testing::H(arp), 0x48), 0x48);
  // A frame with no L3 at all.
  Packet raw(FromHex("0200000000020200000000018888 0003"));
  raw.l3_ofs = kNoOffset;
  TunnelConfig c = R3Tunnel(false);
  c.tos = 0x10;
  EXPECT_EQ(testing::Push(raw, c).bytes()[15], 0x10);
}

PlainEncapConfig Gtpu(bool v6) {
  PlainEncapConfig c;
  c.kind = PlainEncap::kGtpu;
  c.ipv6 = v6;
  c.key = 7;
  return c;
}

TEST(TunnelPushEdges, GtpuNeedsAnIpv4Underlay) {
  Packet p = Parsed(testdata::kG);
  const Bytes before = p.bytes();
  try {
    PushPlainEncap(p, Gtpu(true));
    ADD_FAILURE() << "GTP-U over IPv6 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "gtpu: IPv4 underlay only");
  }
  EXPECT_EQ(p.bytes(), before);
}

TEST(TunnelPushEdges, PlainEncapWithoutAnL4Offset) {
  // G's IP packet behind Eth 14 + IPv4 20 + UDP 8 + GTP-U 8.
  Packet p = Parsed(testdata::kG);
  p.l4_ofs = kNoOffset;
  ASSERT_TRUE(PushPlainEncap(p, Gtpu(false)));
  EXPECT_EQ(p.inner_l3_ofs, 50);
  EXPECT_EQ(p.inner_l4_ofs, kNoOffset);
  Packet q = Parsed(testdata::kG);
  ASSERT_TRUE(PushPlainEncap(q, Gtpu(false)));
  EXPECT_EQ(q.inner_l3_ofs, 50);
  EXPECT_EQ(q.inner_l4_ofs, 70);
}

}  // namespace
}  // namespace offlab
