// Virtual devices' default features as `ethtool -k` showed them on a 6.18
// kernel (veth, vxlan, bridge, tap; captured by hand and written out here
// as the names printed "on"), TUNSETOFFLOAD's mapping (also checked on the
// live kernel: accepted flag sets and the EINVAL ones), and veth_xmit.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "offlab/linux/devices.h"
#include "offlab/net/error.h"

namespace offlab::kernel {
namespace {

// The modelled bits of a device plus its unmodelled list, as ethtool names.
std::set<std::string> OnNames(const VirtualDevice& d) {
  std::set<std::string> s;
  for (const std::string& n : FeatureNames(d.dev.features)) s.insert(n);
  s.insert(d.unmodelled_on.begin(), d.unmodelled_on.end());
  return s;
}

std::set<std::string> Names(uint64_t f) {
  std::set<std::string> s;
  for (const std::string& n : FeatureNames(f)) s.insert(n);
  return s;
}

// ethtool prints the umbrella names generic-segmentation-offload and
// generic-receive-offload for tx-generic-segmentation and rx-gro, and the
// legacy tx-vlan-offload / rx-vlan-offload for the CTAG bits.
const std::set<std::string> kVethLive = {"rx-checksum",
                                         "tx-checksum-ip-generic",
                                         "tx-checksum-sctp",
                                         "tx-scatter-gather",
                                         "tx-scatter-gather-fraglist",
                                         "tx-tcp-segmentation",
                                         "tx-tcp-ecn-segmentation",
                                         "tx-tcp-mangleid-segmentation",
                                         "tx-tcp6-segmentation",
                                         "tx-tcp-accecn-segmentation",
                                         "tx-generic-segmentation",
                                         "highdma",
                                         "tx-gre-segmentation",
                                         "tx-gre-csum-segmentation",
                                         "tx-ipxip4-segmentation",
                                         "tx-ipxip6-segmentation",
                                         "tx-udp_tnl-segmentation",
                                         "tx-udp_tnl-csum-segmentation",
                                         "tx-sctp-segmentation",
                                         "tx-udp-segmentation",
                                         "tx-gso-list",
                                         "tx-vlan-hw-insert",
                                         "rx-vlan-hw-parse",
                                         "tx-vlan-stag-hw-insert",
                                         "rx-vlan-stag-hw-parse"};

const std::set<std::string> kVxlanLive = {"rx-checksum",
                                          "tx-checksum-ip-generic",
                                          "tx-scatter-gather",
                                          "tx-scatter-gather-fraglist",
                                          "tx-tcp-segmentation",
                                          "tx-tcp-ecn-segmentation",
                                          "tx-tcp-mangleid-segmentation",
                                          "tx-tcp6-segmentation",
                                          "tx-tcp-accecn-segmentation",
                                          "tx-generic-segmentation",
                                          "rx-gro",
                                          "tx-sctp-segmentation",
                                          "tx-udp-segmentation",
                                          "tx-gso-list"};

const std::set<std::string> kBridgeLive = {"tx-checksum-ip-generic",
                                           "tx-scatter-gather",
                                           "tx-scatter-gather-fraglist",
                                           "tx-tcp-segmentation",
                                           "tx-tcp-ecn-segmentation",
                                           "tx-tcp-mangleid-segmentation",
                                           "tx-tcp6-segmentation",
                                           "tx-tcp-accecn-segmentation",
                                           "tx-generic-segmentation",
                                           "rx-gro",
                                           "highdma",
                                           "tx-gso-robust",
                                           "tx-fcoe-segmentation",
                                           "tx-gre-segmentation",
                                           "tx-gre-csum-segmentation",
                                           "tx-ipxip4-segmentation",
                                           "tx-ipxip6-segmentation",
                                           "tx-udp_tnl-segmentation",
                                           "tx-udp_tnl-csum-segmentation",
                                           "tx-gso-partial",
                                           "tx-tunnel-remcsum-segmentation",
                                           "tx-sctp-segmentation",
                                           "tx-esp-segmentation",
                                           "tx-udp-segmentation",
                                           "tx-gso-list",
                                           "tx-vlan-hw-insert",
                                           "tx-vlan-stag-hw-insert"};

const std::set<std::string> kTapLive = {"tx-scatter-gather",       "tx-scatter-gather-fraglist",
                                        "tx-generic-segmentation", "rx-gro",
                                        "tx-vlan-hw-insert",       "tx-vlan-stag-hw-insert"};

TEST(KernelDeviceFeatures, MatchEthtoolOnA618Kernel) {
  EXPECT_EQ(OnNames(VethDevice()), kVethLive);
  EXPECT_EQ(OnNames(VxlanDevice()), kVxlanLive);
  EXPECT_EQ(OnNames(BridgeDevice()), kBridgeLive);
  EXPECT_EQ(OnNames(TapDevice()), kTapLive);
}

TEST(KernelDeviceFeatures, LocklessTransmitIsAFeatureOnlyBefore612) {
  // Every one of these drivers sets NETIF_F_LLTX in its setup before v6.12;
  // "netdev_features: convert NETIF_F_LLTX to dev->lltx" (v6.12) made it a
  // device flag, so ethtool lists tx-lockless on [fixed] only on older kernels.
  using Make = VirtualDevice (*)(KernelVersion);
  for (const Make make :
       {Make{VethDevice}, Make{VxlanDevice}, Make{BridgeDevice}, Make{TapDevice}}) {
    const VirtualDevice old_dev = make(KernelVersion{6, 11, false});
    SCOPED_TRACE(old_dev.kind);
    EXPECT_TRUE(Names(old_dev.dev.features).count("tx-lockless"));
    EXPECT_FALSE(make(KernelVersion{6, 12, false}).dev.features & netif::kLlTx);
  }
}

TEST(KernelDeviceFeatures, EncapsulatedOffloads) {
  // veth offloads inside a tunnel what it offloads outside (hw_enc =
  // VETH_FEATURES); vxlan and a bridge only SG and GSO_PARTIAL.
  EXPECT_TRUE(VethDevice().dev.hw_enc_features & netif::kHwCsum);
  EXPECT_TRUE(VethDevice().dev.hw_enc_features & netif::kTso);
  EXPECT_EQ(VxlanDevice().dev.hw_enc_features, netif::kSg | netif::kGsoPartial);
  EXPECT_EQ(BridgeDevice().dev.hw_enc_features, netif::kSg | netif::kGsoPartial);
  EXPECT_FALSE(BridgeDevice().dev.features & netif::kRxCsum);  // rx-checksumming off [fixed]
}

TEST(KernelDeviceTap, EncapsulatedOffloadsAreTheUserFeatures) {
  // tun_net_initialize (drivers/net/tun.c, v6.18.19): hw_features = SG |
  // FRAGLIST | TUN_USER_FEATURES | VLAN insertion, hw_enc_features =
  // hw_features; TUN_USER_FEATURES (:188-190) = HW_CSUM | TSO_ECN | TSO |
  // TSO6 | GSO_UDP_L4 | GSO_UDP_TUNNEL(_CSUM).
  const uint64_t enc = TapDevice().dev.hw_enc_features;
  for (uint64_t f :
       {netif::kHwCsum, netif::kTsoEcn, netif::kTso, netif::kTso6, netif::kGsoUdpL4,
        netif::kGsoUdpTunnel, netif::kGsoUdpTunnelCsum, netif::kSg, netif::kFraglist}) {
    EXPECT_TRUE(enc & f) << f;
  }
}

TEST(KernelDeviceTap, SetOffloadMapping) {
  const std::set<std::string> base = {"tx-scatter-gather", "tx-scatter-gather-fraglist",
                                      "tx-generic-segmentation", "rx-gro"};
  auto with = [&](std::initializer_list<const char*> extra) {
    std::set<std::string> s = base;
    for (const char* e : extra) s.insert(e);
    return s;
  };
  // Live: TUNSETOFFLOAD 0x1, 0xf, 0x61, 0x187, 0x1ff and 0x11 accepted.
  EXPECT_EQ(Names(TapFeatures(0x1).features), with({"tx-checksum-ip-generic"}));
  EXPECT_EQ(Names(TapFeatures(0xf).features),
            with({"tx-checksum-ip-generic", "tx-tcp-segmentation", "tx-tcp-ecn-segmentation",
                  "tx-tcp6-segmentation"}));
  EXPECT_EQ(Names(TapFeatures(0x61).features),
            with({"tx-checksum-ip-generic", "tx-udp-segmentation"}));
  EXPECT_EQ(Names(TapFeatures(0x187).features),
            with({"tx-checksum-ip-generic", "tx-tcp-segmentation", "tx-tcp6-segmentation",
                  "tx-udp_tnl-segmentation", "tx-udp_tnl-csum-segmentation"}));
  EXPECT_EQ(Names(TapFeatures(0x11).features), with({"tx-checksum-ip-generic"}));  // UFO ignored
  // Live EINVAL: TSO without CSUM, USO4 alone, tunnel GSO without plain GSO.
  EXPECT_THROW(TapFeatures(0x2), Error);
  EXPECT_THROW(TapFeatures(0x21), Error);
  EXPECT_THROW(TapFeatures(0x181), Error);
  // Kernels before 6.17 know no tunnel flags, before 6.2 no USO.
  EXPECT_THROW(TapFeatures(0x87, KernelVersion{6, 12, false}), Error);
  EXPECT_THROW(TapFeatures(0x61, KernelVersion{5, 15, false}), Error);
}

TEST(KernelDeviceVeth, XmitLeavesIpSummedFromFourFour) {
  DeviceFeatures peer = VethDevice().dev;
  SkBuff skb;
  VethXmit(skb, peer, kLabKernel);
  EXPECT_EQ(skb.ip_summed, IpSummed::kNone);
  VethXmit(skb, peer, KernelVersion{4, 4, false});
  EXPECT_EQ(skb.ip_summed, IpSummed::kNone);
  // Before ce8c839b74e3: NONE is promised good to a peer with RXCSUM...
  VethXmit(skb, peer, KernelVersion{4, 3, false});
  EXPECT_EQ(skb.ip_summed, IpSummed::kUnnecessary);
  // ... but not to one without it, and PARTIAL stays PARTIAL.
  SkBuff n, p;
  DeviceFeatures no_rx = peer;
  no_rx.features &= ~netif::kRxCsum;
  VethXmit(n, no_rx, KernelVersion{3, 10, true});
  EXPECT_EQ(n.ip_summed, IpSummed::kNone);
  p.ip_summed = IpSummed::kPartial;
  VethXmit(p, peer, KernelVersion{3, 10, true});
  EXPECT_EQ(p.ip_summed, IpSummed::kPartial);
}

}  // namespace
}  // namespace offlab::kernel

// veth_xmit's choice between the peer's NAPI (GRO) and netif_rx (v6.18.19
// drivers/net/veth.c:338-345, 373-374), case by case from the rule's text.
TEST(KernelDeviceVethNapi, GroNeedsNapiAndASenderWithoutTso) {
  using offlab::kernel::DeviceFeatures;
  using offlab::kernel::VethUsesNapi;
  namespace netif = offlab::kernel::netif;
  const DeviceFeatures no_tso{netif::kSg | netif::kHwCsum, 0};
  const DeviceFeatures tso{netif::kSg | netif::kHwCsum | netif::kTso, 0};
  const DeviceFeatures gro{netif::kGro, 0};
  const DeviceFeatures gro_list{netif::kGro | netif::kGroFraglist, 0};
  const DeviceFeatures no_gro{0, 0};
  EXPECT_TRUE(VethUsesNapi(no_tso, gro));
  EXPECT_FALSE(VethUsesNapi(tso, gro));                          // TSO sender: netif_rx
  EXPECT_FALSE(VethUsesNapi(no_tso, no_gro));                    // no NAPI on the peer
  EXPECT_TRUE(VethUsesNapi(no_tso, no_gro, /*peer_xdp=*/true));  // XDP brings NAPI
  EXPECT_FALSE(VethUsesNapi(tso, gro_list));                     // not a local socket's skb
  EXPECT_TRUE(VethUsesNapi(tso, gro_list, false, /*from_local_socket=*/true));
  EXPECT_FALSE(VethUsesNapi(tso, gro, false, true));  // needs gro-list/udp-fwd
}
