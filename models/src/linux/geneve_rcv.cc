// Geneve receive: the outer IP and UDP checks (stack_rx, shared with
// VXLAN), then geneve_udp_encap_recv and geneve_rx.
//
// Sources: torvalds/linux 002bba562dd3 drivers/net/geneve.c (6.3-era stored
// version; lab kernel 6.18):
//   geneve_create_sock(): an IPv6 socket gets use_udp6_rx_checksums, which
//     udp_sock_create6 turns into UDP_NO_CHECK6_RX = !use_udp6_rx_checksums
//     (net/ipv6/ip6_udp_tunnel.c); setup_udp_tunnel_sock marks the socket
//     encap and convert_csum (net/ipv4/udp_tunnel_core.c), so the UDP
//     checksum is verified before encap_rcv (UdpRcv below).
//   geneve_udp_encap_recv(): pskb_may_pull(GENEVE_BASE_HLEN = UDP + 8),
//     ver != 0, a protocol other than TEB/IPv4/IPv6, or no device for the
//     (VNI, outer source address) pair (geneve_lookup compares
//     cfg.info.key.u.ipv4.dst / ipv6.dst with the outer saddr) -> dropped
//     without a device counter; a non-TEB protocol without
//     inner_proto_inherit -> rx_dropped; iptunnel_pull_header(UDP + 8 +
//     opt_len * 4) failing (for TEB an Ethernet header must follow) ->
//     rx_dropped.
//   geneve_rx(): without collected metadata (ip_tunnel_collect_metadata()
//     || collect_md), the C bit -> rx_frame_errors + rx_errors; the O bit
//     is not looked at; TEB: eth_type_trans + skb_postpull_rcsum(ETH_HLEN),
//     own source MAC -> rx_errors (no multicast/zero source check, unlike
//     vxlan_set_mac); pskb_inet_may_pull failing -> rx_length_errors +
//     rx_errors; IP_ECN_decapsulate returning > 1 (outer CE over a
//     not-ECT inner) -> rx_frame_errors + rx_errors (an outer CE marks an
//     ECT inner CE, an outer ECT(1) makes an ECT(0) inner ECT(1)); then
//     gro_cells_receive (net/core/gro_cells.c: device down -> dropped,
//     counted as rx_dropped) and dev_sw_netstats_rx_add(skb->len from the
//     inner network header).
// net/ipv4/ip_tunnel_core.c __iptunnel_pull_header: skb_pull_rcsum,
// iptunnel_pull_offloads clears encapsulation and the tunnel GSO bits.
#include <algorithm>

#include "count_internal.h"
#include "offlab/linux/geneve.h"
#include "offlab/linux/stack_rx_csum.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// NETIF_F_GSO_ENCAP_ALL >> NETIF_F_GSO_SHIFT, the bits
// iptunnel_pull_offloads clears.
constexpr uint32_t kEncapGsoBits =
    gso::kGre | gso::kGreCsum | gso::kIpxip4 | gso::kIpxip6 | gso::kUdpTunnel | gso::kUdpTunnelCsum;

// Moves the front to `n`; MAC-relative checksum offsets move with it (a
// PARTIAL start left behind is clamped to the new front).
void DropFront(SkBuff& skb, size_t n) {
  skb.pkt.Pull(n);
  skb.csum_start = static_cast<uint16_t>(skb.csum_start >= n ? skb.csum_start - n : 0);
  skb.csum_from = static_cast<uint16_t>(skb.csum_from >= n ? skb.csum_from - n : 0);
}

// The inner DS field at `l3` for ethertype `et`.
uint8_t DsField(const uint8_t* ip, uint16_t et) {
  return et == hdr::kEthTypeIpv4 ? ip[hdr::kIpv4TosOfs]
                                 : static_cast<uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
}

// IP_ECN_set_ce / IP6_ECN_set_ce: mark the inner header CE; IPv4 fixes its
// header checksum incrementally, IPv6 keeps a COMPLETE sum in step.
void MarkCe(SkBuff& skb, size_t l3, uint16_t et) {
  uint8_t* ip = skb.pkt.data() + l3;
  const uint16_t before = GetBe16(ip);
  if (et == hdr::kEthTypeIpv4) {
    ip[hdr::kIpv4TosOfs] |= 3;
    PutBe16(ip + hdr::kIpv4CsumOfs,
            csum::Update16(GetBe16(ip + hdr::kIpv4CsumOfs), before, GetBe16(ip)));
    return;
  }
  ip[1] |= 0x30;
  if (skb.ip_summed == IpSummed::kComplete)
    skb.csum =
        csum::Fold(csum::Add(csum::Add(skb.csum, GetBe16(ip)), static_cast<uint16_t>(~before)));
}

// IP_ECN_set_ect1 / IP6_ECN_set_ect1 (include/net/inet_ecn.h) on an ECT(0)
// inner header: ECT(1), with the same checksum care as MarkCe.
void MarkEct1(SkBuff& skb, size_t l3, uint16_t et) {
  uint8_t* ip = skb.pkt.data() + l3;
  const uint16_t before = GetBe16(ip);
  if (et == hdr::kEthTypeIpv4) {
    ip[hdr::kIpv4TosOfs] ^= 3;
    PutBe16(ip + hdr::kIpv4CsumOfs,
            csum::Update16(GetBe16(ip + hdr::kIpv4CsumOfs), before, GetBe16(ip)));
    return;
  }
  ip[1] ^= 0x30;
  if (skb.ip_summed == IpSummed::kComplete)
    skb.csum =
        csum::Fold(csum::Add(csum::Add(skb.csum, GetBe16(ip)), static_cast<uint16_t>(~before)));
}

}  // namespace

GeneveRcvResult GeneveRcv(SkBuff skb, const GeneveConfig& cfg, KernelVersion kv, Counters* c) {
  GeneveRcvResult r;
  auto dev = [&](const char* what, uint64_t n = 1) { CountDev(c, cfg.name, what, n); };
  auto drop = [&](std::string why) {
    r.reason = std::move(why);
    r.skb = std::move(skb);
    return std::move(r);
  };
  IpRcvInfo ip;
  if (std::string why =
          UdpTunnelSockRcv(skb, cfg.ipv6, cfg.dstport, cfg.ipv6 && cfg.NoCheck6Rx(), kv, c, &ip);
      !why.empty())
    return drop(why);
  const size_t l4 = ip.l4_ofs;

  // geneve_udp_encap_recv, skb->data at the UDP header.
  if (skb.len() - l4 < hdr::kUdpLen + kGeneveHdrLen) return drop("PKT_TOO_SMALL");
  const uint8_t* gh = skb.pkt.data() + l4 + hdr::kUdpLen;
  if ((gh[0] >> 6) != 0) return drop("GENEVE_VERSION");
  const uint16_t proto = GetBe16(gh + 2);
  if (proto != kEthPTeb && proto != hdr::kEthTypeIpv4 && proto != hdr::kEthTypeIpv6)
    return drop("GENEVE_PROTO");
  const uint32_t vni = (uint32_t{gh[4]} << 16) | (uint32_t{gh[5]} << 8) | gh[6];
  // geneve_lookup: the device's VNI and its remote as the outer source.
  const uint8_t* oip = skb.pkt.data() + ip.l3_ofs;
  const bool from_remote = ip.ipv6 ? std::equal(oip + 8, oip + 24, cfg.remote.begin())
                                   : std::equal(oip + 12, oip + 16, cfg.remote.begin());
  if (vni != (cfg.vni & 0xffffffu) || !from_remote) return drop("GENEVE_NO_DEVICE");
  if (!cfg.inner_proto_inherit && proto != kEthPTeb) {
    dev("rx_dropped");
    return drop("GENEVE_PROTO");
  }
  const bool critical = gh[1] & kGeneveCriticalBit;
  const size_t hlen = hdr::kUdpLen + kGeneveHdrLen + size_t{gh[0] & 0x3fu} * 4;
  // iptunnel_pull_header: the headers and options, and for TEB an Ethernet
  // header after them.
  if (skb.len() - l4 < hlen + (proto == kEthPTeb ? hdr::kEthLen : 0)) {
    dev("rx_dropped");
    return drop("NOMEM");
  }
  const size_t inner = PullRcsum(skb, l4, hlen, kv);
  skb.encapsulation = false;
  skb.gso_type &= ~kEncapGsoBits;

  // geneve_rx.
  if (critical && !cfg.collect_metadata) {
    dev("rx_frame_errors");
    dev("rx_errors");
    return drop("GENEVE_CRITICAL_OPTION");
  }
  uint16_t et = proto;
  size_t l3 = inner;
  if (proto == kEthPTeb) {
    r.pkt_type = EthPktType(SkBuff{Packet(skb.pkt.data() + inner, hdr::kEthLen)}, cfg.mac);
    const uint8_t* ieth = skb.pkt.data() + inner;
    et = GetBe16(ieth + 12);
    l3 = PullRcsum(skb, inner, hdr::kEthLen, kv);
    if (std::equal(ieth + 6, ieth + 12, cfg.mac.begin())) {
      dev("rx_errors");
      return drop("LOCAL_MAC");
    }
  }
  const size_t need = et == hdr::kEthTypeIpv4   ? hdr::kIpv4MinLen
                      : et == hdr::kEthTypeIpv6 ? hdr::kIpv6Len
                                                : 0;
  if (skb.len() - l3 < need) {
    dev("rx_length_errors");
    dev("rx_errors");
    return drop("PKT_TOO_SMALL");
  }
  if (need) {
    const uint8_t inner_ds = DsField(skb.pkt.data() + l3, et);
    if ((ip.tos & 3) == 3 && (inner_ds & 3) == 0) {
      dev("rx_frame_errors");
      dev("rx_errors");
      return drop("IP_TUNNEL_ECN");
    }
    if ((ip.tos & 3) == 3) MarkCe(skb, l3, et);
    // INET_ECN_decapsulate: an outer ECT(1) makes an ECT(0) inner ECT(1)
    // (INET_ECN_set_ect1; RFC 6040 4.2, b723748750ec, since v5.7).
    if ((ip.tos & 3) == 1 && (inner_ds & 3) == 2 && kv.AtLeast(5, 7)) MarkEct1(skb, l3, et);
  }
  if (!cfg.up) {
    dev("rx_dropped");
    return drop("DEV_READY");
  }
  dev("rx_packets");
  dev("rx_bytes", skb.len() - l3);

  DropFront(skb, inner);
  skb.pkt.ResetOffsets();
  if (need) {
    const size_t nl3 = l3 - inner;
    skb.pkt.l3_ofs = static_cast<uint16_t>(nl3);
    const uint8_t* iip = skb.pkt.data() + nl3;
    skb.pkt.l4_ofs = static_cast<uint16_t>(
        nl3 + (et == hdr::kEthTypeIpv4 ? (iip[0] & 0x0f) * 4 : hdr::kIpv6Len));
  }
  r.delivered = true;
  r.skb = std::move(skb);
  return r;
}

}  // namespace offlab::kernel
