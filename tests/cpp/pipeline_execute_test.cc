// SPDX-License-Identifier: Apache-2.0
//
// The OpenFlow actions of Pipeline::Execute beyond output and set_field of
// IPv4: Ethernet addresses, an IPv6 address, dec_ttl (ovs-actions(7): "If
// the TTL or hop limit is initially 0 or 1, no decrement occurs ... processing
// of the current table stops", so a resubmitting caller goes on), flood,
// in_port, controller, drop, and resubmit nesting (MAX_DEPTH 64, openvswitch/
// ovs v3.1.0 ofproto/ofproto-dpif-xlate.c:88). Expected bytes are derived by
// hand from OVS's frame G (ovs_frames.h: TTL 0) and a frame built here;
// checksums are judged by the independent dissector.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using namespace testdata;

bool AllChecksumsCorrect(const Bytes& frame) {
  const Dissection d = Dissect(frame);
  for (const ChecksumField& c : d.checksums) {
    if (c.verdict != Verdict::kCorrect) return false;
  }
  return !d.checksums.empty();
}

// Frame G with TTL 64 (byte 22) and its IP checksum summed again.
Bytes G64() {
  Bytes f = FromHex(kG);
  f[22] = 64;
  testing::Put16(f, 24, 0);
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(&f[14], 20)));
  return f;
}

void AddPorts(Pipeline& br, int ports) {
  for (int i = 1; i <= ports; i++) br.AddPort({.name = "p" + std::to_string(i)});
}

TEST(PipelineExecute, EthernetAddresses) {
  Pipeline br;
  AddPorts(br, 2);
  br.AddFlow(
      "in_port=p1,actions=mod_dl_src:02:00:00:00:00:0a,mod_dl_dst:02:00:00:00:00:0b,"
      "output:p2");
  const auto out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].frame), "02000000000b02000000000a" + kG.substr(24));
}

TEST(PipelineExecute, Ipv6AddressRewriteKeepsTheTcpChecksumRight) {
  Bytes f = FromHex(
      testing::H("0a8f394fe0738abf7e2f058486dd 6000000000200640 20010db8000000000000000000000001"
                 "20010db8000000000000000000000002 d478145100000001000000005010010000000000"
                 "000102030405060708090a0b"));
  testing::Put16(f, 70, testing::OracleL4Csum(f, 14, 54, 6, 16));
  Pipeline br;
  AddPorts(br, 2);
  br.AddFlow("in_port=p1,actions=set_field:2001:db8::99->ipv6_dst,output:p2");
  const auto out = br.Receive("p1", f);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].frame).substr(76, 32), "20010db8000000000000000000000099");
  EXPECT_TRUE(AllChecksumsCorrect(out[0].frame));
}

TEST(PipelineExecute, DecTtl) {
  Pipeline br;
  AddPorts(br, 3);
  br.AddFlow("table=0,in_port=p1,actions=resubmit(,1),output:p3");
  br.AddFlow("table=1,actions=dec_ttl,output:p2");
  // TTL 64: decremented, the header checksum follows.
  auto out = br.Receive("p1", G64());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, "p2");
  EXPECT_EQ(out[0].frame[22], 63);
  EXPECT_TRUE(AllChecksumsCorrect(out[0].frame));
  EXPECT_EQ(out[1].frame, out[0].frame);
  // TTL 0 (frame G): table 1 stops before its output; table 0 goes on with
  // the packet as it was.
  out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p3");
  EXPECT_EQ(ToHex(out[0].frame), kG);
}

TEST(PipelineExecute, FloodInPortControllerAndDrop) {
  Pipeline br;
  AddPorts(br, 4);
  br.AddFlow("in_port=p2,actions=flood");
  auto out = br.Receive("p2", FromHex(kG));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].port, "p1");
  EXPECT_EQ(out[1].port, "p3");
  EXPECT_EQ(out[2].port, "p4");

  br.AddFlow("in_port=p3,actions=in_port");
  out = br.Receive("p3", FromHex(kG));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p3");

  br.AddFlow("in_port=p1,actions=controller,output:p4");
  out = br.Receive("p1", FromHex(kG));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].port, "controller");
  EXPECT_EQ(ToHex(out[0].frame), kG);
  EXPECT_EQ(out[1].port, "p4");

  br.AddFlow("in_port=p4,actions=drop");
  EXPECT_TRUE(br.Receive("p4", FromHex(kG)).empty());
}

// Each resubmit nests one level; at MAX_DEPTH the translation fails and the
// packet goes no further (outputs made before stay sent).
TEST(PipelineExecute, ResubmitNestingStopsAtTheDepthLimit) {
  PipelineConfig cfg;
  cfg.max_resubmit_depth = 5;
  Pipeline br(cfg);
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  // Table 0 outputs, then resubmits to itself.
  br.AddFlow("table=0,in_port=p1,actions=output:p2,resubmit(,0)");
  const auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(out.size(), 6u);  // depth 0..5, each outputs once
  EXPECT_EQ(br.counters().Get("drop_action_recursion_too_deep"), 1u);
}

// tnl_push to a port that is no tunnel: nothing is sent.
TEST(PipelineExecute, TunnelPushToAPlainPortSendsNothing) {
  Pipeline br;
  AddPorts(br, 2);
  br.AddFlow("in_port=p1,actions=tnl_push:p2,output:p2");
  EXPECT_TRUE(br.Receive("p1", FromHex(kG)).empty());
  ASSERT_FALSE(br.events().empty());
}

}  // namespace
}  // namespace offlab
