// Geneve transmit: geneve_xmit -> geneve_xmit_skb / geneve6_xmit_skb ->
// geneve_build_skb -> udp_tunnel_xmit_skb / udp_tunnel6_xmit_skb.
//
// Sources: torvalds/linux 002bba562dd3 drivers/net/geneve.c (6.3-era, the
// stored version; the transmit checksum logic is that of v4.6+ through 6.18):
//   geneve_xmit_skb(): skb_vlan_inet_prepare failing -> -EINVAL, which
//     geneve_xmit turns into tx_errors (not tx_dropped as VXLAN);
//     sport = udp_flow_src_port(net, skb, 1, USHRT_MAX, true);
//     geneve_get_v4_rt: tos 1 = inherit the inner DS field;
//     tos = ip_tunnel_ecn_encap(tos, inner); ttl = inner TTL with
//     ttl_inherit else the configured one, 0 -> ip4_dst_hoplimit;
//     df: GENEVE_DF_SET -> DF, GENEVE_DF_INHERIT -> DF for an inner IPv6
//     frame or an inner IPv4 with DF; udp_tunnel_xmit_skb(..., nocheck =
//     !(tun_flags & TUNNEL_CSUM)).
//   geneve6_xmit_skb(): the same without DF; the traffic class from
//     ip6_make_flowinfo(tos, label), the configured flow label.
//   geneve_build_skb(): udp_sum = TUNNEL_CSUM; udp_tunnel_handle_offloads
//     (skb, udp_sum) = iptunnel_handle_offloads with SKB_GSO_UDP_TUNNEL_CSUM
//     or SKB_GSO_UDP_TUNNEL (include/net/udp_tunnel.h); push 8 bytes +
//     options_len; geneve_build_header: ver 0, opt_len = options_len / 4,
//     O and C bits from TUNNEL_OAM / TUNNEL_CRIT_OPT, VNI, protocol
//     ETH_P_TEB (inner_proto_inherit: skb->protocol), reserved bytes 0.
//   geneve_nl2info(): TUNNEL_CSUM set by IFLA_GENEVE_UDP_CSUM != 0 (IPv4
//     default off), by IFLA_GENEVE_REMOTE6 (IPv6 default on), cleared by
//     IFLA_GENEVE_UDP_ZERO_CSUM6_TX.
#include <algorithm>

#include "count_internal.h"
#include "offlab/linux/geneve.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// The inner network header's offset (from the MAC header) for an IP
// ethertype, or 0.
size_t InnerL3(uint16_t et) {
  return (et == hdr::kEthTypeIpv4 || et == hdr::kEthTypeIpv6) ? hdr::kEthLen : 0;
}

// ip_tunnel_get_dsfield: the inner TOS / traffic class (0 for non-IP).
uint8_t InnerDs(const SkBuff& skb, uint16_t et) {
  const uint8_t* ip = skb.pkt.data() + hdr::kEthLen;
  if (et == hdr::kEthTypeIpv4) return ip[hdr::kIpv4TosOfs];
  if (et == hdr::kEthTypeIpv6) return static_cast<uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
  return 0;
}

// ip_tunnel_get_ttl: the inner TTL / hop limit, 0 for non-IP (then the
// route's hop limit is used).
uint8_t InnerHopLimit(const SkBuff& skb, uint16_t et) {
  const uint8_t* ip = skb.pkt.data() + hdr::kEthLen;
  if (et == hdr::kEthTypeIpv4) return ip[hdr::kIpv4TtlOfs];
  if (et == hdr::kEthTypeIpv6) return ip[hdr::kIpv6HlimOfs];
  return 0;
}

}  // namespace

GeneveXmitResult GeneveXmit(SkBuff skb, const GeneveConfig& cfg, const UnderlayRoute& rt,
                            KernelVersion kv, Counters* c) {
  GeneveXmitResult r;
  auto count = [&](const char* what, uint64_t n = 1) { CountDev(c, cfg.name, what, n); };
  const uint16_t et = skb.len() >= hdr::kEthLen ? GetBe16(skb.pkt.data() + 12) : 0;
  const size_t need = hdr::kEthLen + (et == hdr::kEthTypeIpv4   ? hdr::kIpv4MinLen
                                      : et == hdr::kEthTypeIpv6 ? hdr::kIpv6Len
                                                                : 0);
  // A malformed option length is a configuration the kernel refuses
  // (options_len is a multiple of 4 below 256); treat it as a failed send.
  const size_t opt_len = cfg.options.size();
  if (skb.len() < need || opt_len % 4 || opt_len > kGeneveMaxOptLen) {
    count("tx_errors");
    r.reason = skb.len() < need ? "PKT_TOO_SMALL" : "BAD_OPTIONS";
    r.skb = std::move(skb);
    return r;
  }
  if (const size_t l3 = InnerL3(et); l3 && skb.pkt.l3_ofs == kNoOffset) {
    skb.pkt.l3_ofs = static_cast<uint16_t>(l3);
    const uint8_t* ip = skb.pkt.data() + l3;
    if (skb.pkt.l4_ofs == kNoOffset)
      skb.pkt.l4_ofs = static_cast<uint16_t>(
          l3 + (et == hdr::kEthTypeIpv4 ? (ip[0] & 0x0f) * 4 : hdr::kIpv6Len));
  }

  const bool udp_sum = cfg.UdpCsumTx();
  UdpTunnelHeader h;
  h.ipv6 = cfg.ipv6;
  h.saddr = cfg.local;
  h.daddr = cfg.remote;
  h.sport = VxlanSourcePort(rt.flow_hash, cfg.port_min, cfg.port_max, rt);
  h.dport = cfg.dstport;
  const uint8_t inner_ds = InnerDs(skb, et);
  const uint8_t tos = cfg.tos == 1 ? inner_ds : cfg.tos;
  // INET_ECN_encapsulate: the inner ECN bits are copied, CE sent as ECT(0).
  const uint8_t ecn = (inner_ds & 3) == 3 ? 2 : (inner_ds & 3);
  h.tos = static_cast<uint8_t>((tos & ~3u) | ecn);
  const uint8_t ttl = cfg.ttl_inherit ? InnerHopLimit(skb, et) : cfg.ttl;
  h.ttl = ttl ? ttl : rt.hop_limit;
  if (!cfg.ipv6) {
    h.df =
        cfg.df == GeneveDf::kSet ||
        (cfg.df == GeneveDf::kInherit &&
         (et == hdr::kEthTypeIpv6 ||
          (et == hdr::kEthTypeIpv4 &&
           (GetBe16(skb.pkt.data() + hdr::kEthLen + hdr::kIpv4FragOfs) & hdr::kIpv4DontFragment))));
  }
  h.ip_id = rt.ip_id;
  h.flowlabel = cfg.ipv6 ? cfg.label : 0;
  h.nocheck = !udp_sum;
  h.src_mac = rt.src_mac;
  h.dst_mac = rt.dst_mac;

  IptunnelHandleOffloads(skb, udp_sum ? gso::kUdpTunnelCsum : gso::kUdpTunnel, udp_sum, kv);

  uint8_t* gh = SkbPushFront(skb, kGeneveHdrLen + opt_len);
  gh[0] = static_cast<uint8_t>(opt_len / 4);  // version 0 in the top two bits
  gh[1] =
      static_cast<uint8_t>((cfg.oam ? kGeneveOamBit : 0) | (cfg.critical ? kGeneveCriticalBit : 0));
  PutBe16(gh + 2, kEthPTeb);
  gh[4] = static_cast<uint8_t>(cfg.vni >> 16);
  gh[5] = static_cast<uint8_t>(cfg.vni >> 8);
  gh[6] = static_cast<uint8_t>(cfg.vni);
  gh[7] = 0;
  std::copy(cfg.options.begin(), cfg.options.end(), gh + kGeneveHdrLen);

  // iptunnel_xmit_stats: bytes from the inner network header.
  const size_t inner_l3 = skb.pkt.inner_l3_ofs != kNoOffset
                              ? skb.pkt.inner_l3_ofs
                              : kGeneveHdrLen + opt_len + hdr::kEthLen;
  const size_t tx_bytes = skb.len() - std::min(skb.len(), inner_l3);
  UdpTunnelXmitSkb(skb, h, rt.dev_features, kv);
  count("tx_packets");
  count("tx_bytes", tx_bytes);
  r.sent = true;
  r.skb = std::move(skb);
  return r;
}

}  // namespace offlab::kernel
