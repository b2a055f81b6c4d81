#include "offlab/linux/xmit_features.h"

#include <array>
#include <utility>

#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// A feature no device has: what a gso_type needs when DeviceFeatures has no
// bit for its NETIF_F_GSO_* counterpart (FSO, GSO_IPXIP4/6, GSO_SCTP,
// GSO_ESP, GSO_UDP, GSO_ACCECN), so net_gso_ok fails for it as it does on
// every device lacking that feature.
constexpr uint64_t kUnexpressible = 1ull << 62;

bool IsVlanType(uint16_t t) { return t == hdr::kEthTypeVlan || t == hdr::kEthTypeQinQ; }

// Number of VLAN tags in the frame at `mac_ofs` (the model keeps tags in
// the bytes; skb_vlan_tag_present never holds).
int VlanDepth(const SkBuff& skb, uint16_t mac_ofs) {
  int depth = 0;
  size_t ofs = size_t{mac_ofs} + 12;
  while (ofs + 2 <= skb.len() && IsVlanType(GetBe16(skb.pkt.data() + ofs))) {
    depth++;
    ofs += hdr::kVlanLen;
  }
  return depth;
}

// What an IPv4 header without DF loses: NETIF_F_TSO_MANGLEID (net/core/dev.c
// 7d0a66e4bb90 :3785; v4.11 dev.c:2863; later 6.18.y stable kernels clear
// dev->mangleid_features, which always holds this bit).
constexpr uint64_t kMangleidFeatures = netif::kTsoMangleid;

// gso_features_check (net/core/dev.c 7d0a66e4bb90 :3745).
uint64_t GsoFeaturesCheck(const SkBuff& skb, const DeviceFeatures& dev, const XmitOptions& opt,
                          KernelVersion kv, uint64_t features) {
  // :3751 more segments than the device takes: software GSO.
  if (skb.gso_segs > dev.gso_max_segs) return features & ~kNetifGsoMask;
  // :3754 skb->len >= gso_max_size (netif_get_gso_max_size picks
  // gso_ipv4_max_size for IPv4; DeviceFeatures has one size). Absent in
  // v6.1.0 (krr-io/linux-6.1.0 dev.c gso_features_check), present in
  // v6.12.19; taken from 6.12.
  if (kv.AtLeast(6, 12) && skb.len() >= dev.gso_max_size) return features & ~kNetifGsoMask;
  // :3757 no gso_type: skb_warn_bad_offload and software GSO.
  if (!skb.gso_type) return features & ~kNetifGsoMask;
  // :3768 GSO_PARTIAL types are stripped until the skb is partially
  // segmented (since v4.7; present in v4.11 dev.c:2852).
  if (!(skb.gso_type & gso::kPartial)) features &= ~opt.gso_partial_features;
  // :3780-3786 an IPv4 header without DF must not get repeated IDs: no MANGLEID.
  if (skb.gso_type & gso::kTcpv4) {
    const uint16_t l3 = skb.encapsulation ? skb.pkt.inner_l3_ofs : skb.pkt.l3_ofs;
    if (l3 != kNoOffset && size_t{l3} + hdr::kIpv4MinLen <= skb.len() &&
        !(GetBe16(skb.pkt.data() + l3 + hdr::kIpv4FragOfs) & hdr::kIpv4DontFragment))
      features &= ~kMangleidFeatures;
  }
  // :3791-3798 NETIF_F_IPV6_CSUM covers no IPv6 extension headers, so
  // neither does TSO6 that depends on it (UDP_L4 unmodelled). Absent in
  // v6.12.19 (wishday/linux-6.12.y dev.c gso_features_check); 864e3396976e
  // "net: gso: Forbid IPv6 TSO with extensions on devices with only
  // IPV6_CSUM" was a [PATCH net v3] of 14 Aug 2025, already in stable
  // 6.1.149 (28 Aug 2025), so in v6.17.
  if (kv.AtLeast(6, 17) && (features & netif::kIpv6Csum) && (skb.gso_type & gso::kTcpv6) &&
      skb.pkt.l3_ofs != kNoOffset && skb.pkt.l4_ofs != kNoOffset &&
      skb.pkt.l4_ofs - skb.pkt.l3_ofs != static_cast<int>(hdr::kIpv6Len))
    features &= ~(netif::kIpv6Csum | netif::kTso6 | netif::kGsoUdpL4);
  return features;
}

}  // namespace

uint16_t NetworkProtocol(const SkBuff& skb, uint16_t mac_ofs, uint16_t* l3_ofs) {
  // skb_network_protocol (net/core/dev.c :3636) with
  // vlan_get_protocol_and_depth: the EtherType after any 802.1Q/802.1ad tags.
  size_t ofs = size_t{mac_ofs} + 12;
  if (mac_ofs == kNoOffset || ofs + 2 > skb.len()) return 0;
  uint16_t type = GetBe16(skb.pkt.data() + ofs);
  while (IsVlanType(type)) {
    ofs += hdr::kVlanLen;
    if (ofs + 2 > skb.len()) return 0;
    type = GetBe16(skb.pkt.data() + ofs);
  }
  if (l3_ofs) *l3_ofs = static_cast<uint16_t>(ofs + 2);
  return type;
}

bool CanChecksumProtocol(uint64_t features, uint16_t ethertype) {
  // include/linux/netdevice.h 7d0a66e4bb90 :5174-5195: HW_CSUM checksums
  // anything; IP_CSUM only IPv4, IPV6_CSUM only IPv6 (FCoE CRC unmodelled).
  if (features & netif::kHwCsum) return true;
  if (ethertype == hdr::kEthTypeIpv4) return features & netif::kIpCsum;
  if (ethertype == hdr::kEthTypeIpv6) return features & netif::kIpv6Csum;
  return false;
}

uint64_t GsoTypeFeatures(uint32_t gso_type) {
  // net_gso_ok (include/linux/netdevice.h :5317-5349): SKB_GSO_x << shift
  // is NETIF_F_x; both FIXEDID bits need __SKB_GSO_TCP_FIXEDID's feature,
  // TSO_MANGLEID (:5321-5322, since v6.18).
  static constexpr std::array<std::pair<uint32_t, uint64_t>, 22> kMap{{
      {gso::kTcpv4, netif::kTso},
      {gso::kDodgy, kNetifGsoRobust},
      {gso::kTcpEcn, netif::kTsoEcn},
      {gso::kTcpFixedid, netif::kTsoMangleid},
      {gso::kTcpv6, netif::kTso6},
      {gso::kFcoe, kUnexpressible},
      {gso::kGre, netif::kGsoGre},
      {gso::kGreCsum, netif::kGsoGreCsum},
      {gso::kIpxip4, kUnexpressible},
      {gso::kIpxip6, kUnexpressible},
      {gso::kUdpTunnel, netif::kGsoUdpTunnel},
      {gso::kUdpTunnelCsum, netif::kGsoUdpTunnelCsum},
      {gso::kPartial, netif::kGsoPartial},
      {gso::kTunnelRemcsum, netif::kGsoTunnelRemcsum},
      {gso::kSctp, kUnexpressible},
      {gso::kEsp, kUnexpressible},
      {gso::kUdp, kUnexpressible},
      {gso::kUdpL4, netif::kGsoUdpL4},
      {gso::kFraglist, netif::kGsoFraglist},
      {gso618::kTcpAccecn, kUnexpressible},
      {gso618::kTcpFixedid, netif::kTsoMangleid},
      {gso618::kTcpFixedidInner, netif::kTsoMangleid},
  }};
  uint64_t need = 0;
  for (const auto& [bit, feature] : kMap)
    if (gso_type & bit) need |= feature;
  return need;
}

bool NetGsoOk(uint64_t features, uint32_t gso_type) {
  const uint64_t need = GsoTypeFeatures(gso_type);
  return (features & need) == need;
}

bool SkbGsoOk(const SkBuff& skb, uint64_t features) {
  // include/linux/netdevice.h :5352-5356.
  return NetGsoOk(features, skb.gso_type) &&
         (!skb.has_frag_list() || (features & netif::kFraglist));
}

bool NetifNeedsGso(const SkBuff& skb, uint64_t features) {
  // include/linux/netdevice.h :5358-5363: a GSO skb the device cannot take,
  // or one whose checksum is neither PARTIAL nor UNNECESSARY (the segments
  // need checksums GSO computes).
  return skb.is_gso() && (!SkbGsoOk(skb, features) || (skb.ip_summed != IpSummed::kPartial &&
                                                       skb.ip_summed != IpSummed::kUnnecessary));
}

bool SkbNeedsLinearize(const SkBuff& skb, uint64_t features) {
  // include/linux/skbuff.h :4322-4328: a frag_list without NETIF_F_FRAGLIST,
  // or page frags without NETIF_F_SG.
  return (skb.has_frag_list() && !(features & netif::kFraglist)) ||
         (skb.nr_frags && !(features & netif::kSg));
}

uint64_t NetifSkbFeatures(const SkBuff& skb, const DeviceFeatures& dev, const XmitOptions& opt,
                          KernelVersion kv) {
  // net/core/dev.c 7d0a66e4bb90 :3803-3830 (same order in v4.11 dev.c:2869).
  uint64_t features = dev.features;
  if (skb.is_gso()) features = GsoFeaturesCheck(skb, dev, opt, kv, features);
  // :3815-3816 an encapsulated skb gets only what the device does for tunnels.
  if (skb.encapsulation) features &= dev.hw_enc_features;
  // :3818 a tagged skb is limited to dev->vlan_features, which DeviceFeatures
  // does not carry (taken as dev->features). dflt_features_check ->
  // vlan_features_check (include/linux/if_vlan.h :801-816): two or more tags
  // keep only SG, HW_CSUM and FRAGLIST.
  if (VlanDepth(skb, 0) >= 2) features &= netif::kSg | netif::kHwCsum | netif::kFraglist;
  // harmonize_features (:3712-3727, v4.11 dev.c:2803): a checksum the device cannot do for this
  // network protocol takes checksum and GSO offload away.
  const uint16_t type = NetworkProtocol(skb, 0);
  if (skb.ip_summed != IpSummed::kNone && !CanChecksumProtocol(features, type))
    features &= ~(netif::kCsumMask | kNetifGsoMask);
  return features;
}

}  // namespace offlab::kernel
