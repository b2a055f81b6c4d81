// SPDX-License-Identifier: Apache-2.0
//
// Matching on tunnel fields, as ovs-vswitchd 3.1.0 on the development machine
// does it (ovs-diff case tunnel-fields-zero): a packet that came from no
// tunnel has all-zero tunnel fields, so tun_id=0, tun_src=0.0.0.0 and
// tun_dst=0.0.0.0 match it and any other value does not; a decapsulated
// packet matches its own tunnel's values.
#include <gtest/gtest.h>

#include <string>

#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

Match MatchOf(const std::string& text) {
  return ParseRule(text + ",actions=drop", [](const std::string&) -> uint32_t { return 1; }).match;
}

TEST(FlowMatchTunnel, ZeroFieldsMatchAPacketFromNoTunnel) {
  const FlowKey key;
  const PacketMetadata plain;
  EXPECT_TRUE(MatchOf("tun_id=0").Matches(key, plain));
  EXPECT_TRUE(MatchOf("tun_src=0.0.0.0").Matches(key, plain));
  EXPECT_TRUE(MatchOf("tun_dst=0.0.0.0").Matches(key, plain));
  EXPECT_FALSE(MatchOf("tun_id=5").Matches(key, plain));
  EXPECT_FALSE(MatchOf("tun_src=1.1.2.92").Matches(key, plain));
  EXPECT_FALSE(MatchOf("tun_dst=1.1.2.88").Matches(key, plain));
}

TEST(FlowMatchTunnel, ADecapsulatedPacketMatchesItsTunnel) {
  const FlowKey key;
  PacketMetadata md;
  md.tunnel.present = true;
  md.tunnel.type = TunnelType::kVxlan;
  md.tunnel.key = 123;
  md.tunnel.src = {1, 1, 2, 92};
  md.tunnel.dst = {1, 1, 2, 88};
  EXPECT_TRUE(MatchOf("tun_id=123,tun_src=1.1.2.92,tun_dst=1.1.2.88").Matches(key, md));
  EXPECT_FALSE(MatchOf("tun_id=0").Matches(key, md));
  EXPECT_FALSE(MatchOf("tun_src=0.0.0.0").Matches(key, md));
  EXPECT_FALSE(MatchOf("tun_dst=1.1.2.92").Matches(key, md));
}

}  // namespace
}  // namespace offlab
