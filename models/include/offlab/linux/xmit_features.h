// What a net device offers for one skb on transmit: the predicates of
// include/linux/netdevice.h and include/linux/skbuff.h (can_checksum_protocol,
// net_gso_ok, skb_gso_ok, netif_needs_gso, skb_needs_linearize) and
// netif_skb_features with gso_features_check and harmonize_features
// (net/core/dev.c). Baseline torvalds/linux 7d0a66e4bb90 (v6.18); rules that
// changed are chosen by KernelVersion and cite the releases that differ.
#pragma once

#include <cstdint>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// net_device fields and skb properties the transmit path reads that
// DeviceFeatures / SkBuff do not carry.
struct XmitOptions {
  // dev->gso_partial_features: tunnel GSO types the device only does as
  // GSO_PARTIAL (Intel ixgbe/i40e put UDP_TUNNEL[_CSUM] and GRE[_CSUM] here).
  uint64_t gso_partial_features = 0;
  // How the skbs on frag_list hold their data. skb_gro_receive chains a
  // frame on frag_list when its data is in the linear area of a head that
  // is not a page fragment (a copying driver such as ibmveth), so the
  // default is linear members without head_frag.
  bool frag_list_linear = true;
  bool frag_list_head_frag = false;
};

// A stand-in for NETIF_F_GSO_ROBUST, which DeviceFeatures has no bit for
// (no real device sets it; tcp_gso_segment adds it to test SKB_GSO_DODGY).
inline constexpr uint64_t kNetifGsoRobust = 1ull << 63;

// NETIF_F_GSO_MASK over DeviceFeatures' bits.
inline constexpr uint64_t kNetifGsoMask =
    netif::kTso | netif::kTsoEcn | netif::kTsoMangleid | netif::kTso6 | netif::kGsoGre |
    netif::kGsoGreCsum | netif::kGsoUdpTunnel | netif::kGsoUdpTunnelCsum | netif::kGsoPartial |
    netif::kGsoTunnelRemcsum | netif::kGsoUdpL4 | netif::kGsoFraglist | kNetifGsoRobust;

// gso_type bits of v6.18 that skb.h's table lacks (include/linux/skbuff.h
// 7d0a66e4bb90 :709-715): TCP_ACCECN, and SKB_GSO_TCP_FIXEDID /
// SKB_GSO_TCP_FIXEDID_INNER, which since v6.18 are bits 30/31 while bit 3
// (skb.h's kTcpFixedid) became __SKB_GSO_TCP_FIXEDID, the feature bit both
// map to in net_gso_ok.
namespace gso618 {
constexpr uint32_t kTcpAccecn = 1u << 19;
constexpr uint32_t kTcpFixedid = 1u << 30;
constexpr uint32_t kTcpFixedidInner = 1u << 31;
}  // namespace gso618

// The EtherType of the network header (skb_network_protocol: VLAN tags
// skipped), reading the Ethernet header at `mac_ofs`; 0 if truncated.
// `l3_ofs` receives the offset after the tags.
uint16_t NetworkProtocol(const SkBuff& skb, uint16_t mac_ofs, uint16_t* l3_ofs = nullptr);

// can_checksum_protocol (include/linux/netdevice.h:5174).
bool CanChecksumProtocol(uint64_t features, uint16_t ethertype);
// The features a gso_type needs (net_gso_ok's shift of gso_type into the
// NETIF_F_GSO bits); types no DeviceFeatures bit can express (FCOE, IPXIP*,
// SCTP, ESP, UFO) need kNetifGsoRobust|bit 62, which no device has.
uint64_t GsoTypeFeatures(uint32_t gso_type);
// net_gso_ok (include/linux/netdevice.h:5317).
bool NetGsoOk(uint64_t features, uint32_t gso_type);
// skb_gso_ok (include/linux/netdevice.h:5352): the type, and FRAGLIST for a
// frag_list.
bool SkbGsoOk(const SkBuff& skb, uint64_t features);
// netif_needs_gso (include/linux/netdevice.h:5358).
bool NetifNeedsGso(const SkBuff& skb, uint64_t features);
// skb_needs_linearize (include/linux/skbuff.h:4322).
bool SkbNeedsLinearize(const SkBuff& skb, uint64_t features);

// netif_skb_features (net/core/dev.c:3803) for `skb` on a device with `dev`.
uint64_t NetifSkbFeatures(const SkBuff& skb, const DeviceFeatures& dev, const XmitOptions& opt,
                          KernelVersion kv);

}  // namespace offlab::kernel
