// SPDX-License-Identifier: Apache-2.0
//
// The length rules of models/src/ovs/netdev_len.cc called directly, for the
// cases the bridge tests do not reach. Expected values by hand from OVS
// d6a632a9b: netdev-linux (tap, AF_PACKET; ibmveth is one) checks no length
// itself (lib/netdev-linux.c:1718-1830); netdev-dummy allows mtu + 14, + 4
// for an 802.1Q frame (lib/netdev-dummy.c:1367-1384) and lets a TSO packet
// through only with ol_tso_segsz (is_tso, :1358-1359); netdev-dpdk allows
// mtu + 18 and every TSO packet (lib/netdev-dpdk.c:3043-3064);
// ipv4_sanity_check / ipv6_sanity_check (lib/flow.c:683-749) name their
// failures by coverage counter, too_short for a header cut short, len_error
// for the length fields.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/netdev_len.h"
#include "offlab/ovs/parse.h"

namespace offlab {
namespace {

constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

Packet Frame(size_t n, uint16_t ethertype = 0x0800) {
  Bytes b(n, 0);
  b[12] = static_cast<uint8_t>(ethertype >> 8);
  b[13] = static_cast<uint8_t>(ethertype);
  return Packet(b);
}

TEST(NetdevLenEdges, ClassesAndTheirLimits) {
  EXPECT_EQ(NetdevClassOf("ibmveth"), NetdevClass::kLinux);
  EXPECT_EQ(NetdevClassOf("tun"), NetdevClass::kLinux);
  EXPECT_EQ(NetdevClassOf("dummy"), NetdevClass::kDummy);
  EXPECT_EQ(NetdevClassOf("net_ice"), NetdevClass::kDpdk);
  const Packet p = Frame(1600);
  EXPECT_EQ(MaxFrameLen(p, {NetdevClass::kLinux, 1500}), kUnlimited);
  EXPECT_EQ(MaxFrameLen(p, {NetdevClass::kDpdk, 0}), kUnlimited);
  EXPECT_EQ(MaxFrameLen(p, {NetdevClass::kDpdk, 1500}), 1518u);
  EXPECT_EQ(MaxFrameLen(p, {NetdevClass::kDummy, 1500}), 1514u);
  EXPECT_EQ(MaxFrameLen(Frame(1600, 0x8100), {NetdevClass::kDummy, 1500}), 1518u);
  // An 802.1ad outer tag is not 802.1Q.
  EXPECT_EQ(MaxFrameLen(Frame(1600, 0x88a8), {NetdevClass::kDummy, 1500}), 1514u);
  // A frame of 13 bytes has no EtherType to read.
  EXPECT_EQ(MaxFrameLen(Packet(Bytes(13, 0x81)), {NetdevClass::kDummy, 1500}), 1514u);
  EXPECT_EQ(TxLengthRefusal(p, {NetdevClass::kLinux, 1500}), "");
}

TEST(NetdevLenEdges, TsoExemptionPerClass) {
  Packet p = Frame(1600);
  p.tso_segsz = 1000;
  EXPECT_EQ(TxLengthRefusal(p, {NetdevClass::kDpdk, 1500}), "");
  EXPECT_EQ(TxLengthRefusal(p, {NetdevClass::kDummy, 1500, true}), "");
  EXPECT_EQ(TxLengthRefusal(p, {NetdevClass::kDummy, 1500, false}),
            "frame of 1600 bytes exceeds MTU 1500 (at most 1514 bytes without TSO)");
  p.tso_segsz = 0;
  EXPECT_EQ(TxLengthRefusal(p, {NetdevClass::kDummy, 1500, true}),
            "frame of 1600 bytes exceeds MTU 1500 (at most 1514 bytes without TSO)");
  EXPECT_EQ(TxLengthRefusal(Frame(1514), {NetdevClass::kDummy, 1500}), "");
  EXPECT_EQ(TxLengthRefusal(Packet(Bytes(1, 0)), {NetdevClass::kDummy, 1500}),
            "frame of 1 byte is shorter than an Ethernet header (EMSGSIZE)");
  EXPECT_EQ(TxLengthRefusal(Packet(Bytes(1, 0)), {NetdevClass::kDpdk, 1500}), "");
}

TEST(NetdevLenEdges, RxDropCountedWithoutEvents) {
  Counters c;
  EXPECT_TRUE(DropRxInvalid(13, &c, nullptr));
  EXPECT_FALSE(DropRxInvalid(14, &c, nullptr));
  EXPECT_EQ(c.Get(kRxInvalidPacket), 1u);
  std::vector<std::string> events;
  EXPECT_TRUE(DropRxInvalid(0, &c, &events));
  EXPECT_EQ(events, std::vector<std::string>{
                        "drop: frame of 0 bytes is shorter than an Ethernet header (14 bytes)"});
}

const char* CounterFor(const std::string& error) {
  FlowKey key;
  key.error = error;
  return MiniflowLengthCounter(key);
}

TEST(NetdevLenEdges, EachSanityCheckFailureByCounter) {
  EXPECT_STREQ(CounterFor("ipv4: header truncated"), "miniflow_extract_ipv4_pkt_too_short");
  for (const char* e : {"ipv4: IHL below 20 bytes", "ipv4: IHL exceeds frame",
                        "ipv4: total length inconsistent with frame",
                        "ipv4: more than 65535 bytes after the total length"}) {
    EXPECT_STREQ(CounterFor(e), "miniflow_extract_ipv4_pkt_len_error") << e;
  }
  EXPECT_STREQ(CounterFor("ipv6: header truncated"), "miniflow_extract_ipv6_pkt_too_short");
  for (const char* e : {"ipv6: payload length exceeds frame",
                        "ipv6: more than 65535 bytes after the payload length"}) {
    EXPECT_STREQ(CounterFor(e), "miniflow_extract_ipv6_pkt_len_error") << e;
  }
  EXPECT_EQ(CounterFor("tcp: header truncated"), nullptr);
  EXPECT_EQ(CounterFor(""), nullptr);
  // Counted without an event list, and nothing for an error no sanity check names.
  Counters c;
  FlowKey key;
  key.error = "ipv6: payload length exceeds frame";
  CountMiniflowLengthError(key, &c, nullptr);
  key.error = "udp: header truncated";
  std::vector<std::string> events;
  CountMiniflowLengthError(key, &c, &events);
  EXPECT_EQ(c.Get("miniflow_extract_ipv6_pkt_len_error"), 1u);
  EXPECT_TRUE(events.empty());
}

}  // namespace
}  // namespace offlab
