// SPDX-License-Identifier: Apache-2.0
//
// Geneve options (RFC 8926 section 3.5) on both sides of a native tunnel.
// Push: the configured TLVs follow the 8-byte base header and its Opt Len
// counts them in 4-byte words. Pop: the options are left as they came, but
// one that translation cannot accept is noted, and the recirculated packet
// is then dropped: without a TLV map every option is unknown, and an unknown
// option with the critical bit (0x80 of its type) or one longer than what is
// left is EINVAL (openvswitch/ovs d6a632a9b lib/tun-metadata.c:633-675;
// ofproto/ofproto-dpif-xlate.c:8467-8479 XLATE_INVALID_TUNNEL_METADATA).
//
// Frames: scapy 2.x, with the Geneve header written out by hand
//   Ether(src="aa:66:aa:66:00:00",dst="aa:66:aa:66:00:01")/
//   IP(src="1.1.2.88",dst="1.1.2.92",flags="DF",id=0,ttl=64)/
//   UDP(sport=57363,dport=6081,chksum=0)/Raw(<geneve> + G)
// where G is dpif-netdev.at's frame (ovs_frames.h) and <geneve> is
// 02 00 6558 00007b00 (Opt Len 2, TEB, VNI 123) and one option of class
// 0x0102, type t, length l (in words), data aabbccdd.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "ovs_frames.h"
#include "test_util.h"

namespace offlab {
namespace {

using namespace testdata;

const std::string kOuter =
    "aa66aa660001aa66aa6600000800450000a20000400040113396010102580101025ce01317c1008e0000"
    "0200655800007b00";
const std::string kOption = "01020101aabbccdd";          // type 0x01, 1 word
const std::string kCriticalOption = "01028101aabbccdd";  // type 0x81
const std::string kLongOption = "01020103aabbccdd";      // claims 3 words, 1 there

// The R3 tunnel of the OVS vectors as Geneve, without the outer checksum.
TunnelConfig Geneve() { return testing::R3Tunnel(false, TunnelType::kGeneve); }

TEST(TunnelGeneveOptions, PushWritesTheOptionsAfterTheBaseHeader) {
  TunnelConfig t = Geneve();
  t.geneve_options = FromHex(kOption);
  Packet p(FromHex(kG));
  Parse(p);
  PacketBatch b{std::move(p)};
  PushHeader(b, t);
  ASSERT_EQ(b.size(), 1u);
  SendPrepare(b[0], 0);
  EXPECT_EQ(ToHex(b[0].bytes()), kOuter + kOption + kG);
}

TEST(TunnelGeneveOptions, OptionsAreWholeWordsAtMost63) {
  // Opt Len is 6 bits of 4-byte words: 0..252 bytes, whole words only.
  TunnelConfig t = Geneve();
  t.geneve_options = Bytes(6, 0);
  try {
    t.Validate();
    ADD_FAILURE() << "6 bytes of options were accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tunnel: geneve options must be a multiple of 4 bytes, at most 252");
  }
  t.geneve_options = Bytes(256, 0);
  EXPECT_THROW(t.Validate(), Error);
  t.geneve_options = Bytes(252, 0);
  EXPECT_NO_THROW(t.Validate());
}

// Pops the frame with `option` and returns whether the metadata was noted
// invalid; the inner frame must come out whole either way.
bool PopInvalid(const std::string& option) {
  Packet p(FromHex(kOuter + option + kG));
  Parse(p);
  std::string why;
  EXPECT_TRUE(PopHeader(p, nullptr, &why)) << why;
  EXPECT_EQ(ToHex(p.bytes()), kG);
  EXPECT_EQ(p.md.tunnel.key, 123u);
  return p.md.tunnel.geneve_md_invalid;
}

TEST(TunnelGeneveOptions, PopNotesCriticalOrOverlongOptions) {
  EXPECT_FALSE(PopInvalid(kOption));
  EXPECT_TRUE(PopInvalid(kCriticalOption));
  EXPECT_TRUE(PopInvalid(kLongOption));
}

TEST(TunnelGeneveOptions, CriticalOptionDropsTheRecirculatedPacket) {
  for (const std::string& option : {kOption, kCriticalOption}) {
    SCOPED_TRACE(option);
    Pipeline br;
    br.AddPort({.name = "p1"});
    br.AddPort({.name = "p2"});
    TunnelConfig t = Geneve();
    t.ip_src = {1, 1, 2, 92};
    t.ip_dst = {1, 1, 2, 88};
    br.AddPort({.name = "t1", .tunnel = t, .underlay = "p2"});
    br.AddFlow("in_port=p1,udp,tp_dst=6081,actions=tnl_pop:t1");
    br.AddFlow("in_port=t1,actions=output:p2");
    const auto out = br.Receive("p1", FromHex(kOuter + option + kG));
    const bool critical = option == kCriticalOption;
    ASSERT_EQ(out.size(), critical ? 0u : 1u);
    if (!critical) {
      EXPECT_EQ(ToHex(out[0].frame), kG);
    }
    EXPECT_EQ(br.counters().Get("drop_action_invalid_tunnel_metadata"), critical ? 1u : 0u);
  }
}

}  // namespace
}  // namespace offlab
