// Kernel version gates of the software devices and ibmveth (devices.cc,
// device_tx_ibmveth.cc): each checked at exactly the release that brought
// the change and at the release before it.
//  - 4.4: ce8c839b74e3 "veth: don't modify ip_summed; doing so treats
//    packets with bad checksums as good."
//  - 6.2: TUN_F_USO4/USO6 ("net: tun: support UDP segmentation offload");
//  - 6.12: "netdev_features: convert NETIF_F_LLTX to dev->lltx";
//  - 6.17: UDP-tunnel GSO over tun (TUN_F_UDP_TUNNEL_GSO);
//  - ibmveth: FRAGLIST on active trunks and largesend only for PARTIAL GSO
//    skbs from 4.19 (absent in v4.11, present in v4.19).
#include <gtest/gtest.h>

#include "kernel_test_bytes.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/devices.h"
#include "offlab/net/bytes.h"
#include "offlab/net/error.h"

namespace offlab::kernel {
namespace {

KernelVersion V(int maj, int min) { return KernelVersion{maj, min, false}; }

TEST(KernelVersionGatesDevices, LltxIsAFeatureBitUntil611) {
  for (auto make : {&VethDevice, &VxlanDevice, &BridgeDevice, &TapDevice}) {
    const VirtualDevice before = make(V(6, 11)), at = make(V(6, 12));
    EXPECT_TRUE(before.dev.features & netif::kLlTx) << before.kind;
    EXPECT_FALSE(at.dev.features & netif::kLlTx) << at.kind;
  }
}

TEST(KernelVersionGatesDevices, TapHwEncFeaturesByRelease) {
  // TUN_USER_FEATURES gained GSO_UDP_L4 in 6.2 and the UDP-tunnel GSO bits
  // in 6.17; hw_enc_features = hw_features carries them.
  EXPECT_FALSE(TapDevice(V(6, 1)).dev.hw_enc_features & netif::kGsoUdpL4);
  EXPECT_TRUE(TapDevice(V(6, 2)).dev.hw_enc_features & netif::kGsoUdpL4);
  const uint64_t tnl = netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum;
  EXPECT_EQ(TapDevice(V(6, 16)).dev.hw_enc_features & tnl, 0u);
  EXPECT_EQ(TapDevice(V(6, 17)).dev.hw_enc_features & tnl, tnl);
}

TEST(KernelVersionGatesDevices, TunsetoffloadFlagsByRelease) {
  // USO4|USO6: EINVAL before 6.2, GSO_UDP_L4 from it.
  const uint32_t uso = tun_f::kCsum | tun_f::kUso4 | tun_f::kUso6;
  EXPECT_THROW(TapFeatures(uso, V(6, 1)), Error);
  EXPECT_TRUE(TapFeatures(uso, V(6, 2)).features & netif::kGsoUdpL4);
  // UDP_TUNNEL_GSO over TSO: EINVAL before 6.17.
  const uint32_t tnl = tun_f::kCsum | tun_f::kTso4 | tun_f::kUdpTunnelGso;
  EXPECT_THROW(TapFeatures(tnl, V(6, 16)), Error);
  EXPECT_TRUE(TapFeatures(tnl, V(6, 17)).features & netif::kGsoUdpTunnel);
}

TEST(KernelVersionGatesDevices, VethStopsPromisingChecksumsIn44) {
  DeviceFeatures peer;
  peer.features = netif::kRxCsum;
  SkBuff a;
  a.ip_summed = IpSummed::kNone;
  SkBuff b = a;
  VethXmit(a, peer, V(4, 3));
  EXPECT_EQ(a.ip_summed, IpSummed::kUnnecessary);
  VethXmit(b, peer, V(4, 4));
  EXPECT_EQ(b.ip_summed, IpSummed::kNone);
}

TEST(KernelVersionGatesDevices, IbmvethTrunkFraglistFrom419) {
  IbmvethConfig cfg;  // an active trunk
  EXPECT_FALSE(IbmvethFeatures(cfg, V(4, 18)).features & netif::kFraglist);
  EXPECT_TRUE(IbmvethFeatures(cfg, V(4, 19)).features & netif::kFraglist);
}

TEST(KernelVersionGatesDevices, IbmvethLargesendOnlyForPartialFrom419) {
  // A TSO skb whose checksum is not PARTIAL (e.g. forwarded with a
  // verified one): v4.11 :1131 marks any GSO skb largesend, v4.19 :1135
  // only a PARTIAL one.
  Bytes f = FromHex(
      "020000000002 020000000001 0800 45000bd4 00014000 4006 1234 0a000001 0a000002"
      "04d20050 00000001 00000000 5010 ffff abcd 0000");
  f.insert(f.end(), 3000, 'x');
  SkBuff s = testbytes::PartialTcp4Skb(f, 1000);
  s.ip_summed = IpSummed::kUnnecessary;
  IbmvethConfig cfg;
  const IbmvethTx old = IbmvethStartXmit(s, cfg, V(4, 18));
  ASSERT_TRUE(old.sent) << old.drop;
  EXPECT_TRUE(old.largesend);
  const IbmvethTx now = IbmvethStartXmit(s, cfg, V(4, 19));
  ASSERT_TRUE(now.sent) << now.drop;
  EXPECT_FALSE(now.largesend);
}

}  // namespace
}  // namespace offlab::kernel
