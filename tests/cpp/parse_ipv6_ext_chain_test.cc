// SPDX-License-Identifier: Apache-2.0
//
// IPv6 extension headers as OVS's parse_ipv6_ext_hdrs__ walks them
// (openvswitch/ovs d6a632a9b lib/flow.c:487-578):
//  - Hop-by-Hop (0) and Destination Options (60) are (ip6e_len + 1) * 8 bytes,
//    the Routing header (43) (hdrlen + 1) * 8, AH (51) (ip6e_len + 2) * 4
//    (RFC 4302 section 2.2: in 32-bit words, minus 2), the Fragment header
//    (44) 8; each needs at least 8 bytes (flow.c:517).
//  - A Fragment header whose ip6f_offlg is zero (an atomic fragment, RFC 6946)
//    is not a fragment: nw_frag stays 0 and the walk goes on (flow.c:569).
//    Otherwise nw_frag is FLOW_NW_FRAG_ANY (1), and with a non-zero offset
//    also FLOW_NW_FRAG_LATER (2), the walk stops and nw_proto is
//    IPPROTO_FRAGMENT (44), not the header's next header (flow.c:571-574).
// ipv6_sanity_check (flow.c:729-749) refuses fewer than 40 bytes.
//
// Frames from scapy 2.8: Ether(src="8a:bf:7e:2f:05:84",dst="0a:8f:39:4f:e0:73")
// /IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64)/...
// /UDP(sport=5000,dport=6000)/Raw(bytes(range(8))).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/ovs/complete.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::SplitPoisoned;

const std::string kEth = "0a8f394fe0738abf7e2f058486dd";
const std::string kAddrs = "2001cafe000000000000000000000088 2001cafe000000000000000000000092";
const std::string kUdp = "138817700010f1ac 0001020304050607";

// IPv6ExtHdrRouting(addresses=[]): next header 17, hdrlen 0 (8 bytes).
const std::string kRouting = H(kEth + "6000000000182b40" + kAddrs + "1100000000000000" + kUdp);
// IPv6ExtHdrHopByHop()/IPv6ExtHdrDestOpt()/IPv6ExtHdrFragment(nh=17,m=1,id=7):
// a first fragment behind two option headers.
const std::string kChain = H(kEth + "6000000000280040" + kAddrs +
                             "3c00010400000000 2c00010400000000 1100000100000007" + kUdp);
// IPv6ExtHdrFragment(nh=17,offset=0,m=0,id=7): an atomic fragment.
const std::string kAtomic = H(kEth + "6000000000182c40" + kAddrs + "1100000000000007" + kUdp);
// IPv6ExtHdrFragment(nh=17,offset=4,m=0,id=7)/Raw(bytes(range(8)) * 3).
const std::string kLater = H(kEth + "6000000000202c40" + kAddrs + "1100002000000007" +
                             "0001020304050607 0001020304050607 0001020304050607");
// IPv6ExtHdrDestOpt(nh=59) with a PadN option: 8 bytes that are the whole
// payload. data_try_pull takes a header exactly as long as what is left
// (lib/flow.c:121-124, "*sizep >= size"), so the walk ends at No Next
// Header (59) with the L4 offset at the end of the payload (flow.c:1039).
const std::string kDestOptsFilling = H(kEth + "6000000000083c40" + kAddrs + "3b00010400000000");
// AH(nh=17,payloadlen=4,spi=0x100,seq=1,icv=12 zero bytes): 24 bytes.
const std::string kAh =
    H(kEth + "6000000000283340" + kAddrs + "1104000000000100 00000001 000000000000000000000000" +
      "1388177000100000 0001020304050607");

FlowKey ParseWith(Packet& p, bool simple) { return simple ? ParseSimple(p) : Parse(p); }

struct Row {
  const char* name;
  const std::string& hex;
  uint8_t nw_proto, nw_frag;
  bool has_l4;
  uint16_t l4;
};

const Row kRows[] = {
    // L4 after 14 + 40 + 8.
    {"routing", kRouting, 17, 0, true, 62},
    // 14 + 40 + 3 * 8.
    {"hbh-dstopts-first-fragment", kChain, 17, 1, true, 78},
    {"atomic-fragment", kAtomic, 17, 0, true, 62},
    // The data after the fragment header (lib/flow.c:1001 sets l4_ofs first).
    {"later-fragment", kLater, 44, 3, false, 62},
    {"dstopts-filling-the-payload", kDestOptsFilling, 59, 0, false, 62},
    // 14 + 40 + 24.
    {"ah", kAh, 17, 0, true, 78},
};

TEST(ParseIpv6ExtChain, EachHeaderIsSkippedByItsOwnLength) {
  for (const Row& r : kRows) {
    for (bool simple : {false, true}) {
      SCOPED_TRACE(std::string(r.name) + (simple ? " simple" : " miniflow"));
      Packet p(FromHex(r.hex));
      const FlowKey key = ParseWith(p, simple);
      EXPECT_TRUE(key.has_l3);
      EXPECT_EQ(key.nw_proto, r.nw_proto);
      EXPECT_EQ(key.has_l4, r.has_l4);
      EXPECT_EQ(p.l3_ofs, 14);
      EXPECT_EQ(p.l4_ofs, r.l4);
      EXPECT_TRUE(key.error.empty()) << key.error;
      if (!simple) {
        EXPECT_EQ(key.nw_frag, r.nw_frag);
        if (r.has_l4) {
          EXPECT_EQ(key.tp_src, 5000);
          EXPECT_EQ(key.tp_dst, 6000);
        }
      }
    }
  }
}

// Wherever the head ends, inside any extension header, the key is the flat
// frame's.
TEST(ParseIpv6ExtChain, HeadersRunningIntoASharedTailParseAsTheFlatBytes) {
  for (const Row& r : kRows) {
    const Bytes bytes = FromHex(r.hex);
    for (bool simple : {false, true}) {
      Packet flat(bytes);
      const FlowKey want = ParseWith(flat, simple);
      for (size_t n = 1; n < bytes.size(); n++) {
        SCOPED_TRACE(std::string(r.name) + (simple ? " simple" : " miniflow") + ", head " +
                     std::to_string(n));
        Packet p = SplitPoisoned(Packet(bytes), n);
        const FlowKey got = ParseWith(p, simple);
        EXPECT_EQ(got.nw_proto, want.nw_proto);
        EXPECT_EQ(got.nw_frag, want.nw_frag);
        EXPECT_EQ(got.has_l4, want.has_l4);
        EXPECT_EQ(got.tp_dst, want.tp_dst);
        EXPECT_EQ(p.l4_ofs, flat.l4_ofs);
        EXPECT_EQ(p.offloads.word(), flat.offloads.word());
        EXPECT_EQ(Hex(p), r.hex);
      }
    }
  }
}

// The checksum and segmentation paths find the L4 protocol by walking the
// same headers up to the parsed L4 offset: behind AH it is UDP, as parsed.
TEST(ParseIpv6ExtChain, TheUpperProtocolBehindAhIsTheParsedOne) {
  Packet p(FromHex(kAh));
  Parse(p);
  ASSERT_EQ(p.l4_ofs, 78);
  EXPECT_EQ(UpperProtocol(p, p.l3_ofs, p.l4_ofs), 17);
  EXPECT_EQ(L4Length(p, p.l3_ofs, p.l4_ofs), 16u) << "payload length 40 less AH's 24";
}

// Headers that do not fit: no L4, and for a bad IPv6 header no L3.
TEST(ParseIpv6ExtChain, ShortOrBadHeadersStop) {
  struct Bad {
    const char* name;
    std::string hex;
    bool has_l3;
  };
  const Bad bad[] = {
      // 39 bytes of IPv6 header.
      {"ipv6 header short", kRouting.substr(0, 2 * (14 + 39)), false},
      // Payload length 4: the Routing header has fewer than 8 bytes.
      {"routing header short", H(kEth + "6000000000042b40" + kAddrs + "11000000"), true},
      // Routing hdrlen 1 (16 bytes) in an 8-byte payload.
      {"routing header past the payload",
       H(kEth + "6000000000082b40" + kAddrs + "1101000000000000"), true},
      // AH payloadlen 4 (24 bytes) in a 16-byte payload.
      {"ah past the payload",
       H(kEth + "6000000000103340" + kAddrs + "1104000000000100 00000001 00000000"), true},
      // Fragment header with 4 bytes.
      {"fragment header short", H(kEth + "6000000000042c40" + kAddrs + "11000001"), true},
  };
  for (const Bad& b : bad) {
    for (bool simple : {false, true}) {
      SCOPED_TRACE(std::string(b.name) + (simple ? " simple" : ""));
      Packet p(FromHex(b.hex));
      const FlowKey key = ParseWith(p, simple);
      EXPECT_FALSE(key.error.empty());
      EXPECT_EQ(key.has_l3, b.has_l3);
      EXPECT_FALSE(key.has_l4);
      EXPECT_EQ(p.l4_ofs, kNoOffset);
      EXPECT_EQ(Hex(p), b.hex);
    }
  }
}

}  // namespace
}  // namespace offlab
