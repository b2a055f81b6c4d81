// SPDX-License-Identifier: Apache-2.0
//
// A packet sent to the controller is finished in software first
// (dp_netdev_upcall: send_prepare(p, 0)). A partial L4 checksum of no known
// protocol cannot be finished: OVS asserts there (lib/dp-packet.c
// dp_packet_ol_send_prepare falls through to the SCTP case), offlab drops the
// upcall and counts it (models/src/ovs/pipeline_execute.cc). The same packet
// with a protocol it can finish reaches the controller with the checksum
// written. Frames: scapy, E/IP(src="10.0.0.1",dst="10.0.0.2",id=5)/ICMP(id=9,seq=1)
// and dpif-netdev.at's G.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/ovs/pipeline.h"
#include "test_util.h"

namespace offlab {
namespace {

const std::string kIcmp =
    "02000000000202000000000108004500001c00050000400166da0a0000010a0000020800f7f500090001";

TEST(PipelineUpcallEdges, AnUnfinishablePartialChecksumDropsTheUpcall) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddFlow("actions=controller");
  const auto out = br.Receive("p1", FromHex(kIcmp), RxMeta{.l4 = CsumStatus::kPartial});
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(br.counters().Get("offlab_send_prepare_errors"), 1u);
  EXPECT_EQ(
      br.events(),
      std::vector<std::string>{
          "drop on upcall: send_prepare: L4 checksum partial but the L4 protocol is unknown"});
}

TEST(PipelineUpcallEdges, AFinishablePartialReachesTheControllerWritten) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddFlow("actions=controller");
  // G with its TCP checksum zeroed and marked partial: written back (6b72).
  const auto out = br.Receive("p1", FromHex(testing::Sub(testing::kFrameG, "6b72", "0000")),
                              RxMeta{.l4 = CsumStatus::kPartial});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "controller");
  EXPECT_EQ(ToHex(out[0].frame), testing::kFrameG);
  EXPECT_EQ(out[0].offloads.l4(), CsumStatus::kGood);
  EXPECT_EQ(br.counters().Get("offlab_send_prepare_errors"), 0u);
}

}  // namespace
}  // namespace offlab
