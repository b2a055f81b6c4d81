// validate_xmit_skb's checksum, feature and linearize rules, and software
// GSO of VXLAN-encapsulated TCP (with/without tunnel TSO, UDP_TUNNEL_CSUM,
// GSO_PARTIAL) followed by what the device puts on the wire. Expected frames
// are built here from scratch with a plain RFC 1071 loop.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "kernel_test_bytes.h"
#include "offlab/linux/device_tx.h"
#include "offlab/linux/xmit.h"
#include "offlab/linux/xmit_features.h"
#include "offlab/net/work.h"

namespace offlab::kernel {
namespace {

using namespace testbytes;  // Sum, Fold, Put16, Get16, Add

// IPv4 pseudo header of the header at l3 (RFC 793 / RFC 768).
uint32_t Pseudo4(const Bytes& f, size_t l3, uint8_t proto, uint32_t len) {
  return Sum(f, l3 + 12, l3 + 20) + proto + len;
}
void Ipv4(Bytes& f, uint32_t tot_len, uint32_t id, uint8_t proto, uint8_t net) {
  const size_t o = f.size();
  Add(f, {0x45, 0, tot_len >> 8, tot_len, id >> 8, id, 0x40, 0, 64, proto,
          0,    0, net,          0,       0,       1,  net,  0, 0,  2});
  Put16(f, o + 10, static_cast<uint16_t>(~Fold(Sum(f, o, o + 20))));
}
void Tcp(Bytes& f, uint32_t seq, uint8_t flags) {
  Add(f, {0x9c, 0x40, 0x14, 0x51,  seq >> 24, seq >> 16, seq >> 8, seq, 0, 0,
          0,    1,    0x50, flags, 0x20,      0,         0,        0,   0, 0});
}
void Payload(Bytes& f, size_t off, size_t len) {
  for (size_t i = 0; i < len; i++) f.push_back(static_cast<uint8_t>((off + i) * 13 + 5));
}

// VXLAN: outer Ethernet/IPv4/UDP 4789, VXLAN VNI 123, inner Ethernet/IPv4/TCP.
constexpr size_t kOl3 = 14, kUdp = 34, kIl2 = 50, kIl3 = 64, kITh = 84, kMss = 1448;

enum class Csum { kComplete, kPartial };
Bytes Vxlan(size_t off, size_t len, size_t i, uint8_t flags, bool udp_csum, Csum mode) {
  Bytes f;
  Add(f, {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
  Ipv4(f, 90 + len, 0x4000 + i, 17, 192);
  Add(f, {0xc0, 0x01, 0x12, 0xb5, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 123, 0});
  Put16(f, kUdp + 4, 70 + len);
  Add(f, {2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 8, 0});
  Ipv4(f, 40 + len, 0x100 + i, 6, 10);
  Tcp(f, 1000 + static_cast<uint32_t>(off), flags);
  Payload(f, off, len);
  const uint32_t ip = Pseudo4(f, kIl3, 6, static_cast<uint32_t>(20 + len));
  const uint32_t up = Pseudo4(f, kOl3, 17, static_cast<uint32_t>(70 + len));
  if (mode == Csum::kPartial) {
    Put16(f, kITh + 16, Fold(ip));
    if (udp_csum) Put16(f, kUdp + 6, Fold(up));
    return f;
  }
  Put16(f, kITh + 16, static_cast<uint16_t>(~Fold(Sum(f, kITh, f.size(), ip))));
  if (udp_csum) {
    uint16_t c = static_cast<uint16_t>(~Fold(Sum(f, kUdp, f.size(), up)));
    Put16(f, kUdp + 6, c ? c : 0xffff);
  }
  return f;
}

// The VXLAN driver's GSO skb: inner TCP CHECKSUM_PARTIAL, outer UDP
// checksum field holding its pseudo-header sum (udp_set_csum) if enabled.
SkBuff VxlanSkb(size_t payload, bool udp_csum) {
  SkBuff s;
  s.pkt = Packet(Vxlan(0, payload, 0, 0x18, udp_csum, Csum::kPartial));
  s.pkt.l3_ofs = kOl3;
  s.pkt.l4_ofs = kUdp;
  s.pkt.inner_l2_ofs = kIl2;
  s.pkt.inner_l3_ofs = kIl3;
  s.pkt.inner_l4_ofs = kITh;
  s.encapsulation = true;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = kITh;
  s.csum_offset = 16;
  s.gso_size = kMss;
  s.gso_segs = static_cast<uint16_t>((payload + kMss - 1) / kMss);
  s.gso_type = gso::kTcpv4 | (udp_csum ? gso::kUdpTunnelCsum : gso::kUdpTunnel);
  return s;
}

// Segment i of a 3000-byte VXLAN TSO as it must appear on the wire.
Bytes VxlanWire(size_t i, bool udp_csum) {
  const size_t off = i * kMss;
  return Vxlan(off, std::min<size_t>(kMss, 3000 - off), i, i == 2 ? 0x18 : 0x10, udp_csum,
               Csum::kComplete);
}

DeviceFeatures Dev(uint64_t f, uint64_t enc = 0) {
  return DeviceFeatures{f, enc, 65536, 65535, 1500};
}

TEST(KernelXmitTunnel, NoTunnelGsoSegmentsInSoftwareWithLocalChecksumOffload) {
  const uint64_t f = netif::kSg | netif::kIpCsum | netif::kTso;
  const auto dev = Dev(f, netif::kSg | netif::kIpCsum);
  auto segs = ValidateXmitSkb(VxlanSkb(3000, true), dev);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    const Bytes want = VxlanWire(i, true);
    Bytes got = segs[i].pkt.bytes();
    // The inner checksum is the device's; the outer UDP checksum is already
    // right for the completed packet.
    EXPECT_TRUE(segs[i].encapsulation);
    EXPECT_EQ(segs[i].ip_summed, IpSummed::kPartial);
    EXPECT_EQ(segs[i].csum_start, kITh);
    EXPECT_EQ(Get16(got, kITh + 16),
              Fold(Pseudo4(want, kIl3, 6, static_cast<uint32_t>(want.size() - kITh))));
    Put16(got, kITh + 16, Get16(want, kITh + 16));
    EXPECT_EQ(got, want) << i;
    EXPECT_EQ(DeviceTransmit(segs[i], dev).at(0), want) << i;
  }
}

TEST(KernelXmitTunnel, TunnelTsoDeviceGetsTheSkbWhole) {
  const uint64_t f = netif::kSg | netif::kIpCsum | netif::kTso | netif::kGsoUdpTunnelCsum;
  const auto dev = Dev(f, f);
  auto out = ValidateXmitSkb(VxlanSkb(3000, true), dev);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].is_gso());
  auto wire = DeviceTransmit(out[0], dev);
  ASSERT_EQ(wire.size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(wire[i], VxlanWire(i, true)) << i;
}

TEST(KernelXmitTunnel, WithoutUdpTunnelCsumTheOuterChecksumStaysZero) {
  const auto dev = Dev(netif::kSg | netif::kIpCsum, netif::kSg | netif::kIpCsum);
  auto segs = ValidateXmitSkb(VxlanSkb(3000, false), dev);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(Get16(segs[i].pkt.bytes(), kUdp + 6), 0);
    EXPECT_EQ(DeviceTransmit(segs[i], dev).at(0), VxlanWire(i, false)) << i;
  }
}

TEST(KernelXmitTunnel, NoInnerChecksumOffloadLeavesTheOuterOneToTheDevice) {
  // hw_enc_features without checksums: the inner TCP checksum is computed
  // while segmenting, the outer UDP one is offloaded (dev->features).
  const auto dev = Dev(netif::kSg | netif::kIpCsum, netif::kSg);
  auto segs = ValidateXmitSkb(VxlanSkb(3000, true), dev);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_FALSE(segs[i].encapsulation);
    EXPECT_EQ(segs[i].ip_summed, IpSummed::kPartial);
    EXPECT_EQ(segs[i].csum_start, kUdp);
    EXPECT_EQ(segs[i].csum_offset, 6);
    EXPECT_EQ(DeviceTransmit(segs[i], dev).at(0), VxlanWire(i, true)) << i;
  }
}

TEST(KernelXmitTunnel, GsoPartialLeavesWholeMssBlocksToTheDevice) {
  const uint64_t f =
      netif::kSg | netif::kIpCsum | netif::kTso | netif::kGsoPartial | netif::kGsoUdpTunnelCsum;
  const auto dev = Dev(f, f);
  XmitOptions opt;
  opt.gso_partial_features = netif::kGsoUdpTunnelCsum;
  Counters c;
  auto out = ValidateXmitSkb(VxlanSkb(3000, true), dev, opt, kLabKernel, &c);
  ASSERT_EQ(out.size(), 2u);  // 2 x 1448 for the device, the 104-byte rest
  EXPECT_EQ(c.Get("gso_partial"), 1u);
  EXPECT_TRUE(out[0].gso_type & gso::kPartial);
  EXPECT_EQ(out[0].gso_segs, 2);
  EXPECT_FALSE(out[1].is_gso());
  std::vector<Bytes> wire = DeviceTransmit(out[0], dev);
  for (Bytes& b : DeviceTransmit(out[1], dev)) wire.push_back(b);
  ASSERT_EQ(wire.size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(wire[i], VxlanWire(i, true)) << i;
}

TEST(KernelXmitTunnel, GsoPartialRestGetsItsOwnUdpLengthFrom419) {
  // __skb_udp_tunnel_segment: a GSO_PARTIAL segment's outer UDP length is
  // one MSS segment's; v4.11 (udp_offload.c:125) also gave it to the
  // trailing non-GSO segment, fixed by v4.19 (taken as the boundary).
  const uint64_t f =
      netif::kSg | netif::kIpCsum | netif::kTso | netif::kGsoPartial | netif::kGsoUdpTunnelCsum;
  XmitOptions opt;
  opt.gso_partial_features = netif::kGsoUdpTunnelCsum;
  for (int minor : {18, 19}) {
    auto out =
        ValidateXmitSkb(VxlanSkb(3000, true), Dev(f, f), opt, KernelVersion{4, minor}, nullptr);
    ASSERT_EQ(out.size(), 2u) << minor;
    const Bytes& rest = out[1].pkt.bytes();
    const bool own = Get16(rest, kUdp + 4) == rest.size() - kUdp;
    EXPECT_EQ(own, minor == 19) << minor;
  }
}

TEST(KernelXmitTunnel, RemoteChecksumOffloadLeavesTheInnerChecksumToTheReceiver) {
  // With TUNNEL_REMCSUM the inner TCP field keeps each segment's pseudo-header
  // sum (the receiver completes it); the outer UDP checksum covers the bytes
  // as sent, done by the device if it can, else in software.
  SkBuff s = VxlanSkb(3000, true);
  s.gso_type |= gso::kTunnelRemcsum;
  std::vector<Bytes> want;
  for (size_t i = 0; i < 3; i++) {
    const size_t off = i * kMss, len = std::min<size_t>(kMss, 3000 - off);
    Bytes f = Vxlan(off, len, i, i == 2 ? 0x18 : 0x10, true, Csum::kPartial);
    Put16(f, kUdp + 6, 0);
    const uint16_t c = static_cast<uint16_t>(
        ~Fold(Sum(f, kUdp, f.size(), Pseudo4(f, kOl3, 17, static_cast<uint32_t>(70 + len)))));
    Put16(f, kUdp + 6, c ? c : 0xffff);
    want.push_back(f);
  }
  const auto csum_dev = Dev(netif::kSg | netif::kIpCsum, netif::kSg | netif::kIpCsum);
  auto segs = ValidateXmitSkb(s, csum_dev);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(segs[i].csum_start, kUdp);  // the outer checksum is the device's
    EXPECT_EQ(DeviceTransmit(segs[i], csum_dev).at(0), want[i]) << i;
  }
  auto sw = ValidateXmitSkb(s, Dev(netif::kSg, netif::kSg));
  ASSERT_EQ(sw.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(sw[i].ip_summed, IpSummed::kNone);
    EXPECT_EQ(sw[i].pkt.bytes(), want[i]) << i;
  }
}

// A non-GSO IPv4/TCP frame with CHECKSUM_PARTIAL.
SkBuff Tcp4Partial(size_t len) {
  Bytes f;
  Add(f, {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
  Ipv4(f, 40 + len, 7, 6, 10);
  Tcp(f, 1, 0x18);
  Payload(f, 0, len);
  Put16(f, 34 + 16, Fold(Pseudo4(f, 14, 6, static_cast<uint32_t>(20 + len))));
  return PartialTcp4Skb(f);
}

TEST(KernelXmitCsum, PartialOnDeviceWithoutChecksumIsCompletedInSoftware) {
  SkBuff s = Tcp4Partial(100);
  Bytes want = s.pkt.bytes();
  Put16(want, 50, 0);
  Put16(want, 50,
        static_cast<uint16_t>(~Fold(Sum(want, 34, want.size(), Pseudo4(want, 14, 6, 120)))));
  work::Take();
  Counters c;
  auto out = ValidateXmitSkb(s, Dev(netif::kSg), kLabKernel, &c);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(work::Take().csum_bytes, 120u);
  EXPECT_EQ(out[0].ip_summed, IpSummed::kNone);
  EXPECT_EQ(out[0].pkt.bytes(), want);
  EXPECT_EQ(c.Get("xmit_csum_help"), 1u);
  // The same skb on a checksumming device stays PARTIAL.
  auto off = ValidateXmitSkb(s, Dev(netif::kIpCsum));
  EXPECT_EQ(off.at(0).ip_summed, IpSummed::kPartial);
  EXPECT_EQ(DeviceTransmit(off[0], Dev(netif::kIpCsum)).at(0), want);
}

TEST(KernelXmitCsum, AZeroUdpChecksumGoesOutAsFfff) {
  Bytes f;
  Add(f, {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
  Ipv4(f, 20 + 8 + 10, 9, 17, 10);
  Add(f, {0x30, 0x39, 0x00, 0x35, 0, 18, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0});
  const uint32_t pseudo = Pseudo4(f, 14, 17, 18);
  Put16(f, 40, Fold(pseudo));
  // The last two payload bytes make the whole sum 0xffff: checksum 0.
  Put16(f, f.size() - 2, static_cast<uint16_t>(~Fold(Sum(f, 34, f.size()))));
  ASSERT_EQ(static_cast<uint16_t>(~Fold(Sum(f, 34, f.size()))), 0);
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 34;
  s.csum_offset = 6;
  auto out = ValidateXmitSkb(s, Dev(0));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Get16(out[0].pkt.bytes(), 40), 0xffff);
}

TEST(KernelXmitCsum, ChecksumOffsetAndProtocolRulesByKernel) {
  SkBuff s = Tcp4Partial(60);
  s.csum_offset = 2;  // not a TCP or UDP checksum field
  EXPECT_EQ(ValidateXmitSkb(s, Dev(netif::kIpCsum)).at(0).ip_summed, IpSummed::kNone);
  EXPECT_EQ(ValidateXmitSkb(s, Dev(netif::kIpCsum), KernelVersion{5, 10}).at(0).ip_summed,
            IpSummed::kPartial);
  EXPECT_EQ(ValidateXmitSkb(s, Dev(netif::kIpCsum), KernelVersion{4, 11}).at(0).ip_summed,
            IpSummed::kPartial);
  EXPECT_EQ(ValidateXmitSkb(s, Dev(netif::kHwCsum)).at(0).ip_summed, IpSummed::kPartial);
  // IPv4 on an IPv6-only checksum device: harmonize_features drops it.
  EXPECT_EQ(ValidateXmitSkb(Tcp4Partial(60), Dev(netif::kIpv6Csum)).at(0).ip_summed,
            IpSummed::kNone);
}

TEST(KernelXmitCsum, TheTransportHeaderIsWhereTheChecksumStarts) {
  // validate_xmit_skb (net/core/dev.c): skb_set_transport_header(skb,
  // skb_checksum_start_offset(skb)) for a PARTIAL skb, whatever the
  // transport offset said before.
  for (uint64_t f : {uint64_t{netif::kIpCsum}, uint64_t{0}}) {
    SkBuff s = Tcp4Partial(100);
    s.pkt.l4_ofs = kNoOffset;
    EXPECT_EQ(ValidateXmitSkb(s, Dev(f)).at(0).pkt.l4_ofs, 34) << f;
  }
}

TEST(KernelXmitFeatures, LinearizeFragListAndFragsTheDeviceCannotGather) {
  SkBuff s = Tcp4Partial(600);
  s.frag_list_lens = {500};
  Counters c;
  auto out = ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum), kLabKernel, &c);
  EXPECT_FALSE(out.at(0).has_frag_list());
  EXPECT_EQ(c.Get("xmit_linearize_bytes"), 500u);
  EXPECT_TRUE(ValidateXmitSkb(s, Dev(netif::kSg | netif::kIpCsum | netif::kFraglist))
                  .at(0)
                  .has_frag_list());
  SkBuff p = Tcp4Partial(600);
  p.nr_frags = 2;  // headers linear, payload in pages
  Counters c2;
  ValidateXmitSkb(p, Dev(netif::kIpCsum), kLabKernel, &c2);
  EXPECT_EQ(c2.Get("xmit_linearize_bytes"), 600u);
}

TEST(KernelXmitFeatures, APartialChecksumFieldIsInTheLinearArea) {
  // skb_partial_csum_set (net/core/skbuff.c) refuses a PARTIAL skb unless
  // csum_start + csum_offset + 2 <= skb_headlen, so the linear area always
  // reaches that far: for SCTP (field at 8 of a 12-byte header) further than
  // the first 8 bytes of a header the model counts as linear for any L4,
  // whatever the first chunk's bytes are. Linearizing copies at most what
  // follows byte 34 + 8 + 2.
  Bytes f;
  Add(f, {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0});
  Ipv4(f, 20 + 12 + 100, 7, 132, 10);
  Add(f, {0x13, 0x88, 0x17, 0x70, 0, 0, 0, 1, 0, 0, 0, 0});  // SCTP header, CRC 0
  Payload(f, 0, 100);            // chunk bytes; the first (type) byte is 0, DATA
  SkBuff s = PartialTcp4Skb(f);  // the same offsets; the field is SCTP's CRC
  s.csum_offset = 8;
  s.csum_not_inet = true;
  s.nr_frags = 1;
  Counters c;
  ValidateXmitSkb(s, Dev(netif::kSctpCrc), kLabKernel, &c);
  EXPECT_LE(c.Get("xmit_linearize_bytes"), f.size() - (34 + 8 + 2));
  EXPECT_GE(c.Get("xmit_linearize_bytes"), 100u);  // the chunks are in the pages
}

TEST(KernelXmitFeatures, GsoLimitsSendToSoftware) {
  const uint64_t tso = netif::kSg | netif::kIpCsum | netif::kTso | netif::kGsoUdpTunnelCsum;
  DeviceFeatures dev = Dev(tso, tso);
  dev.gso_max_segs = 2;
  EXPECT_EQ(ValidateXmitSkb(VxlanSkb(3000, true), dev).size(), 3u);
  dev = Dev(tso, tso);
  dev.gso_max_size = 3000;  // the skb is 3104 bytes
  EXPECT_EQ(ValidateXmitSkb(VxlanSkb(3000, true), dev).size(), 3u);
  EXPECT_EQ(ValidateXmitSkb(VxlanSkb(3000, true), dev, KernelVersion{6, 1}).size(), 1u);
}

TEST(KernelXmitFeatures, GsoNeededForAnyChecksumStateButPartialOrUnnecessary) {
  // netif_needs_gso (v6.18 include/linux/netdevice.h): a GSO skb the device
  // could take is still segmented in software unless ip_summed is PARTIAL or
  // UNNECESSARY, the segments' checksums being GSO's to write.
  SkBuff s;
  s.pkt = Packet(Bytes(200, 0));
  s.gso_size = 100;
  s.gso_segs = 2;
  s.gso_type = gso::kTcpv4;
  for (const auto& [summed, needs] : {std::pair{IpSummed::kNone, true},
                                      {IpSummed::kUnnecessary, false},
                                      {IpSummed::kComplete, true},
                                      {IpSummed::kPartial, false}}) {
    s.ip_summed = summed;
    EXPECT_EQ(NetifNeedsGso(s, netif::kTso), needs) << IpSummedName(summed);
  }
  // Without TSO, always.
  s.ip_summed = IpSummed::kPartial;
  EXPECT_TRUE(NetifNeedsGso(s, 0));
  // Not a GSO skb: never.
  s.gso_size = 0;
  s.ip_summed = IpSummed::kNone;
  EXPECT_FALSE(NetifNeedsGso(s, 0));
}

TEST(KernelXmitFeatures, NoMangleidForAnIpv4HeaderWithoutDf) {
  // gso_features_check (v6.18 net/core/dev.c:3780-3786): a TCPv4 GSO skb
  // whose IPv4 header lacks DF must keep incrementing IDs, so the device
  // loses NETIF_F_TSO_MANGLEID for it; with DF (as Tcp4Partial sets) it keeps it.
  SkBuff s = Tcp4Partial(300);
  s.gso_size = 100;
  s.gso_segs = 3;
  s.gso_type = gso::kTcpv4;
  DeviceFeatures dev;
  dev.features = netif::kSg | netif::kIpCsum | netif::kTso | netif::kTsoMangleid;
  EXPECT_TRUE(NetifSkbFeatures(s, dev, XmitOptions{}, kLabKernel) & netif::kTsoMangleid);
  s.pkt.data()[14 + 6] = 0;  // DF off
  EXPECT_FALSE(NetifSkbFeatures(s, dev, XmitOptions{}, kLabKernel) & netif::kTsoMangleid);
}

// `s` made a 3-segment TCPv4 GSO skb: the device sends it as it is and
// counts it as device_tx_malformed (device_tx.h: offsets that do not fit).
void ExpectSentAsIs(SkBuff s) {
  s.gso_size = 4;
  s.gso_segs = 3;
  s.gso_type = gso::kTcpv4;
  const Bytes f = s.pkt.bytes();
  DeviceFeatures dev;
  dev.features = netif::kSg | netif::kHwCsum | netif::kTso;
  Counters c;
  const std::vector<Bytes> out = DeviceTransmit(s, dev, &c);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], f);
  EXPECT_EQ(c.Get("device_tx_malformed"), 1u);
}

TEST(KernelDeviceTx, ATsoSkbWhoseTcpHeaderDoesNotFitIsSentAsIs) {
  // A TCP data offset of 4 words (16 bytes, below the 20-byte minimum) and
  // one of 15 words (60 bytes) running past a frame that ends 30 bytes after
  // the TCP header.
  for (const uint8_t doff : {uint8_t{4}, uint8_t{15}}) {
    SCOPED_TRACE(int{doff});
    SkBuff s = Tcp4Partial(10);
    s.pkt.data()[34 + 12] = static_cast<uint8_t>(doff << 4);
    ExpectSentAsIs(s);
  }
}

TEST(KernelDeviceTx, AnIpHeaderRunningIntoTheTransportHeaderIsSentAsIs) {
  // The IPv4 header says 24 bytes (IHL 6) but the transport header is set 20
  // bytes after it.
  SkBuff s = Tcp4Partial(10);
  s.pkt.data()[14] = 0x46;
  ExpectSentAsIs(s);
}

TEST(KernelXmitFeatures, ALinearizedSkbHasNoPageFrags) {
  // __skb_linearize leaves every byte in the linear area: skb_shinfo's
  // nr_frags is 0 afterwards (net/core/skbuff.c __pskb_pull_tail).
  SkBuff p = Tcp4Partial(600);
  p.nr_frags = 2;
  const auto out = ValidateXmitSkb(p, Dev(netif::kIpCsum), kLabKernel);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].nr_frags, 0);
  EXPECT_FALSE(out[0].has_frag_list());
}

}  // namespace
}  // namespace offlab::kernel
