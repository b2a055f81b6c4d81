// SPDX-License-Identifier: Apache-2.0
//
// virtio-net header handling (models/src/ovs/vnet.cc) at its edges:
//  - RX, OVS d6a632a9b lib/netdev-linux.c netdev_linux_parse_vnet_hdr:
//    NEEDS_CSUM at the parsed L4 offset with that protocol's checksum offset
//    (TCP 16, UDP 6, SCTP 8) only marks the checksum partial; any other
//    start/offset is "unknown" (netdev_linux_unknown_l4_csum): the field gets
//    csum() of the bytes from csum_start, as it comes (no 0 -> 0xffff), and
//    the status becomes good only for a TCP, UDP or SCTP packet;
//  - the kernel's completion of NEEDS_CSUM (skb_checksum_help,
//    net/core/dev.c: "csum_fold(csum) ?: CSUM_MANGLED_0") writes 0xffff for
//    a computed 0 whatever the protocol; without NEEDS_CSUM it does nothing;
//  - TX, netdev_linux_prepend_vnet_hdr: no GSO type without an IP header to
//    name it, no NEEDS_CSUM without the layer offsets to point at.
// The frames are built so that the bytes from csum_start sum to ffff: their
// checksum is 0 (hand arithmetic in each comment).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/vnet.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::H;

// IPv4 10.0.0.1 > 10.0.0.2 proto 6, TCP afff > 0, data offset 5, all else 0:
// the TCP bytes sum to afff + 5000 = ffff.
const std::string kZeroSumTcp =
    H("020000000002020000000001 0800 45000028 0000 0000 4006 0000 0a000001 0a000002"
      "afff 0000 00000000 00000000 5000 0000 0000 0000");

VnetHdr NeedsCsum(uint16_t start, uint16_t offset) {
  VnetHdr h;
  h.flags = VnetHdr::kNeedsCsum;
  h.csum_start = start;
  h.csum_offset = offset;
  return h;
}

TEST(VnetEdges, KernelCompletionSendsAComputedZeroAsFfff) {
  for (uint16_t offset : {16, 6}) {  // TCP's field and UDP's
    SCOPED_TRACE(offset);
    Packet p(FromHex(kZeroSumTcp));
    VnetCompleteCsum(p, NeedsCsum(34, offset));
    EXPECT_EQ(Be16(p.bytes(), 34 + offset), 0xffff);
  }
  // Without NEEDS_CSUM nothing is written.
  Packet q(FromHex(kZeroSumTcp));
  VnetHdr none = NeedsCsum(34, 16);
  none.flags = VnetHdr::kDataValid;
  VnetCompleteCsum(q, none);
  EXPECT_EQ(testing::Hex(q), kZeroSumTcp);
}

TEST(VnetEdges, ReceiveUnknownStartWritesCsumAsItComes) {
  // NEEDS_CSUM at the TCP header with UDP's offset: not the parsed layout,
  // so OVS computes csum() over bytes 34.. into 40-41: ~ffff = 0, kept 0.
  Packet p = testing::Parsed(kZeroSumTcp);
  Counters c;
  ASSERT_TRUE(VnetReceive(p, NeedsCsum(34, 6), &c));
  EXPECT_EQ(c.Get("netdev_linux_unknown_l4_csum"), 1u);
  EXPECT_EQ(Be16(p.bytes(), 40), 0x0000);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
}

TEST(VnetEdges, ReceiveNeedsCsumForSctpAndForIcmp) {
  // scapy: E/IP(src="192.168.123.2",dst="192.168.123.1")/SCTP(sport=5000,
  // dport=6000,tag=0x01020304)/Raw(bytes(range(16))): NEEDS_CSUM at L4 with
  // SCTP's offset 8 is the parsed layout: partial.
  Packet sctp = testing::Parsed(
      "02000000000202000000000108004500003000000000408402f6c0a87b02c0a87b011388177001020304a7c0"
      "ffe4000102030405060708090a0b0c0d0e0f");
  Counters c;
  ASSERT_TRUE(VnetReceive(sctp, NeedsCsum(34, 8), &c));
  EXPECT_EQ(sctp.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(c.Get("netdev_linux_unknown_l4_csum"), 0u);
  // ICMP echo (E/IP(src="10.0.0.1",dst="10.0.0.2",id=5)/ICMP(id=9,seq=1)
  // with its checksum zeroed): completed at offset 2, the status left alone.
  Packet icmp =
      testing::Parsed(H("020000000002020000000001 0800 4500001c00050000400166da"
                        "0a0000010a000002 0800 0000 0009 0001"));
  ASSERT_TRUE(VnetReceive(icmp, NeedsCsum(34, 2), &c));
  EXPECT_EQ(c.Get("netdev_linux_unknown_l4_csum"), 1u);
  // ~(0800 + 0009 + 0001) = f7f5.
  EXPECT_EQ(Be16(icmp.bytes(), 36), 0xf7f5);
  EXPECT_EQ(icmp.offloads.l4(), CsumStatus::kUnknown);
}

TEST(VnetEdges, TransmitWithoutOffsetsAsksForNothing) {
  Packet p = testing::Parsed(testing::kFrameG);
  p.tso_segsz = 100;
  p.l3_ofs = kNoOffset;
  p.offloads.set_l4(CsumStatus::kPartial);
  const Bytes before = p.bytes();
  const VnetHdr h = VnetTransmit(p);
  EXPECT_EQ(h.gso_type, VnetHdr::kGsoNone);
  EXPECT_EQ(h.gso_size, 0);
  EXPECT_EQ(h.flags, 0);
  EXPECT_EQ(p.bytes(), before);
  // L3 there, L4 not: the GSO type, but no NEEDS_CSUM.
  Packet q = testing::Parsed(testing::kFrameG);
  q.tso_segsz = 100;
  q.l4_ofs = kNoOffset;
  q.offloads.set_l4(CsumStatus::kPartial);
  const VnetHdr g = VnetTransmit(q);
  EXPECT_EQ(g.gso_type, VnetHdr::kGsoTcpv4);
  EXPECT_EQ(g.gso_size, 100);
  EXPECT_EQ(g.flags, 0);
}

}  // namespace
}  // namespace offlab
