// SPDX-License-Identifier: Apache-2.0
//
// An IPv4 address rewrite on a later fragment and on a cut-short L4 header,
// as ovs-vswitchd 3.1.0 on the development machine does it (ovs-diff case
// fragment-rewrite): the L4 offset is where the IP payload starts
// (lib/flow.c:1001), and packet_set_ipv4_addr updates the 16 bits where a TCP
// or UDP checksum would be whenever a TCP or UDP header's worth of bytes
// follows, a later fragment's data included. Expected bytes: RFC 1624 eqn. 3
// by hand with the plain oracle sum. Frames from scapy.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::OracleSum;

// HC' = ~(~HC + ~m + m') over the two address words 10.0.0.1 -> 10.0.0.9.
uint16_t Updated(uint16_t hc) {
  const uint8_t words[8] = {static_cast<uint8_t>(~hc >> 8),
                            static_cast<uint8_t>(~hc),
                            0xff - 10,
                            0xff - 0,
                            0xff - 0,
                            0xff - 1,
                            0,
                            0};
  const uint8_t add[4] = {10, 0, 0, 9};
  uint32_t s = OracleSum(words, 6);
  s = OracleSum(add, 4, s);
  return static_cast<uint16_t>(~s);
}

Bytes Rewritten(const std::string& hex) {
  Packet p(FromHex(hex));
  Parse(p);
  Ipv4Set set;
  set.dst = std::array<uint8_t, 4>{10, 0, 0, 9};
  EXPECT_TRUE(SetIpv4(p, set));
  return p.bytes();
}

TEST(RewriteFragment, ALaterFragmentsDataIsUpdatedWhereAnL4ChecksumWouldBe) {
  // IP(src="10.0.0.2",dst="10.0.0.1",proto=6,id=1,frag=3)/Raw(bytes(range(24)))
  const Bytes tcp = Rewritten(
      "0a8f394fe0738abf7e2f058408004500002c00010003400666c60a0000020a000001"
      "000102030405060708090a0b0c0d0e0f1011121314151617");
  EXPECT_EQ(Be16(tcp, 34 + 16), Updated(0x1011));
  EXPECT_EQ(tcp[33], 9);
  // The same with proto=17 and the data 01..18: bytes 6-7 of it.
  const Bytes udp = Rewritten(
      "0a8f394fe0738abf7e2f058408004500002c00020003401166ba0a0000020a000001"
      "0102030405060708090a0b0c0d0e0f101112131415161718");
  EXPECT_EQ(Be16(udp, 34 + 6), Updated(0x0708));
}

TEST(RewriteFragment, FewerBytesThanAHeaderAreLeftAlone) {
  // A later fragment of TCP with 16 data bytes, and a TCP header cut to 10.
  for (const std::string& hex :
       {std::string("0a8f394fe0738abf7e2f058408004500002400030003400666cc0a0000020a000001"
                    "000102030405060708090a0b0c0d0e0f"),
        std::string("0a8f394fe0738abf7e2f058408004500001e00040000400666d40a0000020a000001"
                    "00010203040506070809")}) {
    const Bytes in = FromHex(hex), out = Rewritten(hex);
    ASSERT_EQ(out.size(), in.size());
    EXPECT_EQ(Bytes(out.begin() + 34, out.end()), Bytes(in.begin() + 34, in.end())) << hex;
    EXPECT_EQ(out[33], 9);
  }
}

// Port rewrites skip a later fragment: no L4 header in its flow
// (ofproto-dpif-xlate.c OFPACT_SET_L4_*_PORT, meta-flow.c MFP_TCP/UDP:
// !FLOW_NW_FRAG_LATER; ovs-vswitchd 3.1.0 left both frames alone in the
// ovs-diff case fragment-rewrite).
TEST(RewriteFragment, PortRewritesSkipALaterFragment) {
  // IP(proto=6,frag=1) whose data looks like a TCP header, and IP(proto=17,
  // frag=1)/Raw(1388003500100000aabbccddeeff0011) (scapy).
  const std::string tcp =
      "0a00000000010a0000000001080045000028000000010006a6ce0a0000010a000001"
      "000100010000000000000000500220007bdf0000";
  const std::string udp =
      "0a00000000010a000000000108004500002400030001401166c40a0000010a000001"
      "1388003500100000aabbccddeeff0011";
  for (const auto& [flow, frame] :
       {std::pair<std::string, std::string>{"tcp,actions=mod_tp_src:80", tcp},
        {"tcp,actions=mod_tp_src:0,mod_tp_dst:0", tcp},
        {"udp,actions=mod_tp_dst:99", udp},
        {"udp,actions=set_field:7->udp_src", udp}}) {
    Pipeline br;
    br.AddPort({.name = "p1"});
    br.AddPort({.name = "p2"});
    br.AddFlow("in_port=p1," + flow + ",output:p2");
    const std::vector<Sent> out = br.Receive("p1", FromHex(frame));
    ASSERT_EQ(out.size(), 1u) << flow;
    EXPECT_EQ(ToHex(out[0].frame), frame) << flow;
  }
}

}  // namespace
}  // namespace offlab
