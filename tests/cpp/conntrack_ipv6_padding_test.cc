// SPDX-License-Identifier: Apache-2.0
//
// Userspace conntrack refuses an IPv6 packet whose payload length runs past
// the frame, and takes one followed by Ethernet padding: only the payload
// length counts (openvswitch/ovs v3.1.0 lib/conntrack.c extract_l3_ipv6,
// which checks `plen + IPV6_HEADER_LEN > size` only). Frame from scapy 2.x:
//   Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/TCP(sport=40000,dport=80,flags="S",seq=1000)
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

const std::string kSyn6 =
    "02000000000202000000000186dd600000000014064020010db800000000000000000000000120010db80000"
    "000000000000000000029c400050000003e8000000005002200093f50000";

uint32_t Commit(Conntrack& ct, const Bytes& frame) {
  Packet p(frame);
  Parse(p);
  EXPECT_TRUE(ct.Execute(p, testing::CtAction("commit"), nullptr));
  return p.md.ct_state;
}

TEST(CtIpv6Length, PaddingAfterThePayloadIsIgnored) {
  Bytes padded = FromHex(kSyn6);
  padded.resize(padded.size() + 6, 0);
  Conntrack ct;
  EXPECT_EQ(Commit(ct, padded), ct::kTracked | ct::kNew);
  EXPECT_EQ(ct.connections(), 1u);
}

TEST(CtIpv6Length, APayloadLengthPastTheFrameIsInvalid) {
  Bytes cut = FromHex(kSyn6);
  cut[19] = 0x18;  // payload length 20 -> 24: four bytes more than the frame has
  Conntrack ct;
  EXPECT_EQ(Commit(ct, cut), ct::kTracked | ct::kInvalid);
  EXPECT_EQ(ct.connections(), 0u);
}

}  // namespace
}  // namespace offlab
