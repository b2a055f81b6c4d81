// SPDX-License-Identifier: Apache-2.0
//
// ParseInner: the headers of the frame inside a tunnel, as the receive paths
// that look into VXLAN (nic, coalesce) read them. The inner offsets follow
// from the header lengths (Ethernet 14, IPv4 20, UDP 8, VXLAN 8: the inner
// frame at 50, its IPv4 header at 64 and its L4 header at 84). The inner L4
// protocol is one of the dp_packet offload protocols, TCP, UDP or SCTP
// (lib/dp-packet.h DP_PACKET_OL_TX_{TCP,UDP,SCTP}_CSUM); ICMP has none. An
// inner frame without an IP header, or an offset outside the packet, has no
// inner L3.
//
// Frames from scapy 2.8: Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")
// /IP(src="10.0.0.1",dst="10.0.0.2",ttl=64,flags="DF")
// /UDP(sport=49152,dport=4789,chksum=0)/VXLAN(flags=0x08,vni=10)
// /Ether(src="8a:bf:7e:2f:05:84",dst="0a:8f:39:4f:e0:73")
// /IP(src="192.168.123.2",dst="192.168.123.1",ttl=64)/...
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

const std::string kOuter =
    "020000000002020000000001 0800"
    "45000062000140004011 2688 0a000001 0a000002 c00012b5004e0000 0800000000000a00";
// .../TCP(sport=54392,dport=5201,flags="A")/Raw(bytes(range(8))).
const std::string kInnerTcp = H(kOuter +
                                "0a8f394fe0738abf7e2f0584 0800"
                                "450000300001000040060373c0a87b02c0a87b01"
                                "d4781451000000000000000050102000239e0000 0001020304050607");
// .../ICMP(type=8,id=0x1234,seq=1)/Raw(bytes(range(8))); the outer lengths
// are the TCP frame's, which ParseInner does not read.
const std::string kInnerIcmp = H(kOuter +
                                 "0a8f394fe0738abf7e2f0584 0800"
                                 "450000240001000040010384c0a87b02c0a87b01"
                                 "0800d9ba12340001 0001020304050607");
// .../ARP(psrc="192.168.123.2",pdst="192.168.123.1") to the broadcast address.
const std::string kInnerArp = H(kOuter +
                                "ffffffffffff8abf7e2f0584 0806"
                                "00010800060400018abf7e2f0584c0a87b02000000000000c0a87b01");

TEST(ParseInnerFrame, InnerTcpSetsTheInnerOffsetsAndProto) {
  Packet p(FromHex(kInnerTcp));
  EXPECT_TRUE(ParseInner(p, 50));
  EXPECT_EQ(p.inner_l2_ofs, 50);
  EXPECT_EQ(p.inner_l3_ofs, 64);
  EXPECT_EQ(p.inner_l4_ofs, 84);
  EXPECT_EQ(p.offloads.l4_proto(Level::kInner), L4Proto::kTcp);
  EXPECT_EQ(p.offloads.l4_proto(Level::kOuter), L4Proto::kNone) << "outer not parsed";
}

TEST(ParseInnerFrame, InnerIcmpHasOffsetsButNoOffloadProto) {
  Packet p(FromHex(kInnerIcmp));
  EXPECT_TRUE(ParseInner(p, 50));
  EXPECT_EQ(p.inner_l3_ofs, 64);
  EXPECT_EQ(p.inner_l4_ofs, 84);
  EXPECT_EQ(p.offloads.l4_proto(Level::kInner), L4Proto::kNone);
}

TEST(ParseInnerFrame, AnInnerArpHasNoL3) {
  Packet p(FromHex(kInnerArp));
  EXPECT_FALSE(ParseInner(p, 50));
  EXPECT_EQ(p.inner_l3_ofs, kNoOffset);
  EXPECT_EQ(p.inner_l4_ofs, kNoOffset);
  EXPECT_EQ(p.offloads.l4_proto(Level::kInner), L4Proto::kNone);
}

TEST(ParseInnerFrame, AnOffsetOutsideThePacketIsRefusedUntouched) {
  const Bytes bytes = FromHex(kInnerTcp);
  for (uint16_t ofs : {kNoOffset, static_cast<uint16_t>(bytes.size() + 1)}) {
    SCOPED_TRACE(ofs);
    Packet p(bytes);
    EXPECT_FALSE(ParseInner(p, ofs));
    EXPECT_EQ(p.inner_l2_ofs, kNoOffset);
    EXPECT_EQ(p.inner_l3_ofs, kNoOffset);
    EXPECT_EQ(p.offloads.word(), 0u);
  }
  // Fewer than 14 bytes from the offset: no inner Ethernet header, no L3.
  Packet p(bytes);
  EXPECT_FALSE(ParseInner(p, static_cast<uint16_t>(bytes.size() - 13)));
  EXPECT_EQ(p.inner_l3_ofs, kNoOffset);
}

// The outer headers in the head and the inner frame cut anywhere into a
// shared tail (a frame whose payload was handed on): the inner headers are
// read after the bytes are made contiguous, with the flat frame's result.
TEST(ParseInnerFrame, InnerHeadersRunningIntoASharedTailParseAsTheFlatBytes) {
  for (const std::string* hex : {&kInnerTcp, &kInnerIcmp, &kInnerArp}) {
    const Bytes bytes = FromHex(*hex);
    Packet flat(bytes);
    const bool want = ParseInner(flat, 50);
    for (size_t n = 1; n < bytes.size(); n++) {
      SCOPED_TRACE(hex->substr(2 * 62, 4) + ", head " + std::to_string(n));
      Packet p = SplitPoisoned(Packet(bytes), n);
      EXPECT_EQ(ParseInner(p, 50), want);
      EXPECT_EQ(p.inner_l3_ofs, flat.inner_l3_ofs);
      EXPECT_EQ(p.inner_l4_ofs, flat.inner_l4_ofs);
      EXPECT_EQ(p.offloads.word(), flat.offloads.word());
      EXPECT_EQ(Hex(p), *hex);
    }
  }
}

}  // namespace
}  // namespace offlab
