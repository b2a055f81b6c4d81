// GRO at the network layers: inet_gro_receive / inet_gro_complete
// (net/ipv4/af_inet.c), ipv6_gro_receive / ipv6_gro_complete
// (net/ipv6/ip6_offload.c), eth_gro_receive / eth_gro_complete
// (net/ethernet/eth.c, for the Ethernet frame inside VXLAN). The IP header
// comparison between segments of one flow is in gro_flush.cc. Citations name torvalds/linux
// commits; "v6.18" rules were checked against 006c8b834aed (af_inet.c) and 023af5a72ab1
// (tcp_offload.c), which carry the same GRO code as the lab kernel.
#include <cstring>

#include "offlab/linux/gro_cb.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kIpDf = 0x4000;

GroPacket* InetL4Receive(GroList& head, GroPacket& skb, uint8_t proto, bool v6, GroCtx& ctx) {
  if (proto == hdr::kProtoTcp)
    return v6 ? Tcp6GroReceive(head, skb, ctx) : Tcp4GroReceive(head, skb, ctx);
  return v6 ? Udp6GroReceive(head, skb, ctx) : Udp4GroReceive(head, skb, ctx);
}

// inet_offloads[] / inet6_offloads[] with a gro_receive: TCP always; UDP
// from b582ef0990d4 ("net: Add GRO support for UDP encapsulating
// protocols", v3.14; RHEL 7 backported it). GRE, IPIP and the rest are not
// modelled and go up unmerged.
bool HasL4Gro(uint8_t proto, const KernelVersion& kv) {
  if (proto == hdr::kProtoTcp) return true;
  return proto == hdr::kProtoUdp && (kv.rhel7 || kv.AtLeast(3, 14));
}

}  // namespace

GroPacket* InetGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  // torvalds/linux 006c8b834aed net/ipv4/af_inet.c inet_gro_receive (v6.18).
  GroPacket* pp = nullptr;
  uint32_t flush = 1;
  const size_t off = skb.cb.data_offset;
  const uint8_t* iph = GroHeader(skb, off, hdr::kIpv4MinLen);
  const uint8_t proto = iph ? iph[hdr::kIpv4ProtoOfs] : 0;
  if (!iph) {
    ctx.Why("truncated_ip");
  } else if (!HasL4Gro(proto, ctx.cfg.kv)) {
    ctx.Why("l4_without_gro");
  } else if (iph[0] != 0x45) {
    // Options or not version 4: only 20-byte headers are merged.
    ctx.Why("ip_options");
  } else if (GetBe16(iph + hdr::kIpv4FragOfs) & 0x3fff) {
    // ip_is_fragment: MF or a fragment offset.
    ctx.Why("ip_fragment");
  } else if (csum::Fold(csum::Partial(iph, hdr::kIpv4MinLen)) != 0xffff) {
    // ip_fast_csum(iph, 5) != 0: the header checksum is wrong.
    ctx.NotValidated("ip_header_csum");
  } else {
    skb.cb.proto = proto;
    // tot_len must equal what is left (no padding, no truncation) and the
    // reserved / MF / offset bits must be clear; only the low 16 bits count.
    const uint32_t w0 = GetBe32(iph), w1 = GetBe32(iph + hdr::kIpv4IdOfs);
    flush = ((w0 ^ static_cast<uint32_t>(GroLen(skb))) | (w1 & ~uint32_t{kIpDf})) & 0xffff;
    if (flush) ctx.Why("ip_len_or_flags");
    for (GroPacket& p : head) {
      if (!p.cb.same_flow) continue;
      const uint8_t* iph2 = GroHeader(p, off, hdr::kIpv4MinLen);
      // Same protocol and addresses, or another flow.
      if (!iph2 || iph[hdr::kIpv4ProtoOfs] != iph2[hdr::kIpv4ProtoOfs] ||
          GetBe32(iph + hdr::kIpv4SrcOfs) != GetBe32(iph2 + hdr::kIpv4SrcOfs) ||
          GetBe32(iph + hdr::kIpv4DstOfs) != GetBe32(iph2 + hdr::kIpv4DstOfs))
        p.cb.same_flow = false;
    }
    skb.cb.flush |= flush != 0;
    skb.cb.network_offsets[skb.cb.encap_mark ? 1 : 0] = static_cast<uint16_t>(off);
    // Before 6.10 the skb remembered whether this (innermost) header had DF
    // for the fixed-ID rule (1530545ed64b, v4.7).
    skb.cb.is_atomic = (GetBe16(iph + hdr::kIpv4FragOfs) & kIpDf) != 0;
    // No postpull: a valid IPv4 header sums to zero.
    skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kIpv4MinLen);
    skb.cb.transport = skb.cb.data_offset;
    if (RecursionTooDeep(skb))
      skb.cb.flush = true;
    else
      pp = InetL4Receive(head, skb, proto, false, ctx);
  }
  skb.cb.flush |= flush != 0;  // skb_gro_flush_final
  return pp;
}

GroPacket* Ipv6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  // torvalds/linux net/ipv6/ip6_offload.c ipv6_gro_receive (v6.18).
  GroPacket* pp = nullptr;
  int flush = 1;
  const size_t off = skb.cb.data_offset;
  const uint8_t* iph = GroHeader(skb, off, hdr::kIpv6Len);
  if (!iph) {
    ctx.Why("truncated_ip6");
    skb.cb.flush = true;
    return nullptr;
  }
  skb.cb.network_offsets[skb.cb.encap_mark ? 1 : 0] = static_cast<uint16_t>(off);
  // payload_len must equal what follows the header (0 = jumbogram: flush).
  flush += GetBe16(iph + hdr::kIpv6PlenOfs) != skb.skb.len() - (off + hdr::kIpv6Len);
  const uint8_t proto = iph[hdr::kIpv6NextOfs];
  // Extension headers (ipv6_gro_pull_exthdrs) are not modelled: such frames
  // go up unmerged.
  if (!HasL4Gro(proto, ctx.cfg.kv)) {
    ctx.Why("l4_without_gro");
    skb.cb.flush = true;
    return nullptr;
  }
  skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kIpv6Len);
  skb.cb.transport = skb.cb.data_offset;
  skb.cb.proto = proto;
  flush--;
  if (flush) ctx.Why("ip6_payload_len");
  for (GroPacket& p : head) {
    if (!p.cb.same_flow) continue;
    const uint8_t* iph2 = GroHeader(p, off, hdr::kIpv6Len);
    // Version and flow label, addresses and next header must match; the
    // traffic class and hop limit are checked at L4 (they flush, not split).
    const bool differ = !iph2 || ((GetBe32(iph) ^ GetBe32(iph2)) & 0xF00FFFFFu) ||
                        std::memcmp(iph + hdr::kIpv6SrcOfs, iph2 + hdr::kIpv6SrcOfs, 32) != 0 ||
                        iph[hdr::kIpv6NextOfs] != iph2[hdr::kIpv6NextOfs];
    if (differ) p.cb.same_flow = false;
  }
  skb.cb.flush |= flush != 0;
  if (UseLegacyChecksums(ctx.cfg.kv) && skb.skb.ip_summed == IpSummed::kComplete) {
    // Before skb_gro_postpull_rcsum, ipv6_gro_receive pulled the header out
    // of skb->csum itself (skb_postpull_rcsum).
    skb.cb.csum = CsumSub16(skb.cb.csum, csum::Fold(csum::Partial(iph, hdr::kIpv6Len)));
  } else {
    GroPostpullRcsum(skb, off, hdr::kIpv6Len);
  }
  if (RecursionTooDeep(skb))
    skb.cb.flush = true;
  else
    pp = InetL4Receive(head, skb, proto, true, ctx);
  skb.cb.flush |= flush != 0;
  return pp;
}

GroPacket* EthGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  // torvalds/linux net/ethernet/eth.c eth_gro_receive (v6.18): the inner
  // Ethernet header of a VXLAN frame.
  GroPacket* pp = nullptr;
  const size_t off = skb.cb.data_offset;
  const uint8_t* eh = GroHeader(skb, off, hdr::kEthLen);
  if (!eh) {
    skb.cb.flush = true;
    return nullptr;
  }
  for (GroPacket& p : head) {
    if (!p.cb.same_flow) continue;
    // compare_ether_header: destination, source and type.
    const uint8_t* eh2 = GroHeader(p, off, hdr::kEthLen);
    if (!eh2 || std::memcmp(eh, eh2, hdr::kEthLen) != 0) p.cb.same_flow = false;
  }
  const uint16_t type = GetBe16(eh + 12);
  if (type != hdr::kEthTypeIpv4 && type != hdr::kEthTypeIpv6) {
    // gro_find_receive_by_type found nothing modelled.
    ctx.Why("inner_not_ip");
    skb.cb.flush = true;
    return nullptr;
  }
  skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kEthLen);
  GroPostpullRcsum(skb, off, hdr::kEthLen);
  if (RecursionTooDeep(skb))
    skb.cb.flush = true;
  else
    pp =
        type == hdr::kEthTypeIpv4 ? InetGroReceive(head, skb, ctx) : Ipv6GroReceive(head, skb, ctx);
  return pp;
}

bool InetGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx) {
  // torvalds/linux 006c8b834aed net/ipv4/af_inet.c inet_gro_complete:
  // tot_len becomes the merged length and the header checksum is updated
  // incrementally (csum_replace2, RFC 1624).
  uint8_t* iph = GroHeaderMut(skb, nhoff, hdr::kIpv4MinLen);
  if (!iph || skb.skb.len() - nhoff > 0xffff) return false;
  if (skb.skb.encapsulation) skb.skb.pkt.inner_l3_ofs = static_cast<uint16_t>(nhoff);
  const uint16_t old_len = GetBe16(iph + hdr::kIpv4TotLenOfs);
  const uint16_t new_len = static_cast<uint16_t>(skb.skb.len() - nhoff);
  PutBe16(iph + hdr::kIpv4TotLenOfs, new_len);
  const uint16_t old_check = GetBe16(iph + hdr::kIpv4CsumOfs);
  PutBe16(iph + hdr::kIpv4CsumOfs, csum::Update16(old_check, old_len, new_len));
  const size_t thoff = nhoff + hdr::kIpv4MinLen;
  if (iph[hdr::kIpv4ProtoOfs] == hdr::kProtoTcp) return Tcp4GroComplete(skb, thoff, ctx);
  if (iph[hdr::kIpv4ProtoOfs] == hdr::kProtoUdp) return Udp4GroComplete(skb, thoff, ctx);
  return false;
}

bool Ipv6GroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx) {
  // torvalds/linux net/ipv6/ip6_offload.c ipv6_gro_complete: payload_len is
  // the merged length (BIG TCP's jumbo header is not modelled: gro_max_size
  // above 64 KB is treated as 64 KB).
  uint8_t* iph = GroHeaderMut(skb, nhoff, hdr::kIpv6Len);
  if (!iph) return false;
  const size_t payload = skb.skb.len() - nhoff - hdr::kIpv6Len;
  if (payload > 0xffff) return false;
  if (skb.skb.encapsulation) skb.skb.pkt.inner_l3_ofs = static_cast<uint16_t>(nhoff);
  PutBe16(iph + hdr::kIpv6PlenOfs, static_cast<uint16_t>(payload));
  const size_t thoff = nhoff + hdr::kIpv6Len;
  if (iph[hdr::kIpv6NextOfs] == hdr::kProtoTcp) return Tcp6GroComplete(skb, thoff, ctx);
  if (iph[hdr::kIpv6NextOfs] == hdr::kProtoUdp) return Udp6GroComplete(skb, thoff, ctx);
  return false;
}

bool EthGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx) {
  // eth_gro_complete: records the inner MAC header, then the inner L3.
  const uint8_t* eh = GroHeader(skb, nhoff, hdr::kEthLen);
  if (!eh) return false;
  if (skb.skb.encapsulation) skb.skb.pkt.inner_l2_ofs = static_cast<uint16_t>(nhoff);
  const uint16_t type = GetBe16(eh + 12);
  if (type == hdr::kEthTypeIpv4) return InetGroComplete(skb, nhoff + hdr::kEthLen, ctx);
  if (type == hdr::kEthTypeIpv6) return Ipv6GroComplete(skb, nhoff + hdr::kEthLen, ctx);
  return false;
}

}  // namespace offlab::kernel
