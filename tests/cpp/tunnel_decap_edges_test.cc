// SPDX-License-Identifier: Apache-2.0
//
// Edges of native tunnel handling:
//  - decapsulation accepts only a plain GRE header (RFC 2784 section 2: the
//    version is 0; RFC 2890 adds K and S): a routing bit or version 1 (PPTP's
//    enhanced GRE, RFC 2637) is refused, as OVS's parse_gre_header does;
//  - a frame is recognised as a tunnel only from its parsed offsets: the
//    same bytes unparsed are nothing yet;
//  - GTP-U carries IP packets (3GPP TS 29.281 section 5.1, the T-PDU), so a
//    frame without an IP header cannot be encapsulated.
// Frames: scapy 2.x, Ether(src="aa:66:aa:66:00:00",dst="aa:66:aa:66:00:01")/
// IP(src="1.1.2.88",dst="1.1.2.92",flags="DF",id=0,ttl=64,proto=47)/
// Raw(<GRE flags word> 6558 + G), G being dpif-netdev.at's frame (ovs_frames.h).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using namespace testdata;

const std::string kGreOuter =
    "aa66aa660001aa66aa66000008004500008e00004000402f338c010102580101025c";

std::string PopWhy(const std::string& flags) {
  Packet p(FromHex(kGreOuter + flags + "6558" + kG));
  Parse(p);
  std::string why;
  EXPECT_EQ(DetectTunnel(p), TunnelType::kGre);
  if (PopHeader(p, nullptr, &why)) return "";
  return why;
}

TEST(TunnelDecapEdges, GreWithRoutingOrVersionIsRefused) {
  EXPECT_EQ(PopWhy("0000"), "");
  EXPECT_EQ(PopWhy("4000"), "decap: unsupported GRE flags or version");
  EXPECT_EQ(PopWhy("0001"), "decap: unsupported GRE flags or version");
}

TEST(TunnelDecapEdges, UnparsedFrameIsNoTunnelYet) {
  Packet p(FromHex(kGreOuter + "00006558" + kG));
  EXPECT_EQ(DetectTunnel(p), TunnelType::kNone);
  Parse(p);
  EXPECT_EQ(DetectTunnel(p), TunnelType::kGre);
}

TEST(TunnelDecapEdges, GtpuNeedsAnIpPacket) {
  // ARP request 10.0.0.1 asks for 10.0.0.2 (dissect_vectors.h kArpRequest).
  Packet p = testing::Parsed(
      "020000000002020000000001080600010800060400010200000000010a0000010000000000000a000002");
  PlainEncapConfig cfg;
  cfg.kind = PlainEncap::kGtpu;
  cfg.ip_src = {1, 1, 2, 88};
  cfg.ip_dst = {1, 1, 2, 92};
  try {
    PushPlainEncap(p, cfg);
    ADD_FAILURE() << "an ARP frame was put in GTP-U";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "encapsulation: the packet has no IP header to carry");
  }
}

}  // namespace
}  // namespace offlab
