// SPDX-License-Identifier: Apache-2.0
//
// NetdevSend's software segmentation at its edges:
//  - a TSO packet that is not TCP cannot be segmented (dp_packet_gso cuts TCP
//    only); offlab refuses it with offlab_send_prepare_errors rather than
//    guess, through full GSO (no tcp_tso) and through partial GSO (tunnel TSO
//    but no outer UDP checksum) alike;
//  - partial GSO of a VXLAN TSO packet whose payload is shorter than one
//    segment: it is a single frame already (dp_packet_gso_partial: one
//    segment, no TSO left), and send-prepare finishes it in software. The
//    expected frame is R3 of reference section 3: OVS's tunnel-push-pop.at
//    VXLAN encapsulation of the R2 frame with outer UDP checksum bf4d.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/error.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/send_prepare.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Hex;
using testing::kFrameR2;
using testing::Parsed;
using testing::Push;
using testing::R3Outer;
using testing::R3Tunnel;

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/Raw(b"query") (scapy)
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c7175"
    "657279";

constexpr char kNotTcp[] = "gso: TSO packet without a TCP header at its (inner) L4 offset";

TEST(EgressGsoPartialEdges, FullGsoOfAUdpTsoPacketIsRefused) {
  Packet p = Parsed(kUdp);
  p.tso_segsz = 2;
  Counters c;
  std::vector<std::string> errors;
  EXPECT_TRUE(NetdevSend(PacketBatch{p}, 0, &c, &errors).empty());
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(errors, std::vector<std::string>{kNotTcp});
}

TEST(EgressGsoPartialEdges, PartialGsoOfATunnelledUdpTsoPacketIsRefused) {
  Packet inner = Parsed(kUdp);
  inner.tso_segsz = 2;
  Packet p = Push(inner, R3Tunnel(true));
  ASSERT_EQ(p.offloads.l4(), CsumStatus::kPartial) << "the outer UDP checksum";
  Counters c;
  std::vector<std::string> errors;
  EXPECT_TRUE(NetdevSend(PacketBatch{p}, cap::kTcpTso | cap::kVxlanTnlTso, &c, &errors).empty());
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(errors, std::vector<std::string>{kNotTcp});
}

TEST(EgressGsoPartialEdges, PartialGsoOfLessThanOneSegmentIsOneFrame) {
  Packet inner = Parsed(kFrameR2);  // 64 TCP payload bytes
  inner.offloads.set_l4(CsumStatus::kPartial);
  inner.tso_segsz = 100;
  Packet p = Push(inner, R3Tunnel(true));
  ASSERT_EQ(p.tso_segsz, 100);
  Counters c;
  std::vector<std::string> errors;
  PacketBatch out = NetdevSend(PacketBatch{p}, cap::kTcpTso | cap::kVxlanTnlTso, &c, &errors);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(out[0].tso_segsz, 0);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "bf4d") + kFrameR2);
}

// The payload-independent outer UDP checksum is the one of a segment of
// tso_segsz payload bytes, written once for all the equal segments the NIC
// will cut; a payload that is not a whole number of segments has no such
// value (partial GSO exists to split off the short last one first).
TEST(EgressGsoPartialEdges, OuterUdpChecksumOfAnUnevenTsoPayloadIsRefused) {
  Packet inner = Parsed(kFrameR2);
  inner.offloads.set_l4(CsumStatus::kPartial);
  inner.tso_segsz = 100;
  Packet p = Push(inner, R3Tunnel(true));
  try {
    SendPrepare(p, cap::kTcpTso | cap::kVxlanTnlTso);
    ADD_FAILURE() << "64 payload bytes in segments of 100 got one outer checksum";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "udp tunnel checksum: TSO payload is not a multiple of tso_segsz");
  }
}

}  // namespace
}  // namespace offlab
