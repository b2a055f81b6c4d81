// SPDX-License-Identifier: Apache-2.0
//
// Native tunnel pop: which outer headers netdev_*_pop_header refuses
// (openvswitch/ovs d6a632a9b lib/netdev-native-tnl.c), each refusal a drop
// counted as datapath_drop_tunnel_pop_error (lib/dpif-netdev.c), and the
// optional GRE words that are skipped.
//  - Geneve (netdev_geneve_pop_header, :1225-1262): fewer than
//    GENEVE_BASE_HLEN (UDP 8 + Geneve 8) bytes of L4, options running past
//    the packet, a version other than 0, or a protocol other than
//    ETH_TYPE_TEB (0x6558): refused.
//  - VXLAN (netdev_vxlan_pop_header, :1106-1120): fewer than VXLAN_HLEN
//    (UDP 8 + VXLAN 8) bytes of L4: refused.
//  - GRE (parse_gre_header, :446-492): the header is 4 bytes plus 4 for each
//    of C, K and S (RFC 2890: the key, then the sequence number); one that
//    runs past the packet is refused; the key is the tunnel id and the
//    sequence number is skipped.
// Frames: scapy 2.8, Ether(src="aa:66:aa:66:00:00",dst="aa:66:aa:66:00:01")/
// IP(src="1.1.2.88",dst="1.1.2.92",flags="DF",id=0,ttl=64)/
// UDP(sport=49152,dport=6081 or 4789,chksum=0) or proto=47, then the tunnel
// header bytes shown, then (where "+ kG") dpif-netdev.at's frame G.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using namespace testdata;
using testing::H;

const std::string kEthIp = "aa66aa660001aa66aa6600000800";
// IPv4 + UDP to 6081 with 134 bytes of L4: Geneve base header + G.
const std::string kGeneve134 = "4500009a000040004011339e010102580101025c c00017c100860000";

struct Refused {
  const char* name;
  std::string hex;
};

TEST(TunnelPopHeaderRefused, MalformedTunnelHeadersAreDroppedAndCounted) {
  const Refused cases[] = {
      {"geneve version 1", H(kEthIp + kGeneve134 + "4000655800000a00") + kG},
      {"geneve carrying IPv4", H(kEthIp + kGeneve134 + "0000080000000a00") + kG},
      // opt_len 2 (8 bytes of options), 4 in the packet.
      {"geneve options past the packet",
       H(kEthIp + "450000280000400040113410010102580101025c c00017c100140000"
                  "0200655800000a00 01020304")},
      // 6 bytes of Geneve header.
      {"geneve base header short",
       H(kEthIp + "450000220000400040113416010102580101025c c00017c1000e0000 000065580000")},
      // 4 bytes of VXLAN header.
      {"vxlan header short",
       H(kEthIp + "450000200000400040113418010102580101025c c00012b5000c0000 08000000")},
      // K set, 2 bytes of key.
      {"gre key short", H(kEthIp + "4500001a00004000402f3400010102580101025c 200065580000")},
  };
  for (const Refused& c : cases) {
    SCOPED_TRACE(c.name);
    Packet p(FromHex(c.hex));
    Parse(p);
    Counters counters;
    std::string why;
    EXPECT_FALSE(PopHeader(p, &counters, &why));
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(counters.Get("datapath_drop_tunnel_pop_error"), 1u);
  }
  // The same Geneve frame with version 0 and ETH_TYPE_TEB is popped to G.
  Packet ok(FromHex(H(kEthIp + kGeneve134 + "0000655800000a00") + kG));
  Parse(ok);
  std::string why;
  ASSERT_TRUE(PopHeader(ok, nullptr, &why)) << why;
  EXPECT_EQ(testing::Hex(ok), kG);
  EXPECT_EQ(ok.md.tunnel.key, 10u);
}

TEST(TunnelPopHeaderRefused, ABadOuterIpv4ChecksumIsRefusedWithItsReason) {
  // netdev_tnl_ip_extract_tnl_md (lib/netdev-native-tnl.c:91-95): an outer
  // IPv4 header not marked good whose csum() is not 0 is refused ("ip packet
  // has invalid checksum"). The good Geneve frame above with its header
  // checksum 339e made 339f.
  std::string hex = H(kEthIp + kGeneve134 + "0000655800000a00") + kG;
  ASSERT_EQ(hex.substr(48, 4), "339e");
  hex.replace(48, 4, "339f");
  Packet p(FromHex(hex));
  Parse(p);
  Counters counters;
  std::string why;
  EXPECT_FALSE(PopHeader(p, &counters, &why));
  EXPECT_EQ(why, "decap: outer IPv4 checksum bad");
  EXPECT_EQ(counters.Get("native_tnl_l3csum_err"), 1u);
  EXPECT_EQ(counters.Get("datapath_drop_tunnel_pop_error"), 1u);
}

TEST(TunnelPopHeaderRefused, GreSequenceNumberIsSkipped) {
  struct Case {
    const char* name;
    std::string hex;
    uint32_t key;
  };
  const Case cases[] = {
      // S: flags 0x1000, sequence number 7.
      {"seq", H(kEthIp + "4500009200004000402f3388010102580101025c 1000655800000007") + kG, 0},
      // K and S: key 42, then sequence number 7.
      {"key and seq",
       H(kEthIp + "4500009600004000402f3384010102580101025c 300065580000002a00000007") + kG, 42},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Packet p(FromHex(c.hex));
    Parse(p);
    ASSERT_TRUE(PopHeader(p));
    EXPECT_EQ(testing::Hex(p), kG);
    EXPECT_EQ(p.md.tunnel.type, TunnelType::kGre);
    EXPECT_EQ(p.md.tunnel.key, c.key);
  }
}

}  // namespace
}  // namespace offlab
