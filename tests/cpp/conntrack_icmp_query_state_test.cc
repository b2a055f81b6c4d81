// SPDX-License-Identifier: Apache-2.0
//
// ICMP query connections and the ICMP types userspace conntrack does not
// know. Rules from Open vSwitch lib/conntrack-icmp.c icmp_conn_update (since
// v2.13, "conntrack: Fix conntrack new state"): until a reply has been seen
// the connection is still in ICMPS_FIRST and every further request gets
// CT_UPDATE_VALID_NEW, i.e. +new, not +est; and lib/conntrack.c
// extract_l4_icmp / extract_l4_icmp6: a type that is neither a query nor an
// error falls to `default: return false`, so the packet is +inv.
//
// Frames from scapy 2.x, E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02"),
// ER the reverse:
//   kEcho       E/IP(src="10.0.0.1",dst="10.0.0.2",id=9)/ICMP(type=8,id=0x1234,seq=1)/b"ping"
//   kEcho2      the same with id=10, seq=2
//   kEchoReply  ER/IP(src="10.0.0.2",dst="10.0.0.1",id=11)/ICMP(type=0,id=0x1234,seq=1)/b"ping"
//   kRouterSol  E/IP(src="10.0.0.1",dst="10.0.0.2",id=12)/ICMP(type=10)  (RFC 1256)
//   kNeighSol   E/IPv6(src="2001:db8::1",dst="2001:db8::2")/ICMPv6ND_NS(tgt="2001:db8::2")
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

const std::string kEcho =
    "02000000000202000000000108004500002000090000400166d20a0000010a000002080006fa1234000170696e"
    "67";
const std::string kEcho2 =
    "020000000002020000000001080045000020000a0000400166d10a0000010a000002080006f91234000270696e"
    "67";
const std::string kEchoReply =
    "020000000001020000000002080045000020000b0000400166d00a0000020a00000100000efa1234000170696e"
    "67";
const std::string kRouterSol =
    "02000000000202000000000108004500001c000c0000400166d30a0000010a0000020a00f5ff00000000";
const std::string kNeighSol =
    "02000000000202000000000186dd6000000000183aff20010db800000000000000000000000120010db80000"
    "000000000000000000028700ef7c0000000020010db8000000000000000000000002";

constexpr uint32_t kTrk = ct::kTracked;

uint32_t Track(Conntrack& ct, const std::string& hex, const std::string& args) {
  return testing::CtTrack(ct, hex, args);
}

TEST(CtIcmpQueryState, RequestsBeforeAnyReplyStayNew) {
  Conntrack ct;
  EXPECT_EQ(Track(ct, kEcho, "commit"), kTrk | ct::kNew);
  // A second request of the same query (same id) finds the connection, still
  // in ICMPS_FIRST: CT_UPDATE_VALID_NEW, so +new and not +est.
  EXPECT_EQ(Track(ct, kEcho2, ""), kTrk | ct::kNew);
  EXPECT_EQ(ct.connections(), 1u) << "the repeat joins the committed connection";
  EXPECT_EQ(Track(ct, kEchoReply, ""), kTrk | ct::kEstablished | ct::kReplyDir);
  // After the reply (ICMPS_REPLY) the requests are established.
  EXPECT_EQ(Track(ct, kEcho2, ""), kTrk | ct::kEstablished);
}

TEST(CtIcmpQueryState, UnknownIcmpTypeIsInvalid) {
  Conntrack ct;
  // Router solicitation (type 10) is neither a query conntrack pairs nor an
  // error: invalid, and commit stores nothing.
  EXPECT_EQ(Track(ct, kRouterSol, "commit"), kTrk | ct::kInvalid);
  EXPECT_EQ(ct.connections(), 0u);
}

TEST(CtIcmpQueryState, UnknownIcmpv6TypeIsInvalid) {
  Conntrack ct;
  // Neighbour solicitation (135), checksum correct: extract_l4_icmp6 only
  // knows echo request/reply and the four error types.
  EXPECT_EQ(Track(ct, kNeighSol, "commit"), kTrk | ct::kInvalid);
  EXPECT_EQ(ct.connections(), 0u);
}

}  // namespace
}  // namespace offlab
