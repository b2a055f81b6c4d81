// SPDX-License-Identifier: Apache-2.0
//
// UdpTunnelCsum (models/src/ovs/send_prepare.cc, the payload-independent outer
// UDP checksum of the OVS v4.0 checksum series) at its edges:
//  - a computed checksum of 0 goes on the wire as 0xffff (RFC 768: 0 means
//    "no checksum"; lib/packets.h: "UDP checksum 0 is sent as 0xffff"). The
//    frame is R3 (OVS tunnel-push-pop.at: VXLAN of R2, outer checksum bf4d
//    with source port 57363) with the source port chosen by hand so that the
//    sum comes out 0: the rest of the UDP sum is ~bf4d - e013 = 609e, and
//    609e + 9f61 = ffff, so port 0x9f61 (40801) gives checksum 0;
//  - it refuses (false, packet unchanged) a packet whose layer offsets are
//    missing, out of order or an odd distance apart (the one's-complement
//    pieces must start on 16-bit boundaries), an inner TCP header shorter
//    than 20 bytes or with a data offset below 5 words, and an inner UDP
//    segment shorter than its header.
#include <gtest/gtest.h>

#include <string>

#include "offlab/ovs/send_prepare.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Hex;
using testing::With;

// G after mod_tp_dst:2222 on a valid L4: new port, stale 6b72.
const std::string kR2Stale = testing::Sub(testing::kFrameG, "d4781451", "d47808ae");

Packet R3(uint16_t udp_src) {
  TunnelConfig t = testing::R3Tunnel(true);
  t.udp_src = udp_src;
  return testing::Push(With(kR2Stale, CsumStatus::kGood, CsumStatus::kPartial), t);
}

TEST(SendPrepareTunnelCsumEdges, AComputedZeroIsSentAsFfff) {
  // The port as R3 has it first: bf4d, as OVS computes.
  Packet r3 = R3(57363);
  ASSERT_TRUE(UdpTunnelCsum(r3));
  EXPECT_EQ(testing::Be16(r3.bytes(), 40), 0xbf4d);

  Packet p = R3(40801);
  ASSERT_TRUE(UdpTunnelCsum(p));
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  EXPECT_EQ(testing::Be16(p.bytes(), 40), 0xffff);
  SendPrepare(p, 0);
  const Bytes b = p.bytes();
  EXPECT_EQ(Hex(p),
            testing::R3Outer("339e", "ffff").replace(2 * 34, 4, "9f61") + testing::kFrameR2);
  // The plain oracle agrees: the full checksum of the finished frame is 0,
  // sent as ffff, and the field verifies.
  EXPECT_EQ(testing::OracleL4Csum(b, 14, 34, 17, 6), 0xffff);
  EXPECT_TRUE(testing::OracleL4Ok(b, 14, 34, 17));
}

void ExpectRefused(Packet p, const char* why) {
  const std::string before = Hex(p);
  const uint32_t word = p.offloads.word();
  EXPECT_FALSE(UdpTunnelCsum(p)) << why;
  EXPECT_EQ(Hex(p), before) << why;
  EXPECT_EQ(p.offloads.word(), word) << why;
}

TEST(SendPrepareTunnelCsumEdges, OffsetsMissingOutOfOrderOrOdd) {
  const Packet base = R3(57363);
  ASSERT_EQ(base.l4_ofs, 34);
  ASSERT_EQ(base.inner_l3_ofs, 64);
  ASSERT_EQ(base.inner_l4_ofs, 84);
  for (uint16_t Packet::*field :
       {&Packet::l3_ofs, &Packet::l4_ofs, &Packet::inner_l3_ofs, &Packet::inner_l4_ofs}) {
    Packet p = base;
    p.*field = kNoOffset;
    ExpectRefused(p, "an offset missing");
  }
  Packet before_l4 = base;
  before_l4.inner_l3_ofs = 34;  // not after the outer L4 header
  ExpectRefused(before_l4, "inner L3 at the outer L4");
  Packet l4_first = base;
  l4_first.inner_l4_ofs = 64;  // not after the inner L3 header
  ExpectRefused(l4_first, "inner L4 at the inner L3");
  Packet odd_l3 = base;
  odd_l3.inner_l3_ofs = 65;
  ExpectRefused(odd_l3, "inner L3 an odd distance from the outer L4");
  Packet odd_outer = base;
  odd_outer.l4_ofs = 33;
  ExpectRefused(odd_outer, "inner L3 an odd distance from an outer L4 at 33");
  Packet odd_l4 = base;
  odd_l4.inner_l4_ofs = 85;
  ExpectRefused(odd_l4, "inner L4 an odd distance from the inner L3");
}

TEST(SendPrepareTunnelCsumEdges, InnerHeadersThatAreNoHeader) {
  // Data offset 4 words (byte 84 + 12).
  Packet doff = R3(57363);
  doff.data()[84 + 12] = 0x40;
  ExpectRefused(doff, "TCP data offset 16 bytes");
  // Inner IPv4 total length 30: 10 bytes of TCP.
  Packet cut = R3(57363);
  cut.data()[64 + 2] = 0;
  cut.data()[64 + 3] = 30;
  ExpectRefused(cut, "TCP segment of 10 bytes");
  // UDP: scapy ip4/UDP(sport=5000,dport=6000)/Raw(bytes(range(32))) (6c50),
  // its IPv4 total length then cut to 20 + 6.
  const std::string udp = testing::H(
      "0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
      "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  Packet u =
      testing::Push(With(udp, CsumStatus::kGood, CsumStatus::kPartial), testing::R3Tunnel(true));
  Packet whole = u;
  ASSERT_TRUE(UdpTunnelCsum(whole));
  u.data()[64 + 3] = 26;
  ExpectRefused(u, "UDP segment of 6 bytes");
}

}  // namespace
}  // namespace offlab
