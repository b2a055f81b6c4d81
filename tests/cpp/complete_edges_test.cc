// SPDX-License-Identifier: Apache-2.0
//
// Edges of software checksum completion (models/src/ovs/complete.cc): the
// offset and length guards of UpperProtocol and L4Length, the IPv6 extension
// headers the chain walk skips (RFC 8200 section 4: Hop-by-Hop, Routing and
// Destination Options are (Hdr Ext Len + 1) * 8 bytes; RFC 4302 section 2.2:
// AH is (Payload Len + 2) * 4 bytes), CompleteIpCsum leaving a header it cannot
// checksum alone (lib/packets.h packet_csum_ok / dp_packet_ip_set_header_csum
// only write a well-formed IPv4 header), and CompleteL4Csum refusing a
// partial L4 checksum whose header the IP lengths cut short.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/complete.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleSum;

// 2001:db8::1 > 2001:db8::2, payload 56: Destination Options (next 43, PadN),
// Routing (next 51, Hdr Ext Len 1 = 16 bytes), AH (next 17, Payload Len 4 =
// 24 bytes), UDP 4660 > 22136.
const std::string kV6Chain =
    H("020000000002020000000001 86dd"
      "60000000 0038 3c 40 20010db8000000000000000000000001 20010db8000000000000000000000002"
      "2b 00 01 04 00000000"
      "33 01 00 00 00000000 0000000000000000"
      "11 04 0000 00000001 00000001 000000000000000000000000"
      "1234 5678 0008 0000");
constexpr uint16_t kL3 = 14, kDst = 54, kRt = 62, kAh = 78, kUdp = 102;

TEST(CompleteEdges, UpperProtocolWalksRoutingDestOptsAndAh) {
  const Packet p(FromHex(kV6Chain));
  ASSERT_EQ(p.size(), 110u);
  EXPECT_EQ(UpperProtocol(p, kL3, kUdp), 17);
  EXPECT_EQ(UpperProtocol(p, kL3, kAh), 51);
  EXPECT_EQ(UpperProtocol(p, kL3, kRt), 43);
  EXPECT_EQ(UpperProtocol(p, kL3, kDst), 60);
  // An offset that falls inside AH (24 bytes, not 16 or 28) names nothing.
  EXPECT_EQ(UpperProtocol(p, kL3, kAh + 16), -1);
  EXPECT_EQ(UpperProtocol(p, kL3, kAh + 28), -1);
}

TEST(CompleteEdges, UpperProtocolStopsAtANonExtensionHeader) {
  // Next header TCP right after the fixed header: an l4 offset past it is no
  // header of this chain.
  std::string f = testing::Sub(kV6Chain, "3c40", "0640");
  const Packet p(FromHex(f));
  EXPECT_EQ(UpperProtocol(p, kL3, kDst), 6);
  EXPECT_EQ(UpperProtocol(p, kL3, kRt), -1);
}

TEST(CompleteEdges, UpperProtocolOffsetGuards) {
  const Packet p(FromHex(kV6Chain));
  EXPECT_EQ(UpperProtocol(p, kNoOffset, kUdp), -1);
  EXPECT_EQ(UpperProtocol(p, kL3, kNoOffset), -1);
  EXPECT_EQ(UpperProtocol(p, kL3, 111), -1);  // past the frame
  // A chain cut inside the Destination Options header ends the walk.
  Bytes cut = FromHex(kV6Chain);
  cut.resize(58);
  EXPECT_EQ(UpperProtocol(Packet(cut), kL3, 58), -1);
  // The L3 offset at the very end: no version nibble to read.
  EXPECT_EQ(UpperProtocol(Packet(cut), 58, 58), -1);
}

TEST(CompleteEdges, UpperProtocolRefusesTruncatedIpHeaders) {
  // 10 bytes of an IPv4 header whose 10th byte (the protocol's place) is 6:
  // too short for the 20-byte header, so no protocol is read from it.
  const Packet v4(FromHex(H("020000000002020000000001 0800 45000028000000004006")));
  EXPECT_EQ(UpperProtocol(v4, 14, 24), -1);
  // 30 bytes of an IPv6 header.
  const Packet v6(
      FromHex(H("020000000002020000000001 86dd 6000000000000640") + std::string(44, '0')));
  EXPECT_EQ(UpperProtocol(v6, 14, 44), -1);
}

// kG: IPv4 total length 104, TCP at 34, frame 118 bytes.
const std::string kG = testing::kFrameG;

TEST(CompleteEdges, L4LengthGuardsAndClamps) {
  const Packet g(FromHex(kG));
  EXPECT_EQ(L4Length(g, 14, 34), 84u);
  EXPECT_EQ(L4Length(g, kNoOffset, 34), 0u);
  EXPECT_EQ(L4Length(g, 14, kNoOffset), 0u);
  EXPECT_EQ(L4Length(g, 34, 14), 0u);   // L4 before L3
  EXPECT_EQ(L4Length(g, 14, 119), 0u);  // L4 past the frame
  // Total length 200 > the frame: clamped to the 84 bytes there are.
  EXPECT_EQ(L4Length(Packet(FromHex(testing::Sub(kG, "45000068", "450000c8"))), 14, 34), 84u);
  // Total length 16, shorter than the 20-byte IP header: nothing.
  EXPECT_EQ(L4Length(Packet(FromHex(testing::Sub(kG, "45000068", "45000010"))), 14, 34), 0u);
  // IPv4 total length 24 leaves 4 bytes of L4 in a 118-byte frame (padding).
  EXPECT_EQ(L4Length(Packet(FromHex(testing::Sub(kG, "45000068", "45000018"))), 14, 34), 4u);
}

TEST(CompleteEdges, L4LengthIpv6PayloadEndingBeforeL4) {
  // Payload length 8 ends the packet at 62, before the UDP header at 102.
  const Packet p(FromHex(testing::Sub(kV6Chain, "00383c40", "00083c40")));
  EXPECT_EQ(L4Length(p, kL3, kUdp), 0u);
  EXPECT_EQ(L4Length(Packet(FromHex(kV6Chain)), kL3, kUdp), 8u);
  // Payload length 52 ends 4 bytes into the UDP header.
  EXPECT_EQ(L4Length(Packet(FromHex(testing::Sub(kV6Chain, "00383c40", "00343c40"))), kL3, kUdp),
            4u);
}

TEST(CompleteEdges, IpCsumLeavesAHeaderItCannotChecksum) {
  auto check = [](const std::string& hex, uint16_t l3, const char* what) {
    Packet p(FromHex(hex));
    p.l3_ofs = l3;
    p.offloads.set_ip(CsumStatus::kPartial);
    const Bytes before = p.bytes();
    CompleteIpCsum(p, Level::kOuter);
    EXPECT_EQ(p.bytes(), before) << what;
    // dp_packet_ip_set_header_csum marks the checksum good either way.
    EXPECT_EQ(p.offloads.ip(), CsumStatus::kGood) << what;
  };
  const std::string zeroed = testing::Sub(kG, "433c", "0000");
  check(zeroed, kNoOffset, "no L3");
  check(zeroed, 99, "fewer than 20 bytes at L3");
  check(testing::Sub(zeroed, "4500", "6500"), 14, "version 6");
  check(testing::Sub(zeroed, "4500", "4400"), 14, "IHL 4");
  Bytes short_frame = FromHex(testing::Sub(zeroed, "4500", "4f00"));  // IHL 60 bytes
  short_frame.resize(14 + 40);
  check(ToHex(short_frame), 14, "IHL past the frame");
}

TEST(CompleteEdges, IpCsumCoversOptionsAndTheInnerLevel) {
  // IHL 6: a 24-byte header (one NOP/EOL option word); the checksum covers
  // all 24 bytes (RFC 791).
  Bytes f =
      FromHex(H("020000000002020000000001 0800"
                "46000020 0000 0000 4006 ffff c0a87b02 c0a87b01 01010100"
                "00000000 00000000"));
  Packet p(f);
  p.l3_ofs = 14;
  CompleteIpCsum(p, Level::kOuter);
  Bytes out = p.bytes();
  EXPECT_EQ(OracleSum(out.data() + 14, 24), 0xffff);
  Bytes zeroed = f;
  zeroed[24] = zeroed[25] = 0;  // the model zeroes the field before summing
  EXPECT_EQ(Be16(out, 24), static_cast<uint16_t>(~OracleSum(zeroed.data() + 14, 24)));

  // The inner level reads the inner L3 offset and sets only the inner status.
  Packet q(f);
  q.l3_ofs = kNoOffset;
  q.inner_l3_ofs = 14;
  q.offloads.set_ip(CsumStatus::kPartial, Level::kInner);
  q.offloads.set_ip(CsumStatus::kBad);
  CompleteIpCsum(q, Level::kInner);
  EXPECT_EQ(OracleSum(q.bytes().data() + 14, 24), 0xffff);
  EXPECT_EQ(q.offloads.ip(Level::kInner), CsumStatus::kGood);
  EXPECT_EQ(q.offloads.ip(), CsumStatus::kBad);
}

std::string ErrorOf(Packet& p, Level level, L4Proto proto) {
  try {
    CompleteL4Csum(p, level, proto);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CompleteEdges, L4CsumWithoutHeadersNamesLevelAndProtocol) {
  Packet p(FromHex(kG));
  p.l3_ofs = 14;
  p.l4_ofs = kNoOffset;
  p.offloads.set_l4(CsumStatus::kPartial);
  EXPECT_EQ(ErrorOf(p, Level::kOuter, L4Proto::kTcp),
            "checksum completion: outer L4 tcp partial but the packet has no such header");
  p.l3_ofs = kNoOffset;
  p.l4_ofs = 34;
  EXPECT_EQ(ErrorOf(p, Level::kOuter, L4Proto::kTcp),
            "checksum completion: outer L4 tcp partial but the packet has no such header");
  p.inner_l3_ofs = 14;
  p.inner_l4_ofs = kNoOffset;
  EXPECT_EQ(ErrorOf(p, Level::kInner, L4Proto::kUdp),
            "checksum completion: inner L4 udp partial but the packet has no such header");
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
}

TEST(CompleteEdges, L4CsumRefusesHeadersTheIpLengthCutsShort) {
  // IPv4 total length 20 + n: the L4 segment is n bytes, one short of each
  // protocol's fixed header (TCP 20, UDP 8, SCTP 12).
  const std::string eth = "020000000002020000000001 0800";
  auto frame = [&](uint8_t proto, size_t n) {
    Bytes f = FromHex(H(eth + "45000000 0000 0000 40 00 0000 c0a87b02 c0a87b01") +
                      std::string(2 * 20, '0'));
    testing::Put16(f, 16, static_cast<uint16_t>(20 + n));
    f[23] = proto;
    Packet p(f);
    p.l3_ofs = 14;
    p.l4_ofs = 34;
    p.offloads.set_l4(CsumStatus::kPartial);
    return p;
  };
  struct Case {
    uint8_t proto;
    L4Proto l4;
    size_t need;
    const char* error;
  } cases[] = {{6, L4Proto::kTcp, 20, "checksum completion: TCP header truncated"},
               {17, L4Proto::kUdp, 8, "checksum completion: UDP header truncated"},
               {132, L4Proto::kSctp, 12, "checksum completion: SCTP header truncated"}};
  for (const Case& c : cases) {
    Packet p = frame(c.proto, c.need - 1);
    const Bytes before = p.bytes();
    EXPECT_EQ(ErrorOf(p, Level::kOuter, c.l4), c.error);
    EXPECT_EQ(p.bytes(), before) << c.error;
    EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial) << c.error;
    // Exactly the fixed header is enough.
    Packet ok = frame(c.proto, c.need);
    EXPECT_EQ(ErrorOf(ok, Level::kOuter, c.l4), "") << c.error;
    EXPECT_EQ(ok.offloads.l4(), CsumStatus::kGood) << c.error;
  }
}

}  // namespace
}  // namespace offlab
