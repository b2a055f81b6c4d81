// SPDX-License-Identifier: Apache-2.0
//
// The L2 headers in front of L3 as miniflow_extract reads them (openvswitch/ovs
// d6a632a9b lib/flow.c). parse_vlan (flow.c:349-370) takes at most
// flow_vlan_limit tags (FLOW_MAX_VLAN_HEADERS, 2), each TPID 0x8100 or 0x88a8
// (eth_type_vlan); a third tag is not read, so its TPID is the flow's dl_type
// and there is no L3. parse_ethertype (flow.c:373-404) takes a type below
// ETH_TYPE_MIN (0x600, lib/packets.h) as an 802.3 length: FLOW_DL_TYPE_NONE
// (0x5ff), no L3; 0x600 itself is an Ethertype.
//
// Each frame is also parsed with its head cut at every byte and the rest in a
// shared tail: a tag that runs into the tail must be read after the bytes are
// made contiguous, giving what the flat frame gives.
//
// Frames from scapy 2.8, Ether(src="8a:bf:7e:2f:05:84",
// dst="0a:8f:39:4f:e0:73",type=0x88a8)/Dot1Q(...)/.../IP(src="192.168.123.2",
// dst="192.168.123.1",ttl=64)/TCP(sport=54392,dport=5201,flags="A").
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::SplitPoisoned;

const std::string kIpTcp =
    "45000028000100004006037bc0a87b02c0a87b01 d47814510000000000000000501020002fb60000";

// Dot1Q(vlan=100,prio=5) with TPID 0x88a8, then Dot1Q(vlan=10).
const std::string kQinQ = H("0a8f394fe0738abf7e2f0584 88a8 a064 8100 000a 0800" + kIpTcp);
// Three tags: vlan 100 (0x88a8), 10 and 7 (0x8100).
const std::string kThreeTags =
    H("0a8f394fe0738abf7e2f0584 88a8 0064 8100 000a 8100 0007 0800" + kIpTcp);
// Dot3()/LLC()/STP(): an 802.3 length of 0x26 and an LLC header 42 42 03
// (the STP SAP, not SNAP).
const std::string kStp =
    H("0180c20000008abf7e2f0584 0026 424203"
      "0000000000000000000000000000000000000000000000000000000000000001001400"
      "02000f00");

FlowKey ParseWith(Packet& p, bool simple) { return simple ? ParseSimple(p) : Parse(p); }

TEST(ParseVlanTags, QinQTakesTheOuterTciAndParsesThroughBothTags) {
  for (bool simple : {false, true}) {
    SCOPED_TRACE(simple ? "simple" : "miniflow");
    Packet p(FromHex(kQinQ));
    const FlowKey key = ParseWith(p, simple);
    EXPECT_EQ(key.dl_type, 0x0800);
    EXPECT_TRUE(key.has_l4);
    EXPECT_EQ(key.nw_proto, 6);
    // l2_5 at the first tag's TPID (byte 12); L3 after 14 + 2 * 4 bytes.
    EXPECT_EQ(p.l2_5_ofs, 12);
    EXPECT_EQ(p.l3_ofs, 22);
    EXPECT_EQ(p.l4_ofs, 42);
    if (!simple) {
      EXPECT_TRUE(key.has_vlan);
      EXPECT_EQ(key.vlan_tci, 0xa064) << "PCP 5, VID 100: the outer tag's";
      EXPECT_EQ(key.tp_src, 54392);
      EXPECT_EQ(key.tcp_flags, 0x010) << "ACK";
    }
  }
}

TEST(ParseVlanTags, AThirdTagIsNotReadAndItsTpidIsTheDlType) {
  for (bool simple : {false, true}) {
    SCOPED_TRACE(simple ? "simple" : "miniflow");
    Packet p(FromHex(kThreeTags));
    const FlowKey key = ParseWith(p, simple);
    EXPECT_EQ(key.dl_type, 0x8100);
    EXPECT_FALSE(key.has_l3);
    EXPECT_FALSE(key.has_l4);
    EXPECT_EQ(p.l3_ofs, kNoOffset);
    EXPECT_EQ(p.l4_ofs, kNoOffset);
    EXPECT_EQ(p.l2_5_ofs, 12);
  }
}

TEST(ParseVlanTags, An8023LengthIsDlTypeNone) {
  Packet p(FromHex(kStp));
  const FlowKey key = Parse(p);
  EXPECT_EQ(key.dl_type, 0x05ff);
  EXPECT_FALSE(key.has_l3);
  EXPECT_EQ(key.ToString(), "dl_type=0x05ff");
  EXPECT_EQ(p.l3_ofs, kNoOffset);
}

TEST(ParseVlanTags, LengthsAndTypesMeetAt0x600) {
  // The STP frame's length field set to 0x5ff, the largest length, and to
  // 0x600, the smallest Ethertype; and behind a tag, the same rule.
  const std::string len5ff = testing::Sub(kStp, "0026424203", "05ff424203");
  const std::string type600 = testing::Sub(kStp, "0026424203", "0600424203");
  const std::string tagged600 = testing::Sub(kStp, "0026424203", "8100000a0600424203");
  struct Row {
    const std::string& hex;
    uint16_t dl_type;
  };
  for (const Row& r : {Row{len5ff, 0x05ff}, Row{type600, 0x0600}, Row{tagged600, 0x0600}}) {
    SCOPED_TRACE(r.hex.substr(24, 12));
    Packet p(FromHex(r.hex));
    const FlowKey key = Parse(p);
    EXPECT_EQ(key.dl_type, r.dl_type);
    EXPECT_FALSE(key.has_l3);
  }
}

// Dot3()/LLC(dsap=0xaa,ssap=0xaa,ctrl=3)/SNAP(OUI=0,code=0x0800)/IP/TCP as
// above: parse_ethertype takes the SNAP Ethertype (OUI 0, SNAP_ORG_ETHERNET)
// and L3 follows the 8-byte LLC/SNAP header. With another OUI (Cisco's
// 00000c) the frame stays FLOW_DL_TYPE_NONE.
const std::string kSnapIp = H("0a8f394fe0738abf7e2f0584 0030 aaaa03 000000 0800" + kIpTcp);
const std::string kSnapCisco =
    H("0a8f394fe0738abf7e2f0584 0010 aaaa03 00000c 2000 0001020304050607");

TEST(ParseVlanTags, SnapWithOuiZeroCarriesTheEthertype) {
  Packet p(FromHex(kSnapIp));
  const FlowKey key = Parse(p);
  EXPECT_EQ(key.dl_type, 0x0800);
  EXPECT_TRUE(key.has_l4);
  EXPECT_EQ(p.l3_ofs, 22);
  EXPECT_EQ(p.l4_ofs, 42);
  Packet q(FromHex(kSnapCisco));
  EXPECT_EQ(Parse(q).dl_type, 0x05ff);
  EXPECT_EQ(q.l3_ofs, kNoOffset);
}

// Wherever the head ends, the key and offsets are the flat frame's.
TEST(ParseVlanTags, TagsRunningIntoASharedTailParseAsTheFlatBytes) {
  for (const std::string* hex : {&kQinQ, &kThreeTags, &kStp, &kSnapIp}) {
    const Bytes bytes = FromHex(*hex);
    for (bool simple : {false, true}) {
      Packet flat(bytes);
      const FlowKey want = ParseWith(flat, simple);
      for (size_t n = 1; n < bytes.size(); n++) {
        SCOPED_TRACE(hex->substr(24, 8) + (simple ? " simple" : " miniflow") + ", head " +
                     std::to_string(n));
        Packet p = SplitPoisoned(Packet(bytes), n);
        const FlowKey got = ParseWith(p, simple);
        EXPECT_EQ(got.dl_type, want.dl_type);
        EXPECT_EQ(got.has_vlan, want.has_vlan);
        EXPECT_EQ(got.vlan_tci, want.vlan_tci);
        EXPECT_EQ(got.has_l4, want.has_l4);
        EXPECT_EQ(got.error, want.error);
        EXPECT_EQ(p.l2_5_ofs, flat.l2_5_ofs);
        EXPECT_EQ(p.l3_ofs, flat.l3_ofs);
        EXPECT_EQ(p.l4_ofs, flat.l4_ofs);
        EXPECT_EQ(Hex(p), *hex);
      }
    }
  }
}

// A second tag cut short: OVS's parse_vlan stops (flow.c:359, fewer than
// 4 + 2 bytes left) and the tag's TPID is the dl_type, with no L3.
TEST(ParseVlanTags, ATruncatedInnerTagStopsWithItsTpidAsDlType) {
  const std::string cut = kQinQ.substr(0, 2 * 20);  // up to the inner TCI
  Packet p(FromHex(cut));
  const FlowKey key = Parse(p);
  EXPECT_EQ(key.dl_type, 0x8100);
  EXPECT_TRUE(key.has_vlan);
  EXPECT_EQ(key.vlan_tci, 0xa064);
  EXPECT_FALSE(key.has_l3);
  EXPECT_FALSE(key.error.empty());
}

}  // namespace
}  // namespace offlab
