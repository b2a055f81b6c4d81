// SPDX-License-Identifier: Apache-2.0
//
// What a native tunnel port takes from the packet it encapsulates: the outer
// UDP source port from the packet's 5-tuple hash, taken when the datapath
// received it (before the flow rewrote its ports), and the inner ECN bits
// (CE as ECT(0)).
// Expected values are what Debian's ovs-vswitchd 3.1.0 sent on this machine for
// the same bridge and frames (observed with `offlab ovs-diff`, the cases in
// python/offlab/ovsdiff/cases/tunnel-*.yaml).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/pipeline.h"

namespace offlab {
namespace {

// tests/tunnel-push-pop.at's underlay: br0 aa:55:aa:55:00:00 1.1.2.88, the
// remote end 1.1.2.92 at f8:bc:12:44:34:b6; VXLAN key 123, source port from
// the hash (udp_src 0).
void Bridge(Pipeline& br, const std::string& flow) {
  br.AddPort({.name = "p1", .ofport = 10});
  br.AddPort({.name = "p0", .ofport = 0xfeff});
  TunnelConfig t;
  t.type = TunnelType::kVxlan;
  t.eth_src = {0xaa, 0x55, 0xaa, 0x55, 0x00, 0x00};
  t.eth_dst = {0xf8, 0xbc, 0x12, 0x44, 0x34, 0xb6};
  t.ip_src = {1, 1, 2, 88};
  t.ip_dst = {1, 1, 2, 92};
  t.key = 123;
  br.AddPort({.name = "t1", .ofport = 2, .tunnel = t, .underlay = "p0"});
  br.AddFlow(flow);
}

uint16_t OuterSourcePort(const std::vector<Sent>& out) {
  EXPECT_EQ(out.size(), 1u);
  if (out.empty()) return 0;
  return static_cast<uint16_t>(out[0].frame[34] << 8 | out[0].frame[35]);
}

TEST(PipelineNativeTunnel, SourcePortIsOvsPacketHash) {
  // 10.0.0.1 > 10.0.0.2 TCP 20 > 80: OVS sent source port 0xa5b6.
  Pipeline br;
  Bridge(br, "in_port=p1,actions=t1");
  const auto out = br.Receive(
      "p1", FromHex("50540000000a50540000000908004500002800010000400600000a0000010a000002"
                    "0014005000000000000000005002200000000000"));
  EXPECT_EQ(OuterSourcePort(out), 0xa5b6);
}

TEST(PipelineNativeTunnel, SourcePortOfANonIpFrame) {
  // tunnel-push-pop.at's packet_out frame (no IP header): 0x83a9.
  Pipeline br;
  Bridge(br, "in_port=p1,actions=t1");
  EXPECT_EQ(OuterSourcePort(br.Receive("p1", FromHex("50540000000a5054000000091234"))), 0x83a9);
}

TEST(PipelineNativeTunnel, SourcePortHashesThePortsAsReceived) {
  // TCP 40000 > 5201 rewritten to 2222 before the push: OVS hashed 5201 (0x8248).
  Pipeline br;
  Bridge(br, "in_port=p1,tcp,actions=mod_tp_dst:2222,t1");
  const auto out = br.Receive(
      "p1", FromHex("0a00000000020a000000000108004500003800070000400666b70a0000010a000002"
                    "9c40145100000000000000005010200092f00000000102030405060708090a0b0c0d0e0f"));
  EXPECT_EQ(OuterSourcePort(out), 0x8248);
}

TEST(PipelineNativeTunnel, OuterTosTakesTheInnerEcnCeAsEct0) {
  // Inner TOS 0x03 (ECN CE): OVS sent outer TOS 0x02 (ECT(0)); 0xe1 (ECT(1)): 0x01.
  Pipeline br;
  Bridge(br, "in_port=p1,actions=t1");
  const std::string tail =
      "0028000100004006ffff0a0000010a00000200140050000000000000000050022000ffff0000";
  auto out = br.Receive("p1", FromHex("0a00000000020a000000000108004503" + tail));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].frame[15], 0x02);
  out = br.Receive("p1", FromHex("0a00000000020a0000000001080045e1" + tail));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].frame[15], 0x01);
}

}  // namespace
}  // namespace offlab
