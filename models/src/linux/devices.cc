// Virtual device features and veth's transmit rule. Sources: v6.18.19 =
// 6952350/linux-6.18.y f3fce0151d48. That tree's netdev_features.h leaves
// NETIF_F_GSO_FRAGLIST out of NETIF_F_GSO_SOFTWARE and puts
// NETIF_F_GRO_FRAGLIST in NETIF_F_SOFT_FEATURES, unlike the kernel this
// project checks against: there (`ethtool -k` on 6.18, checked by hand)
// veth, vxlan and a bridge have tx-gso-list on and rx-gro-list off, as in
// mainline (GSO_SOFTWARE includes GSO_FRAGLIST; GRO_FRAGLIST is a
// soft feature that defaults off). The sets below follow the running kernel.
#include "offlab/linux/devices.h"

#include <cstdio>

#include "offlab/net/error.h"

namespace offlab::kernel {

namespace {

using namespace netif;  // NOLINT: the feature bits read like the kernel's

// NETIF_F_GSO_SOFTWARE as far as features.h models it: all TSO flavours,
// UDP L4 and fraglist GSO (the SCTP and AccECN bits are unmodelled).
constexpr uint64_t kGsoSoftwareModelled =
    kTso | kTso6 | kTsoEcn | kTsoMangleid | kGsoUdpL4 | kGsoFraglist;
// NETIF_F_GSO_ENCAP_ALL (include/linux/netdev_features.h:252-257) less the
// unmodelled IPXIP4/IPXIP6.
constexpr uint64_t kGsoEncapModelled = kGsoGre | kGsoGreCsum | kGsoUdpTunnel | kGsoUdpTunnelCsum;
// register_netdevice (v6.18.19 net/core/dev.c:11434-11435): software GSO
// and GRO on for every device.
constexpr uint64_t kSoftOn = kGsoSoftware | kGro;
// register_netdevice (net/core/dev.c:11453-11466): hw_enc_features always
// get SG and GSO_PARTIAL, and TSO_MANGLEID next to TSO.
uint64_t RegisterEnc(uint64_t enc) {
  enc |= kSg | kGsoPartial;
  if (enc & kTso) enc |= kTsoMangleid;
  return enc;
}

// The unmodelled bits software devices share: NETIF_F_GSO_SOFTWARE's SCTP
// and AccECN segmentation.
const std::vector<std::string> kSoftUnmodelled = {"tx-sctp-segmentation",
                                                  "tx-tcp-accecn-segmentation"};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// TUN_USER_FEATURES (v6.18.19 drivers/net/tun.c:188-190): what TUNSETOFFLOAD
// can turn on.
constexpr uint64_t kTunUserFeatures =
    kHwCsum | kTsoEcn | kTso | kTso6 | kGsoUdpL4 | kGsoUdpTunnel | kGsoUdpTunnelCsum;

}  // namespace

VirtualDevice VethDevice(KernelVersion kv) {
  // VETH_FEATURES (v6.18.19 drivers/net/veth.c:1727-1731), set as features,
  // hw_features and hw_enc_features by veth_setup (:1747, :1758-1759).
  const uint64_t veth =
      kSg | kFraglist | kHwCsum | kRxCsum | kSctpCrc | kGsoSoftwareModelled | kGsoEncapModelled;
  VirtualDevice d;
  d.kind = "veth";
  // veth.c:1788-1789 veth_newlink turns GRO off (on again with XDP or
  // ethtool). Before 6.12 ("netdev_features: convert NETIF_F_LLTX to
  // dev->lltx") LLTX was a feature bit; dev->lltx (veth.c:1742) is not one.
  d.dev.features = (veth | kSoftOn) & ~kGro;
  if (!kv.AtLeast(6, 12)) d.dev.features |= kLlTx;
  d.dev.hw_enc_features = RegisterEnc(veth);
  d.unmodelled_on =
      Concat(kSoftUnmodelled,
             {"highdma", "tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-vlan-hw-insert",
              "rx-vlan-hw-parse", "tx-vlan-stag-hw-insert", "rx-vlan-stag-hw-parse"});
  return d;
}

VirtualDevice VxlanDevice(KernelVersion kv) {
  // vxlan_setup (v6.18.19 drivers/net/vxlan/vxlan_core.c:3352-3363): SG,
  // HW_CSUM, FRAGLIST, RXCSUM and GSO_SOFTWARE; no hw_enc_features of its
  // own, so an encapsulated skb it transmits gets no offload on the way.
  VirtualDevice d;
  d.kind = "vxlan";
  d.dev.features = kSg | kHwCsum | kFraglist | kRxCsum | kGsoSoftwareModelled | kSoftOn;
  if (!kv.AtLeast(6, 12)) d.dev.features |= kLlTx;
  d.dev.hw_enc_features = RegisterEnc(0);
  d.unmodelled_on = kSoftUnmodelled;
  return d;
}

VirtualDevice BridgeDevice(KernelVersion kv) {
  // COMMON_FEATURES (v6.18.19 net/bridge/br_device.c:23-24) = SG, FRAGLIST,
  // HIGHDMA, every GSO bit (NETIF_F_GSO_MASK) and HW_CSUM; br_dev_setup
  // (:495-499) adds VLAN insertion. No RXCSUM: rx-checksumming off [fixed].
  VirtualDevice d;
  d.kind = "bridge";
  d.dev.features = kSg | kFraglist | kHwCsum | kGsoSoftwareModelled | kGsoEncapModelled |
                   kGsoPartial | kGsoTunnelRemcsum | kSoftOn;
  if (!kv.AtLeast(6, 12)) d.dev.features |= kLlTx;
  d.dev.hw_enc_features = RegisterEnc(0);
  d.unmodelled_on = Concat(
      kSoftUnmodelled, {"highdma", "tx-gso-robust", "tx-fcoe-segmentation",
                        "tx-ipxip4-segmentation", "tx-ipxip6-segmentation", "tx-esp-segmentation",
                        "tx-vlan-hw-insert", "tx-vlan-stag-hw-insert"});
  return d;
}

VirtualDevice TapDevice(KernelVersion kv) {
  // tun_net_init (v6.18.19 drivers/net/tun.c:926-933): hw_features = SG,
  // FRAGLIST, TUN_USER_FEATURES and VLAN insertion; features start equal,
  // but tun_net_fix_features (:1097-1103) keeps only the TUN_USER_FEATURES
  // that TUNSETOFFLOAD set, none yet. hw_enc_features = hw_features.
  uint64_t user = kTunUserFeatures;
  if (!kv.AtLeast(6, 17)) user &= ~(kGsoUdpTunnel | kGsoUdpTunnelCsum);
  if (!kv.AtLeast(6, 2)) user &= ~kGsoUdpL4;
  VirtualDevice d;
  d.kind = "tap";
  d.dev.features = kSg | kFraglist | kSoftOn;
  if (!kv.AtLeast(6, 12)) d.dev.features |= kLlTx;
  d.dev.hw_enc_features = RegisterEnc(kSg | kFraglist | user);
  d.unmodelled_on = {"tx-vlan-hw-insert", "tx-vlan-stag-hw-insert"};
  return d;
}

DeviceFeatures TapFeatures(uint32_t tun_f, KernelVersion kv) {
  // set_offload (v6.18.19 drivers/net/tun.c:2841-2897): each consumed flag
  // is cleared from `arg`; whatever is left makes the ioctl -EINVAL (:2888).
  uint32_t arg = tun_f;
  uint64_t features = 0;
  if (arg & tun_f::kCsum) {
    features |= kHwCsum;
    arg &= ~tun_f::kCsum;
    // :2853-2863 TSO needs CSUM; ECN only counts together with TSO.
    if (arg & (tun_f::kTso4 | tun_f::kTso6)) {
      if (arg & tun_f::kTsoEcn) {
        features |= kTsoEcn;
        arg &= ~tun_f::kTsoEcn;
      }
      if (arg & tun_f::kTso4) features |= kTso;
      if (arg & tun_f::kTso6) features |= kTso6;
      arg &= ~(tun_f::kTso4 | tun_f::kTso6);
    }
    // :2865 UFO is accepted and ignored (no UFO since 4.14).
    arg &= ~tun_f::kUfo;
    // :2868-2871 USO4 and USO6 only together (6.2+).
    if (kv.AtLeast(6, 2) && (arg & tun_f::kUso4) && (arg & tun_f::kUso6)) {
      features |= kGsoUdpL4;
      arg &= ~(tun_f::kUso4 | tun_f::kUso6);
    }
    // :2873-2883 tunnel GSO (6.17+) only on top of a plain GSO offload.
    if (kv.AtLeast(6, 17) && (features & (kGsoUdpL4 | kTso | kTso6)) &&
        (arg & tun_f::kUdpTunnelGso)) {
      features |= kGsoUdpTunnel;
      if (arg & tun_f::kUdpTunnelGsoCsum) features |= kGsoUdpTunnelCsum;
      arg &= ~(tun_f::kUdpTunnelGso | tun_f::kUdpTunnelGsoCsum);
    }
  }
  if (arg) {
    char msg[96];
    std::snprintf(msg, sizeof msg, "TUNSETOFFLOAD 0x%x: EINVAL (flags 0x%x not accepted)", tun_f,
                  arg);
    throw Error(msg);
  }
  // :2891-2894 the offloads replace the user features; the rest stays.
  DeviceFeatures out = TapDevice(kv).dev;
  out.features = (out.features & ~kTunUserFeatures) | features;
  return out;
}

void VethXmit(SkBuff& skb, const DeviceFeatures& peer, KernelVersion kv) {
  // From v4.4 (torvalds/linux ce8c839b74e3 "veth: don't modify ip_summed;
  // doing so treats packets with bad checksums as good.") veth_xmit
  // (v6.18.19 drivers/net/veth.c:347-380) leaves ip_summed alone. Before
  // it, veth_xmit (drivers/net/veth.c:120-125 in the parent of ce8c839b74e3)
  // promised the peer a good checksum for every CHECKSUM_NONE skb when the
  // peer had RXCSUM; PARTIAL was left as it was. RHEL 7 counts as its 3.10
  // base here.
  if (kv.AtLeast(4, 4)) return;
  if (skb.ip_summed == IpSummed::kNone && (peer.features & kRxCsum)) {
    skb.ip_summed = IpSummed::kUnnecessary;
    skb.csum_level = 0;
  }
}

std::vector<VirtualDevice> AllVirtualDevices(KernelVersion kv) {
  return {VethDevice(kv), VxlanDevice(kv), BridgeDevice(kv), TapDevice(kv)};
}

bool VethUsesNapi(const DeviceFeatures& tx, const DeviceFeatures& peer, bool peer_xdp,
                  bool from_local_socket) {
  // veth_set_features: NAPI exists with GRO on or an XDP program attached.
  const bool napi = peer_xdp || (peer.features & netif::kGro);
  if (!napi) return false;
  // NETIF_F_ALL_TSO (include/linux/netdev_features.h).
  constexpr uint64_t kAllTso = netif::kTso | netif::kTso6 | netif::kTsoEcn | netif::kTsoMangleid;
  if (!(tx.features & kAllTso)) return true;
  return from_local_socket && (peer.features & (netif::kGroFraglist | netif::kGroUdpFwd));
}

}  // namespace offlab::kernel
