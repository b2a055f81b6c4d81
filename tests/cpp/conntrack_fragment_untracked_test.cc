// SPDX-License-Identifier: Apache-2.0
//
// Fragments that conntrack proper sees, and flushing the tables. In Open
// vSwitch a fragment reaches conntrack (lib/conntrack.c conn_key_extract)
// only when ipf did not take it (lib/ipf.c ipf_handle_frag: nfrag_max
// reached, a list already completed); extract_l3_ipv4 then fails on
// IP_IS_FRAGMENT (MF or an offset) and extract_l3_ipv6 on a fragment
// header, so the packet is +inv and commit stores nothing. Clear() is
// conntrack_flush plus ipf's lists going away: nothing of what was tracked
// or held before is remembered.
//
// Frames from scapy 2.x, E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02"):
//   D(id) = IP(src="10.0.0.1",dst="10.0.0.2",id=id)/TCP(sport=40000,dport=80,flags="A",
//           seq=1,ack=1)/Raw(bytes(range(256))*8), E/fragment(D(id),fragsize=1200)[k]
//   kSyn6Frag = E/IPv6(src="2001:db8::1",dst="2001:db8::2")/
//               IPv6ExtHdrFragment(id=5,m=1,offset=0)/TCP(sport=40000,dport=80,flags="S")
#include <gtest/gtest.h>

#include <string>

#include "flow_test_util.h"
#include "offlab/net/bytes.h"
#include "offlab/ovs/conntrack.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

using testing::CtAction;

const std::string kSyn6Frag =
    "02000000000202000000000186dd60000000001c2c4020010db800000000000000000000000120010db80000"
    "0000000000000000000206000001000000059c40005000000000000000005002200097dd0000";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53)/b"query" and the reply
// ER/IP(src="10.0.0.2",dst="10.0.0.1",id=8)/UDP(sport=53,dport=5000)/b"answer".
const std::string kUdp =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d882c717565"
    "7279";
const std::string kUdpReply =
    "02000000000102000000000208004500002200080000401166c10a0000020a00000100351388000e9dba616e73"
    "776572";

// Fragment 0 of D(id) (MF, offset 0: the TCP header and 1180 payload bytes)
// and fragment 1 of D(0x77) (offset 150 * 8, the last 868 payload bytes).
const std::string kFrag0Hdr77 =
    "0200000000020200000000010800450004c400772000400641bb0a0000010a000002";
const std::string kFrag0Hdr78 =
    "0200000000020200000000010800450004c400782000400641ba0a0000010a000002";
const std::string kFrag1Hdr77 =
    "02000000000202000000000108004500037800770096400662710a0000010a000002";
const std::string kTcpHdr = "9c400050000000010000000150102000d5410000";

Bytes Payload(size_t from, size_t to) {
  Bytes b;
  for (size_t i = from; i < to; i++) b.push_back(static_cast<uint8_t>(i));
  return b;
}

Packet Frame(const std::string& hex, const Bytes& tail = {}, CsumStatus l4 = CsumStatus::kUnknown) {
  Bytes b = FromHex(hex);
  b.insert(b.end(), tail.begin(), tail.end());
  Packet p(std::move(b));
  p.offloads.set_l4(l4);
  Parse(p);
  return p;
}

Packet First(const std::string& hdr, CsumStatus l4 = CsumStatus::kUnknown) {
  return Frame(hdr + kTcpHdr, Payload(0, 1180), l4);
}

constexpr uint32_t kTrk = ct::kTracked;

TEST(CtFragmentUntracked, Ipv6FragmentIsInvalid) {
  Conntrack ct;
  Packet p = Frame(kSyn6Frag);
  ASSERT_TRUE(ct.Execute(p, CtAction("commit")));
  EXPECT_EQ(p.md.ct_state, kTrk | ct::kInvalid);
  EXPECT_EQ(ct.connections(), 0u);
}

TEST(CtFragmentUntracked, Ipv4FirstFragmentIpfDidNotHoldIsInvalid) {
  Conntrack ct(IpfConfig{.max_fragments = 1});
  EXPECT_TRUE(ct.Execute(PacketBatch{First(kFrag0Hdr77)}, CtAction("commit")).empty());
  ASSERT_EQ(ct.held_fragments(), 1u);
  // nfrag_max reached: ipf leaves the next fragment in the batch, as it was.
  // Its TCP header is complete and the NIC vouched for it (l4 good), but
  // IP_IS_FRAGMENT sees MF: invalid all the same.
  PacketBatch out =
      ct.Execute(PacketBatch{First(kFrag0Hdr78, CsumStatus::kGood)}, CtAction("commit"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].bytes()).substr(0, kFrag0Hdr78.size()), kFrag0Hdr78);
  EXPECT_EQ(out[0].md.ct_state, kTrk | ct::kInvalid);
  EXPECT_EQ(ct.held_fragments(), 1u);
  EXPECT_EQ(ct.connections(), 0u);
}

TEST(CtFragmentUntracked, ClearForgetsConnectionsAndHeldFragments) {
  Conntrack ct;
  Packet udp = Frame(kUdp);
  ASSERT_TRUE(ct.Execute(udp, CtAction("commit")));
  EXPECT_TRUE(ct.Execute(PacketBatch{First(kFrag0Hdr77)}, CtAction("commit")).empty());
  ASSERT_EQ(ct.connections(), 1u);
  ASSERT_EQ(ct.held_fragments(), 1u);

  ct.Clear();
  EXPECT_EQ(ct.connections(), 0u);
  EXPECT_EQ(ct.held_fragments(), 0u);
  // The reply finds no connection: new, not est+rpl.
  Packet reply = Frame(kUdpReply);
  ASSERT_TRUE(ct.Execute(reply, CtAction("")));
  EXPECT_EQ(reply.md.ct_state, kTrk | ct::kNew);
  // The last fragment alone completes nothing: fragment 0 is gone.
  EXPECT_TRUE(
      ct.Execute(PacketBatch{Frame(kFrag1Hdr77, Payload(1180, 2048))}, CtAction("commit")).empty());
  EXPECT_EQ(ct.held_fragments(), 1u);
}

}  // namespace
}  // namespace offlab
