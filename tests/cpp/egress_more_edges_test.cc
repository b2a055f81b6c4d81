// SPDX-License-Identifier: Apache-2.0
//
// NetdevSend (models/src/ovs/egress.cc, OVS lib/netdev.c netdev_send) at the
// edges of its TSO rules:
//  - rule 2 (no tunnel TSO capability: dp_packet_gso_batch segments every TSO
//    packet) and rule 3 before partial GSO (no OUTER_UDP_CKSUM: only a
//    VXLAN/Geneve TSO packet whose outer UDP checksum is partial is cut in
//    software) drop a packet software GSO cannot cut (dp_packet_gso cuts TCP
//    only) and carry on with the rest of the batch;
//  - rule 3 leaves a plain TSO packet, a tunnelled one with no outer UDP
//    checksum to write, and a GRE one to the NIC's TSO;
//  - a drop is counted even when the caller asks for no error lines.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Hex;
using testing::Parsed;
using testing::Push;
using testing::R3Tunnel;

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/Raw(b"query") (scapy)
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c7175"
    "657279";
constexpr char kNotTcp[] = "gso: TSO packet without a TCP header at its (inner) L4 offset";

// A UDP TSO packet in VXLAN with an outer UDP checksum: no TCP to cut.
Packet TunnelledUdpTso() {
  Packet inner = Parsed(kUdp);
  inner.tso_segsz = 2;
  return Push(inner, R3Tunnel(true));
}

// R7 (2000 payload bytes) as a TSO packet with segments of `segsz`.
Packet R7Tso(uint16_t segsz) {
  Packet p = testing::With(testing::R7Frame(), CsumStatus::kPartial, CsumStatus::kPartial);
  p.tso_segsz = segsz;
  return p;
}

TEST(EgressMoreEdges, Rule2DropsWhatItCannotCutAndSegmentsTheRest) {
  Counters c;
  std::vector<std::string> errors;
  Packet plain = testing::Parsed(testing::R7Frame());
  plain.tso_segsz = 500;
  PacketBatch out = NetdevSend({TunnelledUdpTso(), plain}, cap::kTcpTso, &c, &errors);
  ASSERT_EQ(out.size(), 4u);
  for (int k = 0; k < 4; k++) EXPECT_EQ(Hex(out[k]), testing::R7Segment(k)) << k;
  EXPECT_EQ(errors, std::vector<std::string>{kNotTcp});
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(c.Get("dp_packet_gso"), 1u);
}

TEST(EgressMoreEdges, Rule3WithoutPartialGsoCutsOnlyUdpTunnelsWithAPartialOuterChecksum) {
  const uint32_t caps = cap::kTcpTso | cap::kVxlanTnlTso | cap::kGeneveTnlTso | cap::kGreTnlTso |
                        cap::kTcpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  Packet no_outer_csum = Push(R7Tso(500), R3Tunnel(false));
  ASSERT_NE(no_outer_csum.offloads.l4(), CsumStatus::kPartial);
  Packet gre = Push(R7Tso(500), R3Tunnel(true, TunnelType::kGre));
  ASSERT_EQ(gre.offloads.tunnel(), TunnelType::kGre);
  Packet vxlan = Push(R7Tso(500), R3Tunnel(true));
  Packet geneve = Push(R7Tso(1000), R3Tunnel(true, TunnelType::kGeneve));
  ASSERT_EQ(vxlan.offloads.l4(), CsumStatus::kPartial);
  ASSERT_EQ(geneve.offloads.l4(), CsumStatus::kPartial);

  Counters c;
  std::vector<std::string> errors;
  PacketBatch out = NetdevSend({TunnelledUdpTso(), R7Tso(500), no_outer_csum, gre, vxlan, geneve},
                               caps, &c, &errors, {.udp_tunnel_csum = true, .partial_gso = false});
  // The UDP TSO packet is dropped; the plain, no-checksum and GRE ones stay
  // TSO for the NIC; VXLAN is cut in 4 (2000 / 500), Geneve in 2 (2000 / 1000).
  ASSERT_EQ(out.size(), 3u + 4u + 2u);
  EXPECT_EQ(errors, std::vector<std::string>{kNotTcp});
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(c.Get("dp_packet_gso"), 2u);
  EXPECT_EQ(out[0].tso_segsz, 500);
  EXPECT_EQ(out[0].size(), testing::R7Frame().size() / 2);
  EXPECT_EQ(out[1].tso_segsz, 500);
  EXPECT_EQ(out[1].offloads.tunnel(), TunnelType::kVxlan);
  EXPECT_EQ(out[2].tso_segsz, 500);
  EXPECT_EQ(out[2].offloads.tunnel(), TunnelType::kGre);
  // VXLAN segments: outer 50 bytes + R7 headers 54 + 500 payload.
  for (size_t k = 3; k < 7; k++) {
    EXPECT_EQ(out[k].tso_segsz, 0) << k;
    EXPECT_EQ(out[k].size(), 50u + 54u + 500u) << k;
  }
  for (size_t k = 7; k < 9; k++) {
    EXPECT_EQ(out[k].tso_segsz, 0) << k;
    EXPECT_EQ(out[k].size(), 50u + 54u + 1000u) << k;
  }
}

TEST(EgressMoreEdges, ADropIsCountedWithoutAnErrorList) {
  Counters c;
  Packet p = Parsed(kUdp);
  p.tso_segsz = 2;
  EXPECT_TRUE(NetdevSend({p}, 0, &c).empty());
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  // NetdevSendOne too: a partial L4 checksum of no known protocol.
  Packet q = Parsed(kUdp);
  q.offloads.set_l4(CsumStatus::kPartial);
  q.offloads.set_l4_proto(L4Proto::kNone);
  EXPECT_FALSE(NetdevSendOne(q, 0, &c));
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 2u);
}

}  // namespace
}  // namespace offlab
