// SPDX-License-Identifier: Apache-2.0
//
// The two ECN actions of the flow syntax through the datapath. mod_nw_ecn:N is
// OpenFlow's OFPACT_SET_IP_ECN, which writes the ECN bits whatever they were,
// a Not-ECT packet's included (openvswitch/ovs v3.1.0
// ofproto/ofproto-dpif-xlate.c, case OFPACT_SET_IP_ECN: nw_tos &= ~IP_ECN_MASK;
// nw_tos |= ecn). set_ecn_ce is the kernel's IP_ECN_set_ce
// (include/net/inet_ecn.h): Congestion Experienced only on an ECN-capable
// packet, a Not-ECT one left as it is.
//
// Frames: OVS's dpif-netdev.at frame G (ovs_frames.h: TOS 0, IPv4 checksum
// 433c, TCP 6b72) with its TOS byte changed. The IPv4 checksums are worked
// out by hand (RFC 1071/1624): the TOS byte is the low byte of the header's
// first 16-bit word, so TOS t adds t to the sum and takes t off the
// checksum: 433c - 2 = 433a for ECT(0), 433c - 3 = 4339 for CE. The TCP
// checksum does not cover the IP TOS and stays 6b72.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using namespace testdata;

const std::string kNotEct = kG;
const std::string kEct0 = kE + "4502006800000000000643 3a c0a87b02c0a87b01" + kTcp + kPay;
const std::string kCe = kE + "4503006800000000000643 39 c0a87b02c0a87b01" + kTcp + kPay;
// ECT(1): TOS 1, 433c - 1 = 433b.
const std::string kEct1 = kE + "4501006800000000000643 3b c0a87b02c0a87b01" + kTcp + kPay;

std::string Hex(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out.push_back(c);
  return out;
}

std::vector<std::string> Forward(const std::string& action, const std::string& frame) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("in_port=p1,actions=" + action + ",output:p2");
  std::vector<std::string> out;
  for (const Sent& s : br.Receive("p1", FromHex(Hex(frame)))) out.push_back(ToHex(s.frame));
  return out;
}

TEST(PipelineEcnActions, ModNwEcnMarksANotEctPacket) {
  EXPECT_EQ(Forward("mod_nw_ecn:3", kNotEct), std::vector<std::string>{Hex(kCe)});
  EXPECT_EQ(Forward("mod_nw_ecn:3", kEct0), std::vector<std::string>{Hex(kCe)});
}

TEST(PipelineEcnActions, ModNwEcnWritesAnyCodepoint) {
  // mod_nw_ecn:0..3 all load NXM_NX_IP_ECN (ovs-ofctl 3.1.0 parse-flow), so a
  // CE packet can be cleared and an ECT(0) one turned ECT(1).
  EXPECT_EQ(Forward("mod_nw_ecn:0", kCe), std::vector<std::string>{Hex(kNotEct)});
  EXPECT_EQ(Forward("mod_nw_ecn:1", kEct0), std::vector<std::string>{Hex(kEct1)});
  EXPECT_EQ(Forward("mod_nw_ecn:0x2", kNotEct), std::vector<std::string>{Hex(kEct0)});
}

TEST(PipelineEcnActions, ModNwEcnRefusesOtherBits) {
  // ovs-ofctl 3.1.0: "ovs-ofctl: 4: not a valid ECN".
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  try {
    br.AddFlow("in_port=p1,actions=mod_nw_ecn:4,output:p2");
    ADD_FAILURE() << "mod_nw_ecn:4 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mod_nw_ecn: 4: not a valid ECN"), std::string::npos)
        << e.what();
  }
}

TEST(PipelineEcnActions, SetEcnCeMarksOnlyAnEcnCapablePacket) {
  EXPECT_EQ(Forward("set_ecn_ce", kNotEct), std::vector<std::string>{Hex(kNotEct)});
  EXPECT_EQ(Forward("set_ecn_ce", kEct0), std::vector<std::string>{Hex(kCe)});
}

}  // namespace
}  // namespace offlab
