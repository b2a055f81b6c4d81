// VXLAN receive: the outer IP and UDP checks (stack_rx), then vxlan_rcv.
//
// Sources: linux-netdev/testing 0998be3ad2a5 (6.18-era)
// drivers/net/vxlan/vxlan_core.c vxlan_rcv(): VXLAN_HLEN must be there; no
// VXLAN_HF_VNI -> drop; the VNI must name a device; header bits outside
// cfg.reserved_bits' complement -> drop with rx_frame_errors + rx_errors
// (VNI flag always allowed; RCO flag and the VNI word's low byte only with
// remcsumrx); __iptunnel_pull_header; vxlan_remcsum with remcsumrx;
// vxlan_set_mac (eth_type_trans, skb_postpull_rcsum(ETH_HLEN), own source
// MAC or an invalid one -> drop); pskb_inet_may_pull failure -> rx_length_errors + rx_errors;
// vxlan_ecn_decapsulate failing (outer CE, inner not ECT) ->
// rx_frame_errors + rx_errors; device down -> rx_dropped; else
// rx_packets/rx_bytes += skb->len (from the inner network header).
// torvalds/linux 002bba562dd3 (6.3-era) has the older form: the same
// verdicts, but bad header bits dropped silently (the counters came with
// the reserved-bits rework, "vxlan: Bump error counters for header
// mismatches", v6.14) and no pskb_inet_may_pull.
// vxlan_remcsum(): RCO flag set and not already done by GRO
// (remcsum_offload) -> start/offset from the VNI low byte, pull to
// offset + 2, skb_remcsum_process(ptr = inner MAC header, nopartial).
// include/linux/skbuff.h skb_remcsum_process(): default -> the inner skb
// becomes CHECKSUM_PARTIAL at ptr + start (skb_remcsum_adjust_partial);
// nopartial -> make the skb COMPLETE if it is not and write the checksum
// (remcsum_adjust), adjusting skb->csum by the change. v4.0 had only the
// second form (partial came in v4.1, "vxlan: Use checksum partial with
// remote checksum offload").
// net/ipv4/ip_tunnel_core.c __iptunnel_pull_header(): skb_pull_rcsum of
// the UDP and VXLAN headers, an Ethernet header must follow,
// iptunnel_pull_offloads clears encapsulation and the tunnel GSO bits.
// include/net/inet_ecn.h INET_ECN_decapsulate / IP_ECN_set_ce /
// IP_ECN_set_ect1 (an outer ECT(1) turns an ECT(0) inner into ECT(1)).
// Checked on the lab kernel: RCO flag without remcsumrx and a non-zero VNI
// low byte each bump rx_frame_errors + rx_errors; an unknown VNI, a
// missing I flag, an own/multicast/zero inner source MAC count nothing at
// the device (Udp:InDatagrams only); outer CE over a not-ECT inner bumps
// rx_frame_errors + rx_errors; an inner IPv4 header cut short bumps
// rx_length_errors + rx_errors; with remcsumrx the inner UDP keeps the
// pseudo-header sum and is delivered.
#include <algorithm>

#include "count_internal.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/stack_rx_csum.h"
#include "offlab/linux/udp_tunnel.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// NETIF_F_GSO_ENCAP_ALL >> NETIF_F_GSO_SHIFT (iptunnel_pull_offloads).
constexpr uint32_t kGsoEncapAll =
    gso::kGre | gso::kGreCsum | gso::kIpxip4 | gso::kIpxip6 | gso::kUdpTunnel | gso::kUdpTunnelCsum;

// Drops the outer headers so the frame starts at the inner MAC header;
// csum_start / csum_from are MAC-relative and move too. A PARTIAL start
// behind the new front (kernels before skb_postpull_rcsum learned to clear
// it) is clamped to 0: still before every header the stack checks.
void PullFront(SkBuff& skb, size_t n) {
  skb.pkt.Pull(n);
  skb.csum_start = static_cast<uint16_t>(skb.csum_start >= n ? skb.csum_start - n : 0);
  skb.csum_from = static_cast<uint16_t>(skb.csum_from >= n ? skb.csum_from - n : 0);
}

// skb_remcsum_process at `ptr` (the inner MAC header, also skb->data).
void RemcsumProcess(SkBuff& skb, size_t ptr, uint32_t start, uint32_t offset, bool nopartial,
                    KernelVersion kv) {
  if (!nopartial && kv.AtLeast(4, 1)) {
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = static_cast<uint16_t>(ptr + start);
    skb.csum_offset = static_cast<uint16_t>(offset - start);
    return;
  }
  if (skb.ip_summed != IpSummed::kComplete) {
    // __skb_checksum_complete from data: the whole rest of the packet.
    const uint64_t sum = SkbChecksum(skb, ptr, skb.len() - ptr);
    skb.ip_summed = IpSummed::kComplete;
    skb.csum = csum::Fold(sum);
    skb.csum_from = static_cast<uint16_t>(ptr);
    skb.csum_valid = false;
  }
  // remcsum_adjust: the sum from ptr + start on is skb->csum minus the
  // bytes before start; its complement is the checksum (the field held the
  // pseudo-header sum, so the sum already includes it).
  const uint16_t head = csum::Fold(SkbChecksum(skb, ptr, start));
  const uint16_t from_start = csum::Fold(csum::Add(skb.csum, static_cast<uint16_t>(~head)));
  uint8_t* field = skb.pkt.data() + ptr + offset;
  const uint16_t old = GetBe16(field);
  const uint16_t now = static_cast<uint16_t>(~from_start);
  PutBe16(field, now);
  // skb->csum += new - old: the packet's sum changed by the rewrite.
  skb.csum = csum::Fold(csum::Add(csum::Add(skb.csum, now), static_cast<uint16_t>(~old)));
}

// IP_ECN_set_ce / IP6_ECN_set_ce on the inner header at `l3`.
void SetCe(SkBuff& skb, size_t l3, uint16_t et) {
  uint8_t* ip = skb.pkt.data() + l3;
  if (et == hdr::kEthTypeIpv4) {
    const uint16_t old_word = GetBe16(ip);
    ip[hdr::kIpv4TosOfs] |= 3;
    const uint16_t c = GetBe16(ip + hdr::kIpv4CsumOfs);
    PutBe16(ip + hdr::kIpv4CsumOfs, csum::Update16(c, old_word, GetBe16(ip)));
  } else {
    const uint16_t old_word = GetBe16(ip);
    ip[1] |= 0x30;  // traffic class bits 0-1 are the high nibble of byte 1
    if (skb.ip_summed == IpSummed::kComplete)
      skb.csum =
          csum::Fold(csum::Add(csum::Add(skb.csum, GetBe16(ip)), static_cast<uint16_t>(~old_word)));
  }
}

// IP_ECN_set_ect1 / IP6_ECN_set_ect1 (include/net/inet_ecn.h) on an ECT(0)
// inner header: the ECN bits become ECT(1); IPv4 patches its header
// checksum, IPv6 keeps a COMPLETE sum in step.
void SetEct1(SkBuff& skb, size_t l3, uint16_t et) {
  uint8_t* ip = skb.pkt.data() + l3;
  const uint16_t old_word = GetBe16(ip);
  if (et == hdr::kEthTypeIpv4) {
    ip[hdr::kIpv4TosOfs] ^= 3;
    const uint16_t c = GetBe16(ip + hdr::kIpv4CsumOfs);
    PutBe16(ip + hdr::kIpv4CsumOfs, csum::Update16(c, old_word, GetBe16(ip)));
  } else {
    ip[1] ^= 0x30;  // htonl(INET_ECN_MASK << 20)
    if (skb.ip_summed == IpSummed::kComplete)
      skb.csum =
          csum::Fold(csum::Add(csum::Add(skb.csum, GetBe16(ip)), static_cast<uint16_t>(~old_word)));
  }
}

}  // namespace

VxlanRcvResult VxlanRcv(SkBuff skb, const VxlanConfig& cfg, KernelVersion kv, Counters* c) {
  VxlanRcvResult r;
  auto dev = [&](const char* what, uint64_t n = 1) { CountDev(c, cfg.name, what, n); };
  auto drop = [&](std::string why) {
    r.reason = std::move(why);
    r.skb = std::move(skb);
    return std::move(r);
  };
  IpRcvInfo ip;
  if (std::string why =
          UdpTunnelSockRcv(skb, cfg.ipv6, cfg.dstport, cfg.udp6_zero_csum_rx, kv, c, &ip);
      !why.empty())
    return drop(why);
  const size_t l4 = ip.l4_ofs;

  // vxlan_rcv, skb->data at the UDP header.
  if (skb.len() - l4 < hdr::kUdpLen + hdr::kVxlanLen) return drop("PKT_TOO_SMALL");
  const uint8_t* vxh = skb.pkt.data() + l4 + hdr::kUdpLen;
  const uint32_t flags = GetBe32(vxh);
  const uint32_t vni_word = GetBe32(vxh + 4);
  if (!(flags & kVxlanHfVni)) return drop("VXLAN_INVALID_HDR");
  if ((vni_word >> 8) != (cfg.vni & 0xffffffu)) return drop("VXLAN_VNI_NOT_FOUND");
  const bool rco_ok = cfg.remcsum_rx && kv.AtLeast(4, 0);
  const uint32_t used_flags = kVxlanHfVni | (rco_ok ? kVxlanHfRco : 0);
  const uint32_t used_vni_low = rco_ok ? 0xff : 0;
  if ((flags & ~used_flags) || (vni_word & 0xff & ~used_vni_low)) {
    if (kv.AtLeast(6, 14)) {
      dev("rx_frame_errors");
      dev("rx_errors");
    }
    return drop("VXLAN_INVALID_HDR");
  }

  // __iptunnel_pull_header: UDP + VXLAN headers, then an Ethernet header.
  const size_t inner = PullRcsum(skb, l4, hdr::kUdpLen + hdr::kVxlanLen, kv);
  if (skb.len() - inner < hdr::kEthLen) return drop("NOMEM");
  skb.encapsulation = false;
  skb.gso_type &= ~kGsoEncapAll;

  if (rco_ok && (flags & kVxlanHfRco) && !skb.remcsum_offload) {
    const uint8_t low = static_cast<uint8_t>(vni_word);
    const uint32_t start = VxlanRcoStart(low);
    const uint32_t offset = start + VxlanRcoOffset(low);
    if (inner + offset + 2 > skb.len()) return drop("PKT_TOO_SMALL");
    RemcsumProcess(skb, inner, start, offset, cfg.remcsum_nopartial, kv);
  }

  // vxlan_set_mac: eth_type_trans on the vxlan device.
  r.pkt_type = EthPktType(SkBuff{Packet(skb.pkt.data() + inner, hdr::kEthLen)}, cfg.mac);
  const uint8_t* ieth = skb.pkt.data() + inner;
  if (std::equal(ieth + 6, ieth + 12, cfg.mac.begin())) return drop("LOCAL_MAC");
  // is_valid_ether_addr(h_source): multicast or all-zero sources are
  // dropped silently (torvalds/linux 002bba562dd3 vxlan_set_mac, "Ignore
  // packets from invalid src-address"; the 6.18 lab kernel still does).
  if ((ieth[6] & 1) || std::all_of(ieth + 6, ieth + 12, [](uint8_t b) { return b == 0; }))
    return drop("MAC_INVALID_SOURCE");
  const uint16_t et = GetBe16(ieth + 12);
  const size_t l3 = PullRcsum(skb, inner, hdr::kEthLen, kv);

  // pskb_inet_may_pull on the inner network header.
  const size_t need = et == hdr::kEthTypeIpv4   ? hdr::kIpv4MinLen
                      : et == hdr::kEthTypeIpv6 ? hdr::kIpv6Len
                                                : 0;
  if (skb.len() - l3 < need) {
    dev("rx_length_errors");
    dev("rx_errors");
    return drop("PKT_TOO_SMALL");
  }
  // vxlan_ecn_decapsulate with the outer TOS / traffic class.
  if (need) {
    const uint8_t* iip = skb.pkt.data() + l3;
    const uint8_t inner_ds = et == hdr::kEthTypeIpv4
                                 ? iip[hdr::kIpv4TosOfs]
                                 : static_cast<uint8_t>(((iip[0] & 0x0f) << 4) | (iip[1] >> 4));
    if ((inner_ds & 3) == 0 && (ip.tos & 3) == 3) {
      dev("rx_frame_errors");
      dev("rx_errors");
      return drop("IP_TUNNEL_ECN");
    }
    if ((inner_ds & 3) != 0 && (ip.tos & 3) == 3) SetCe(skb, l3, et);
    // INET_ECN_decapsulate: "else if ((outer & INET_ECN_MASK) ==
    // INET_ECN_ECT_1) INET_ECN_set_ect1(skb);", which changes only an
    // ECT(0) inner header (RFC 6040 4.2; "tunnel: Propagate ECT(1) when
    // decapsulating as recommended by RFC6040", b723748750ec: v5.7 -- a
    // "[PATCH net]" of 27 Apr 2020, in 5.7-rc and backported to 5.4.41 of
    // 14 May 2020 -- present in v5.15 and v6.18).
    if ((inner_ds & 3) == 2 && (ip.tos & 3) == 1 && kv.AtLeast(5, 7)) SetEct1(skb, l3, et);
  }
  if (!cfg.up) {
    dev("rx_dropped");
    return drop("DEV_READY");
  }
  dev("rx_packets");
  dev("rx_bytes", skb.len() - l3);

  PullFront(skb, inner);
  skb.pkt.ResetOffsets();
  if (need) {
    skb.pkt.l3_ofs = hdr::kEthLen;
    const uint8_t* iip = skb.pkt.data() + hdr::kEthLen;
    skb.pkt.l4_ofs = static_cast<uint16_t>(
        hdr::kEthLen + (et == hdr::kEthTypeIpv4 ? (iip[0] & 0x0f) * 4 : hdr::kIpv6Len));
  }
  r.delivered = true;
  r.skb = std::move(skb);
  return r;
}

}  // namespace offlab::kernel
