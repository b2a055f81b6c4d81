// Edges of the virtio-net header endpoints (models/src/linux/
// virtio_net_endpoints.cc): eth_type_trans offsets, TAP write/read refusals
// (drivers/net/tun.c, tun_vnet.h), AF_PACKET SOCK_DGRAM sends, the VLAN MTU
// allowance, the socket protocol and the network header past VLAN tags
// (net/packet/af_packet.c packet_snd / packet_parse_headers). Expected
// offsets and lengths are counted by hand from the frames laid out here.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernel_dissect_frames.h"
#include "kernel_test_skb.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/net/error.h"

namespace offlab::kernel {
namespace {

using offlab::testing::H;
using offlab::testing::Ipv4Frame;

using dissect_frames::kArp;
using dissect_frames::kTcp;
using dissect_frames::kUdp;
using dissect_frames::Skb;
using dissect_frames::Tagged;

VnetHdr Hdr(uint8_t flags, uint8_t gso, uint16_t hdr_len, uint16_t gso_size, uint16_t cs,
            uint16_t co) {
  VnetHdr h;
  h.flags = flags, h.gso_type = gso, h.hdr_len = hdr_len, h.gso_size = gso_size;
  h.csum_start = cs, h.csum_offset = co;
  return h;
}

TEST(KernelEthReceiveOffsetsEdges, ShortFramesAndSetTransportHeadersAreLeftAlone) {
  // eth_type_trans needs the 14-byte header: a 13-byte skb keeps no offsets.
  SkBuff s = Skb(FromHex("0a8f394fe0738abf7e2f058408"));
  EthReceiveOffsets(s);
  EXPECT_EQ(s.pkt.l3_ofs, kNoOffset);
  EXPECT_EQ(s.pkt.l4_ofs, kNoOffset);
  // skb_probe_transport_header does nothing when the header was set.
  SkBuff set = Skb(Ipv4Frame(6, kTcp));
  set.pkt.l4_ofs = 40;
  EthReceiveOffsets(set);
  EXPECT_EQ(set.pkt.l3_ofs, 14);
  EXPECT_EQ(set.pkt.l4_ofs, 40);
  // A bad IPv4 header (ihl 4): the network header is set, no transport one.
  Bytes bad = Ipv4Frame(6, kTcp);
  bad[14] = 0x44;
  SkBuff b = Skb(bad);
  EthReceiveOffsets(b);
  EXPECT_EQ(b.pkt.l3_ofs, 14);
  EXPECT_EQ(b.pkt.l4_ofs, kNoOffset);
}

TEST(KernelTapEdges, AVnetHdrSizeBelowTheBasicHeaderIsRefused) {
  // TUNSETVNETHDRSZ refuses a size below sizeof(struct virtio_net_hdr).
  TapConfig cfg;
  cfg.vnet_hdr_sz = vnet::kHdrLen - 1;
  SkBuff s;
  EXPECT_THROW(TapWrite(Ipv4Frame(6, kTcp), VnetHdrTunnel{}, cfg, &s), offlab::Error);
}

TEST(KernelTapEdges, HdrLenMustFitAndCoversTheChecksumField) {
  // tun_vnet.h __tun_vnet_hdr_get: hdr_len = max(hdr_len, csum_start +
  // csum_offset + 2), then hdr_len > len is -EINVAL before the skb is
  // built (no rx_frame_errors). The frame is 14 + 20 + 20 = 54 bytes.
  const Bytes f = Ipv4Frame(6, kTcp);
  TapConfig cfg;
  Counters c;
  SkBuff s;
  // hdr_len 55 alone (no NEEDS_CSUM) is beyond the packet; 54 fits.
  EXPECT_NE(TapWrite(f, {Hdr(0, 0, 55, 0, 0, 0), 0, 0}, cfg, &s, &c), "");
  EXPECT_EQ(TapWrite(f, {Hdr(0, 0, 54, 0, 0, 0), 0, 0}, cfg, &s, &c), "");
  // The checksum field's end 36 + 16 + 2 = 54 fits; 37 + 16 + 2 = 55 not,
  // though hdr_len itself is only 14.
  EXPECT_EQ(TapWrite(f, {Hdr(1, 0, 14, 0, 36, 16), 0, 0}, cfg, &s, &c), "");
  EXPECT_NE(TapWrite(f, {Hdr(1, 0, 14, 0, 37, 16), 0, 0}, cfg, &s, &c), "");
  // A larger hdr_len wins over the checksum field's end: 60 > 54.
  EXPECT_NE(TapWrite(f, {Hdr(1, 0, 60, 0, 34, 16), 0, 0}, cfg, &s, &c), "");
  EXPECT_EQ(c.Get("rx_frame_errors"), 0u);
}

TEST(KernelTapEdges, FrameAndHdrLenMustCoverEthernet) {
  // tun.c: a TAP frame shorter than ETH_HLEN, or an hdr_len below it, is
  // -EINVAL; exactly 14 is accepted.
  TapConfig plain;
  plain.vnet_hdr = false;
  SkBuff s;
  const Bytes eth13 = FromHex("0a8f394fe0738abf7e2f058408");
  EXPECT_NE(TapWrite(eth13, VnetHdrTunnel{}, plain, &s), "");
  TapConfig cfg;
  const Bytes f = Ipv4Frame(6, kTcp);
  EXPECT_NE(TapWrite(f, {Hdr(0, 0, 13, 0, 0, 0), 0, 0}, cfg, &s), "");
  EXPECT_EQ(TapWrite(f, {Hdr(0, 0, 14, 0, 0, 0), 0, 0}, cfg, &s), "");
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  EXPECT_EQ(s.pkt.l4_ofs, 34);
}

TEST(KernelTapEdges, ReadWithoutVnetHdrWritesNoHeader) {
  // tun_put_user writes a header only with IFF_VNET_HDR: nothing to refuse
  // even for a tunnel GSO skb the 10-byte header could not describe.
  SkBuff tun = Skb(Ipv4Frame(17, kUdp));
  tun.ip_summed = IpSummed::kPartial, tun.csum_start = 34, tun.csum_offset = 6;
  tun.gso_size = 1000, tun.gso_type = gso::kTcpv4 | gso::kUdpTunnel;
  TapConfig cfg;
  cfg.vnet_hdr = false;
  VnetHdrTunnel out{Hdr(1, 1, 9, 9, 9, 9), 9, 9};
  EXPECT_EQ(TapRead(tun, DeviceFeatures{}, cfg, &out), "");
  EXPECT_EQ(out.hdr.flags, 0);
  EXPECT_EQ(out.hdr.gso_type, 0);
  EXPECT_EQ(out.hdr.csum_start, 0);
  EXPECT_EQ(out.outer_th_offset, 0);
  // With the header the same skb is -EINVAL (no tunnel offload on the TAP).
  cfg.vnet_hdr = true;
  EXPECT_NE(TapRead(tun, DeviceFeatures{}, cfg, &out), "");
}

TEST(KernelPacketSndEdges, SockDgramBuildsTheEthernetHeaderInFront) {
  // packet_snd SOCK_DGRAM: dev_hard_header pushes a 14-byte header with the
  // socket's protocol; offsets count from it. The MTU limit applies to the
  // user's bytes alone (reserve 0): 1500 pass, 1501 do not.
  const Bytes frame = Ipv4Frame(6, kTcp + std::string(40, '0'));
  const Bytes ip(frame.begin() + 14, frame.end());  // 60 bytes
  PacketSocketConfig cfg;
  cfg.sock_dgram = true;
  cfg.protocol = 0x0800;
  SkBuff s;
  ASSERT_EQ(PacketSnd(ip, VnetHdr{}, cfg, &s), "");
  ASSERT_EQ(s.len(), 74u);
  EXPECT_EQ(ToHex(Bytes(s.pkt.data(), s.pkt.data() + 14)), "0000000000000000000000000800");
  EXPECT_TRUE(std::equal(ip.begin(), ip.end(), s.pkt.data() + 14));
  EXPECT_EQ(s.pkt.l3_ofs, 14);
  EXPECT_EQ(s.pkt.l4_ofs, 34);
  // NEEDS_CSUM offsets count from the pushed MAC header...
  ASSERT_EQ(PacketSnd(ip, Hdr(1, 0, 0, 0, 34, 16), cfg, &s), "");
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(s.csum_start, 34);
  // ...but __packet_snd_vnet_parse compares the hdr_len they imply (34 +
  // 16 + 2 = 52) with the user's length, which lacks those 14 bytes: a
  // 40-byte packet (a bare TCP segment) is -EINVAL, 52 bytes pass.
  const Bytes bare(frame.begin() + 14, frame.begin() + 54);
  EXPECT_NE(PacketSnd(bare, Hdr(1, 0, 0, 0, 34, 16), cfg, &s), "");
  const Bytes fits(frame.begin() + 14, frame.begin() + 66);
  EXPECT_EQ(PacketSnd(fits, Hdr(1, 0, 0, 0, 34, 16), cfg, &s), "");
  Bytes big(1500, 0);
  big[0] = 0x45;
  EXPECT_EQ(PacketSnd(big, std::nullopt, cfg, &s), "");
  big.push_back(0);
  EXPECT_NE(PacketSnd(big, std::nullopt, cfg, &s), "");
}

TEST(KernelPacketSndEdges, ATaggedFrameMayExceedTheMtuByTheTag) {
  // packet_snd: len > mtu + hard_header_len is -EMSGSIZE unless
  // packet_extra_vlan_len_allowed, and then only by VLAN_HLEN: 1518 bytes
  // of an 802.1Q frame pass, 1519 do not.
  auto frame = [](const std::string& type, size_t n) {
    Bytes f = FromHex(H(offlab::testing::kKernelEth + type + "0064 0800"));
    f.resize(n, 0);
    return f;
  };
  PacketSocketConfig cfg;
  SkBuff s;
  EXPECT_EQ(PacketSnd(frame("8100", 1518), std::nullopt, cfg, &s), "");
  EXPECT_NE(PacketSnd(frame("8100", 1519), std::nullopt, cfg, &s), "");
  // packet_extra_vlan_len_allowed takes h_proto == ETH_P_8021Q only: an
  // 802.1ad frame gets no allowance (1514 pass, 1518 do not).
  EXPECT_EQ(PacketSnd(frame("88a8", 1514), std::nullopt, cfg, &s), "");
  EXPECT_NE(PacketSnd(frame("88a8", 1518), std::nullopt, cfg, &s), "");
  // Untagged: 1514 pass, 1515 do not.
  Bytes plain = frame("0800", 1514);
  plain[12] = 0x08, plain[13] = 0x00;
  EXPECT_EQ(PacketSnd(plain, std::nullopt, cfg, &s), "");
  plain.push_back(0);
  EXPECT_NE(PacketSnd(plain, std::nullopt, cfg, &s), "");
  // A GSO header lifts the limit altogether.
  Bytes gso = Ipv4Frame(6, kTcp + std::string(2 * 3000, 'a'));
  EXPECT_EQ(PacketSnd(gso, Hdr(1, 1, 54, 1000, 34, 16), cfg, &s), "");
}

TEST(KernelPacketSndEdges, ASockRawFrameShorterThanEthernetIsRefused) {
  // :3046-3050 dev_validate_header: fewer bytes than hard_header_len.
  SkBuff s;
  EXPECT_NE(PacketSnd(FromHex("0a8f394fe0738abf7e2f0584"), std::nullopt, PacketSocketConfig{}, &s),
            "");
}

TEST(KernelPacketSndEdges, TheSocketsProtocolIsUsedUnlessZeroOrEthPAll) {
  // packet_parse_headers reads the protocol from the frame only when
  // skb->protocol is 0 or ETH_P_ALL. ETH_P_ALL: IPv4 found, TCP at 34.
  const Bytes f = Ipv4Frame(6, kTcp);
  PacketSocketConfig cfg;
  cfg.protocol = 0x0003;
  SkBuff s;
  ASSERT_EQ(PacketSnd(f, std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l4_ofs, 34);
  // Bound to IPv6 (0x86dd): the IPv4 bytes at 14 are dissected as an IPv6
  // header whose next header is byte 14 + 6, the IPv4 protocol-less flags
  // byte 0x40 (not an extension header): the transport header lands at 54.
  cfg.protocol = 0x86dd;
  Bytes longer = Ipv4Frame(6, kTcp + std::string(40, '0'));
  ASSERT_EQ(PacketSnd(longer, std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l4_ofs, 54);
}

TEST(KernelPacketSndEdges, TheNetworkHeaderMovesPastTagsForAnyInnerType) {
  // packet_parse_headers: a tagged frame's network header is set to the
  // depth vlan_get_protocol_and_depth (include/linux/if_vlan.h) reports
  // whenever the type it returns is not 0 -- ARP too, not only IP.
  PacketSocketConfig cfg;
  SkBuff s;
  const Bytes arp = FromHex(H(offlab::testing::kKernelEth + "0806" + kArp));
  ASSERT_EQ(PacketSnd(Tagged(arp, "8100 0064"), std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l3_ofs, 18);
  // An inner type of 0 is "no protocol": the header stays at 14.
  Bytes zero = Tagged(arp, "8100 0064");
  zero[16] = zero[17] = 0;
  ASSERT_EQ(PacketSnd(zero, std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l3_ofs, 14);
  // __vlan_get_protocol reads at most VLAN_MAX_DEPTH - 1 = 7 tags
  // (!--parse_depth returns 0 at the 8th): 7 tags put it at 14 + 28 = 42,
  // 8 leave it at 14.
  const std::string tag = "8100 0064 ";
  std::string seven;
  for (int i = 0; i < 7; ++i) seven += tag;
  ASSERT_EQ(PacketSnd(Tagged(arp, seven), std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l3_ofs, 42);
  ASSERT_EQ(PacketSnd(Tagged(arp, seven + tag), std::nullopt, cfg, &s), "");
  EXPECT_EQ(s.pkt.l3_ofs, 14);
}

}  // namespace
}  // namespace offlab::kernel
