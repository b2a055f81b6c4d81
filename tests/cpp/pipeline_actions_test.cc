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

TEST(PipelineActions, ConntrackBelowAResubmitLeavesTheCallerThePacketItReturned) {
  // The caller's actions after a resubmit run on the packet conntrack gave
  // back (NATed), not on the one handed to it: flow_rule_fuzz found the
  // caller rewriting a moved-from packet. The same rules run against OVS in
  // python/offlab/ovsdiff/cases/resubmit-ct.yaml. Expected bytes by hand:
  // ip_src at frame offset 26 becomes 10.0.0.7 (0a000007), ip_dst at 30
  // becomes 10.0.0.9 (0a000009).
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("table=0,in_port=p1,ip,actions=resubmit(,1),set_field:10.0.0.7->ip_src,output:p2");
  br.AddFlow("table=1,ip,actions=ct(commit,nat(dst=10.0.0.9))");
  const auto out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 1u);
  const std::string hex = ToHex(out[0].frame);
  EXPECT_EQ(hex.size(), kG.size());
  EXPECT_EQ(hex.substr(52, 16), "0a0000070a000009");
  EXPECT_TRUE(AllChecksumsCorrect(out[0].frame));
}

TEST(PipelineActions, ConntrackRecirculatingBelowAResubmitStopsAtTheDepthLimit) {
  // fuzz/corpus/flow_rule_fuzz/crash-7ed5b9fa: ct(table=1) whose table
  // resubmits back to table 0 recirculates until the depth limit; the
  // callers' rewrites act on a live packet throughout. Each recirculated
  // pass (depths 1..6; MAX_RECIRC_DEPTH is 6) outputs one frame: ovs-vswitchd
  // 3.1.0 sends 6 here (resubmit-ct.yaml, run with `offlab ovs-diff`).
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("table=1,in_port=p1,actions=resubmit(,0),set_field:10.0.0.7->ip_src,output:p2");
  br.AddFlow("table=0,in_port=p1,ip,actions=ct(commit,nat(dst=10.0.0.9:8080),table=1)");
  const auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(out.size(), 6u);
  for (const auto& s : out) {
    EXPECT_EQ(s.port, "p2");
    EXPECT_EQ(s.frame.size(), kG.size() / 2);
    EXPECT_TRUE(AllChecksumsCorrect(s.frame));
  }
}

}  // namespace
}  // namespace offlab
