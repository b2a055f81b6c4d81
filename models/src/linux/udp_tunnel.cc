// UDP tunnel transmit: iptunnel_handle_offloads, udp_set_csum /
// udp6_set_csum, lco_csum, and the outer headers of udp_tunnel_xmit_skb /
// iptunnel_xmit and udp_tunnel6_xmit_skb / ip6tunnel_xmit.
//
// Sources (torvalds/linux):
//   net/ipv4/ip_tunnel_core.c iptunnel_handle_offloads() (v6.18): no
//     csum_help argument; non-GSO, non-PARTIAL -> CHECKSUM_NONE and
//     encapsulation = 0. torvalds/linux 01b944fe1cd4 (v4.3-era) shows the
//     older form: csum_help clears encapsulation and runs skb_checksum_help
//     on a PARTIAL skb. The argument went with local checksum offload in
//     v4.6 (Edward Cree, "net: local checksum offload for encapsulation").
//   net/ipv4/udp.c udp_set_csum() (v6.18): nocheck -> 0; GSO ->
//     ~udp_v4_check(len, s, d, 0); PARTIAL -> udp_v4_check(.., lco_csum),
//     0 -> CSUM_MANGLED_0; else PARTIAL at the outer UDP with the folded
//     pseudo-header in the field. net/ipv6/ip6_checksum.c udp6_set_csum()
//     is the same for IPv6. Before v4.6 the non-GSO branch asked the dst
//     device for NETIF_F_V4_CSUM / NETIF_F_V6_CSUM (PARTIAL) or summed in
//     software (UNNECESSARY).
//   include/linux/skbuff.h lco_csum().
//   net/ipv4/udp_tunnel_core.c udp_tunnel_xmit_skb() (torvalds/linux
//     037dd1308c6d, lines 152-171): push UDP, uh->len = skb->len,
//     udp_set_csum(nocheck, skb, src, dst, skb->len), iptunnel_xmit.
//   iptunnel_xmit: version 4, ihl 5, frag_off = df, tos, ttl, and
//     __ip_select_ident for the ID whatever DF says (the ID is an input
//     here); ip_local_out then writes tot_len and the header checksum.
//   net/ipv6/ip6_udp_tunnel.c udp_tunnel6_xmit_skb(): ip6_flow_hdr(prio,
//     label), payload_len, nexthdr UDP, hop_limit.
// Checked on the lab kernel: a VXLAN packet leaving over a veth carries the
// LCO outer checksum with the inner field still holding the pseudo-header
// sum, and with RCO the outer field holds the outer pseudo-header sum.
#include "offlab/linux/udp_tunnel.h"

#include <algorithm>
#include <cstring>

#include "offlab/linux/skb_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

uint64_t Pseudo(bool ipv6, const uint8_t* s, const uint8_t* d, uint32_t len) {
  return ipv6 ? csum::PseudoIpv6(s, d, hdr::kProtoUdp, len)
              : csum::PseudoIpv4(s, d, hdr::kProtoUdp, static_cast<uint16_t>(len));
}

}  // namespace

uint8_t* SkbPushFront(SkBuff& skb, size_t n) {
  uint8_t* p = skb.pkt.Push(n);
  skb.csum_start = static_cast<uint16_t>(skb.csum_start + n);
  skb.csum_from = static_cast<uint16_t>(skb.csum_from + n);
  return p;
}

void IptunnelHandleOffloads(SkBuff& skb, uint32_t gso_type_mask, bool csum_help, KernelVersion kv) {
  if (!skb.encapsulation) {
    // skb_reset_inner_headers: the inner offsets are the current ones.
    skb.pkt.inner_l2_ofs = 0;
    skb.pkt.inner_l3_ofs = skb.pkt.l3_ofs;
    skb.pkt.inner_l4_ofs = skb.pkt.l4_ofs;
    skb.encapsulation = true;
  }
  if (skb.is_gso()) {
    skb.gso_type |= gso_type_mask;
    return;
  }
  if (!kv.AtLeast(4, 6)) {
    if (csum_help) skb.encapsulation = false;
    if (skb.ip_summed == IpSummed::kPartial && csum_help) {
      SkbCompletePartial(skb);
    } else if (skb.ip_summed != IpSummed::kPartial) {
      skb.ip_summed = IpSummed::kNone;
    }
    return;
  }
  if (skb.ip_summed != IpSummed::kPartial) {
    skb.ip_summed = IpSummed::kNone;
    skb.encapsulation = false;
  }
}

uint64_t LcoCsum(const SkBuff& skb, uint16_t l4_ofs) {
  const size_t field = size_t{skb.csum_start} + skb.csum_offset;
  if (field + 2 > skb.len() || skb.csum_start < l4_ofs) return 0;
  const uint16_t inner = GetBe16(skb.pkt.data() + field);
  const uint64_t partial = static_cast<uint16_t>(~inner);
  return SkbChecksum(skb, l4_ofs, skb.csum_start - l4_ofs, partial);
}

void UdpSetCsum(SkBuff& skb, bool ipv6, const uint8_t* saddr, const uint8_t* daddr, bool nocheck,
                uint64_t dev_features, KernelVersion kv) {
  const size_t l4 = skb.pkt.l4_ofs;
  if (l4 == kNoOffset || l4 + hdr::kUdpLen > skb.len()) return;
  uint8_t* uh = skb.pkt.data() + l4;
  const uint32_t len = static_cast<uint32_t>(skb.len() - l4);
  const uint64_t pseudo = Pseudo(ipv6, saddr, daddr, len);
  auto put = [&](uint16_t v) { PutBe16(uh + hdr::kUdpCsumOfs, v); };
  if (nocheck) {
    put(0);
    return;
  }
  if (skb.is_gso()) {
    put(csum::Fold(pseudo));
    return;
  }
  auto mangled = [](uint16_t c) { return c == 0 ? uint16_t{0xffff} : c; };
  if (kv.AtLeast(4, 6)) {
    if (skb.ip_summed == IpSummed::kPartial) {
      put(0);
      put(mangled(csum::Finish(csum::Add(pseudo, LcoCsum(skb, static_cast<uint16_t>(l4))))));
      return;
    }
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = static_cast<uint16_t>(l4);
    skb.csum_offset = hdr::kUdpCsumOfs;
    put(csum::Fold(pseudo));
    return;
  }
  // Before local checksum offload a PARTIAL skb never got here (the caller
  // resolved or kept the inner checksum and sent no outer one).
  const uint64_t want =
      ipv6 ? (netif::kIpv6Csum | netif::kHwCsum) : (netif::kIpCsum | netif::kHwCsum);
  if (dev_features & want) {
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = static_cast<uint16_t>(l4);
    skb.csum_offset = hdr::kUdpCsumOfs;
    put(csum::Fold(pseudo));
    return;
  }
  put(0);
  put(mangled(csum::Finish(csum::Add(pseudo, SkbChecksum(skb, l4, len)))));
  skb.ip_summed = IpSummed::kUnnecessary;
  skb.csum_level = 0;
}

void UdpTunnelXmitSkb(SkBuff& skb, const UdpTunnelHeader& h, uint64_t dev_features,
                      KernelVersion kv) {
  uint8_t* uh = SkbPushFront(skb, hdr::kUdpLen);
  skb.pkt.l4_ofs = 0;
  PutBe16(uh, h.sport);
  PutBe16(uh + 2, h.dport);
  PutBe16(uh + hdr::kUdpLenOfs, static_cast<uint16_t>(std::min<size_t>(skb.len(), 0xffff)));
  PutBe16(uh + hdr::kUdpCsumOfs, 0);
  UdpSetCsum(skb, h.ipv6, h.saddr.data(), h.daddr.data(), h.nocheck, dev_features, kv);

  const size_t iplen = h.ipv6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
  uint8_t* ip = SkbPushFront(skb, iplen);
  skb.pkt.l3_ofs = 0;
  std::memset(ip, 0, iplen);
  if (h.ipv6) {
    PutBe32(ip, 0x60000000u | (uint32_t{h.tos} << 20) | (h.flowlabel & 0xfffffu));
    PutBe16(ip + hdr::kIpv6PlenOfs, static_cast<uint16_t>(skb.len() - hdr::kIpv6Len));
    ip[hdr::kIpv6NextOfs] = hdr::kProtoUdp;
    ip[hdr::kIpv6HlimOfs] = h.ttl;
    std::memcpy(ip + hdr::kIpv6SrcOfs, h.saddr.data(), 16);
    std::memcpy(ip + hdr::kIpv6DstOfs, h.daddr.data(), 16);
  } else {
    ip[0] = 0x45;
    ip[hdr::kIpv4TosOfs] = h.tos;
    PutBe16(ip + hdr::kIpv4TotLenOfs, static_cast<uint16_t>(std::min<size_t>(skb.len(), 0xffff)));
    PutBe16(ip + hdr::kIpv4IdOfs, h.ip_id);
    PutBe16(ip + hdr::kIpv4FragOfs, h.df ? hdr::kIpv4DontFragment : 0);
    ip[hdr::kIpv4TtlOfs] = h.ttl;
    ip[hdr::kIpv4ProtoOfs] = hdr::kProtoUdp;
    std::memcpy(ip + hdr::kIpv4SrcOfs, h.saddr.data(), 4);
    std::memcpy(ip + hdr::kIpv4DstOfs, h.daddr.data(), 4);
    // ip_send_check: the header checksum is always computed in software.
    PutBe16(ip + hdr::kIpv4CsumOfs, csum::Compute(ip, hdr::kIpv4MinLen));
  }

  uint8_t* eth = SkbPushFront(skb, hdr::kEthLen);
  std::memcpy(eth, h.dst_mac.data(), 6);
  std::memcpy(eth + 6, h.src_mac.data(), 6);
  PutBe16(eth + 12, h.ipv6 ? hdr::kEthTypeIpv6 : hdr::kEthTypeIpv4);
}

}  // namespace offlab::kernel
