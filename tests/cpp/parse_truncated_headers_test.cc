// SPDX-License-Identifier: Apache-2.0
//
// Where miniflow_extract stops on short or inconsistent headers (openvswitch/
// ovs d6a632a9b lib/flow.c), the same through every parse entry: the full
// parse, the simple-match parse, and ParseInner on the frame inside a VXLAN
// header; flat, and with the head cut at every byte and the rest in a shared
// tail. The rules:
//  - ipv4_sanity_check (flow.c:683-710): fewer than 20 bytes, an IHL below
//    20 bytes or past the frame, a total length below the IHL or past the
//    frame: no L3.
//  - ipv6_sanity_check (flow.c:729-749): fewer than 40 bytes, a payload
//    length past the frame: no L3.
//  - L4 (flow.c:1043-1114): TCP needs 20 bytes and a data offset of 20 up to
//    the segment, UDP UDP_HEADER_LEN (8), SCTP SCTP_HEADER_LEN (12), ICMP
//    ICMP_HEADER_LEN (8) and ICMPv6 sizeof(struct icmp6_data_header) (8)
//    (lib/packets.h); one byte fewer: L3 but no L4.
//
// Frames from scapy 2.8: Ether(src="8a:bf:7e:2f:05:84",dst="0a:8f:39:4f:e0:73")
// /IP(src="192.168.123.2",dst="192.168.123.1",ttl=64) or
// /IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64), then the L4 header
// (L4 checksums zero: miniflow_extract does not read them); and OVS's frame G
// (ovs_frames.h) with its IPv4 header edited.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/ovs/parse.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::SplitPoisoned;
using testing::Sub;

// Ethernet padding (to the 60-byte minimum, at least one byte): the L4
// length is then the IP length's, not the frame end's.
std::string Padded(const std::string& hex) {
  return hex + std::string(hex.size() < 2 * 59 ? 2 * 60 - hex.size() : 2, '0');
}

struct Frame {
  const char* name;
  std::string hex;
  bool has_l3, has_l4;
};

std::vector<Frame> Frames() {
  const std::string g = kFrameG;
  const std::string e = "0a8f394fe0738abf7e2f0584";
  const std::string a6 = "2001cafe000000000000000000000088 2001cafe000000000000000000000092";
  return {
      {"ethernet 13 bytes", g.substr(0, 2 * 13), false, false},
      {"vlan tag short", Sub(g, "05840800", "05848100").substr(0, 2 * 16), false, false},
      {"ipv4 19 bytes", g.substr(0, 2 * (14 + 19)), false, false},
      {"ihl 4", Sub(g, "45000068", "44000068"), false, false},
      {"ihl 15 past the frame", Sub(g, "45000068", "4f000068").substr(0, 2 * 50), false, false},
      {"total length 19, below the ihl", Sub(g, "45000068", "45000013"), false, false},
      {"total length past the frame", Sub(g, "45000068", "45000069"), false, false},
      // Total length 30: 10 bytes of TCP.
      {"tcp 10 bytes", Sub(g, "45000068", "4500001e").substr(0, 2 * 44), true, false},
      {"tcp data offset 4", Sub(g, "50100000", "40100000"), true, false},
      {"tcp 20 bytes",
       H(e + "0800 45000028000100004006037bc0a87b02c0a87b01"
             "d478145100000000000000005010200000000000"),
       true, true},
      {"udp 8 bytes", H(e + "0800 4500001c000100004011037cc0a87b02c0a87b01 1388177000080000"), true,
       true},
      // The 8-byte one with total length 27: IPv4 checksum 037c + 1 (RFC 1624).
      {"udp 7 bytes", Padded(H(e + "0800 4500001b000100004011037dc0a87b02c0a87b01 13881770000800")),
       true, false},
      // IP(proto=132)/Raw(bytes(range(11))).
      {"sctp 11 bytes",
       Padded(H(e + "0800 4500001f000100004084 0306 c0a87b02c0a87b01 000102030405060708090a")),
       true, false},
      {"sctp 12 bytes",
       H(e + "0800 450000200001000040840305c0a87b02c0a87b01 138817700000000100000000"), true, true},
      // IP(proto=1)/Raw(08000000123400): an echo request without its sequence.
      {"icmp 7 bytes",
       Padded(H(e + "0800 4500001b000100004001038dc0a87b02c0a87b01 08000000123400")), true, false},
      {"icmp 8 bytes", H(e + "0800 4500001c000100004001038cc0a87b02c0a87b01 0800000012340001"),
       true, true},
      {"ipv6 39 bytes", H(e + "86dd 6000000000083a40" + a6).substr(0, 2 * (14 + 39)), false, false},
      {"ipv6 payload length past the frame",
       H(e + "86dd 6000000000093a40" + a6 + "8000000012340001"), false, false},
      {"icmpv6 7 bytes", Padded(H(e + "86dd 6000000000073a40" + a6 + "80000000123400")), true,
       false},
      {"icmpv6 8 bytes", H(e + "86dd 6000000000083a40" + a6 + "8000000012340001"), true, true},
  };
}

// VXLAN in IPv4/UDP (scapy: Ether()/IP(flags="DF")/UDP(dport=4789)/
// VXLAN(flags=0x08,vni=10)), 50 bytes; ParseInner reads none of it.
const std::string kOuter =
    H("020000000002020000000001 0800 45000062000140004011 2688 0a000001 0a000002"
      "c00012b5004e0000 0800000000000a00");

enum class Entry { kParse, kSimple, kInner };

struct Result {
  bool has_l3, has_l4;
  uint16_t l3, l4;
  uint32_t offloads;
};

Result ParseAt(Packet& p, Entry entry) {
  if (entry == Entry::kInner) {
    const bool l3 = ParseInner(p, 50);
    return {l3, p.inner_l4_ofs != kNoOffset, p.inner_l3_ofs, p.inner_l4_ofs, p.offloads.word()};
  }
  const FlowKey key = entry == Entry::kParse ? Parse(p) : ParseSimple(p);
  EXPECT_EQ(key.has_l3, p.l3_ofs != kNoOffset);
  return {key.has_l3, key.has_l4, p.l3_ofs, p.l4_ofs, p.offloads.word()};
}

const char* Name(Entry e) {
  return e == Entry::kParse ? "miniflow" : e == Entry::kSimple ? "simple" : "inner";
}

TEST(ParseTruncatedHeaders, EachLayerNeedsItsWholeHeader) {
  for (const Frame& f : Frames()) {
    for (Entry entry : {Entry::kParse, Entry::kSimple, Entry::kInner}) {
      SCOPED_TRACE(std::string(f.name) + ", " + Name(entry));
      const std::string hex = entry == Entry::kInner ? kOuter + f.hex : f.hex;
      Packet p(FromHex(hex));
      const Result r = ParseAt(p, entry);
      EXPECT_EQ(r.has_l3, f.has_l3);
      EXPECT_EQ(r.has_l4, f.has_l4);
      EXPECT_EQ(Hex(p), hex);
    }
  }
}

TEST(ParseTruncatedHeaders, CutIntoASharedTailTheyStopAlike) {
  for (const Frame& f : Frames()) {
    for (Entry entry : {Entry::kParse, Entry::kSimple, Entry::kInner}) {
      const std::string hex = entry == Entry::kInner ? kOuter + f.hex : f.hex;
      const Bytes bytes = FromHex(hex);
      Packet flat(bytes);
      const Result want = ParseAt(flat, entry);
      for (size_t n = 1; n < bytes.size(); n++) {
        SCOPED_TRACE(std::string(f.name) + ", " + Name(entry) + ", head " + std::to_string(n));
        Packet p = SplitPoisoned(Packet(bytes), n);
        const Result got = ParseAt(p, entry);
        EXPECT_EQ(got.has_l3, want.has_l3);
        EXPECT_EQ(got.has_l4, want.has_l4);
        EXPECT_EQ(got.l3, want.l3);
        EXPECT_EQ(got.l4, want.l4);
        EXPECT_EQ(got.offloads, want.offloads);
        EXPECT_EQ(Hex(p), hex);
      }
    }
  }
}

}  // namespace
}  // namespace offlab
