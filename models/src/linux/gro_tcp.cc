// TCP GRO: tcp4_gro_receive / tcp6_gro_receive (checksum, then the merge
// rules of tcp_gro_receive) and tcp4/6_gro_complete + tcp_gro_complete
// (the merged packet becomes a CHECKSUM_PARTIAL GSO skb). Source:
// torvalds/linux 023af5a72ab1 net/ipv4/tcp_offload.c and
// net/ipv6/tcpv6_offload.c (v6.18 code), earlier variants cited inline.
#include "offlab/linux/gro_cb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

// tcp_flag_word() bits (TCP_FLAG_*, include/net/tcp.h) in the host-order
// word at TCP offset 12: doff | reserved/AE | flags | window.
constexpr uint32_t kFlagCwr = 0x00800000, kFlagUrg = 0x00200000, kFlagPsh = 0x00080000,
                   kFlagRst = 0x00040000, kFlagSyn = 0x00020000, kFlagFin = 0x00010000;
// UDP_GRO_CNT_MAX-like cap of fraglist TCP GRO (tcp_gro_receive, is_flist).
constexpr uint16_t kFraglistMaxCount = 64;

GroPacket* TcpGroLookup(GroList& head, const GroPacket& skb, size_t th) {
  // tcp_gro_lookup: the first same-flow packet with the same ports.
  const uint8_t* t = GroHeader(skb, th, 4);
  for (GroPacket& p : head) {
    if (!p.cb.same_flow) continue;
    const uint8_t* t2 = GroHeader(p, p.cb.transport, 4);
    if (!t || !t2 || GetBe32(t) != GetBe32(t2)) {
      p.cb.same_flow = false;
      continue;
    }
    return &p;
  }
  return nullptr;
}

// tcp_gro_pull_header: the header must be there in full; returns its
// offset, or 0 when malformed.
size_t TcpGroPullHeader(GroPacket& skb) {
  const size_t off = skb.cb.data_offset;
  const uint8_t* th = GroHeader(skb, off, hdr::kTcpMinLen);
  if (!th) return 0;
  const size_t thlen = static_cast<size_t>(th[hdr::kTcpOffFlagsOfs] >> 4) * 4;
  if (thlen < hdr::kTcpMinLen || !GroHeader(skb, off, thlen)) return 0;
  skb.cb.data_offset = static_cast<uint16_t>(off + thlen);
  return off;
}

void CheckFraglist(GroList& head, GroPacket& skb, size_t th, const GroConfig& cfg) {
  // tcp4_check_fraglist_gro / tcp6_check_fraglist_gro (v6.11+): with
  // NETIF_F_GRO_FRAGLIST, a flow without an established local socket (it is
  // being forwarded) is chained on frag_list instead of merged.
  if (!(cfg.features & netif::kGroFraglist)) return;
  if (GroPacket* p = TcpGroLookup(head, skb, th)) {
    skb.cb.is_flist = p->cb.is_flist;
    return;
  }
  skb.cb.is_flist = !cfg.tcp_local_socket;
}

GroPacket* TcpGroReceive(GroList& head, GroPacket& skb, size_t th, GroCtx& ctx) {
  // tcp_gro_receive (torvalds/linux 023af5a72ab1 net/ipv4/tcp_offload.c).
  const KernelVersion& kv = ctx.cfg.kv;
  const uint8_t* t = GroHeader(skb, th, hdr::kTcpMinLen);
  const size_t thlen = static_cast<size_t>(t[hdr::kTcpOffFlagsOfs] >> 4) * 4;
  const uint32_t len = static_cast<uint32_t>(GroLen(skb));
  const uint32_t flags = GetBe32(t + hdr::kTcpOffFlagsOfs);
  GroPacket* pp = nullptr;
  uint32_t mss = 1;
  uint32_t flush = 1;
  GroPacket* p = TcpGroLookup(head, skb, th);
  if (p) {
    const uint8_t* t2 = GroHeader(*p, p->cb.transport, thlen);
    const uint32_t flags2 = t2 ? GetBe32(t2 + hdr::kTcpOffFlagsOfs) : ~flags;
    // A CWR segment never joins; otherwise the flag word (doff, flags,
    // window) must match but for FIN and PSH, and since AccECN ("gro:
    // prevent ACE field corruption & better AccECN handling", v6.15) for
    // CWR no longer either.
    const uint32_t ignore =
        kv.AtLeast(6, 15) ? (kFlagFin | kFlagPsh) : (kFlagCwr | kFlagFin | kFlagPsh);
    flush = flags & kFlagCwr;
    flush |= (flags ^ flags2) & ~ignore;
    if (flush) ctx.Why("tcp_flags_or_window");
    if (t2) {
      // Same ACK number and byte-identical options.
      uint32_t diff = GetBe32(t + hdr::kTcpAckOfs) ^ GetBe32(t2 + hdr::kTcpAckOfs);
      for (size_t i = hdr::kTcpMinLen; i + 4 <= thlen; i += 4)
        diff |= GetBe32(t + i) ^ GetBe32(t2 + i);
      if (diff) ctx.Why("tcp_ack_or_options");
      flush |= diff;
      if (GroNetworkFlush(*p, skb, th, kv)) {
        flush |= 1;
        ctx.Why("ip_id_ttl_tos");
      }
    }
    mss = p->skb.gso_size;
    // A GSO segment train must have the held packet's mss; a single frame
    // may not be longer than it (a zero-length one wraps and never joins).
    if (skb.skb.is_gso())
      flush |= mss != skb.skb.gso_size;
    else if (len - 1 >= mss) {
      flush |= 1;
      ctx.Why("tcp_len_above_mss");
    }
    if (t2 && GetBe32(t2 + hdr::kTcpSeqOfs) + static_cast<uint32_t>(GroLen(*p)) !=
                  GetBe32(t + hdr::kTcpSeqOfs)) {
      flush |= 1;
      ctx.Why("tcp_seq");
    }
    if (p->cb.is_flist) {
      flush |= flags ^ flags2;
      flush |= skb.skb.ip_summed != p->skb.ip_summed;
      flush |= skb.skb.csum_level != p->skb.csum_level;
      flush |= p->cb.count >= kFraglistMaxCount;
      if (flush || SkbGroReceiveList(*p, skb)) mss = 1;
    } else if (flush || SkbGroReceive(*p, skb, ctx)) {
      if (!flush) ctx.Why("gro_max_size_or_flush");
      mss = 1;
    } else {
      // The merged packet keeps FIN / PSH of any segment.
      uint8_t* w = GroHeaderMut(*p, p->cb.transport + hdr::kTcpOffFlagsOfs + 1, 1);
      if (w) *w |= static_cast<uint8_t>((flags & (kFlagFin | kFlagPsh)) >> 16);
    }
  }
  // out_check_final: a segment shorter than mss, or with URG/PSH/RST/SYN/FIN,
  // ends the held packet (or goes up at once when there is none).
  if (skb.skb.is_gso())
    flush = len != uint32_t{skb.cb.count} * skb.skb.gso_size;
  else
    flush = len < mss;
  flush |= flags & (kFlagUrg | kFlagPsh | kFlagRst | kFlagSyn | kFlagFin);
  if (flush && !skb.cb.same_flow) ctx.Why("tcp_short_or_flags");
  if (p && (!skb.cb.same_flow || flush)) pp = p;
  skb.cb.flush |= flush != 0;
  return pp;
}

GroPacket* TcpXGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx, bool v6) {
  // tcp4_gro_receive / tcp6_gro_receive: verify the checksum unless the skb
  // is flushed anyway; a bad one goes up unmerged with its state.
  if (!skb.cb.flush) {
    const size_t nh = skb.cb.network_offsets[skb.cb.encap_mark ? 1 : 0];
    const uint64_t pseudo = GroPseudo(skb, nh, hdr::kProtoTcp);
    const bool ok = UseLegacyChecksums(ctx.cfg.kv)
                        ? LegacyGroChecksum(skb, pseudo, ctx)
                        : GroChecksumValidate(skb, false, 0, pseudo, ctx);
    if (!ok) {
      ctx.NotValidated("tcp_csum");
      skb.cb.flush = true;
      return nullptr;
    }
  }
  const size_t th = TcpGroPullHeader(skb);
  if (!th) {
    ctx.Why("tcp_header");
    skb.cb.flush = true;
    return nullptr;
  }
  if (ctx.cfg.kv.AtLeast(6, 11)) CheckFraglist(head, skb, th, ctx.cfg);
  (void)v6;
  return TcpGroReceive(head, skb, th, ctx);
}

// tcp_gro_complete: CHECKSUM_PARTIAL over the (inner) TCP header, one GSO
// segment per merged frame; CWR is carried as TCP_ECN, as TCP_ACCECN since
// v6.15 ("gro: prevent ACE field corruption & better AccECN handling").
void TcpGroCompleteCommon(GroPacket& skb, size_t thoff, const KernelVersion& kv) {
  if (skb.skb.encapsulation) skb.skb.pkt.inner_l4_ofs = static_cast<uint16_t>(thoff);
  skb.skb.csum_start = static_cast<uint16_t>(thoff);
  skb.skb.csum_offset = hdr::kTcpCsumOfs;
  skb.skb.ip_summed = IpSummed::kPartial;
  skb.skb.gso_segs = skb.cb.count;
  const uint8_t* th = GroHeader(skb, thoff, hdr::kTcpMinLen);
  if (th && (th[hdr::kTcpOffFlagsOfs + 1] & 0x80))
    skb.skb.gso_type |= kv.AtLeast(6, 15) ? gro_gso::kTcpAccecn : gso::kTcpEcn;
}

bool TcpXGroComplete(GroPacket& skb, size_t thoff, const GroCtx& ctx, bool v6) {
  const KernelVersion& kv = ctx.cfg.kv;
  const uint32_t base = v6 ? gso::kTcpv6 : gso::kTcpv4;
  if (skb.cb.is_flist) {
    skb.skb.gso_type |= gso::kFraglist | base;
    skb.skb.gso_segs = skb.cb.count;
    SkbIncrChecksumUnnecessary(skb.skb);
    return true;
  }
  uint8_t* th = GroHeaderMut(skb, thoff, hdr::kTcpMinLen);
  if (!th) return false;
  // The IP header of this level: network_offsets[skb->encapsulation].
  const size_t nh = skb.cb.network_offsets[skb.skb.encapsulation ? 1 : 0];
  const uint32_t tlen = static_cast<uint32_t>(skb.skb.len() - thoff);
  // ~tcp_v4_check(len, saddr, daddr, 0): the folded pseudo-header sum the
  // segmenting device or skb_checksum_help completes.
  PutBe16(th + hdr::kTcpCsumOfs,
          csum::Fold(PseudoHeaderSum(skb.skb, static_cast<uint16_t>(nh), hdr::kProtoTcp, tlen)));
  skb.skb.gso_type |= base;
  if (!v6) {
    if (kv.AtLeast(6, 18)) {
      // ip_fixedid bit 0 / bit 1 times SKB_GSO_TCP_FIXEDID (1 << 30).
      if (skb.cb.ip_fixedid & 1) skb.skb.gso_type |= gro_gso::kTcpFixedid618;
      if (skb.cb.ip_fixedid & 2) skb.skb.gso_type |= gro_gso::kTcpFixedidInner618;
    } else if (kv.AtLeast(6, 10)) {
      if (skb.cb.ip_fixedid) skb.skb.gso_type |= gso::kTcpFixedid;
    } else if (kv.AtLeast(4, 7) && skb.cb.is_atomic) {
      skb.skb.gso_type |= gso::kTcpFixedid;
    }
  }
  TcpGroCompleteCommon(skb, thoff, kv);
  return true;
}

}  // namespace

GroPacket* Tcp4GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  return TcpXGroReceive(head, skb, ctx, false);
}
GroPacket* Tcp6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  return TcpXGroReceive(head, skb, ctx, true);
}
bool Tcp4GroComplete(GroPacket& skb, size_t thoff, const GroCtx& ctx) {
  return TcpXGroComplete(skb, thoff, ctx, false);
}
bool Tcp6GroComplete(GroPacket& skb, size_t thoff, const GroCtx& ctx) {
  return TcpXGroComplete(skb, thoff, ctx, true);
}

}  // namespace offlab::kernel
