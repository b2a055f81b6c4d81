// The netdev-linux boundary: OVS's offloads word <-> virtio-net header <->
// the kernel's skb. Expected values come from the rules on both sides
// (OVS lib/netdev-linux.c, Linux include/linux/virtio_net.h) and the plain
// checksum oracle of test_util.h.
#include <gtest/gtest.h>

#include "offlab/boundary/netdev_linux.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/xmit.h"
#include "test_util.h"

namespace offlab {
namespace {

using boundary::NetdevLinuxPort;
using kernel::IpSummed;
using testing::kFrameG;
using testing::OracleL4Ok;
using testing::With;

constexpr size_t kL3 = 14, kL4 = 34;

class BoundaryNetdevLinux : public ::testing::TestWithParam<NetdevLinuxPort> {};

// OVS's L4-partial TCP packet becomes NEEDS_CSUM at csum_start = the TCP
// header, csum_offset 16, and the kernel's skb is CHECKSUM_PARTIAL there; the
// kernel's software completion (a device without checksum offload) then puts
// the right checksum on the wire.
TEST_P(BoundaryNetdevLinux, PartialL4CrossesAsChecksumPartial) {
  Packet p = With(kFrameG, CsumStatus::kGood, CsumStatus::kPartial);
  auto sent = boundary::NetdevLinuxSend(p, GetParam());
  ASSERT_EQ(sent.error, "");
  EXPECT_EQ(sent.hdr.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(sent.hdr.csum_start, kL4);
  EXPECT_EQ(sent.hdr.csum_offset, 16);
  EXPECT_EQ(sent.skb.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(sent.skb.csum_start, kL4);
  EXPECT_EQ(sent.skb.csum_offset, 16);
  kernel::SkBuff skb = sent.skb;
  auto segs = kernel::ValidateXmitSkb(skb, kernel::DeviceFeatures{});  // no checksum offload
  ASSERT_EQ(segs.size(), 1u);
  const Bytes wire = segs[0].pkt.bytes();
  EXPECT_TRUE(OracleL4Ok(wire, kL3, kL4, 6));
}

// A TSO packet (tso_segsz) becomes a GSO TCPv4 skb with that gso_size.
TEST_P(BoundaryNetdevLinux, TsoBecomesGso) {
  Packet p = With(kFrameG, CsumStatus::kGood, CsumStatus::kPartial);
  p.tso_segsz = 32;  // the 64-byte payload is two segments
  auto sent = boundary::NetdevLinuxSend(p, GetParam());
  ASSERT_EQ(sent.error, "");
  EXPECT_EQ(sent.hdr.gso_type, VnetHdr::kGsoTcpv4);
  EXPECT_EQ(sent.hdr.gso_size, 32);
  EXPECT_EQ(sent.skb.gso_size, 32);
  EXPECT_TRUE(sent.skb.gso_type & kernel::gso::kTcpv4);
}

INSTANTIATE_TEST_SUITE_P(Ports, BoundaryNetdevLinux,
                         ::testing::Values(NetdevLinuxPort::kTap, NetdevLinuxPort::kSystem));

// Frame G as a CHECKSUM_PARTIAL skb whose sum starts at its TCP header.
kernel::SkBuff PartialSkbG() {
  kernel::SkBuff skb;
  skb.pkt = Packet(FromHex(kFrameG));
  skb.pkt.l3_ofs = kL3;
  skb.pkt.l4_ofs = kL4;
  skb.ip_summed = IpSummed::kPartial;
  skb.csum_start = kL4;
  skb.csum_offset = 16;
  return skb;
}

// The kernel side: a GRO'd super-packet (CHECKSUM_PARTIAL, gso tcpv4) seen by
// OVS's AF_PACKET socket arrives as NEEDS_CSUM with the GSO type, and OVS
// makes it an L4-partial TSO packet of that segment size.
TEST(BoundaryNetdevLinuxRx, GroSuperPacketBecomesPartialTso) {
  kernel::SkBuff skb = PartialSkbG();
  skb.gso_size = 32;
  skb.gso_segs = 2;
  skb.gso_type = kernel::gso::kTcpv4;
  auto got = boundary::NetdevLinuxReceive(skb, NetdevLinuxPort::kSystem);
  ASSERT_EQ(got.error, "");
  EXPECT_FALSE(got.dropped);
  EXPECT_EQ(got.hdr.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(got.hdr.gso_type, VnetHdr::kGsoTcpv4);
  EXPECT_EQ(got.packet.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(got.packet.tso_segsz, 32);
}

// CHECKSUM_UNNECESSARY is reported as DATA_VALID (packet_rcv_vnet has
// has_data_valid), which OVS does not use: the status stays unknown and OVS
// checks the checksum itself (lib/netdev-linux.c netdev_linux_parse_vnet_hdr).
TEST(BoundaryNetdevLinuxRx, DataValidIsNotTrustedByOvs) {
  kernel::SkBuff skb;
  skb.pkt = Packet(FromHex(kFrameG));
  skb.ip_summed = IpSummed::kUnnecessary;
  auto got = boundary::NetdevLinuxReceive(skb, NetdevLinuxPort::kSystem);
  ASSERT_EQ(got.error, "");
  EXPECT_EQ(got.hdr.flags, VnetHdr::kDataValid);
  EXPECT_EQ(got.packet.offloads.l4(), CsumStatus::kUnknown);
}

// A TAP port: the stack transmits a CHECKSUM_PARTIAL skb through the TAP
// device and OVS read()s it. tun_put_user writes the header with
// virtio_net_hdr_from_skb (include/linux/virtio_net.h): NEEDS_CSUM,
// csum_start = skb_checksum_start_offset, csum_offset = skb->csum_offset, no
// GSO; OVS makes the packet L4-partial at that TCP header.
TEST(BoundaryNetdevLinuxRx, TapReadOfAPartialSkb) {
  kernel::SkBuff skb = PartialSkbG();
  auto got = boundary::NetdevLinuxReceive(skb, NetdevLinuxPort::kTap);
  ASSERT_EQ(got.error, "");
  EXPECT_FALSE(got.dropped);
  EXPECT_EQ(got.hdr.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(got.hdr.gso_type, VnetHdr::kGsoNone);
  EXPECT_EQ(got.hdr.csum_start, kL4);
  EXPECT_EQ(got.hdr.csum_offset, 16);
  EXPECT_EQ(got.packet.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(got.packet.l4_ofs, kL4);
  EXPECT_EQ(got.packet.tso_segsz, 0);
}

}  // namespace
}  // namespace offlab
