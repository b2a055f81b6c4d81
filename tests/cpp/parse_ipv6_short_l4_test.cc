// SPDX-License-Identifier: Apache-2.0
//
// The bytes an IPv6 packet's payload length leaves for its transport header,
// counted after its extension headers: miniflow_extract trims the frame to
// the payload length and takes the TCP ports only if a whole TCP header
// fits in what is left (openvswitch/ovs v3.1.0 lib/flow.c). Bytes after the
// payload (Ethernet padding) do not count, even when they would complete
// the header. Frame from scapy 2.x:
//   Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/IPv6ExtHdrHopByHop()/
//   TCP(sport=40000,dport=80,flags="S",seq=1000)
// with the payload length cut from 28 to 18: 10 TCP bytes, the other 10 padding.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

const std::string kHbhSyn =
    "02000000000202000000000186dd60000000001c004020010db800000000000000000000000120010db80000"
    "0000000000000000000206000104000000009c400050000003e8000000005002200093f50000";

TEST(ParseIpv6, ATransportHeaderPastThePayloadLengthIsTruncated) {
  Bytes f = FromHex(kHbhSyn);
  f[19] = 18;  // payload length 28 -> 18
  for (bool simple : {false, true}) {
    SCOPED_TRACE(simple ? "simple" : "miniflow");
    Packet p(f);
    const FlowKey key = simple ? ParseSimple(p) : Parse(p);
    EXPECT_EQ(key.error, "tcp: header truncated");
    EXPECT_FALSE(key.has_l4);
    EXPECT_EQ(key.tp_src, 0);
  }
  // The whole header inside the payload length: the ports are read.
  Packet whole(FromHex(kHbhSyn));
  const FlowKey ok = Parse(whole);
  EXPECT_TRUE(ok.error.empty()) << ok.error;
  EXPECT_EQ(ok.tp_src, 40000);
  EXPECT_EQ(ok.tp_dst, 80);
}

TEST(ParseIpv6, TheKeyPrintsEveryGroupOfBothAddresses) {
  // scapy: IPv6(src="2001:db8:1:2:3:4:5:6",dst="2001:db8:a:b:c:d:e:f")/
  //   TCP(sport=1234,dport=80,flags="A") behind the same Ethernet header.
  Packet p(FromHex(
      "02000000000202000000000186dd600000000014064020010db800010002000300040005000620010db8000a"
      "000b000c000d000e000f04d200500000000000000000501020002ee10000"));
  EXPECT_EQ(Parse(p).ToString(),
            "ipv6 2001:db8:1:2:3:4:5:6>2001:db8:a:b:c:d:e:f proto=6 tp=1234>80");
}

}  // namespace
}  // namespace offlab
