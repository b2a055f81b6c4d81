// SPDX-License-Identifier: Apache-2.0
//
// ovs-ofctl's action words for ports and ct(table=N): bare port names and
// numbers as output, NORMAL (MAC learning), and the fork after ct(...,table=N).
// Expected frames are what Debian's ovs-vswitchd 3.1.0 sent for the same flows
// and frames on a dummy bridge (observed with `offlab ovs-diff`, the cases in
// python/offlab/ovsdiff/cases/reserved-ports.yaml), and the NATed bytes are
// OVS's own expectation in tests/dpif-netdev.at (d6a632a9b16e:3130).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using namespace testdata;

// kG with its MACs swapped: from 0a:8f:39:4f:e0:73 back to 8a:bf:7e:2f:05:84.
const std::string kBack =
    "8abf7e2f0584"
    "0a8f394fe073"
    "0800" +
    kIpt + kTcp + kPay;
// kG to ip_dst 192.168.1.1: IPv4 checksum bd3c, TCP e572 (dpif-netdev.at's
// good_expected for the conntrack test).
const std::string kNatted = kE +
                            "45000068000000000006bd3cc0a87b02c0a80101"
                            "d4781451000000000000000050100000e5720000" +
                            kPay;

void AddThreePorts(Pipeline& br) {
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
}

std::vector<std::string> On(const std::vector<Sent>& out, const std::string& port) {
  std::vector<std::string> frames;
  for (const Sent& s : out) {
    if (s.port == port) frames.push_back(ToHex(s.frame));
  }
  return frames;
}

TEST(PipelineReservedPorts, BarePortNamesAndNumbersAreOutputs) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("in_port=p1,actions=p2,3");
  const auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(On(out, "p2"), std::vector<std::string>{kG});
  EXPECT_EQ(On(out, "p3"), std::vector<std::string>{kG});
  EXPECT_THROW(br.AddFlow("in_port=p1,actions=p9"), Error);
}

TEST(PipelineReservedPorts, CtWithTableForksTheCloneRecirculatesThePacketGoesOn) {
  // Without a rule for the recirculated clone (+trk), only the packet that
  // went on is sent: NATed, once.
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("in_port=p1,ip,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1),table=0),p2");
  auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(On(out, "p2"), std::vector<std::string>{kNatted});
  // With a new bridge's NORMAL flow the clone is flooded too: p2 and p3 each
  // get it, and p2 the packet as well.
  Pipeline br2;
  AddThreePorts(br2);
  br2.AddFlow("in_port=p1,ip,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1),table=0),p2");
  br2.AddFlow("priority=0,actions=NORMAL");
  out = br2.Receive("p1", FromHex(kG));
  EXPECT_EQ(On(out, "p2"), (std::vector<std::string>{kNatted, kNatted}));
  EXPECT_EQ(On(out, "p3"), std::vector<std::string>{kNatted});
}

TEST(PipelineReservedPorts, NormalLearnsAndFloodsUnknownDestinations) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("actions=NORMAL");
  auto out = br.Receive("p1", FromHex(kG));  // destination unknown: flood
  EXPECT_EQ(On(out, "p2"), std::vector<std::string>{kG});
  EXPECT_EQ(On(out, "p3"), std::vector<std::string>{kG});
  out = br.Receive("p2", FromHex(kBack));  // learned on p1
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p1");
  out = br.Receive("p1", FromHex(kG));  // learned on p2 now
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p2");
  out = br.Receive("p2", FromHex(kG));  // to the port it came from: dropped
  EXPECT_TRUE(out.empty());
}

TEST(PipelineReservedPorts, NormalDropsReservedMulticast) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("actions=NORMAL");
  const std::string stp = "0180c2000000" + kG.substr(12);
  EXPECT_TRUE(br.Receive("p1", FromHex(stp)).empty());
  const std::string bcast = "ffffffffffff" + kG.substr(12);
  EXPECT_EQ(br.Receive("p1", FromHex(bcast)).size(), 2u);
}

TEST(PipelineReservedPorts, ModNwTosKeepsEcn) {
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("in_port=p1,actions=mod_nw_tos:84,p2");
  // TOS 0x53 (DSCP 0x50, ECN 3) -> 0x57; the IPv4 header checksum, summed by
  // hand over the ten header words, is 42e9 before and 42e5 after.
  const std::string in = kE +
                         "45530068000000000006"
                         "42e9"
                         "c0a87b02c0a87b01" +
                         kTcp + kPay;
  const auto out = br.Receive("p1", FromHex(in));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].frame).substr(28, 24), "4557006800000000000642e5");
  EXPECT_THROW(br.AddFlow("actions=mod_nw_tos:85,p2"), Error);
}

TEST(PipelineReservedPorts, ModNwTosAndTtlApplyToIpv6) {
  // IPv6 2001:db8::1 > ::2, traffic class 0x03, hop limit 64, UDP 1 > 2 "abcd".
  const std::string v6 =
      "0a00000000020a000000000186dd60300000000c114020010db8000000000000000000000001"
      "20010db800000000000000000000000200010002000cdf9761626364";
  Pipeline br;
  AddThreePorts(br);
  br.AddFlow("in_port=p1,ipv6,actions=mod_nw_tos:84,mod_nw_ttl:7,p2");
  const auto out = br.Receive("p1", FromHex(v6));
  ASSERT_EQ(out.size(), 1u);
  // Traffic class 0x57 (DSCP 0x54, ECN kept), hop limit 7; nothing else.
  std::string want = v6;
  want.replace(28, 4, "6570");
  want.replace(42, 2, "07");
  EXPECT_EQ(ToHex(out[0].frame), want);
}

}  // namespace
}  // namespace offlab
