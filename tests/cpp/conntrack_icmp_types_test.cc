// SPDX-License-Identifier: Apache-2.0
//
// The IPv4 ICMP types userspace conntrack tells apart beyond echo and
// destination-unreachable (openvswitch/ovs v3.1.0 lib/conntrack.c
// icmp_valid_new and extract_l4_icmp): a timestamp request (13) opens a
// connection and its reply (14) belongs to it, as echo does; a parameter
// problem (12) is an error whose quoted packet makes it related. Frames
// from scapy 2.x:
//   E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02") (swapped back)
//   E/IP(src="10.0.0.1",dst="10.0.0.2",id=1)/TCP(sport=40000,dport=80,flags="S",seq=1000)
//   E/IP(...,id=2)/ICMP(type=13,id=7,seq=1,ts_ori=1,ts_rx=0,ts_tx=0)
//   E/IP(src="10.0.0.2",dst="10.0.0.1",id=3)/ICMP(type=14,id=7,seq=1,ts_ori=1,ts_rx=2,ts_tx=2)
//   E/IP(src="10.0.0.2",dst="10.0.0.1",id=4)/ICMP(type=12,code=0,ptr=0)/raw(<the SYN's IP packet>)
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

const std::string kSyn =
    "02000000000202000000000108004500002800010000400666cd0a0000010a0000029c400050000003e8000000"
    "0050022000db670000";
const std::string kTimestamp =
    "02000000000202000000000108004500002800020000400166d10a0000010a0000020d00f2f6000700010000"
    "00010000000000000000";
const std::string kTimestampReply =
    "02000000000102000000000208004500002800030000400166d00a0000020a0000010e00f1f2000700010000"
    "00010000000200000002";
const std::string kParamProblem =
    "02000000000102000000000208004500004400040000400166b30a0000020a0000010c00081d000000004500"
    "002800010000400666cd0a0000010a0000029c400050000003e80000000050022000db670000";

constexpr uint32_t kTrk = ct::kTracked;

uint32_t Track(Conntrack& ct, const std::string& hex, const std::string& args) {
  return testing::CtTrack(ct, hex, args);
}

TEST(CtIcmpTypes, TimestampRequestOpensAndItsReplyBelongs) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, kTimestampReply, "commit"), kTrk | ct::kInvalid) << "a reply opens nothing";
  EXPECT_EQ(Track(ct, kTimestamp, "commit"), kTrk | ct::kNew);
  EXPECT_EQ(Track(ct, kTimestampReply, ""), kTrk | ct::kEstablished | ct::kReplyDir);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(CtIcmpTypes, ParameterProblemAboutAConnectionIsRelated) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, kParamProblem, "commit"), kTrk | ct::kInvalid)
      << "an error about no known connection";
  Track(ct, kSyn, "commit");
  EXPECT_EQ(Track(ct, kParamProblem, ""), kTrk | ct::kRelated | ct::kReplyDir);
}

}  // namespace
}  // namespace offlab
