// SPDX-License-Identifier: Apache-2.0
//
// SendThroughNic's length check on a batch of software segments
// (models/src/ovs/send_through_nic.cc): netdev-dummy stops at the first
// packet over its MTU and deletes the rest of the batch unsent (OVS
// d6a632a9b lib/netdev-dummy.c:1381-1384, 1476), each counted as
// tx_mtu_exceeded_drops; netdev-dpdk filters packet by packet
// (netdev_dpdk_filter_packet_len, lib/netdev-dpdk.c:3043-3064). The packet is
// R7 (reference section 3: 2000 payload bytes, TSO 500) segmented in
// software (no TSO capability) into four 554-byte frames, against an MTU of
// 500 (dummy: at most 514 bytes; DPDK: 518).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/netdev_len.h"
#include "offlab/ovs/pipeline.h"
#include "test_util.h"

namespace offlab {
namespace {

Packet R7() {
  Packet p = testing::Parsed(testing::R7Frame());
  p.tso_segsz = 500;
  return p;
}

TEST(SendThroughNicEdges, DummyStopsTheBatchAtTheFirstFrameOverItsMtu) {
  Counters c;
  std::vector<std::string> errors, violations;
  const auto out = SendThroughNic(R7(), "p2", 0, NicTx{}, {}, &c, &errors, &violations, false,
                                  {NetdevClass::kDummy, 500});
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c.Get(kTxMtuExceeded), 4u);
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "frame of 554 bytes exceeds MTU 500 (at most 514 bytes without TSO)",
                        "3 more packets of the batch not sent (netdev-dummy stops at the first)"}));
  // Counted the same without an error list.
  Counters quiet;
  EXPECT_TRUE(SendThroughNic(R7(), "p2", 0, NicTx{}, {}, &quiet, nullptr, nullptr, false,
                             {NetdevClass::kDummy, 500})
                  .empty());
  EXPECT_EQ(quiet.Get(kTxMtuExceeded), 4u);
}

TEST(SendThroughNicEdges, DpdkRefusesEachFrameOnItsOwn) {
  Counters c;
  std::vector<std::string> errors;
  const auto out = SendThroughNic(R7(), "p2", 0, NicTx{}, {}, &c, &errors, nullptr, false,
                                  {NetdevClass::kDpdk, 500});
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c.Get(kTxMtuExceeded), 4u);
  EXPECT_EQ(errors, std::vector<std::string>(
                        4, "frame of 554 bytes exceeds MTU 500 (at most 518 bytes without TSO)"));
  // An MTU of 540 lets every 554-byte frame through (540 + 18 = 558).
  Counters ok;
  EXPECT_EQ(SendThroughNic(R7(), "p2", 0, NicTx{}, {}, &ok, nullptr, nullptr, false,
                           {NetdevClass::kDpdk, 540})
                .size(),
            4u);
  EXPECT_EQ(ok.Get(kTxMtuExceeded), 0u);
}

TEST(SendThroughNicEdges, AWholePacketOverTheMtuIsCountedWithoutAnErrorList) {
  Counters c;
  Packet g = testing::Parsed(testing::kFrameG);  // 118 bytes
  EXPECT_TRUE(SendThroughNic(g, "p2", 0, NicTx{}, {}, &c, nullptr, nullptr, false,
                             {NetdevClass::kDummy, 100})
                  .empty());
  EXPECT_EQ(c.Get(kTxMtuExceeded), 1u);
  // Joined: the frame and its (empty) tail as one buffer.
  const auto out = SendThroughNic(g, "p2", 0, NicTx{}, {}, &c, nullptr, nullptr, true,
                                  {NetdevClass::kDummy, 1500});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].Joined()), testing::kFrameG);
}

}  // namespace
}  // namespace offlab
