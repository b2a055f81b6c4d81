// SPDX-License-Identifier: Apache-2.0
//
// Conntrack's release of a reassembled IPv4 datagram's fragments
// (models/src/ovs/conntrack.cc Execute, ipf.h Release): the fragments leave
// in offset order, unchanged, with the datagram's conntrack state
// (ipf_post_execute_reass_pkts, OVS v3.1.0 lib/ipf.c:1139-1210); and a
// reassembly whose partial L4 checksum cannot be finished (no protocol to
// finish it for: OVS asserts in dp_packet_ol_send_prepare) drops the whole
// datagram, counted as offlab_send_prepare_errors (ipf.h: "its fragments
// are dropped then").
// The datagram: 10.0.0.1 > 10.0.0.2 ICMP echo request (id 9, seq 1) with
// 1292 data bytes i % 256, cut at 1200 bytes of IP payload (a first
// fragment of 1220 bytes of L3, above min_v4_frag_size 1200); checksums from
// the plain oracle of test_util.h.
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

constexpr size_t kIcmpLen = 8 + 1292, kCut = 1200;

Bytes IcmpMessage() {
  Bytes m = {8, 0, 0, 0, 0, 9, 0, 1};
  for (size_t i = 0; i < 1292; i++) m.push_back(static_cast<uint8_t>(i));
  testing::Put16(m, 2, static_cast<uint16_t>(~testing::OracleSum(m.data(), m.size())));
  return m;
}

// The fragment carrying IP payload bytes [from, to).
Bytes Fragment(const Bytes& icmp, size_t from, size_t to) {
  Bytes f =
      FromHex(testing::H("020000000002020000000001 0800 45000000 0007 0000 40 01 0000"
                         "0a000001 0a000002"));
  f.insert(f.end(), icmp.begin() + static_cast<long>(from), icmp.begin() + static_cast<long>(to));
  testing::Put16(f, 16, static_cast<uint16_t>(20 + to - from));
  testing::Put16(f, 20, static_cast<uint16_t>((to < icmp.size() ? 0x2000 : 0) | (from / 8)));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(f.data() + 14, 20)));
  return f;
}

PacketBatch Track(Conntrack& ct, CsumStatus first_l4, Counters* c) {
  const Bytes icmp = IcmpMessage();
  PacketBatch out;
  for (const auto& [from, to] : {std::pair{size_t{0}, kCut}, std::pair{kCut, kIcmpLen}}) {
    Packet p(Fragment(icmp, from, to));
    Parse(p);
    if (from == 0) p.offloads.set_l4(first_l4);
    for (Packet& q : ct.Execute(PacketBatch{std::move(p)}, testing::CtAction("commit"), c)) {
      out.push_back(std::move(q));
    }
  }
  return out;
}

TEST(ConntrackIpfReleaseEdges, FragmentsLeaveInOrderWithTheDatagramsState) {
  Conntrack ct;
  Counters c;
  const PacketBatch out = Track(ct, CsumStatus::kUnknown, &c);
  const Bytes icmp = IcmpMessage();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].bytes(), Fragment(icmp, 0, kCut));
  EXPECT_EQ(out[1].bytes(), Fragment(icmp, kCut, kIcmpLen));
  for (const Packet& f : out) EXPECT_EQ(f.md.ct_state, ct::kTracked | ct::kNew);
  EXPECT_EQ(ct.connections(), 1u);
  EXPECT_EQ(ct.held_fragments(), 0u);
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 0u);
}

TEST(ConntrackIpfReleaseEdges, AnUnfinishablePartialDropsTheDatagram) {
  Conntrack ct;
  Counters c;
  const PacketBatch out = Track(ct, CsumStatus::kPartial, &c);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(ct.held_fragments(), 0u);
}

}  // namespace
}  // namespace offlab
