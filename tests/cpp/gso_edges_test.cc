// SPDX-License-Identifier: Apache-2.0
//
// Software GSO (models/src/ovs/gso.cc, OVS lib/dp-packet-gso.c) at its
// edges: a packet that is not TSO passes as it is; a TSO packet whose TCP
// header is missing, cut short by the IP length, or whose data offset runs
// past the segment is refused rather than cut (dp_packet_gso would read past
// the header); partial GSO (dp_packet_gso_partial_nr_segs) applies only to a
// VXLAN or Geneve TSO packet with a partial outer UDP checksum and an uneven
// last segment, and hands every other packet back whole.
// Frames: G (test_util.h: IPv4 total length 104, TCP at 34, 64 payload bytes).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/gso.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Hex;
using testing::kFrameG;

std::string GsoError(const Packet& p) {
  try {
    Gso(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Packet Tso(const std::string& hex, uint16_t segsz) {
  Packet p = testing::With(hex, CsumStatus::kPartial, CsumStatus::kPartial);
  p.tso_segsz = segsz;
  return p;
}

TEST(GsoEdges, NotTsoPassesWhole) {
  const Packet p = testing::Parsed(kFrameG);
  const PacketBatch out = Gso(p);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), kFrameG);
  EXPECT_EQ(out[0].offloads.word(), p.offloads.word());
}

TEST(GsoEdges, RefusedTcpHeaders) {
  Packet no_l4 = Tso(kFrameG, 16);
  no_l4.l4_ofs = kNoOffset;
  EXPECT_EQ(GsoError(no_l4), "gso: TSO packet without a TCP header at its (inner) L4 offset");
  Packet no_l3 = Tso(kFrameG, 16);
  no_l3.l3_ofs = kNoOffset;
  EXPECT_EQ(GsoError(no_l3), "gso: TSO packet without a TCP header at its (inner) L4 offset");
  // IPv4 total length 30: 10 bytes of TCP (the rest of the frame padding).
  Packet cut = Tso(kFrameG, 16);
  cut.data()[17] = 30;
  EXPECT_EQ(GsoError(cut), "gso: TCP header truncated");
  // Total length 44: 24 bytes of TCP, the data offset 7 words (28 bytes).
  Packet doff = Tso(kFrameG, 16);
  doff.data()[17] = 44;
  doff.data()[46] = 0x70;
  EXPECT_EQ(GsoError(doff), "gso: bad TCP data offset");
  // Data offset 6 words in those 24 bytes: a header with no payload, one segment.
  doff.data()[46] = 0x60;
  EXPECT_EQ(Gso(doff).size(), 1u);
}

TEST(GsoEdges, PartialGsoOnlyForUnevenUdpTunnelsWithPartialOuterUdp) {
  // 64 payload bytes in segments of 24: 3 segments, the last uneven.
  const TunnelConfig vx = testing::R3Tunnel(true);
  Packet tunnelled = testing::Push(Tso(kFrameG, 24), vx);
  ASSERT_EQ(tunnelled.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(GsoPartialNrSegs(tunnelled), 2);
  EXPECT_EQ(GsoPartial(tunnelled).size(), 2u);
  // Even (segments of 16): nothing to split off.
  Packet even = testing::Push(Tso(kFrameG, 16), vx);
  EXPECT_EQ(GsoPartialNrSegs(even), 1);
  // Not TSO, GRE, or an outer UDP checksum already good: one, handed back.
  Packet plain = testing::Push(testing::Parsed(kFrameG), vx);
  EXPECT_EQ(GsoPartialNrSegs(plain), 1);
  Packet gre = testing::Push(Tso(kFrameG, 24), testing::R3Tunnel(true, TunnelType::kGre));
  EXPECT_EQ(GsoPartialNrSegs(gre), 1);
  Packet no_csum = testing::Push(Tso(kFrameG, 24), testing::R3Tunnel(false));
  EXPECT_EQ(GsoPartialNrSegs(no_csum), 1);
  for (const Packet* p : {&even, &gre, &no_csum}) {
    const PacketBatch out = GsoPartial(*p);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Hex(out[0]), Hex(*p));
    EXPECT_EQ(out[0].tso_segsz, p->tso_segsz);
  }
  // Geneve counts like VXLAN.
  Packet geneve = testing::Push(Tso(kFrameG, 24), testing::R3Tunnel(true, TunnelType::kGeneve));
  EXPECT_EQ(GsoPartialNrSegs(geneve), 2);
}

}  // namespace
}  // namespace offlab
