// Kernel version gates of the feature history (features_version*.cc,
// version.cc): each gate is checked at exactly the release that brought the
// change and at the release just before it, so moving a gate by one release
// in either direction fails a test. The expected bits come from the trees
// features_version*.cc cites for each step (the later bracketing tree's
// release is the gate).
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/features_version.h"
#include "offlab/net/error.h"

namespace offlab::testing {
namespace {

using kernel::KernelVersion;
using kernel::NicFeatures;
namespace netif = kernel::netif;

constexpr uint64_t kTunnelGso =
    netif::kGsoGre | netif::kGsoGreCsum | netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum;

KernelVersion V(int maj, int min) { return KernelVersion{maj, min, false}; }

NicFeatures At(const char* profile, KernelVersion kv) {
  return kernel::KernelNicFeaturesAt(BuiltinProfile(profile), kv);
}

uint64_t Bits(int maj, int min) { return kernel::KernelFeatureBits(V(maj, min)); }

TEST(KernelVersionGatesFeatures, ParseAcceptsExactly310To618) {
  // version.cc: the modelled range is 3.10 .. 6.18.
  EXPECT_THROW(kernel::ParseKernelVersion("3.9"), Error);
  EXPECT_EQ(kernel::ParseKernelVersion("3.10"), V(3, 10));
  EXPECT_EQ(kernel::ParseKernelVersion("6.18"), V(6, 18));
  EXPECT_THROW(kernel::ParseKernelVersion("6.19"), Error);
  EXPECT_THROW(kernel::ParseKernelVersion("2.99"), Error);
  EXPECT_THROW(kernel::ParseKernelVersion("7.0"), Error);
}

TEST(KernelVersionGatesFeatures, CoreBitsEachAtItsFirstRelease) {
  // netdev_features.h: GSO_GRE_CSUM/GSO_UDP_TUNNEL_CSUM 3.18.
  const uint64_t tnl_csum = netif::kGsoGreCsum | netif::kGsoUdpTunnelCsum;
  EXPECT_EQ(Bits(3, 17) & tnl_csum, 0u);
  EXPECT_EQ(Bits(3, 18) & tnl_csum, tnl_csum);
  // GSO_TUNNEL_REMCSUM 3.19.
  EXPECT_FALSE(Bits(3, 18) & netif::kGsoTunnelRemcsum);
  EXPECT_TRUE(Bits(3, 19) & netif::kGsoTunnelRemcsum);
  // TSO_MANGLEID, GSO_PARTIAL: 4.7 (802ab55adc39 partial GSO).
  const uint64_t partial = netif::kTsoMangleid | netif::kGsoPartial;
  EXPECT_EQ(Bits(4, 6) & partial, 0u);
  EXPECT_EQ(Bits(4, 7) & partial, partial);
  // GSO_UDP_L4, GRO_HW: 4.18.
  const uint64_t l4 = netif::kGsoUdpL4 | netif::kGroHw;
  EXPECT_EQ(Bits(4, 17) & l4, 0u);
  EXPECT_EQ(Bits(4, 18) & l4, l4);
  // GSO_FRAGLIST, GRO_FRAGLIST: 5.6.
  const uint64_t fl = netif::kGsoFraglist | netif::kGroFraglist;
  EXPECT_EQ(Bits(5, 5) & fl, 0u);
  EXPECT_EQ(Bits(5, 6) & fl, fl);
  // GRO_UDP_FWD: 5.12.
  EXPECT_FALSE(Bits(5, 11) & netif::kGroUdpFwd);
  EXPECT_TRUE(Bits(5, 12) & netif::kGroUdpFwd);
  // LLTX stopped being a feature bit in 6.12.
  EXPECT_TRUE(Bits(6, 11) & netif::kLlTx);
  EXPECT_FALSE(Bits(6, 12) & netif::kLlTx);
}

TEST(KernelVersionGatesFeatures, RegisterNetdeviceGsoPartialFrom47) {
  // register_netdevice adds GSO_PARTIAL to every hw_enc_features from 4.7
  // (tun leaves its own empty before 6.18).
  EXPECT_EQ(At("tap", V(4, 6)).dev.hw_enc_features, netif::kSg);
  EXPECT_EQ(At("tap", V(4, 7)).dev.hw_enc_features, netif::kSg | netif::kGsoPartial);
}

TEST(KernelVersionGatesFeatures, Ixgbe82599) {
  // 4.4: tunnel checksum offload, hw_enc_features SG|IP_CSUM|IPV6_CSUM.
  EXPECT_EQ(At("ixgbe_82599", V(4, 3)).dev.hw_enc_features, netif::kSg);
  EXPECT_EQ(At("ixgbe_82599", V(4, 4)).dev.hw_enc_features,
            netif::kSg | netif::kIpCsum | netif::kIpv6Csum);
  // 4.6: HW_CSUM instead of IP_CSUM|IPV6_CSUM.
  const NicFeatures v45 = At("ixgbe_82599", V(4, 5)), v46 = At("ixgbe_82599", V(4, 6));
  EXPECT_TRUE(v45.dev.features & netif::kIpCsum);
  EXPECT_FALSE(v45.dev.features & netif::kHwCsum);
  EXPECT_FALSE(v46.dev.features & netif::kIpCsum);
  EXPECT_TRUE(v46.dev.features & netif::kHwCsum);
  EXPECT_EQ(v46.dev.hw_enc_features, netif::kSg | netif::kHwCsum);
  // 4.7: tunnel TSO as GSO_PARTIAL.
  const NicFeatures v47 = At("ixgbe_82599", V(4, 7));
  EXPECT_EQ(v46.gso_partial_features, 0u);
  EXPECT_FALSE(v46.dev.features & netif::kGsoPartial);
  EXPECT_EQ(v47.gso_partial_features, kTunnelGso);
  EXPECT_TRUE(v47.dev.features & netif::kGsoPartial);
  // 5.6: GSO_UDP_L4 beside SCTP_CRC.
  EXPECT_FALSE(At("ixgbe_82599", V(5, 5)).dev.features & netif::kGsoUdpL4);
  EXPECT_TRUE(At("ixgbe_82599", V(5, 6)).dev.features & netif::kGsoUdpL4);
}

TEST(KernelVersionGatesFeatures, I40eX710) {
  // i40e's first release is 3.12.
  EXPECT_THROW(At("x710", V(3, 11)), Error);
  EXPECT_NO_THROW(At("x710", V(3, 12)));
  // GSO_GRE joins features and hw_enc_features in 4.4.
  EXPECT_FALSE(At("x710", V(4, 3)).dev.features & netif::kGsoGre);
  EXPECT_FALSE(At("x710", V(4, 3)).dev.hw_enc_features & netif::kGsoGre);
  EXPECT_TRUE(At("x710", V(4, 4)).dev.features & netif::kGsoGre);
  EXPECT_TRUE(At("x710", V(4, 4)).dev.hw_enc_features & netif::kGsoGre);
  // 4.7: the GSO_PARTIAL block; checksummed tunnels partial.
  EXPECT_EQ(At("x710", V(4, 6)).gso_partial_features, 0u);
  EXPECT_FALSE(At("x710", V(4, 6)).dev.features & netif::kGsoGreCsum);
  EXPECT_EQ(At("x710", V(4, 7)).gso_partial_features,
            netif::kGsoUdpTunnelCsum | netif::kGsoGreCsum);
  EXPECT_TRUE(At("x710", V(4, 7)).dev.features & netif::kGsoGreCsum);
  // 5.6: GSO_UDP_L4.
  EXPECT_FALSE(At("x710", V(5, 5)).dev.features & netif::kGsoUdpL4);
  EXPECT_TRUE(At("x710", V(5, 6)).dev.features & netif::kGsoUdpL4);
  // 6.1: HW_CSUM and I40E_GSO_PARTIAL_FEATURES.
  const NicFeatures v60 = At("x710", V(6, 0)), v61 = At("x710", V(6, 1));
  EXPECT_EQ(v60.gso_partial_features, netif::kGsoUdpTunnelCsum | netif::kGsoGreCsum);
  EXPECT_TRUE(v60.dev.features & netif::kIpCsum);
  EXPECT_FALSE(v60.dev.features & netif::kHwCsum);
  EXPECT_EQ(v61.gso_partial_features, kTunnelGso);
  EXPECT_FALSE(v61.dev.features & netif::kIpCsum);
  EXPECT_TRUE(v61.dev.features & netif::kHwCsum);
}

TEST(KernelVersionGatesFeatures, IceE810) {
  // ice's first release is 4.17.
  EXPECT_THROW(At("e810", V(4, 16)), Error);
  EXPECT_NO_THROW(At("e810", V(4, 17)));
  // SCTP_CRC from 5.3.
  EXPECT_FALSE(At("e810", V(5, 2)).dev.features & netif::kSctpCrc);
  EXPECT_FALSE(At("e810", V(5, 2)).dev.hw_enc_features & netif::kSctpCrc);
  EXPECT_TRUE(At("e810", V(5, 3)).dev.features & netif::kSctpCrc);
  EXPECT_TRUE(At("e810", V(5, 3)).dev.hw_enc_features & netif::kSctpCrc);
  // GSO_UDP_L4 from 5.6.
  EXPECT_FALSE(At("e810", V(5, 5)).dev.features & netif::kGsoUdpL4);
  EXPECT_TRUE(At("e810", V(5, 6)).dev.features & netif::kGsoUdpL4);
  // 5.10: TSO6, TSO_ECN, the tunnels, checksummed tunnels partial.
  const NicFeatures v59 = At("e810", V(5, 9)), v510 = At("e810", V(5, 10));
  EXPECT_EQ(v59.gso_partial_features, 0u);
  EXPECT_EQ(v59.dev.features & (netif::kTso6 | netif::kTsoEcn | kTunnelGso), 0u);
  EXPECT_EQ(v510.gso_partial_features, netif::kGsoUdpTunnelCsum | netif::kGsoGreCsum);
  EXPECT_EQ(v510.dev.features & (netif::kTso6 | netif::kTsoEcn | kTunnelGso),
            netif::kTso6 | netif::kTsoEcn | kTunnelGso);
}

TEST(KernelVersionGatesFeatures, Mlx5eDriverAndDevices) {
  // mlx5_core drives Ethernet from 4.2 (a ConnectX of no later ID).
  NicProfile cx4 = BuiltinProfile("connectx5");
  cx4.name = "connectx4lx";
  EXPECT_THROW(kernel::KernelNicFeaturesAt(cx4, V(4, 1)), Error);
  EXPECT_NO_THROW(kernel::KernelNicFeaturesAt(cx4, V(4, 2)));
  // The PCI IDs: ConnectX-5 4.9, ConnectX-6 Dx 5.3, BlueField-2 5.4.
  EXPECT_THROW(At("connectx5", V(4, 8)), Error);
  EXPECT_NO_THROW(At("connectx5", V(4, 9)));
  EXPECT_THROW(At("connectx6dx", V(5, 2)), Error);
  EXPECT_NO_THROW(At("connectx6dx", V(5, 3)));
  EXPECT_THROW(At("bluefield2", V(5, 3)), Error);
  EXPECT_NO_THROW(At("bluefield2", V(5, 4)));
}

TEST(KernelVersionGatesFeatures, Mlx5eFeatures) {
  const uint64_t gre = netif::kGsoGre | netif::kGsoGreCsum;
  // GRE from 4.18, in features and gso_partial_features.
  EXPECT_EQ(At("connectx5", V(4, 17)).dev.features & gre, 0u);
  EXPECT_EQ(At("connectx5", V(4, 17)).gso_partial_features, netif::kGsoUdpTunnelCsum);
  EXPECT_EQ(At("connectx5", V(4, 18)).dev.features & gre, gre);
  EXPECT_EQ(At("connectx5", V(4, 18)).gso_partial_features, netif::kGsoUdpTunnelCsum | gre);
  // GSO_UDP_L4 from 4.19 (the bit exists from 4.18).
  EXPECT_FALSE(At("connectx5", V(4, 18)).dev.features & netif::kGsoUdpL4);
  EXPECT_TRUE(At("connectx5", V(4, 19)).dev.features & netif::kGsoUdpL4);
  EXPECT_TRUE(At("connectx5", V(4, 19)).gso_partial_features & netif::kGsoUdpL4);
  // HW_CSUM from 5.3; IP_CSUM|IPV6_CSUM before.
  const NicFeatures v52 = At("connectx5", V(5, 2)), v53 = At("connectx5", V(5, 3));
  EXPECT_TRUE(v52.dev.features & netif::kIpCsum);
  EXPECT_TRUE(v52.dev.hw_enc_features & netif::kIpv6Csum);
  EXPECT_FALSE(v52.dev.features & netif::kHwCsum);
  EXPECT_TRUE(v53.dev.features & netif::kHwCsum);
  EXPECT_TRUE(v53.dev.hw_enc_features & netif::kHwCsum);
  EXPECT_FALSE(v53.dev.features & netif::kIpCsum);
}

TEST(KernelVersionGatesFeatures, VirtioNet) {
  // RXCSUM with GUEST_CSUM from 3.14.
  EXPECT_FALSE(At("virtio", V(3, 13)).dev.features & netif::kRxCsum);
  EXPECT_TRUE(At("virtio", V(3, 14)).dev.features & netif::kRxCsum);
  // FRAGLIST beside HW_CSUM|SG until 4.1, gone in 4.2.
  EXPECT_TRUE(At("virtio", V(4, 1)).dev.features & netif::kFraglist);
  EXPECT_FALSE(At("virtio", V(4, 2)).dev.features & netif::kFraglist);
  // The guest offloads: nothing on 4.20, LRO from 5.0, GRO_HW from 5.15.
  const uint64_t v420 = At("virtio", V(4, 20)).dev.features;
  const uint64_t v50 = At("virtio", V(5, 0)).dev.features;
  const uint64_t v514 = At("virtio", V(5, 14)).dev.features;
  const uint64_t v515 = At("virtio", V(5, 15)).dev.features;
  EXPECT_FALSE(v420 & (netif::kLro | netif::kGroHw));
  EXPECT_TRUE(v50 & netif::kLro);
  EXPECT_FALSE(v50 & netif::kGroHw);
  EXPECT_TRUE(v514 & netif::kLro);
  EXPECT_FALSE(v514 & netif::kGroHw);
  EXPECT_FALSE(v515 & netif::kLro);
  EXPECT_TRUE(v515 & netif::kGroHw);
}

TEST(KernelVersionGatesFeatures, TunHwEncFeaturesFrom618) {
  // hw_enc_features = hw_features came with UDP-tunnel GSO over tun in 6.18.
  EXPECT_EQ(At("tap", V(6, 17)).dev.hw_enc_features, netif::kSg | netif::kGsoPartial);
  EXPECT_TRUE(At("tap", V(6, 18)).dev.hw_enc_features & netif::kTso);
  EXPECT_TRUE(At("tap", V(6, 18)).dev.hw_enc_features & netif::kGsoUdpTunnel);
}

}  // namespace
}  // namespace offlab::testing
