// Seed setup 1: OVS kernel datapath with Linux VXLAN on an Intel 82599, a
// 45-segment TSO burst from a guest, with and without the outer UDP
// checksum, on RHEL 7.1 and on 6.18. Expected frames are built by the
// oracle of test_util.h; expected work is summed here from the kernel's
// rules, each cited where it is used.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::HostAttach;
using kernel::HostGuestSkb;
using kernel::HostReceive;
using kernel::HostSwitch;
using kernel::HostTransmit;
using kernel::KernelHost;
using kernel::KernelVersion;
using kernel::RxOutcome;
using kernel::SkBuff;
using kernel::TxOutcome;
namespace netif = kernel::netif;

constexpr size_t kMss = 1398;  // 1500 - 50 (VXLAN) - 52: the guest's MSS
constexpr size_t kSegs = 45;
constexpr size_t kLen = kMss * kSegs;  // 62910 payload bytes
const KernelVersion kRhel71{3, 10, true};
const KernelVersion k618{6, 18, false};

// An 82599 host with OVS and a VXLAN vport; the guest behind a TAP.
KernelHost Host82599(KernelVersion kv, bool sender, bool csum) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"), kv);
  if (kv.rhel7) {
    // The 82599 under RHEL 7.1: no UDP-tunnel segmentation (ixgbe gained it
    // only as GSO_PARTIAL, IXGBE_GSO_PARTIAL_FEATURES, v4.7) and, before
    // v4.5 (fb8ad4a592c6 "ixgbe: Clean up redundancy in hw_enc_features"),
    // SG and the IPv4/IPv6 checksums for encapsulated packets.
    h.nic_dev.features = netif::kSg | netif::kIpCsum | netif::kIpv6Csum | netif::kTso |
                         netif::kTso6 | netif::kRxCsum | netif::kSctpCrc | netif::kGsoSoftware |
                         netif::kGro;
    h.nic_dev.hw_enc_features = netif::kSg | netif::kIpCsum | netif::kIpv6Csum;
  } else {
    // ixgbe_probe: gso_partial_features = IXGBE_GSO_PARTIAL_FEATURES (GRE,
    // GRE_CSUM, IPXIP4/6, UDP_TUNNEL, UDP_TUNNEL_CSUM), v6.18.19
    // ixgbe_main.c:11736-11755; the profile's kernel view lacks it.
    h.nic_xmit.gso_partial_features =
        netif::kGsoGre | netif::kGsoGreCsum | netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum;
  }
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kTap;
  kernel::VxlanConfig vx;
  vx.dstport = 4789;
  vx.port_min = 55555;
  vx.port_max = 55556;
  h.vxlan = vx;
  h.route.src_mac = {2, 0, 0, 0, 0, 0x11};
  h.route.dst_mac = {2, 0, 0, 0, 0, 0x22};
  h.route.ip_id = 7;
  if (sender) {
    kernel::OvsTunnelKey k;
    k.src = {192, 168, 1, 1};
    k.dst = {192, 168, 1, 2};
    k.tun_id = 42;
    k.csum = csum;
    h.ovs_tunnel = k;
  }
  return h;
}

TxOutcome GuestSends(KernelVersion kv, bool csum) {
  KernelHost a = Host82599(kv, true, csum);
  VnetHdr vh;
  vh.flags = VnetHdr::kNeedsCsum;
  vh.gso_type = VnetHdr::kGsoTcpv4;
  vh.gso_size = kMss;
  vh.hdr_len = 54;
  vh.csum_start = 34;
  vh.csum_offset = 16;
  SkBuff skb;
  EXPECT_EQ(HostGuestSkb(a, GuestTsoFrame(kLen), vh, &skb), "");
  return HostTransmit(a, skb);
}

void ExpectWire(const TxOutcome& t, bool csum) {
  ASSERT_EQ(t.wire.size(), kSegs);
  for (size_t k = 0; k < kSegs; k++) {
    ExpectVxlanOuter(t.wire[k], csum, 42, "wire frame");
    EXPECT_EQ(InnerOf(t.wire[k]), TsoSegment(kLen, kMss, k)) << k;
  }
}

TEST(KernelHostSeed1, SenderSegmentsTheBurstInHardwareOn618AndInSoftwareOnRhel71) {
  for (bool csum : {true, false}) {
    // 6.18: the 82599 does UDP-tunnel TSO only as GSO_PARTIAL, so the stack
    // makes one partial segment and the NIC cuts it into 45.
    const TxOutcome now = GuestSends(k618, csum);
    ExpectWire(now, csum);
    EXPECT_EQ(now.work.sw_segments, 1u);
    EXPECT_EQ(now.counters.Get("gso_partial"), 1u);
    EXPECT_EQ(now.counters.Get("device_tso_segments"), kSegs);
    // Software checksum bytes: ip_local_out's ip_send_check of the outer
    // IPv4 header (20); inet_gso_segment's ip_send_check of the partial
    // segment's outer and inner headers (2 x 20); with the checksum,
    // gso_make_checksum sums the outer UDP header to the inner checksum
    // start (UDP 8 + VXLAN 8 + Ethernet 14 + IPv4 20 = 50) and takes the
    // inner payload's sum from the inner checksum (LCO): no payload pass.
    EXPECT_EQ(now.work.csum_bytes, csum ? 20u + 40u + 50u : 20u + 40u) << csum;

    // RHEL 7.1: no tunnel segmentation on the 82599: 45 software segments,
    // each with two IPv4 headers rewritten by ip_send_check at least.
    const TxOutcome old = GuestSends(kRhel71, csum);
    ExpectWire(old, csum);
    EXPECT_EQ(old.work.sw_segments, kSegs);
    EXPECT_EQ(old.to_driver.size(), kSegs);
    EXPECT_GE(old.work.csum_bytes, kSegs * 40u);
  }
}

TEST(KernelHostSeed1, Ipv6UnderlayChecksumFollowsTheTunnelKey) {
  // set(tunnel(ipv6_src, ipv6_dst, csum)) over an IPv6 underlay: with
  // TUNNEL_CSUM the outer UDP checksum is filled in (vxlan_xmit_one's
  // udp_sum from the key, v6.18 drivers/net/vxlan/vxlan_core.c); without it
  // the device sends zero (UDP6_ZERO_CSUM_TX, RFC 6935).
  for (bool csum : {true, false}) {
    KernelHost a = Host82599(k618, true, csum);
    a.ovs_tunnel->ipv6 = true;
    a.ovs_tunnel->src = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    a.ovs_tunnel->dst = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    VnetHdr vh;
    vh.flags = VnetHdr::kNeedsCsum;
    vh.csum_start = 34;
    vh.csum_offset = 16;
    SkBuff skb;
    ASSERT_EQ(HostGuestSkb(a, GuestTsoFrame(kMss), vh, &skb), "");
    const TxOutcome t = HostTransmit(a, skb);
    ASSERT_EQ(t.wire.size(), 1u) << csum;
    const Bytes& f = t.wire[0];
    ASSERT_GT(f.size(), 70u);
    EXPECT_EQ(Be16(f, 12), 0x86dd);
    // The outer addresses are the tunnel key's (vxlan_xmit_one, collect_md:
    // info->key.u.ipv6.src and .dst).
    EXPECT_EQ(Bytes(f.begin() + 22, f.begin() + 38),
              Bytes(a.ovs_tunnel->src.begin(), a.ovs_tunnel->src.end()));
    EXPECT_EQ(Bytes(f.begin() + 38, f.begin() + 54),
              Bytes(a.ovs_tunnel->dst.begin(), a.ovs_tunnel->dst.end()));
    EXPECT_EQ(f[14 + 6], 17);
    EXPECT_EQ(Be16(f, 54 + 2), 4789);
    if (csum) {
      EXPECT_NE(Be16(f, 54 + 6), 0);
      EXPECT_TRUE(OracleL4Ok(f, 14, 54, 17));
    } else {
      EXPECT_EQ(Be16(f, 54 + 6), 0);
    }
    EXPECT_TRUE(OracleL4Ok(f, 84, 104, 6)) << "inner TCP";
  }
}

RxOutcome HostReceives(KernelVersion kv, bool csum) {
  const TxOutcome t = GuestSends(kv, csum);
  KernelHost b = Host82599(kv, false, csum);
  return HostReceive(b, t.wire);
}

TEST(KernelHostSeed1, Rhel71MergesTheBurstOnlyWithTheOuterChecksum) {
  // udp_gro_receive from v3.18 (RHEL 7.1's backport): a tunnel's frames are
  // merged only when the outer UDP checksum was validated (gro_udp.cc).
  const RxOutcome with = HostReceives(kRhel71, true);
  EXPECT_EQ(with.nic_gro.merged, kSegs - 1);
  ASSERT_EQ(with.delivered.size(), 1u);
  // The guest reads its peer's TSO frame back, byte for byte: GRO's merged
  // headers are the first segment's with PSH or'ed in from the last and the
  // pseudo-header sum in the TCP field (tcp_gro_complete).
  EXPECT_EQ(with.delivered[0].pkt.bytes(), GuestTsoFrame(kLen));
  ASSERT_EQ(with.tap_hdrs.size(), 1u);
  EXPECT_EQ(with.tap_hdrs[0].hdr.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(with.tap_hdrs[0].hdr.gso_type, VnetHdr::kGsoTcpv4);
  EXPECT_EQ(with.tap_hdrs[0].hdr.gso_size, kMss);
  EXPECT_EQ(with.tap_hdrs[0].hdr.csum_start, 34);
  EXPECT_EQ(with.tap_hdrs[0].hdr.csum_offset, 16);
  EXPECT_FALSE(with.cell_gro_ran);  // vxlan_rcv used netif_rx before v4.8
  // Per frame: inet_gro_receive's ip_fast_csum of the outer header (20);
  // the 82599 verified the outer UDP checksum (CHECKSUM_UNNECESSARY), which
  // udp4_gro_receive consumes and converts (csum = ~pseudo, no bytes);
  // from there the running sum is kept by skb_gro_postpull_rcsum over the
  // UDP (8), VXLAN (8) and inner Ethernet (14) headers, the inner
  // ip_fast_csum (20), and the inner TCP checksum checks against it. Once:
  // ip_rcv_core's ip_fast_csum (20) of the merged frame, which is
  // CHECKSUM_PARTIAL for UDP and the tap.
  EXPECT_EQ(with.work.csum_bytes, kSegs * 70 + 20);

  const RxOutcome without = HostReceives(kRhel71, false);
  EXPECT_EQ(without.nic_gro.merged, 0u);
  EXPECT_EQ(without.not_validated.at("udp_tunnel_csum_unvalidated"), kSegs);
  ASSERT_EQ(without.delivered.size(), kSegs);
  for (size_t k = 0; k < kSegs; k++) {
    EXPECT_EQ(without.delivered[k].pkt.bytes(), TsoSegment(kLen, kMss, k)) << k;
    // Nothing verified the inner TCP checksum: the guest's stack will.
    EXPECT_EQ(without.tap_hdrs[k].hdr.flags, 0) << k;
    EXPECT_EQ(without.tap_hdrs[k].hdr.gso_type, VnetHdr::kGsoNone) << k;
  }
  // Per frame: the outer IPv4 header in GRO and in ip_rcv_core (2 x 20).
  EXPECT_EQ(without.work.csum_bytes, kSegs * 40);
  EXPECT_EQ(without.counters.Get("Udp:InDatagrams"), kSegs);
}

TEST(KernelHostSeed1, Kernel618MergesBothWaysAndPaysForTheZeroChecksum) {
  // 89e5c58fc1e2 (v5.12) exempts a zero outer checksum from the rule above.
  for (bool csum : {true, false}) {
    const RxOutcome r = HostReceives(k618, csum);
    EXPECT_EQ(r.nic_gro.merged, kSegs - 1) << csum;
    ASSERT_EQ(r.delivered.size(), 1u) << csum;
    EXPECT_EQ(r.delivered[0].pkt.bytes(), GuestTsoFrame(kLen)) << csum;
    // gro_cells (58ce31cca1ff, v4.8) runs GRO again on the decapsulated
    // skb: one more inner ip_fast_csum (20), nothing left to merge.
    EXPECT_TRUE(r.cell_gro_ran);
    EXPECT_EQ(r.cell_gro.merged, 0u);
  }
  // With the checksum: as on RHEL 7.1 plus the gro_cells pass.
  EXPECT_EQ(HostReceives(k618, true).work.csum_bytes, kSegs * 70 + 20 + 20);
  // Without: the 82599 flags a zero UDP checksum as an error, which ixgbe
  // ignores, leaving CHECKSUM_NONE (ixgbe_main.c:1705-1715): no running sum,
  // so tcp4_gro_receive sums each inner TCP segment (20 + 1398) in software
  // after the outer and inner IPv4 header checks (2 x 20); then ip_rcv_core
  // and the gro_cells pass (2 x 20).
  const RxOutcome z = HostReceives(k618, false);
  EXPECT_EQ(z.nic_gro.csum_bytes, kSegs * (20 + kMss));
  EXPECT_EQ(z.work.csum_bytes, kSegs * (40 + 20 + kMss) + 40);
}

TEST(KernelHostSeed1, GroCellsPassFrom48) {
  // vxlan_rcv hands the inner skb to gro_cells_receive from 58ce31cca1ff
  // ("vxlan: GRO support at tunnel layer", v4.8); 4.7 used netif_rx.
  EXPECT_FALSE(HostReceives(KernelVersion{4, 7, false}, true).cell_gro_ran);
  EXPECT_TRUE(HostReceives(KernelVersion{4, 8, false}, true).cell_gro_ran);
}

TEST(KernelHostSeed1, TheOuterAddressesAreTheTunnelKeys) {
  // vxlan_xmit_one on the collect_md device behind OVS takes the outer
  // source and destination from the tunnel metadata (info->key), not from
  // the device's own configuration.
  const TxOutcome t = GuestSends(k618, true);
  ASSERT_FALSE(t.wire.empty());
  const Bytes& f = t.wire[0];
  EXPECT_EQ(Bytes(f.begin() + 26, f.begin() + 30), (Bytes{192, 168, 1, 1}));
  EXPECT_EQ(Bytes(f.begin() + 30, f.begin() + 34), (Bytes{192, 168, 1, 2}));
}

}  // namespace
}  // namespace offlab::testing
