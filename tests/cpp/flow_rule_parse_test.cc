// SPDX-License-Identifier: Apache-2.0
//
// The flow language's shorthands, field aliases and actions as ovs-ofctl
// 3.1.0 on the development machine reads them (`ovs-ofctl parse-flow`, which
// prints e.g. `udp6,udp_src=7` back as `udp6,tp_src=7` and
// `set_field:80->tcp_src` as `mod_tp_src:80`), and the words it refuses.
// The shorthands' meaning is ovs-fields(7)'s table: `tcp6` is
// `dl_type=0x86dd,nw_proto=6` and so on; ct_state's snat/dnat bits are
// CS_SRC_NAT and CS_DST_NAT (lib/packets.h CS_STATES, bits 6 and 7).
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/error.h"
#include "offlab/ovs/flow.h"

namespace offlab {
namespace {

Rule Parse(const std::string& text) { return testing::ParseFlow(text); }

std::string Refusal(const std::string& text) { return testing::FlowRefusal(text); }

TEST(FlowRuleParse, ProtocolShorthands) {
  struct Case {
    const char* word;
    uint16_t dl_type;
    int nw_proto;  // -1: not matched
  };
  for (const Case& c : {Case{"ip", 0x0800, -1}, Case{"ipv6", 0x86dd, -1}, Case{"tcp", 0x0800, 6},
                        Case{"udp", 0x0800, 17}, Case{"sctp", 0x0800, 132}, Case{"icmp", 0x0800, 1},
                        Case{"tcp6", 0x86dd, 6}, Case{"udp6", 0x86dd, 17},
                        Case{"sctp6", 0x86dd, 132}, Case{"icmp6", 0x86dd, 58}}) {
    SCOPED_TRACE(c.word);
    const Match m = Parse(std::string(c.word) + ",actions=drop").match;
    EXPECT_EQ(m.dl_type, c.dl_type);
    if (c.nw_proto < 0) {
      EXPECT_FALSE(m.nw_proto);
    } else {
      EXPECT_EQ(m.nw_proto, c.nw_proto);
    }
  }
}

TEST(FlowRuleParse, FieldAliases) {
  for (const char* f : {"tp_src", "tcp_src", "udp_src"}) {
    const Match m = Parse(std::string("tcp,") + f + "=7,actions=drop").match;
    EXPECT_EQ(m.tp_src, 7) << f;
    EXPECT_FALSE(m.tp_dst) << f;
  }
  for (const char* f : {"tp_dst", "tcp_dst", "udp_dst"}) {
    const Match m = Parse(std::string("tcp,") + f + "=8,actions=drop").match;
    EXPECT_EQ(m.tp_dst, 8) << f;
    EXPECT_FALSE(m.tp_src) << f;
  }
  bool v6 = false;
  const IpAddr a = ParseIp("2001:db8::1", &v6);
  EXPECT_EQ(Parse("ipv6,ipv6_src=2001:db8::1,actions=drop").match.nw_src, a);
  EXPECT_EQ(Parse("ipv6,ipv6_dst=2001:db8::1,actions=drop").match.nw_dst, a);
  EXPECT_EQ(Parse("tun_ipv6_src=2001:db8::1,actions=drop").match.tun_src, a);
  EXPECT_EQ(Parse("tun_ipv6_dst=2001:db8::1,actions=drop").match.tun_dst, a);
  EXPECT_EQ(Parse("ct_zone=7,actions=drop").match.ct_zone, 7);
  EXPECT_EQ(Parse("nw_proto=47,actions=drop").match.nw_proto, 47);
  EXPECT_EQ(Parse("dl_type=0x88cc,actions=drop").match.dl_type, 0x88cc);
}

TEST(FlowRuleParse, NatStateBits) {
  const Match m = Parse("ct_state=+snat-dnat,ip,actions=drop").match;
  EXPECT_EQ(m.ct_state_mask, (1u << 6) | (1u << 7));
  EXPECT_EQ(m.ct_state_value, 1u << 6);
}

TEST(FlowRuleParse, SetFieldAndModActions) {
  // Each sets one port of a kSetL4Ports action, the other left alone.
  struct Case {
    const char* rule;
    int src, dst;  // -1: not set
  };
  for (const Case& c :
       {Case{"tcp,actions=set_field:80->tcp_src", 80, -1},
        Case{"udp,actions=set_field:81->udp_dst", -1, 81},
        Case{"sctp,actions=set_field:82->sctp_src", 82, -1},
        Case{"sctp,actions=set_field:83->sctp_dst", -1, 83},
        Case{"tcp,actions=mod_tp_src:80", 80, -1}, Case{"tcp,actions=mod_tp_dst:81", -1, 81}}) {
    SCOPED_TRACE(c.rule);
    const Action a = Parse(c.rule).actions.at(0);
    EXPECT_EQ(a.type, ActionType::kSetL4Ports);
    EXPECT_EQ(a.tp_src ? int{*a.tp_src} : -1, c.src);
    EXPECT_EQ(a.tp_dst ? int{*a.tp_dst} : -1, c.dst);
  }
  const Action label = Parse("ipv6,actions=set_field:0x12345->ipv6_label").actions.at(0);
  EXPECT_EQ(label.type, ActionType::kSetIpv6);
  EXPECT_EQ(label.ipv6.flow_label, 0x12345u);
  // ovs-ofctl: "0x123456 is not a valid value for field ipv6_label" (20 bits).
  EXPECT_NE(Refusal("ipv6,actions=set_field:0x123456->ipv6_label").find("out of range"),
            std::string::npos);
  EXPECT_NE(Refusal("ip,actions=set_field:1->vlan_pcp").find("unsupported field 'vlan_pcp'"),
            std::string::npos);
}

TEST(FlowRuleParse, ModNwAddressesAreIpv4Only) {
  const Action a = Parse("ip,actions=mod_nw_src:10.0.0.9").actions.at(0);
  EXPECT_EQ(a.type, ActionType::kSetIpv4);
  EXPECT_EQ(a.ipv4.src, (std::array<uint8_t, 4>{10, 0, 0, 9}));
  // ovs-ofctl: "2001:db8::9: could not convert to IP address".
  EXPECT_NE(Refusal("ipv6,actions=mod_nw_src:2001:db8::9").find("not an IPv4 address"),
            std::string::npos);
  EXPECT_NE(Refusal("ipv6,actions=mod_nw_dst:2001:db8::9").find("mod_nw_dst"), std::string::npos);
}

TEST(FlowRuleParse, NatToAnIpv6AddressAndPort) {
  const Action a = Parse("ipv6,actions=ct(commit,nat(dst=[2001:db8::5]:80))").actions.at(0);
  bool v6 = false;
  EXPECT_TRUE(a.ct.nat.enabled);
  EXPECT_FALSE(a.ct.nat.snat);
  EXPECT_TRUE(a.ct.nat.ipv6);
  EXPECT_EQ(a.ct.nat.addr, ParseIp("2001:db8::5", &v6));
  EXPECT_EQ(a.ct.nat.port, 80);
  const Action b = Parse("ipv6,actions=ct(commit,nat(src=[2001:db8::6]))").actions.at(0);
  EXPECT_TRUE(b.ct.nat.snat);
  EXPECT_FALSE(b.ct.nat.port);
  // ovs-ofctl: 'garbage ([2001:db8::5) after nat range'.
  EXPECT_NE(Refusal("ipv6,actions=ct(commit,nat(dst=[2001:db8::5))").find("unterminated ["),
            std::string::npos);
}

TEST(FlowRuleParse, RefusedWords) {
  // ovs-ofctl: 'invalid argument to "ct" action: `foo'', 'invalid priority "x"',
  // 'unknown action frobnicate'.
  EXPECT_EQ(Refusal("ip,actions=ct(foo)"), "ct: unknown argument 'foo'");
  EXPECT_EQ(Refusal("priority=x,actions=drop"), "priority: 'x' is not a number");
  EXPECT_EQ(Refusal("priority=7x,actions=drop"), "priority: '7x' is not a number");
  EXPECT_EQ(Refusal("ip,actions=frobnicate:5"), "unknown action 'frobnicate:5'");
  // ovs-ofctl refuses a match field it does not know, too.
  EXPECT_EQ(Refusal("ip,frobnicate=1,actions=drop"),
            "flow 'ip,frobnicate=1,actions=drop': unknown match field 'frobnicate'");
}

}  // namespace
}  // namespace offlab
