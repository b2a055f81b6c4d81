// Reference §1.1 "Parse" and "Recirculation": flow extraction sets the L4
// protocol and nothing else in the offloads word; a tunnelled packet keeps
// its inner offsets across a re-parse; truncated or malformed input stops at
// the last complete layer without reading past the buffer.
#include "offlab/ovs/parse.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "offlab/net/error.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::SplitPoisoned;
using testing::Sub;

// Statuses at both levels, no proto or tunnel bits: outer IP bad (0x10), L4
// partial (0x108), inner IP good (0x80 << 16), inner L4 bad (0x08 << 16).
constexpr uint32_t kStatuses = 0x10 | 0x108 | (0x80u << 16) | (0x08u << 16);

struct Case {
  const char* name;
  std::string hex;
  uint32_t proto_bits;  // reference §1: TCP 0x200, UDP 0x400, SCTP both
  uint16_t l3, l4;
};

// Frames from scapy 2.8 (Ether(src="8a:bf:7e:2f:05:84",dst="0a:8f:39:4f:e0:73")/...).
std::vector<Case> Cases() {
  return {
      {"tcp4", kFrameG, 0x200, 14, 34},
      // IP(...,ttl=64)/UDP(sport=5000,dport=6000)/Raw(bytes(range(32)))
      {"udp4",
       H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
         "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
       0x400, 14, 34},
      // IP(...)/SCTP(sport=5000,dport=6000,tag=0x01020304)/Raw(bytes(range(16)))
      {"sctp4",
       H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
         "1388177001020304a7c0ffe4 000102030405060708090a0b0c0d0e0f"),
       0x600, 14, 34},
      // IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64)/IPv6ExtHdrHopByHop()/
      //   UDP(sport=5000,dport=6000)/Raw(bytes(range(8)))
      {"udp6-hbh",
       H("0a8f394fe0738abf7e2f058486dd 6000000000180040"
         "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
         "1100010400000000 138817700010f1ac 0001020304050607"),
       0x400, 14, 62},
      // IPv6(...)/SCTP(sport=5000,dport=6000,tag=1)/Raw(bytes(range(4)))
      {"sctp6",
       H("0a8f394fe0738abf7e2f058486dd 6000000000108440"
         "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
         "13881770000000018dfb31c8 00010203"),
       0x600, 14, 54},
      // Dot1Q(vlan=10) in front of G's IP header.
      {"tcp4-vlan", Sub(kFrameG, "05840800", "05848100000a0800"), 0x200, 18, 38},
      // IP(...,id=7,flags="MF",frag=0)/TCP(...)/Raw(bytes(range(16))): a first
      // fragment carries a complete TCP header.
      {"tcp4-first-fragment",
       H("0a8f394fe0738abf7e2f05840800 45000038000720004006e364c0a87b02c0a87b01"
         "d478145100000000000000005010000017660000 000102030405060708090a0b0c0d0e0f"),
       0x200, 14, 34},
      // IPv6(...)/IPv6ExtHdrFragment(nh=6,offset=0,m=1,id=7)/TCP(...)/Raw(bytes(range(16)))
      {"tcp6-first-fragment",
       H("0a8f394fe0738abf7e2f058486dd 60000000002c2c40"
         "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
         "0600000100000007 d4781451000000000000000050100000b7a10000"
         "000102030405060708090a0b0c0d0e0f"),
       0x200, 14, 62},
      // IP(...)/ICMP(type=8,id=0x1234,seq=1)/Raw(bytes(range(16))): no offload proto.
      {"icmp4",
       H("0a8f394fe0738abf7e2f05840800 4500002c000000004001037dc0a87b02c0a87b01"
         "0800ad8a12340001000102030405060708090a0b0c0d0e0f"),
       0, 14, 34},
  };
}

TEST(Parse, SetsOnlyTheL4ProtoAndNeverAStatus) {
  for (bool simple : {false, true}) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(std::string(c.name) + (simple ? " simple" : " miniflow"));
      Packet p(FromHex(c.hex));
      p.offloads.set_word(kStatuses);
      FlowKey key = simple ? ParseSimple(p) : Parse(p);
      EXPECT_TRUE(key.error.empty()) << key.error;
      EXPECT_EQ(p.offloads.word(), kStatuses | c.proto_bits);
      EXPECT_EQ(p.l3_ofs, c.l3);
      EXPECT_EQ(p.l4_ofs, c.l4);
      // l2_5_ofs marks the first tag: its TPID sits where an untagged frame's type does.
      const bool tagged = std::string_view(c.name).ends_with("-vlan");
      EXPECT_EQ(p.l2_5_ofs, tagged ? 12 : kNoOffset);
      EXPECT_EQ(Hex(p), c.hex);
    }
  }
}

// Every field of a flow key, to compare two.
auto KeyFields(const FlowKey& k) {
  return std::make_tuple(k.dl_dst, k.dl_src, k.dl_type, k.has_vlan, k.vlan_tci, k.has_l3, k.ipv6,
                         k.nw_src, k.nw_dst, k.nw_proto, k.nw_tos, k.nw_ttl, k.nw_frag, k.has_l4,
                         k.tp_src, k.tp_dst, k.tcp_flags, k.error);
}

// A packet whose payload is a shared tail (a segment of a TSO packet, a
// frame whose payload was handed on) holds only its first bytes in the head.
// Wherever that head ends, even inside a header, parsing must give what it
// gives on the flat bytes: each header is read only once it is known to be in
// the head, else the bytes are made contiguous first.
TEST(Parse, ASharedTailSplitAnywhereParsesAsTheFlatBytes) {
  std::vector<Case> cases = Cases();
  // IPv6(src="2001:cafe::88",dst="2001:cafe::92",nh=59,hlim=64)/Raw(bytes(range(4))):
  // no next header, so nothing after the addresses is read (by hand, RFC 8200).
  cases.push_back({"ipv6-no-next-header",
                   H("0a8f394fe0738abf7e2f058486dd 6000000000043b40"
                     "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
                     "00010203"),
                   0, 14, kNoOffset});
  for (bool simple : {false, true}) {
    for (const Case& c : cases) {
      const Bytes bytes = FromHex(c.hex);
      Packet flat(bytes);
      const FlowKey want = simple ? ParseSimple(flat) : Parse(flat);
      ASSERT_EQ(flat.l3_ofs, c.l3) << c.name;
      for (size_t n = 1; n < bytes.size(); n++) {
        SCOPED_TRACE(std::string(c.name) + (simple ? " simple" : " miniflow") + ", head of " +
                     std::to_string(n) + " bytes");
        Packet p = SplitPoisoned(Packet(bytes), n);
        ASSERT_TRUE(p.has_tail());
        const FlowKey got = simple ? ParseSimple(p) : Parse(p);
        EXPECT_EQ(KeyFields(got), KeyFields(want)) << got.ToString() << " / " << want.ToString();
        EXPECT_EQ(p.l3_ofs, flat.l3_ofs);
        EXPECT_EQ(p.l4_ofs, flat.l4_ofs);
        EXPECT_EQ(p.offloads.word(), flat.offloads.word());
        EXPECT_EQ(Hex(p), c.hex);
      }
    }
  }
}

TEST(Parse, LaterFragmentsHaveNoL4) {
  const std::vector<std::string> frames = {
      // IP(...,id=7,flags=0,frag=4,proto=6)/Raw(bytes(range(24)))
      H("0a8f394fe0738abf7e2f05840800 4500002c000700044006036dc0a87b02c0a87b01"
        "000102030405060708090a0b0c0d0e0f1011121314151617"),
      // IPv6(...)/IPv6ExtHdrFragment(nh=6,offset=4,m=0,id=7)/Raw(bytes(range(24)))
      H("0a8f394fe0738abf7e2f058486dd 6000000000202c40"
        "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
        "0600002000000007 000102030405060708090a0b0c0d0e0f1011121314151617"),
  };
  for (const std::string& f : frames) {
    for (bool simple : {false, true}) {
      Packet p(FromHex(f));
      p.offloads.set_word(kStatuses);
      FlowKey key = simple ? ParseSimple(p) : Parse(p);
      EXPECT_EQ(p.offloads.word(), kStatuses);
      // The L4 offset is where the fragment's data starts (miniflow_extract and
      // parse_tcp_flags set l4_ofs before the FLOW_NW_FRAG_LATER check,
      // openvswitch/ovs v3.1.0 lib/flow.c:1001): no ports, no L4 protocol.
      EXPECT_EQ(p.l4_ofs, f.substr(24, 4) == "86dd" ? 62 : 34);
      EXPECT_FALSE(key.has_l4);
      EXPECT_EQ(Hex(p), f);
    }
  }
}

// Every offset is either unset or inside the buffer.
void ExpectOffsetsInside(const Packet& p) {
  for (uint16_t ofs :
       {p.l2_5_ofs, p.l3_ofs, p.l4_ofs, p.inner_l2_ofs, p.inner_l3_ofs, p.inner_l4_ofs}) {
    EXPECT_TRUE(ofs == kNoOffset || ofs <= p.size()) << ofs;
  }
}

TEST(Parse, TruncatedFramesStopSafely) {
  const Bytes g = FromHex(kFrameG);
  for (size_t len = 0; len < g.size(); len++) {
    SCOPED_TRACE(len);
    for (bool simple : {false, true}) {
      Packet p(g.data(), len);
      p.offloads.set_word(kStatuses);
      FlowKey key = simple ? ParseSimple(p) : Parse(p);
      // The IP total length no longer fits the frame: no L3, so no L4 proto.
      EXPECT_FALSE(key.error.empty());
      EXPECT_FALSE(key.has_l4);
      EXPECT_EQ(p.offloads.word(), kStatuses);
      EXPECT_EQ(p.l4_ofs, kNoOffset);
      ExpectOffsetsInside(p);
    }
  }
}

TEST(Parse, MalformedHeadersStopAtTheLastCompleteLayer) {
  // l4: where the IP payload starts when the IP header is whole (lib/flow.c:1001
  // sets l4_ofs before reading the L4 header; an IPv6 extension header walk
  // that fails stops before it).
  struct Bad {
    const char* name;
    std::string hex;
    bool has_l3;
    uint16_t l4 = kNoOffset;
  };
  const std::string g = kFrameG;
  const std::vector<Bad> bad = {
      {"ihl 4", Sub(g, "45000068", "44000068"), false},
      {"ihl 15 beyond a short frame", Sub(g, "45000068", "4f000068").substr(0, 2 * 50), false},
      {"ip version 5", Sub(g, "45000068", "55000068"), false},
      {"tot_len beyond frame", Sub(g, "45000068", "45000069"), false},
      // tot_len 30: the TCP header is cut to 10 bytes.
      {"tcp header truncated", Sub(g, "45000068", "4500001e").substr(0, 2 * 44), true, 34},
      {"tcp data offset 4", Sub(g, "50100000", "40100000"), true, 34},
      // tot_len 60: a 40-byte segment whose data offset claims 60 bytes.
      {"tcp data offset 15 beyond segment",
       Sub(Sub(g, "45000068", "4500003c"), "50100000", "f0100000").substr(0, 2 * 74), true, 34},
      {"vlan tag truncated", Sub(g, "05840800", "05848100").substr(0, 2 * 16), false},
      {"ipv6 plen beyond frame",
       H("0a8f394fe0738abf7e2f058486dd 6000000000ff0640"
         "2001cafe000000000000000000000088 2001cafe000000000000000000000092"),
       false},
      {"ipv6 extension header truncated",
       H("0a8f394fe0738abf7e2f058486dd 6000000000040040"
         "2001cafe000000000000000000000088 2001cafe000000000000000000000092 11000000"),
       true},
      {"udp header truncated",
       H("0a8f394fe0738abf7e2f05840800 4500001a000000004011035dc0a87b02c0a87b01 138817700028"),
       true, 34},
  };
  for (const Bad& b : bad) {
    for (bool simple : {false, true}) {
      SCOPED_TRACE(std::string(b.name) + (simple ? " simple" : ""));
      Packet p(FromHex(b.hex));
      p.offloads.set_word(kStatuses);
      FlowKey key = simple ? ParseSimple(p) : Parse(p);
      EXPECT_FALSE(key.error.empty());
      EXPECT_EQ(key.has_l3, b.has_l3);
      EXPECT_FALSE(key.has_l4);
      EXPECT_EQ(p.offloads.word(), kStatuses);
      EXPECT_EQ(p.l4_ofs, b.l4);
      ExpectOffsetsInside(p);
      EXPECT_EQ(Hex(p), b.hex);
    }
  }
}

// The R2 frame with L4 partial (valid status + mod_tp_dst), pushed into the
// R3 VXLAN tunnel without outer checksum.
Packet PushedR2() {
  Packet p = testing::Parsed(kFrameG);
  p.offloads.set_ip(CsumStatus::kGood);
  p.offloads.set_l4(CsumStatus::kGood);
  EXPECT_TRUE(SetL4Ports(p, std::nullopt, 2222));
  PacketBatch b{p};
  PushHeader(b, testing::R3Tunnel(false));
  return b[0];
}

TEST(Parse, TunnelledReparseKeepsInnerOffsets) {
  Packet p = PushedR2();
  // 50 bytes of outer headers in front of G's 14/34.
  ASSERT_EQ(p.inner_l2_ofs, 50);
  ASSERT_EQ(p.inner_l3_ofs, 64);
  ASSERT_EQ(p.inner_l4_ofs, 84);
  const uint32_t word = p.offloads.word();
  p.l3_ofs = p.l4_ofs = kNoOffset;
  Parse(p);
  EXPECT_EQ(p.l3_ofs, 14);
  EXPECT_EQ(p.l4_ofs, 34);
  EXPECT_EQ(p.inner_l2_ofs, 50);
  EXPECT_EQ(p.inner_l3_ofs, 64);
  EXPECT_EQ(p.inner_l4_ofs, 84);
  // Inner TCP partial, inner IP good; outer IP partial, UDP good: unchanged.
  EXPECT_EQ(word, 0x03881590u);
  EXPECT_EQ(p.offloads.word(), word);
}

TEST(Parse, TunnelledReparseThenFinishingGivesR3) {
  // c6538b443984: finishing the checksums after a re-parse must still find
  // the inner TCP header. Expected: R3 gexp with csum=false.
  Packet p = PushedR2();
  Parse(p);
  SendPrepare(p, 0);
  EXPECT_EQ(Hex(p), testing::R3Outer("339e", "0000") + testing::kFrameR2);
}

TEST(Parse, SeededRecircFaultLosesInnerOffsets) {
  Packet p = PushedR2();
  ScopedFault f(Fault::kRecircResetsInnerOffsets);
  Parse(p);
  EXPECT_EQ(p.inner_l4_ofs, kNoOffset);
  // The outer statuses now stand for the inner ones, so the partial inner TCP
  // checksum is never finished (or cannot be found).
  bool threw = false;
  try {
    SendPrepare(p, 0);
  } catch (const Error&) {
    threw = true;
  }
  if (!threw) {
    EXPECT_NE(Hex(p), testing::R3Outer("339e", "0000") + testing::kFrameR2);
    EXPECT_FALSE(testing::OracleL4Ok(p.bytes(), 64, 84, 6));
  }
}

TEST(Parse, PlainPacketReparseDropsStaleInnerOffsets) {
  Packet p = testing::Parsed(kFrameG);
  p.inner_l2_ofs = 20;
  p.inner_l3_ofs = 34;
  p.inner_l4_ofs = 54;
  Parse(p);
  EXPECT_EQ(p.inner_l2_ofs, kNoOffset);
  EXPECT_EQ(p.inner_l3_ofs, kNoOffset);
  EXPECT_EQ(p.inner_l4_ofs, kNoOffset);
}

// --- Recirculation ------------------------------------------------------------

// p2 advertises the checksum offloads but does not perform them, so the frame
// shows the bytes the datapath left and Sent.offloads the statuses it kept.
std::vector<Sent> Recirculate(const std::map<std::string, std::string>& rx,
                              const std::string& first_actions) {
  Pipeline br;
  br.AddPort({.name = "p1", .options = rx});
  br.AddPort({.name = "p2",
              .options = {{"ol_ip_tx_csum", "true"},
                          {"ol_ip_tx_csum_disabled", "true"},
                          {"ol_l4_tx_csum", "true"},
                          {"ol_l4_tx_csum_disabled", "true"}}});
  br.AddFlow("in_port=p1,actions=" + first_actions);
  br.AddFlow("table=1,in_port=p1,tcp,actions=output:p2");
  return br.Receive("p1", FromHex(kFrameG));
}

TEST(Recirculation, StatusesKeptAcrossReparse) {
  struct Rx {
    std::map<std::string, std::string> options;
    uint32_t word;
  };
  const std::vector<Rx> cases = {
      {{}, 0x200},
      {{{"ol_ip_rx_csum_set_good", "true"}, {"ol_l4_rx_csum_set_bad", "true"}},
       0x80 | 0x08 | 0x200},
      {{{"ol_ip_rx_csum_set_bad", "true"}, {"ol_l4_rx_csum_set_partial", "true"}},
       0x10 | 0x108 | 0x200},
  };
  for (const Rx& c : cases) {
    SCOPED_TRACE(c.word);
    auto out = Recirculate(c.options, "recirc:1");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].offloads.word(), c.word);
    EXPECT_EQ(ToHex(out[0].frame), kFrameG);
  }
}

TEST(Recirculation, PartialFromRuleMSurvivesAndIsFinishedAtEgress) {
  // L4 good -> mod_tp_dst makes it partial; recirculation keeps partial.
  auto out = Recirculate({{"ol_l4_rx_csum_set_good", "true"}}, "mod_tp_dst:2222,recirc:1");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].offloads.word(), 0x108u | 0x200);
  EXPECT_EQ(ToHex(out[0].frame), Sub(kFrameG, "d4781451", "d47808ae"));

  // Without offloads at p2 the partial is finished: R2 gexp.
  Pipeline br;
  br.AddPort({.name = "p1", .options = {{"ol_l4_rx_csum_set_good", "true"}}});
  br.AddPort({.name = "p2"});
  br.AddFlow("in_port=p1,actions=mod_tp_dst:2222,recirc:1");
  br.AddFlow("table=1,in_port=p1,actions=output:p2");
  auto done = br.Receive("p1", FromHex(kFrameG));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(ToHex(done[0].frame), testing::kFrameR2);
}

}  // namespace
}  // namespace offlab
