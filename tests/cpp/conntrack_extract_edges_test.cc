// SPDX-License-Identifier: Apache-2.0
//
// Userspace conntrack key extraction (models/src/ovs/conntrack.c) at its
// edges, after openvswitch/ovs v3.1.0 lib/conntrack.c: a packet
// conn_key_extract refuses is +inv+trk (conntrack_execute: CS_INVALID, then
// write_ct_md adds CS_TRACKED).
//  - extract_l3_ipv4: an IHL below 20, a total length past the L3 bytes;
//    extract_l3_ipv6 walks the extension headers (parse_ipv6_ext_hdrs: AH by
//    its own length, RFC 4302 section 2.2); the L4 header must start where
//    the IP headers end;
//  - extract_l4_tcp / extract_l4_udp: "Port 0 is invalid"; a UDP length
//    below 8 or past the segment is invalid; an IPv4 UDP checksum of 0 is not
//    checked (checksum_valid only for a nonzero one);
//  - extract_l4_icmp: echo, timestamp and information messages need code 0;
//    an information request (15) opens a connection its reply (16) belongs
//    to (icmp_valid_new, reverse_icmp_type);
//  - extract_l4_icmp6: fewer than 8 bytes is invalid;
//  - extract_l4 keys ICMP only over IPv4 and ICMPv6 only over IPv6: the other
//    way round a packet is tracked by its addresses alone.
// Frames: scapy 2.x, E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02"),
// 10.0.0.1 > 10.0.0.2, as each comment says; IPv6 checksums from the plain
// oracle where scapy leaves one out.
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::CtAction;
using testing::CtTrack;

constexpr uint32_t kTrk = ct::kTracked;
constexpr uint32_t kInv = ct::kTracked | ct::kInvalid;
constexpr uint32_t kNew = ct::kTracked | ct::kNew;

// ct(commit) on a packet with the offsets given (not parsed).
uint32_t TrackAt(Conntrack& ct, const Bytes& f, uint16_t l3, uint16_t l4) {
  Packet p(f);
  p.l3_ofs = l3;
  p.l4_ofs = l4;
  EXPECT_TRUE(ct.Execute(p, CtAction("commit"), nullptr));
  return p.md.ct_state;
}

// IP(id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
const std::string kSyn =
    "02000000000202000000000108004500002800010000400666cd0a0000010a0000029c400050000003e8000000"
    "0050022000db670000";

TEST(ConntrackExtractEdges, Ipv4HeaderGuards) {
  Conntrack ct;
  const Bytes syn = FromHex(kSyn);
  EXPECT_EQ(TrackAt(ct, syn, 14, 34), kNew);
  // Total length 41 > the 40 bytes there are.
  Bytes longer = syn;
  longer[17] = 41;
  EXPECT_EQ(TrackAt(ct, longer, 14, 34), kInv);
  // IHL 4 (16 bytes).
  Bytes short_ihl = syn;
  short_ihl[14] = 0x44;
  EXPECT_EQ(TrackAt(ct, short_ihl, 14, 34), kInv);
  // 19 bytes of L3 (an L3 offset near the end).
  EXPECT_EQ(TrackAt(ct, syn, 35, 53), kInv);
  // The L4 offset is not where the 20-byte header ends.
  EXPECT_EQ(TrackAt(ct, syn, 14, 38), kInv);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(ConntrackExtractEdges, PortZeroIsInvalid) {
  Conntrack ct;
  // TCP(sport=0,dport=80,flags="S",seq=1000)
  EXPECT_EQ(CtTrack(ct,
                    "02000000000202000000000108004500002800010000400666cd0a0000010a00000200000050"
                    "000003e8000000005002200077a80000",
                    "commit"),
            kInv);
  EXPECT_EQ(ct.connections(), 0u);
}

TEST(ConntrackExtractEdges, UdpLengthAndZeroChecksum) {
  Conntrack ct;
  // UDP(sport=5000,dport=53,len=7)/Raw(b"query") and len=99.
  EXPECT_EQ(
      CtTrack(ct,
              "02000000000202000000000108004500002100030000401166c70a0000010a000002138800350007"
              "88327175657279",
              "commit"),
      kInv);
  EXPECT_EQ(
      CtTrack(ct,
              "02000000000202000000000108004500002100040000401166c60a0000010a000002138800350063"
              "87d67175657279",
              "commit"),
      kInv);
  // UDP(sport=5000,dport=53,chksum=0): nothing to check, a new connection.
  Packet p(
      FromHex("02000000000202000000000108004500002100020000401166c80a0000010a00000213880035000d"
              "00007175657279"));
  Parse(p);
  Counters c;
  EXPECT_TRUE(ct.Execute(p, CtAction("commit"), &c));
  EXPECT_EQ(p.md.ct_state, kNew);
  EXPECT_EQ(c.Get("conntrack_l4csum_checked"), 0u);
  EXPECT_EQ(c.Get("conntrack_l3csum_checked"), 1u);
}

TEST(ConntrackExtractEdges, InformationRequestAndReply) {
  Conntrack ct;
  // ICMP(type=15,id=9,seq=1), then from 10.0.0.2 ICMP(type=16,id=9,seq=1).
  const std::string req =
      "02000000000202000000000108004500001c00050000400166da0a0000010a0000020f00f0f500090001";
  const std::string rep =
      "02000000000102000000000208004500001c00060000400166d90a0000020a0000011000eff500090001";
  EXPECT_EQ(CtTrack(ct, rep, "commit"), kInv) << "a reply opens nothing";
  EXPECT_EQ(CtTrack(ct, req, "commit"), kNew);
  EXPECT_EQ(CtTrack(ct, rep, ""), kTrk | ct::kEstablished | ct::kReplyDir);
  // ICMP(type=8,code=1,id=9,seq=1): an echo request of a code that is not 0.
  EXPECT_EQ(CtTrack(ct,
                    "02000000000202000000000108004500001c00070000400166d80a0000010a0000020801f7f4"
                    "00090001",
                    "commit"),
            kInv);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(ConntrackExtractEdges, IcmpOfTheOtherFamilyIsTrackedByAddresses) {
  Conntrack ct;
  // IP(proto=58)/Raw(80 00 0000 0001 0001): ICMPv6 bytes inside IPv4.
  EXPECT_EQ(CtTrack(ct,
                    "02000000000202000000000108004500001c00080000403a669e0a0000010a00000280000000"
                    "00010001",
                    "commit"),
            kNew);
  // IPv6(src="fd00::1",dst="fd00::2",nh=1)/Raw(08 00 f7fd 0001 0001): ICMP in IPv6.
  EXPECT_EQ(CtTrack(ct,
                    "02000000000202000000000186dd6000000000080140fd0000000000000000000000000000"
                    "01fd0000000000000000000000000000020800f7fd00010001",
                    "commit"),
            kNew);
  EXPECT_EQ(ct.connections(), 2u);
}

TEST(ConntrackExtractEdges, Icmpv6ShorterThanEightBytes) {
  // IPv6 fd00::1 > fd00::2, ICMPv6 of 4 bytes (type 128, code 0), its
  // checksum right.
  Bytes f = FromHex(
      "02000000000202000000000186dd6000000000043a40fd000000000000000000000000000001fd0000000000"
      "0000000000000000000280000000");
  testing::Put16(f, 56, testing::OracleL4Csum(f, 14, 54, 58, 2));
  ASSERT_TRUE(testing::OracleL4Ok(f, 14, 54, 58));
  Conntrack ct;
  EXPECT_EQ(TrackAt(ct, f, 14, 54), kInv);
}

// IPv6(src="fd00::1",dst="fd00::2")/IPv6ExtHdrDestOpt()/AH(nh=17,payloadlen=4,
// spi=1,seq=1,icv=12 zero bytes)/UDP(sport=5000,dport=53)/Raw(b"query").
Bytes V6AhUdp() {
  Bytes f = FromHex(
      "02000000000202000000000186dd60000000002d3c40fd000000000000000000000000000001fd00000000000000"
      "0000000000000002330001040000000011040000000000010000000100000000000000000000000013880035000d"
      "00007175657279");
  testing::Put16(f, 86 + 6, testing::OracleL4Csum(f, 14, 86, 17, 6));
  return f;
}

TEST(ConntrackExtractEdges, Ipv6ThroughDestinationOptionsAndAh) {
  Conntrack ct;
  const Bytes f = V6AhUdp();
  EXPECT_EQ(TrackAt(ct, f, 14, 86), kNew);
  // The L4 offset not at the end of the chain.
  EXPECT_EQ(TrackAt(ct, f, 14, 62), kInv);
  // The payload length past the frame.
  Bytes longer = f;
  longer[19] = 0x2e;
  EXPECT_EQ(TrackAt(ct, longer, 14, 86), kInv);
  // Fewer than 40 bytes of L3 (an IPv6 version nibble 3 bytes from the end).
  ASSERT_EQ(f[96] >> 4, 6);
  EXPECT_EQ(TrackAt(ct, f, 96, 98), kInv);
  // Neither IPv4 nor IPv6 at the L3 offset (AH's sequence number, 0).
  ASSERT_EQ(f[70] >> 4, 0);
  EXPECT_EQ(TrackAt(ct, f, 70, 90), kInv);
  // The UDP checksum wrong: invalid, counted.
  Bytes bad = f;
  bad[86 + 7] ^= 1;
  Packet p(bad);
  p.l3_ofs = 14;
  p.l4_ofs = 86;
  Counters c;
  EXPECT_TRUE(ct.Execute(p, CtAction("commit"), &c));
  EXPECT_EQ(p.md.ct_state, kInv);
  EXPECT_EQ(c.Get("conntrack_l4csum_err"), 1u);
  EXPECT_EQ(ct.connections(), 1u);
}

}  // namespace
}  // namespace offlab
