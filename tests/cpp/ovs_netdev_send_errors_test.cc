// SPDX-License-Identifier: Apache-2.0
//
// NetdevSend (offlab/ovs/egress.h) with a packet it cannot send in a batch:
// the refused one is counted (offlab_send_prepare_errors) and named, the
// others go on; and the rule from before partial GSO, which segmented only
// UDP-tunnelled TSO packets for a NIC without outer UDP checksum offload,
// leaves a plain TSO packet whole. Frame G (test_util.h): TCP with 64
// payload bytes, its data offset at byte 46.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "test_util.h"

namespace offlab {
namespace {

Packet Tso(uint8_t doff = 5) {
  Packet p = testing::Parsed(testing::kFrameG);
  p.data()[46] = static_cast<uint8_t>(doff << 4);
  p.tso_segsz = 16;
  p.offloads.set_l4(CsumStatus::kPartial);
  return p;
}

TEST(NetdevSendErrors, AMalformedTsoPacketIsRefusedAndTheRestSent) {
  Counters c;
  std::vector<std::string> errors;
  PacketBatch b{Tso(4), testing::Parsed(testing::kFrameG), Tso()};
  // No TSO at the NIC: software GSO of every TSO packet.
  PacketBatch out = NetdevSend(std::move(b), cap::kIpv4Cksum | cap::kTcpCksum, &c, &errors);
  EXPECT_EQ(out.size(), 1u + 4u);  // the plain frame, and 64 bytes in 16-byte segments
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "gso: bad TCP data offset");
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
}

TEST(NetdevSendErrors, APartialChecksumOfUnknownProtocolIsRefusedAtSendPrepare) {
  // ICMP with its L4 checksum marked partial: no TCP/UDP/SCTP to finish.
  const Packet odd = testing::With(
      testing::H("0a8f394fe0738abf7e2f05840800 4500002c000000004001037dc0a87b02c0a87b01"
                 "0800ad8a12340001000102030405060708090a0b0c0d0e0f"),
      CsumStatus::kGood, CsumStatus::kPartial);
  Counters c;
  std::vector<std::string> errors;
  PacketBatch out = NetdevSend(PacketBatch{odd, testing::Parsed(testing::kFrameG)}, 0, &c, &errors);
  EXPECT_EQ(out.size(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("send_prepare"), std::string::npos);
  EXPECT_EQ(c.Get("offlab_send_prepare_errors"), 1u);
}

TEST(NetdevSendErrors, WithoutPartialGsoAPlainTsoPacketStaysWhole) {
  EgressOptions o;
  o.partial_gso = false;
  const uint32_t caps = cap::kIpv4Cksum | cap::kTcpCksum | cap::kTcpTso;  // no outer UDP
  PacketBatch out = NetdevSend(PacketBatch{Tso()}, caps, nullptr, nullptr, o);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tso_segsz, 16);
}

}  // namespace
}  // namespace offlab
