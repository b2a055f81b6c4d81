// VXLAN transmit: vxlan_xmit_one and vxlan_build_skb.
//
// Sources: linux-netdev/testing 0998be3ad2a5 (a 6.18-era tree; torvalds/linux
// 002bba562dd3 has the same transmit checksum logic)
// drivers/net/vxlan/vxlan_core.c:
//   vxlan_xmit_one(): skb_vlan_inet_prepare (an IP ethertype needs its base
//     header, else drop + tx_dropped); ttl = cfg ttl, or the inner TTL with
//     ttl inherit, or ip4_dst_hoplimit when 0; tos = cfg tos, 1 = inherit
//     the inner DS field; udp_sum = !VXLAN_F_UDP_ZERO_CSUM_TX (IPv4) or
//     !VXLAN_F_UDP_ZERO_CSUM6_TX (IPv6); src_port = udp_flow_src_port;
//     df: VXLAN_DF_SET -> DF, VXLAN_DF_INHERIT -> DF for an inner IPv6 frame
//     or an inner IPv4 one with DF; tos = ip_tunnel_ecn_encap (the inner ECN
//     copied, CE sent as ECT(0)); then vxlan_build_skb and
//     udp_tunnel_xmit_skb(.., nocheck = !udp_sum).
//   vxlan_build_skb(): type = udp_sum ? SKB_GSO_UDP_TUNNEL_CSUM :
//     SKB_GSO_UDP_TUNNEL; RCO when remcsumtx, CHECKSUM_PARTIAL, csum_start
//     (from the inner MAC header) <= VXLAN_MAX_REMCSUM_START and even, and
//     csum_offset is UDP's (6) or TCP's (16) -> type |= TUNNEL_REMCSUM;
//     iptunnel_handle_offloads(skb, type); the header: flags VXLAN_HF_VNI,
//     vni << 8, with RCO the VNI word's low byte vxlan_compute_rco(start,
//     csum_offset) and VXLAN_HF_RCO; non-GSO RCO skbs become CHECKSUM_NONE
//     with encapsulation cleared (the receiver completes the checksum).
// include/net/vxlan.h: vxlan_compute_rco, VXLAN_RCO_* and VXLAN_HF_*.
// include/net/udp.h udp_flow_src_port. include/net/inet_ecn.h
// INET_ECN_encapsulate.
// RCO arrived in v4.0 (Tom Herbert, "vxlan: Remote checksum offload"); on
// older kernels remcsumtx is unknown and ignored. Before v4.6 the build step
// passed csum_help = udp_sum to iptunnel_handle_offloads, with RCO sending
// csum_help false so the PARTIAL inner survives to be marked NONE.
// The lab kernel (6.18) showed the bytes: flags 08 20 00 00 and VNI low byte
// 0x91 for an inner UDP at offset 34, 0x11 for TCP; ID from the generator.
#include <algorithm>
#include <cstring>

#include "count_internal.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// The inner frame's network and transport offsets when the sender left
// them unset (a frame from a test or a packet socket).
void FillInnerOffsets(SkBuff& skb) {
  Packet& p = skb.pkt;
  if (p.size() < hdr::kEthLen) return;
  const uint16_t et = GetBe16(p.data() + 12);
  if (p.l3_ofs == kNoOffset && (et == hdr::kEthTypeIpv4 || et == hdr::kEthTypeIpv6))
    p.l3_ofs = hdr::kEthLen;
  if (p.l4_ofs != kNoOffset || p.l3_ofs == kNoOffset || p.l3_ofs >= p.size()) return;
  const uint8_t* ip = p.data() + p.l3_ofs;
  if ((ip[0] >> 4) == 4) p.l4_ofs = static_cast<uint16_t>(p.l3_ofs + (ip[0] & 0x0f) * 4);
  if ((ip[0] >> 4) == 6) p.l4_ofs = static_cast<uint16_t>(p.l3_ofs + hdr::kIpv6Len);
}

// ip_tunnel_get_dsfield / ip_tunnel_get_ttl for the inner frame.
uint8_t InnerDsfield(const SkBuff& skb, uint16_t et) {
  const size_t l3 = hdr::kEthLen;
  if (et == hdr::kEthTypeIpv4 && skb.len() >= l3 + hdr::kIpv4MinLen)
    return skb.pkt.data()[l3 + hdr::kIpv4TosOfs];
  if (et == hdr::kEthTypeIpv6 && skb.len() >= l3 + hdr::kIpv6Len) {
    const uint8_t* ip = skb.pkt.data() + l3;
    return static_cast<uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
  }
  return 0;
}

uint8_t InnerTtl(const SkBuff& skb, uint16_t et, uint8_t fallback) {
  const size_t l3 = hdr::kEthLen;
  if (et == hdr::kEthTypeIpv4 && skb.len() >= l3 + hdr::kIpv4MinLen)
    return skb.pkt.data()[l3 + hdr::kIpv4TtlOfs];
  if (et == hdr::kEthTypeIpv6 && skb.len() >= l3 + hdr::kIpv6Len)
    return skb.pkt.data()[l3 + hdr::kIpv6HlimOfs];
  return fallback;
}

// INET_ECN_encapsulate: the outer ECN bits follow the inner ones, except
// that CE is sent as ECT(0).
uint8_t EcnEncapsulate(uint8_t outer, uint8_t inner) {
  outer &= static_cast<uint8_t>(~3u);
  return static_cast<uint8_t>(outer | ((inner & 3) == 3 ? 2 : (inner & 3)));
}

}  // namespace

uint16_t VxlanSourcePort(uint32_t hash, uint16_t min, uint16_t max, const UnderlayRoute& rt) {
  uint32_t lo = min, hi = max;
  if (lo >= hi) {
    lo = rt.port_low;
    hi = rt.port_high;
  }
  hash ^= hash << 16;
  return static_cast<uint16_t>(((uint64_t{hash} * (hi - lo)) >> 32) + lo);
}

uint8_t VxlanComputeRco(uint32_t start, uint16_t csum_offset) {
  uint8_t v = static_cast<uint8_t>((start >> kVxlanRcoShift) & kVxlanRcoMask);
  if (csum_offset == hdr::kUdpCsumOfs) v |= kVxlanRcoUdp;
  return v;
}

uint32_t VxlanRcoStart(uint8_t low) { return (low & kVxlanRcoMask) << kVxlanRcoShift; }

uint16_t VxlanRcoOffset(uint8_t low) {
  return (low & kVxlanRcoUdp) ? hdr::kUdpCsumOfs : hdr::kTcpCsumOfs;
}

VxlanXmitResult VxlanXmit(SkBuff skb, const VxlanConfig& cfg, const UnderlayRoute& rt,
                          KernelVersion kv, Counters* c) {
  VxlanXmitResult r;
  auto count = [&](const char* what, uint64_t n = 1) { CountDev(c, cfg.name, what, n); };
  // skb_vlan_inet_prepare: the Ethernet header, and an IP ethertype's base
  // network header, must be present.
  const uint16_t et = skb.len() >= hdr::kEthLen ? GetBe16(skb.pkt.data() + 12) : 0;
  const size_t need = hdr::kEthLen + (et == hdr::kEthTypeIpv4   ? hdr::kIpv4MinLen
                                      : et == hdr::kEthTypeIpv6 ? hdr::kIpv6Len
                                                                : 0);
  if (skb.len() < need) {
    count("tx_dropped");
    r.reason = "PKT_TOO_SMALL";
    r.skb = std::move(skb);
    return r;
  }
  FillInnerOffsets(skb);

  const bool udp_sum = cfg.ipv6 ? !cfg.udp6_zero_csum_tx : cfg.UdpCsumTx(kv);
  UdpTunnelHeader h;
  h.ipv6 = cfg.ipv6;
  h.saddr = cfg.local;
  h.daddr = cfg.remote;
  h.sport = VxlanSourcePort(rt.flow_hash, cfg.port_min, cfg.port_max, rt);
  h.dport = cfg.dstport;
  const uint8_t tos = cfg.tos == 1 ? InnerDsfield(skb, et) : cfg.tos;
  h.tos = EcnEncapsulate(tos, InnerDsfield(skb, et));
  const uint8_t ttl = cfg.ttl_inherit ? InnerTtl(skb, et, 0) : cfg.ttl;
  h.ttl = ttl ? ttl : rt.hop_limit;
  if (!cfg.ipv6) {
    if (cfg.df == VxlanDf::kSet) {
      h.df = true;
    } else if (cfg.df == VxlanDf::kInherit) {
      h.df =
          et == hdr::kEthTypeIpv6 ||
          (et == hdr::kEthTypeIpv4 &&
           (GetBe16(skb.pkt.data() + hdr::kEthLen + hdr::kIpv4FragOfs) & hdr::kIpv4DontFragment));
    }
  }
  h.ip_id = rt.ip_id;
  h.flowlabel = cfg.flowlabel;
  h.nocheck = !udp_sum;
  h.src_mac = rt.src_mac;
  h.dst_mac = rt.dst_mac;

  // vxlan_build_skb: the RCO decision on the inner checksum request.
  uint32_t type = udp_sum ? gso::kUdpTunnelCsum : gso::kUdpTunnel;
  bool rco = false;
  if (cfg.remcsum_tx && kv.AtLeast(4, 0) && skb.ip_summed == IpSummed::kPartial) {
    const uint32_t start = skb.csum_start;
    rco = start <= kVxlanMaxRemcsumStart && !(start & 1) &&
          (skb.csum_offset == hdr::kUdpCsumOfs || skb.csum_offset == hdr::kTcpCsumOfs);
    if (rco) type |= gso::kTunnelRemcsum;
  }
  IptunnelHandleOffloads(skb, type, udp_sum && !rco, kv);

  uint8_t* vxh = SkbPushFront(skb, hdr::kVxlanLen);
  uint32_t flags = kVxlanHfVni;
  uint32_t vni_word = (cfg.vni & 0xffffffu) << 8;
  if (rco) {
    // The start is counted from the inner MAC header, i.e. after the VXLAN
    // header just pushed.
    vni_word |= VxlanComputeRco(skb.csum_start - hdr::kVxlanLen, skb.csum_offset);
    flags |= kVxlanHfRco;
    if (!skb.is_gso()) {
      skb.ip_summed = IpSummed::kNone;
      skb.encapsulation = false;
    }
  }
  PutBe32(vxh, flags);
  PutBe32(vxh + 4, vni_word);

  // iptunnel_xmit_stats counts the bytes from the inner network header.
  const size_t inner_l3 =
      skb.pkt.inner_l3_ofs != kNoOffset ? skb.pkt.inner_l3_ofs : hdr::kVxlanLen + hdr::kEthLen;
  const size_t tx_bytes = skb.len() - std::min(skb.len(), inner_l3);
  UdpTunnelXmitSkb(skb, h, rt.dev_features, kv);
  count("tx_packets");
  count("tx_bytes", tx_bytes);
  r.sent = true;
  r.skb = std::move(skb);
  return r;
}

}  // namespace offlab::kernel
