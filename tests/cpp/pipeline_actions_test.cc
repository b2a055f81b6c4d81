// SPDX-License-Identifier: Apache-2.0
//
// Action lists that use the packet after an output or a resubmit: every
// output gets the packet as the actions before it left it. Expected bytes are
// derived by hand from OVS's frame G (tests/cpp/ovs_frames.h): ip_dst sits at
// frame offset 30, and 10.0.0.99 is 0a000063.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using namespace testdata;

void AddThreePorts(Pipeline& br) {
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
}

bool AllChecksumsCorrect(const Bytes& frame) {
  const Dissection d = Dissect(frame);
  for (const ChecksumField& c : d.checksums) {
    if (c.verdict != Verdict::kCorrect) return false;
  }
  return !d.checksums.empty();
}

TEST(PipelineActions, EveryOutputOfAListGetsThePacket) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("in_port=p1,actions=output:p2,output:p3");
  const auto out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, "p2");
  EXPECT_EQ(out[1].port, "p3");
  EXPECT_EQ(ToHex(out[0].frame), kG);
  EXPECT_EQ(ToHex(out[1].frame), kG);
}

TEST(PipelineActions, ActionsAfterAResubmitSeeWhatItsTableDid) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("table=0,in_port=p1,actions=resubmit(,1),output:p3");
  br.AddFlow("table=1,actions=set_field:10.0.0.99->ip_dst,output:p2");
  const auto out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, "p2");
  EXPECT_EQ(out[1].port, "p3");
  EXPECT_EQ(ToHex(out[0].frame).substr(60, 8), "0a000063");
  EXPECT_EQ(out[1].frame, out[0].frame);
  EXPECT_TRUE(AllChecksumsCorrect(out[1].frame));
}

TEST(PipelineActions, AResubmitThatEndsInOutputLeavesThePacketForTheCaller) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("table=0,in_port=p1,actions=resubmit(,1),set_field:10.0.0.7->ip_src,output:p3");
  br.AddFlow("table=1,actions=output:p2");
  const auto out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ToHex(out[0].frame), kG);
  const std::string p3 = ToHex(out[1].frame);
  EXPECT_EQ(p3.size(), kG.size());
  EXPECT_EQ(p3.substr(52, 8), "0a000007");  // ip_src at frame offset 26
  EXPECT_EQ(p3.substr(60, 8), kG.substr(60, 8));
  EXPECT_TRUE(AllChecksumsCorrect(out[1].frame));
}

}  // namespace
}  // namespace offlab
