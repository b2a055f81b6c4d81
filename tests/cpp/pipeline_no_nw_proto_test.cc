// SPDX-License-Identifier: Apache-2.0
//
// Rewrites of a flow without an nw_proto, as ovs-vswitchd 3.1.0 on the
// development machine does them (ovs-diff case no-nw-proto): the translation
// applies them to the flow, but the datapath gets no set action for them
// (lib/odp-util.c commit_set_nw_action, commit_set_port_action: "Check if
// 'flow' really has an L3 header"), so the packet leaves unchanged; dec_ttl
// works on the flow's TTL, which mod_nw_ttl sets and which is 0 when the IP
// header failed the sanity checks, and does nothing to a flow that is not IP
// (ofproto-dpif-xlate.c compose_dec_ttl). Frames from scapy, lengths edited
// by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/ovs/pipeline.h"

namespace offlab {
namespace {

// IPv6(src="fe80::1",dst="fe80::1",hlim=233)/ICMPv6... with plen 44 over a
// 13-byte payload.
const std::string kIpv6TooLong =
    "0a00000000030a000000000286dd6000017b002c3ae9fe80000000000000000000000000000"
    "1fe80000000000000000000000000000180003dd017bd00e540bc3b85b0";
// 2001:db8::1 > ::2, payload length 8: destination options claiming 24 bytes.
const std::string kIpv6OptsOverrun =
    "02000000000202000000000186dd6000000000083c4020010db8000000000000000000000001"
    "20010db8000000000000000000000002060201040000000000";
// IP(src="10.0.0.2",dst="10.0.0.1",proto=0,id=9,ttl=40)/Raw(bytes(range(12)))
const std::string kProto0 =
    "0a8f394fe0738abf7e2f05840800450000200009000028007ed30a0000020a000001"
    "000102030405060708090a0b";
// A TCP segment whose IPv4 total length (100) runs past the frame.
const std::string kIpv4TooLong =
    "0a8f394fe0738abf7e2f058408004500006400060000400666b80a0000020a000001"
    "03e800500000000000000000501020003f4a0000000102030405060708090a0b0c0d0e0f";
// ARP(psrc="10.0.0.2",pdst="10.0.0.1") broadcast.
const std::string kArp =
    "ffffffffffff8abf7e2f0584080600010800060400018abf7e2f05840a0000020000000000000a000001";

std::vector<std::string> Forward(const std::string& flow, const std::string& frame) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddFlow("in_port=p1," + flow + ",output:p2");
  std::vector<std::string> out;
  for (const Sent& s : br.Receive("p1", FromHex(frame))) out.push_back(ToHex(s.frame));
  return out;
}

const std::vector<std::string> kDropped;

TEST(PipelineNoNwProto, Ipv6RewritesOfAFlowWithoutNwProtoLeaveThePacketAlone) {
  const std::string flow = "ipv6,actions=mod_nw_ttl:107,dec_ttl,set_field:2001:db8::1->ipv6_dst";
  EXPECT_EQ(Forward(flow, kIpv6TooLong), std::vector<std::string>{kIpv6TooLong});
  EXPECT_EQ(Forward(flow, kIpv6OptsOverrun), std::vector<std::string>{kIpv6OptsOverrun});
}

TEST(PipelineNoNwProto, Ipv4ProtocolZeroIsNotRewrittenNorDecremented) {
  EXPECT_EQ(Forward("ip,actions=mod_nw_dst:10.0.0.9,dec_ttl", kProto0),
            std::vector<std::string>{kProto0});
  EXPECT_EQ(Forward("ip,actions=mod_nw_tos:4,mod_nw_ecn:3", kProto0),
            std::vector<std::string>{kProto0});
}

TEST(PipelineNoNwProto, DecTtlUsesTheFlowsTtl) {
  // No IP header in the flow: TTL 0, the controller's (dropped here).
  EXPECT_EQ(Forward("ip,actions=dec_ttl", kIpv4TooLong), kDropped);
  // mod_nw_ttl gives the flow a TTL to decrement.
  EXPECT_EQ(Forward("ip,actions=mod_nw_ttl:2,dec_ttl", kIpv4TooLong),
            std::vector<std::string>{kIpv4TooLong});
  EXPECT_EQ(Forward("ip,actions=mod_nw_ttl:2,dec_ttl,dec_ttl", kIpv4TooLong), kDropped);
  // Protocol 0 keeps its header's TTL (40) in the flow.
  EXPECT_EQ(Forward("ip,actions=dec_ttl,dec_ttl", kProto0), std::vector<std::string>{kProto0});
}

TEST(PipelineNoNwProto, DecTtlDoesNothingToAFlowThatIsNotIp) {
  EXPECT_EQ(Forward("actions=dec_ttl", kArp), std::vector<std::string>{kArp});
}

}  // namespace
}  // namespace offlab
