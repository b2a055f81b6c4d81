// Net device features by kernel version (features_version.h): the core's
// part (which bits a release defines, what register_netdevice adds) and the
// dispatch to each driver's history (features_version_intel.cc,
// features_version_mlx5_virt.cc).
#include "offlab/linux/features_version.h"

#include <string>

#include "features_version_internal.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/rx.h"
#include "offlab/net/error.h"

namespace offlab::kernel {

namespace {

// Every bit features.h has.
constexpr uint64_t kAllBits = (netif::kLlTx << 1) - 1;

// register_netdevice's additions to what a driver set (net/core/dev.c):
//  - NETIF_F_SOFT_FEATURES (GSO, GRO) on every device: v3.10.99
//    (harviswang/linux-3.10.99 4c64a6774469) dev.c:5264-5265, v6.18.19
//    dev.c:11434-11435;
//  - SG in hw_enc_features, "inheritable to tunnel devices": 3.10.99
//    dev.c:5283; GSO_PARTIAL joined it with partial GSO (v4.7), and
//    TSO_MANGLEID is added next to TSO: v4.11 (HCLS/linux-4.11 e81cedcca218)
//    dev.c:7273-7288, v6.18.19 dev.c:11452-11470.
void RegisterNetdevice(KernelVersion v, NicFeatures& f) {
  f.dev.features |= netif::kGsoSoftware | netif::kGro;
  f.dev.hw_enc_features |= netif::kSg;
  if (v.AtLeast(4, 7)) {
    f.dev.hw_enc_features |= netif::kGsoPartial;
    if (f.dev.hw_enc_features & netif::kTso) f.dev.hw_enc_features |= netif::kTsoMangleid;
  }
}

}  // namespace

KernelVersion FeatureBaseline(KernelVersion kv) {
  // RHEL 7.1 (3.10.0-229, March 2015): no RHEL 7.1 source is among the
  // stored trees; the nearest is RHEL 7.3's (Shun-Hao/linux-3.10.0-514.el7
  // 3b214f030a87). RHEL 7.1 is taken as upstream 3.18, the level of
  // version.h's other rhel7 rules (the 3.14-3.18 UDP-tunnel GRO and
  // checksum-conversion backports; RHEL 7.2's release notes name 3.18 for
  // the TCP/IP stack). For the NICs modelled the choice is robust: upstream
  // ixgbe gave the 82599 no tunnel offload from 3.10 to 4.6 and RHEL 7.3's
  // ixgbe (4.4.0-k-rh7.3, ixgbe_main.c:9040-9068) still has no GSO_PARTIAL;
  // i40e was a technology preview in RHEL 7.1 (supported from 7.2) and is
  // 3.18's here; mlx5e (4.2) and ice (4.17) are absent.
  if (kv.rhel7) return KernelVersion{3, 18, false};
  return kv;
}

uint64_t KernelFeatureBits(KernelVersion kv) {
  const KernelVersion v = FeatureBaseline(kv);
  // include/linux/netdev_features.h, each bit from the first stored release
  // that has it (the one before it lacks it):
  //  - SG, the checksums, FRAGLIST, TSO/TSO_ECN/TSO6, GSO_GRE,
  //    GSO_UDP_TUNNEL, SCTP (then NETIF_F_SCTP_CSUM, the same bit and
  //    ethtool name), RXCSUM, GRO, LRO, GSO, LLTX: all in 3.10.99
  //    (4c64a6774469 :44-54 and before);
  //  - GSO_GRE_CSUM, GSO_UDP_TUNNEL_CSUM: 3.18 (jockyw2001/linux-3.18
  //    246d979c2299 :45, :49; nadavitay/linux-3.14.1 57f2526e25ee lacks them);
  //  - GSO_TUNNEL_REMCSUM: 3.19 (yuanguohuo/linux-3.19.8 a38bf8b12dbc :50;
  //    3.18.30 lacks it);
  //  - TSO_MANGLEID, GSO_PARTIAL: 4.7, Alexander Duyck's partial GSO
  //    (802ab55adc39 "GSO: Support partial segmentation offload"); present
  //    in pengdonglin137/linux-4.9 b16d8f60788c :42, :51, absent in
  //    rivsidn/linux-4.4.155 a1961d7580fc;
  //  - GSO_UDP_L4, GRO_HW: 4.18 (zzwd/linux-4.18-rt f7bc4a83cb4a :58, :83;
  //    sndrzt/linux-4.15 f6fbd7765776 lacks both);
  //  - GSO_FRAGLIST, GRO_FRAGLIST: 5.6 (shmily1012/linux-5.6.4 93830a5cf2aa
  //    :56, :84; MrJu/linux-5.4 1a2943d8a64f lacks them);
  //  - GRO_UDP_FWD: 5.12 (CompressionDuck/linux-5.11 2dbae366306d lacks it,
  //    zcjie1/linux-5.15.100 52bed7a9a5ad :87 has it);
  //  - LLTX stopped being a feature bit in 6.12 (krr-io/linux-6.1.0
  //    2a410d07ec5e :27 has it, wishday/linux-6.12.y 21ae40e85ea7 not; the
  //    same boundary as devices.cc's veth/vxlan/bridge/TAP).
  uint64_t bits = kAllBits;
  if (!v.AtLeast(3, 18)) bits &= ~(netif::kGsoGreCsum | netif::kGsoUdpTunnelCsum);
  if (!v.AtLeast(3, 19)) bits &= ~netif::kGsoTunnelRemcsum;
  if (!v.AtLeast(4, 7)) bits &= ~(netif::kTsoMangleid | netif::kGsoPartial);
  if (!v.AtLeast(4, 18)) bits &= ~(netif::kGsoUdpL4 | netif::kGroHw);
  if (!v.AtLeast(5, 6)) bits &= ~(netif::kGsoFraglist | netif::kGroFraglist);
  if (!v.AtLeast(5, 12)) bits &= ~netif::kGroUdpFwd;
  if (v.AtLeast(6, 12)) bits &= ~netif::kLlTx;
  return bits;
}

namespace fv {

void NoDriver(const ProbeCtx& c, const std::string& since) {
  throw Error("profile " + c.nic.name + ": Linux " + c.asked.ToString() +
              " has no driver for this NIC; " + since);
}

void ChecksumByProtocol(uint64_t& features) {
  if (!(features & netif::kHwCsum)) return;
  features = (features & ~netif::kHwCsum) | netif::kIpCsum | netif::kIpv6Csum;
}

void DropBoth(NicFeatures& f, uint64_t bits) {
  f.dev.features &= ~bits;
  f.dev.hw_enc_features &= ~bits;
}

}  // namespace fv

NicFeatures KernelNicFeaturesAt(const NicProfile& nic, KernelVersion kv) {
  const KernelNicView& view = KernelView(nic);
  NicFeatures f;
  if (view.driver == "ibmveth") {
    // The ibmveth driver's own history by version (device_tx_ibmveth.h).
    IbmvethConfig cfg;
    cfg.active_trunk = view.active_trunk;
    f.dev = IbmvethFeatures(cfg, kv);
    return f;
  }
  f.dev = KernelDeviceFeatures(nic);
  const fv::ProbeCtx c{nic, kv, FeatureBaseline(kv)};
  if (view.driver == "ixgbe") {
    fv::IxgbeProbe(c, f);
  } else if (view.driver == "i40e") {
    fv::I40eProbe(c, f);
  } else if (view.driver == "ice") {
    fv::IceProbe(c, f);
  } else if (view.driver == "mlx5_core") {
    fv::Mlx5eProbe(c, f);
  } else if (view.driver == "virtio_net") {
    fv::VirtnetProbe(c, f);
  } else if (view.driver == "tun") {
    fv::TunNetInit(c, f);
  }
  // Any other driver keeps its profile's set, less what the core lacks.
  RegisterNetdevice(c.v, f);
  const uint64_t bits = KernelFeatureBits(kv);
  f.dev.features &= bits;
  f.dev.hw_enc_features &= bits;
  f.gso_partial_features &= bits;
  return f;
}

DeviceFeatures KernelDeviceFeaturesAt(const NicProfile& nic, KernelVersion kv) {
  return KernelNicFeaturesAt(nic, kv).dev;
}

}  // namespace offlab::kernel
