// Edges of TUNSETOFFLOAD (models/src/linux/devices.cc TapFeatures): TSO for
// one IP family only, TSO_ECN without TSO, and UDP-tunnel GSO without its
// checksum flag.
//
// Source: torvalds/linux v6.18 drivers/net/tun.c set_offload ("if (arg &
// (TUN_F_TSO4|TUN_F_TSO6)) { if (arg & TUN_F_TSO_ECN) ...; if (arg &
// TUN_F_TSO4) features |= NETIF_F_TSO; if (arg & TUN_F_TSO6) features |=
// NETIF_F_TSO6; ... }"; a flag left in arg is -EINVAL; UDP tunnel GSO
// (6.17+) on top of a plain GSO offload, its CSUM variant only with
// TUN_F_UDP_TUNNEL_GSO_CSUM).
#include <gtest/gtest.h>

#include "offlab/linux/devices.h"
#include "offlab/net/error.h"

namespace offlab::kernel {
namespace {

constexpr uint64_t kOffloads = netif::kHwCsum | netif::kTso | netif::kTso6 | netif::kTsoEcn |
                               netif::kGsoUdpL4 | netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum;

uint64_t Offloads(uint32_t arg) { return TapFeatures(arg).features & kOffloads; }

TEST(KernelDevicesEdges, TsoForOneFamilyOnly) {
  EXPECT_EQ(Offloads(tun_f::kCsum | tun_f::kTso4), netif::kHwCsum | netif::kTso);
  EXPECT_EQ(Offloads(tun_f::kCsum | tun_f::kTso6), netif::kHwCsum | netif::kTso6);
  EXPECT_EQ(Offloads(tun_f::kCsum | tun_f::kTso6 | tun_f::kTsoEcn),
            netif::kHwCsum | netif::kTso6 | netif::kTsoEcn);
}

TEST(KernelDevicesEdges, TsoEcnWithoutTsoIsRefused) {
  // TUN_F_TSO_ECN is consumed only inside the TSO branch.
  EXPECT_THROW(TapFeatures(tun_f::kCsum | tun_f::kTsoEcn), offlab::Error);
}

TEST(KernelDevicesEdges, UdpTunnelGsoWithoutItsChecksumVariant) {
  EXPECT_EQ(Offloads(tun_f::kCsum | tun_f::kTso4 | tun_f::kUdpTunnelGso),
            netif::kHwCsum | netif::kTso | netif::kGsoUdpTunnel);
}

}  // namespace
}  // namespace offlab::kernel
