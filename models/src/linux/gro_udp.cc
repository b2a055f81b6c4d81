// UDP GRO: udp4/6_gro_receive (checksum), udp_gro_receive (hand a tunnel
// socket's frames to its gro_receive, or merge plain UDP segments), and
// udp4/6_gro_complete + udp_gro_complete. The tunnel admission rule changed
// across kernels, and which one a kernel has decides whether a VXLAN flow
// is merged at all:
//  - v3.14 (b582ef0990d4 "net: Add GRO support for UDP encapsulating
//    protocols"; torvalds/linux 00d115fc758c net/ipv4/udp_offload.c
//    udp_gro_receive): no UDP checksum work; only a frame the NIC marked
//    skb->encapsulation, or CHECKSUM_COMPLETE, enters the tunnel's GRO.
//  - v3.18 (Tom Herbert, 57c67ff4bd92 "udp: additional GRO support", with
//    the skb_gro_checksum_* bookkeeping of 573e8fca255a): the outer UDP
//    checksum is validated (zero allowed) and converted, and the tunnel's
//    GRO needs a validated checksum (csum_cnt or csum_valid) or PARTIAL --
//    so a zero-checksum tunnel is never merged. RHEL 7.1 is taken to ship
//    this rule (see version note below).
//  - v5.12 (89e5c58fc1e2, also in 5.4.106 / 4.19.181 stable): `uh->check &&`
//    exempts zero-checksum tunnels from that requirement again.
//  - v6.18: the same test after a socket lookup (udp_encap_needed_key; the
//    tunnel is whatever socket owns the destination port), encap_mark
//    limits GRO to one tunnel level.
// RHEL 7: the 7.1 kernel (3.10.0-229) carries VXLAN GRO with the 3.18-era
// csum_cnt/csum_valid bookkeeping; its tunnel GRO hinging on the outer UDP
// checksum (merged with one, not without) is the 3.18 rule. This is
// inferred from that behaviour, not read from Red Hat's source.
#include "offlab/linux/geneve_gro.h"
#include "offlab/linux/gro_cb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kUdpGroCntMax = 64;  // UDP_GRO_CNT_MAX

bool HerbertUdpRule(const KernelVersion& kv) { return kv.rhel7 || kv.AtLeast(3, 18); }

GroPacket* UdpGroReceiveSegment(GroList& head, GroPacket& skb, size_t off, GroCtx& ctx) {
  // udp_gro_receive_segment (e20cf8d3f1f7 "udp: implement GRO for plain UDP
  // sockets", v5.0; v6.18 form).
  const uint8_t* uh = GroHeader(skb, off, hdr::kUdpLen);
  if (!uh || GetBe16(uh + hdr::kUdpCsumOfs) == 0) {
    // "requires non zero csum, for symmetry with GSO"
    ctx.Why("udp_zero_csum");
    skb.cb.flush = true;
    return nullptr;
  }
  const uint16_t ulen = GetBe16(uh + hdr::kUdpLenOfs);
  if (ulen <= hdr::kUdpLen || ulen != GroLen(skb)) {
    ctx.Why("udp_len");
    skb.cb.flush = true;
    return nullptr;
  }
  skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kUdpLen);
  for (GroPacket& p : head) {
    if (!p.cb.same_flow) continue;
    const uint8_t* uh2 = GroHeader(p, p.cb.transport, hdr::kUdpLen);
    if (!uh2 || GetBe32(uh) != GetBe32(uh2)) {
      p.cb.same_flow = false;
      continue;
    }
    if (skb.cb.is_flist != p.cb.is_flist) {
      skb.cb.flush = true;
      return &p;
    }
    // L3 flush checks reached UDP segments in v6.9: "net: gro: add flush
    // check in udp_gro_receive_segment" (Richard Gobert, in Linux 6.9-rc7's
    // shortlog of 5 May 2024) took NAPI_GRO_CB(p)->flush and flush_id as
    // tcp_gro_receive did -- GroNetworkFlush's pre-6.10 form; v6.10's
    // 4b0ebbca3e16 moved them to gro_receive_network_flush.
    const int flush = ctx.cfg.kv.AtLeast(6, 9) ? GroNetworkFlush(p, skb, off, ctx.cfg.kv) : 0;
    const uint16_t ulen2 = GetBe16(uh2 + hdr::kUdpLenOfs);
    int ret = 0;
    GroPacket* pp = nullptr;
    if (ulen > ulen2 || flush) {
      pp = &p;
    } else if (skb.cb.is_flist) {
      if (skb.skb.ip_summed != p.skb.ip_summed || skb.skb.csum_level != p.skb.csum_level) {
        skb.cb.flush = true;
        return nullptr;
      }
      ret = SkbGroReceiveList(p, skb);
    } else {
      GroPostpullRcsum(skb, off, hdr::kUdpLen);
      ret = SkbGroReceive(p, skb, ctx);
    }
    // A shorter datagram is merged as the last one; the packet also ends at
    // UDP_GRO_CNT_MAX segments.
    if (ret || ulen != ulen2 || p.cb.count >= kUdpGroCntMax) pp = &p;
    return pp;
  }
  return nullptr;
}

// udp_gro_receive before 3.18: the 3.14 admission rule.
GroPacket* LegacyUdpGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  GroPacket* pp = nullptr;
  bool flush = true;
  const size_t off = skb.cb.data_offset;
  const uint8_t* uh = GroHeader(skb, off, hdr::kUdpLen);
  if (skb.cb.encap_mark || (!skb.skb.encapsulation && skb.skb.ip_summed != IpSummed::kComplete)) {
    if (!skb.cb.encap_mark) ctx.NotValidated("udp_tunnel_not_encapsulated");
  } else if (uh) {
    skb.cb.encap_mark = true;
    const GroVxlanSocket* vs = FindVxlanSocket(ctx.cfg, GetBe16(uh + hdr::kTcpDstOfs));
    if (!vs) {
      ctx.Why("udp_no_tunnel");
    } else {
      flush = false;
      for (GroPacket& p : head) {
        if (!p.cb.same_flow) continue;
        const uint8_t* uh2 = GroHeader(p, off, hdr::kUdpLen);
        if (!uh2 || GetBe32(uh) != GetBe32(uh2)) p.cb.same_flow = false;
      }
      skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kUdpLen);
      pp = VxlanGroReceive(head, skb, *vs, ctx);
    }
  }
  skb.cb.flush |= flush;
  return pp;
}

GroPacket* UdpGroReceive(GroList& head, GroPacket& skb, size_t off, GroCtx& ctx) {
  // udp_gro_receive (v6.18 net/ipv4/udp_offload.c).
  const KernelVersion& kv = ctx.cfg.kv;
  const uint8_t* uh = GroHeader(skb, off, hdr::kUdpLen);
  const uint16_t check = GetBe16(uh + hdr::kUdpCsumOfs);
  const uint16_t dport = GetBe16(uh + hdr::kTcpDstOfs);
  const GroVxlanSocket* vs = FindVxlanSocket(ctx.cfg, dport);
  // A Geneve socket's gro_receive is taken through the same admission.
  const GroGeneveSocket* gs = vs ? nullptr : FindGeneveSocket(ctx.cfg, dport);
  GroPacket* pp = nullptr;
  bool flush = true;
  skb.cb.is_flist = false;
  if (!vs && !gs) {
    // Not a tunnel: L4 aggregation for a UDP_GRO socket, for forwarding
    // with NETIF_F_GRO_UDP_FWD, or as fraglist GRO (9fd1ff5d2ac7, v5.6).
    const GroUdpSocket* sk = FindUdpSocket(ctx.cfg, dport);
    if (kv.AtLeast(5, 0)) {
      const uint64_t f = ctx.cfg.features;
      if (kv.AtLeast(5, 6) && (f & netif::kGroFraglist))
        skb.cb.is_flist = sk ? !sk->gro_enabled : true;
      if ((!sk && (f & netif::kGroUdpFwd)) || (sk && sk->gro_enabled) || skb.cb.is_flist) {
        if (RecursionTooDeep(skb)) {
          skb.cb.flush = true;
          return nullptr;
        }
        return UdpGroReceiveSegment(head, skb, off, ctx);
      }
    }
    ctx.Why("udp_no_gro_socket");
    skb.cb.flush = true;
    return nullptr;
  }
  bool unvalidated =
      skb.skb.ip_summed != IpSummed::kPartial && skb.cb.csum_cnt == 0 && !skb.cb.csum_valid;
  if (kv.AtLeast(5, 12)) unvalidated = unvalidated && check != 0;
  if (skb.cb.encap_mark) {
    ctx.Why("udp_tunnel_nested");
  } else if (unvalidated) {
    ctx.NotValidated("udp_tunnel_csum_unvalidated");
  } else {
    skb.cb.encap_mark = true;  // one tunnel level per frame
    flush = false;
    for (GroPacket& p : head) {
      if (!p.cb.same_flow) continue;
      // Same ports, and checksums both zero or both present.
      const uint8_t* uh2 = GroHeader(p, off, hdr::kUdpLen);
      if (!uh2 || GetBe32(uh) != GetBe32(uh2) ||
          (check == 0) != (GetBe16(uh2 + hdr::kUdpCsumOfs) == 0))
        p.cb.same_flow = false;
    }
    skb.cb.data_offset = static_cast<uint16_t>(off + hdr::kUdpLen);
    GroPostpullRcsum(skb, off, hdr::kUdpLen);
    if (RecursionTooDeep(skb))
      skb.cb.flush = true;
    else
      pp = vs ? VxlanGroReceive(head, skb, *vs, ctx) : GeneveGroReceive(head, skb, ctx);
  }
  skb.cb.flush |= flush;
  return pp;
}

GroPacket* UdpXGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  // udp4_gro_receive / udp6_gro_receive.
  const size_t off = skb.cb.data_offset;
  const uint8_t* uh = GroHeader(skb, off, hdr::kUdpLen);
  if (!uh) {
    skb.cb.flush = true;
    return nullptr;
  }
  if (!HerbertUdpRule(ctx.cfg.kv)) return LegacyUdpGroReceive(head, skb, ctx);
  skb.cb.transport = static_cast<uint16_t>(off);
  if (!skb.cb.flush) {
    // Zero means "no checksum" and is accepted here; a present one is
    // verified and, if hardware vouched for it, turned into a running sum.
    const uint16_t check = GetBe16(uh + hdr::kUdpCsumOfs);
    const size_t nh = skb.cb.network_offsets[skb.cb.encap_mark ? 1 : 0];
    const uint64_t pseudo = GroPseudo(skb, nh, hdr::kProtoUdp);
    if (!GroChecksumValidate(skb, true, check, pseudo, ctx)) {
      ctx.NotValidated("udp_csum");
      skb.cb.flush = true;
      return nullptr;
    }
    if (check) GroChecksumTryConvert(skb, pseudo);
  }
  return UdpGroReceive(head, skb, off, ctx);
}

bool UdpGroCompleteSegment(GroPacket& skb, size_t uhoff) {
  // udp_gro_complete_segment: CHECKSUM_PARTIAL over UDP, SKB_GSO_UDP_L4.
  skb.skb.csum_start = static_cast<uint16_t>(uhoff);
  skb.skb.csum_offset = hdr::kUdpCsumOfs;
  skb.skb.ip_summed = IpSummed::kPartial;
  skb.skb.gso_segs = skb.cb.count;
  skb.skb.gso_type |= gso::kUdpL4;
  if (skb.skb.encapsulation) skb.skb.pkt.inner_l4_ofs = static_cast<uint16_t>(uhoff);
  return true;
}

bool UdpXGroComplete(GroPacket& skb, size_t uhoff, const GroCtx& ctx) {
  const KernelVersion& kv = ctx.cfg.kv;
  uint8_t* uh = GroHeaderMut(skb, uhoff, hdr::kUdpLen);
  if (!uh || skb.skb.len() - uhoff > 0xffff) return false;
  const uint16_t ulen = static_cast<uint16_t>(skb.skb.len() - uhoff);
  if (skb.cb.is_flist && !skb.cb.encap_mark) {
    PutBe16(uh + hdr::kUdpLenOfs, ulen);
    skb.skb.gso_type |= gso::kFraglist | gso::kUdpL4;
    skb.skb.gso_segs = skb.cb.count;
    SkbIncrChecksumUnnecessary(skb.skb);
    return true;
  }
  const bool legacy = !HerbertUdpRule(kv);
  const uint16_t check = GetBe16(uh + hdr::kUdpCsumOfs);
  if (check && !legacy) {
    // ~udp_v4_check(len, saddr, daddr, 0): the folded pseudo-header sum.
    const size_t nh = skb.cb.network_offsets[skb.skb.encapsulation ? 1 : 0];
    PutBe16(uh + hdr::kUdpCsumOfs,
            csum::Fold(PseudoHeaderSum(skb.skb, static_cast<uint16_t>(nh), hdr::kProtoUdp, ulen)));
  }
  // udp_gro_complete.
  PutBe16(uh + hdr::kUdpLenOfs, ulen);
  const GroVxlanSocket* vs = FindVxlanSocket(ctx.cfg, GetBe16(uh + hdr::kTcpDstOfs));
  const GroGeneveSocket* gs =
      vs ? nullptr : FindGeneveSocket(ctx.cfg, GetBe16(uh + hdr::kTcpDstOfs));
  bool ok = true;
  if (vs || gs) {
    if (!legacy) {
      // The 3.14 path left gso_type and skb->encapsulation alone.
      skb.skb.gso_type = check ? gso::kUdpTunnelCsum : gso::kUdpTunnel;
      skb.cb.encap_mark = false;
      skb.skb.encapsulation = true;
    }
    // vxlan_gro_complete -> eth_gro_complete after the VXLAN header;
    // geneve_gro_complete after the Geneve header and its options.
    ok = vs ? EthGroComplete(skb, uhoff + hdr::kUdpLen + hdr::kVxlanLen, ctx)
            : GeneveGroComplete(skb, uhoff + hdr::kUdpLen, ctx);
  } else {
    ok = UdpGroCompleteSegment(skb, uhoff);
  }
  if (skb.skb.remcsum_offload) skb.skb.gso_type |= gso::kTunnelRemcsum;
  return ok;
}

}  // namespace

const GroVxlanSocket* FindVxlanSocket(const GroConfig& cfg, uint16_t port) {
  for (const GroVxlanSocket& s : cfg.vxlan)
    if (s.port == port) return &s;
  return nullptr;
}

const GroUdpSocket* FindUdpSocket(const GroConfig& cfg, uint16_t port) {
  for (const GroUdpSocket& s : cfg.udp_sockets)
    if (s.port == port) return &s;
  return nullptr;
}

GroPacket* Udp4GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  return UdpXGroReceive(head, skb, ctx);
}
GroPacket* Udp6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  return UdpXGroReceive(head, skb, ctx);
}
bool Udp4GroComplete(GroPacket& skb, size_t uhoff, const GroCtx& ctx) {
  return UdpXGroComplete(skb, uhoff, ctx);
}
bool Udp6GroComplete(GroPacket& skb, size_t uhoff, const GroCtx& ctx) {
  return UdpXGroComplete(skb, uhoff, ctx);
}

}  // namespace offlab::kernel
