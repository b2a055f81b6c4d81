// TCP software GSO: tcp4_gso_segment / tcp6_gso_segment and tcp_gso_segment
// (net/ipv4/tcp_offload.c, net/ipv6/tcpv6_offload.c), and the address/port
// fix-up of SKB_GSO_FRAGLIST segments. torvalds/linux 7d0a66e4bb90 (v6.18)
// unless a line says otherwise.
#include <cstring>
#include <numeric>
#include <vector>

#include "offlab/linux/gso_segment_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel::gso_internal {

namespace {

// inet_proto_csum_replace{4,16,2} (net/core/utils.c) on a TCP checksum: an
// RFC 1624 update, except that a PARTIAL checksum field holds the pseudo
// header sum, which only an address (pseudohdr = true) changes.
void ProtoCsumReplace(SkBuff& skb, uint16_t check_ofs, const uint8_t* from, const uint8_t* to,
                      size_t len, bool pseudohdr) {
  uint8_t* f = skb.pkt.data() + check_ofs;
  if (skb.ip_summed != IpSummed::kPartial) {
    PutBe16(f, csum::UpdateBytes(GetBe16(f), from, to, len));
  } else if (pseudohdr) {
    // ~csum_fold(csum_add(csum_sub(csum_unfold(*sum), from), to))
    const uint64_t old_words = csum::Partial(from, len);
    uint64_t s = csum::Add(GetBe16(f), static_cast<uint16_t>(~csum::Fold(old_words)));
    s = csum::Add(s, csum::Partial(to, len));
    PutBe16(f, csum::Fold(s));
  }
}

// __tcpv4_gso_segment_list_csum (tcp_offload.c :34-86) and
// __tcpv6_gso_segment_list_csum (tcpv6_offload.c :95-147): if the head's
// addresses or ports were rewritten (NAT) after fraglist GRO, every other
// segment gets the head's, with its TCP checksum updated.
void SegmentListCsum(SegResult& r, bool ipv6) {
  if (r.segs.size() < 2) return;
  const SkBuff& head = r.segs.front().skb;
  const uint16_t hl3 = head.pkt.l3_ofs, hth = head.pkt.l4_ofs;
  const size_t alen = ipv6 ? 16 : 4;
  const size_t src = ipv6 ? hdr::kIpv6SrcOfs : hdr::kIpv4SrcOfs;
  const size_t dst = ipv6 ? hdr::kIpv6DstOfs : hdr::kIpv4DstOfs;
  // Every header the comparison reads must be there (IPv6: 40 bytes).
  for (const Seg& seg : r.segs) {
    const SkBuff& s = seg.skb;
    if (s.pkt.l4_ofs < size_t{s.pkt.l3_ofs} + dst + alen || size_t{s.pkt.l4_ofs} + 4 > s.len())
      return;
  }
  auto same = [&](const SkBuff& s) {
    const uint8_t* a = head.pkt.data();
    const uint8_t* b = s.pkt.data();
    return std::equal(a + hth, a + hth + 4, b + s.pkt.l4_ofs) &&
           std::equal(a + hl3 + src, a + hl3 + src + alen, b + s.pkt.l3_ofs + src) &&
           std::equal(a + hl3 + dst, a + hl3 + dst + alen, b + s.pkt.l3_ofs + dst);
  };
  if (same(r.segs[1].skb)) return;
  for (size_t i = 1; i < r.segs.size(); i++) {
    SkBuff& s = r.segs[i].skb;
    const uint8_t* h = head.pkt.data();
    uint8_t* b = s.pkt.data();
    const uint16_t check = s.pkt.l4_ofs + hdr::kTcpCsumOfs;
    for (const auto& [aofs, pofs] : {std::pair{src, hdr::kTcpSrcOfs}, {dst, hdr::kTcpDstOfs}}) {
      uint8_t* ip = b + s.pkt.l3_ofs + aofs;
      uint8_t* port = b + s.pkt.l4_ofs + pofs;
      const uint8_t* nip = h + hl3 + aofs;
      const uint8_t* nport = h + hth + pofs;
      const bool ip_same = std::equal(ip, ip + alen, nip);
      const bool port_same = std::equal(port, port + 2, nport);
      if (ip_same && port_same) continue;
      // IPv4 (:40-52) replaces both once either differs; IPv6 each alone.
      if (!ipv6 || !ip_same) ProtoCsumReplace(s, check, ip, nip, alen, true);
      if (!ipv6 || !port_same) ProtoCsumReplace(s, check, port, nport, 2, false);
      std::copy(nip, nip + alen, ip);
      std::copy(nport, nport + 2, port);
      // csum_replace4 on the IPv4 header checksum is redone by ip_send_check
      // in inet_gso_segment.
    }
  }
}

// The checksum field of the TCP header at `th` as the stack leaves it for
// CHECKSUM_PARTIAL: the folded pseudo-header sum over `tcp_len` bytes
// (__tcp_v4_send_check / __tcp_v6_send_check).
void SetPseudoCheck(SkBuff& skb, uint16_t l3, uint16_t th, bool ipv6) {
  const uint8_t* ip = skb.pkt.data() + l3;
  const size_t tcp_len = skb.len() - th;
  const uint64_t pseudo = ipv6 ? csum::PseudoIpv6(ip + hdr::kIpv6SrcOfs, ip + hdr::kIpv6DstOfs,
                                                  hdr::kProtoTcp, static_cast<uint32_t>(tcp_len))
                               : csum::PseudoIpv4(ip + hdr::kIpv4SrcOfs, ip + hdr::kIpv4DstOfs,
                                                  hdr::kProtoTcp, static_cast<uint16_t>(tcp_len));
  PutBe16(skb.pkt.data() + th + hdr::kTcpCsumOfs, csum::Fold(pseudo));
}

// The fraglist fallback below segments the skb as a byte stream, where the
// kernel's members hold only their payloads (skb_gro_receive_list pulled
// their headers, gro.c); the model keeps each member's IP and TCP headers in
// the bytes (GroPacket::flist_hdr_bytes), so they are taken out first.
void DropFraglistMemberHeaders(SkBuff& skb, bool ipv6) {
  const size_t members =
      std::accumulate(skb.frag_list_lens.begin(), skb.frag_list_lens.end(), size_t{0});
  if (members == 0 || members > skb.len()) return;
  uint8_t* d = skb.pkt.data();
  // Each member's header length, or nothing changes if one is no packet.
  std::vector<size_t> hlen;
  for (size_t k = 0, at = skb.len() - members; k < skb.frag_list_lens.size(); k++) {
    const size_t m = skb.frag_list_lens[k];
    const uint8_t* ip = d + at;
    size_t hl = ipv6 ? hdr::kIpv6Len : size_t{ip[0] & 0x0fu} * 4;
    if (m < hdr::kIpv4MinLen || hl + hdr::kTcpMinLen > m) return;
    hl += (ip[hl + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
    if (hl > m) return;
    hlen.push_back(hl);
    at += m;
  }
  size_t rd = skb.len() - members, wr = rd;
  for (size_t k = 0; k < hlen.size(); k++) {
    uint32_t& m = skb.frag_list_lens[k];
    std::memmove(d + wr, d + rd + hlen[k], m - hlen[k]);
    wr += m - hlen[k];
    rd += m;
    m = static_cast<uint32_t>(m - hlen[k]);
  }
  skb.pkt.Resize(wr);
}

// tcp_gso_segment (tcp_offload.c :132-258).
SegResult TcpGsoSegmentCore(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t th,
                            uint64_t features) {
  const uint16_t thlen = (skb.pkt.data()[th + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (thlen < hdr::kTcpMinLen) return Error(gso_err::kInval);         // :150-151
  if (skb.csum_start != th) return Error(gso_err::kInval);            // :153-154
  if (size_t{th} + thlen > skb.len()) return Error(gso_err::kInval);  // :156-157
  const uint32_t oldlen = ~static_cast<uint32_t>(skb.len() - th);     // :159
  const size_t payload = skb.len() - th - thlen;
  uint32_t mss = skb.gso_size;
  if (payload <= mss) return Error(gso_err::kInval);  // :163-164
  // :166-172 a device that takes the type (with GSO_ROBUST for DODGY) gets
  // the skb unsegmented, its untrusted gso_segs recomputed.
  if (SkbGsoOk(skb, features | kNetifGsoRobust)) {
    skb.gso_segs = static_cast<uint16_t>((payload + mss - 1) / mss);
    return SegResult{0, true, {}};
  }
  SegResult r = SkbSegment(ctx, skb, static_cast<uint16_t>(th + thlen),
                           NetworkProtocol(skb, mac_ofs), features);
  if (r.err) return r;
  // :191-192 GSO_PARTIAL and frag_list splits return GSO segments of
  // gso_segs MSS each.
  if (r.segs.front().skb.is_gso()) mss *= r.segs.front().skb.gso_segs;

  // :194-203 the pseudo-header length in the checksum field goes from the
  // skb's TCP length to one segment's, as 32-bit one's-complement sums.
  const uint32_t delta = oldlen + thlen + mss;
  uint8_t* first = r.segs.front().skb.pkt.data() + th;
  uint32_t seq = GetBe32(first + hdr::kTcpSeqOfs);
  const auto newcheck = csum::Fold(AddBe32(GetBe16(first + hdr::kTcpCsumOfs), delta));
  // :205 CWR survives only for AccECN (a v6.18 gso_type bit); before, every
  // segment but the first lost it (v4.11 tcp_offload.c:143).
  const bool keep_cwr = skb.gso_type & gso618::kTcpAccecn;
  auto finish = [&](Seg& seg, uint16_t check) {
    uint8_t* t = seg.skb.pkt.data() + th;
    PutBe16(t + hdr::kTcpCsumOfs, check);
    if (seg.skb.ip_summed == IpSummed::kPartial)
      GsoResetChecksum(seg, static_cast<uint16_t>(~check));
    else
      PutBe16(t + hdr::kTcpCsumOfs, GsoMakeChecksum(seg, th, static_cast<uint16_t>(~check)));
  };
  // :207-228 all but the last: no FIN/PSH, one segment's length.
  for (size_t i = 0; i + 1 < r.segs.size(); i++) {
    uint8_t* t = r.segs[i].skb.pkt.data() + th;
    PutBe16(t + hdr::kTcpOffFlagsOfs, GetBe16(t + hdr::kTcpOffFlagsOfs) &
                                          static_cast<uint16_t>(~(hdr::kTcpFin | hdr::kTcpPsh)));
    finish(r.segs[i], newcheck);
    seq += mss;
    uint8_t* n = r.segs[i + 1].skb.pkt.data() + th;
    PutBe32(n + hdr::kTcpSeqOfs, seq);
    if (!keep_cwr) n[hdr::kTcpOffFlagsOfs + 1] &= static_cast<uint8_t>(~0x80);
  }
  // :251-257 the last segment's own length.
  Seg& last = r.segs.back();
  uint8_t* t = last.skb.pkt.data() + th;
  const uint32_t ldelta = oldlen + static_cast<uint32_t>(last.skb.len() - th);
  finish(last, csum::Fold(AddBe32(GetBe16(t + hdr::kTcpCsumOfs), ldelta)));
  return r;
}

}  // namespace

SegResult TcpGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint16_t th,
                        bool ipv6, uint64_t features) {
  // tcp4_gso_segment (tcp_offload.c :98-130) / tcp6_gso_segment
  // (tcpv6_offload.c :159-194).
  if (!(skb.gso_type & (ipv6 ? gso::kTcpv6 : gso::kTcpv4))) return Error(gso_err::kInval);
  if (size_t{th} + hdr::kTcpMinLen > skb.len()) return Error(gso_err::kInval);
  if (skb.gso_type & gso::kFraglist) {
    // :107-114 the frag_list holds the original packets when the head's own
    // data is one gso_size (otherwise something pulled or pushed data and
    // the skb is segmented as a byte stream, its checksum recomputed). The
    // DODGY exclusion is a 6.18.y stable fix (v6.18.19 tcp_offload.c:110-111),
    // not in v6.18.0; the lab kernel (6.18.44) has it.
    const size_t members =
        std::accumulate(skb.frag_list_lens.begin(), skb.frag_list_lens.end(), size_t{0});
    const size_t thlen = (skb.pkt.data()[th + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
    const size_t own = skb.len() >= members + th + thlen ? skb.len() - members - th - thlen : 0;
    if (own == skb.gso_size && !(skb.gso_type & gso::kDodgy)) {
      SegResult r = SkbSegmentList(ctx, skb, features);
      if (!r.err) SegmentListCsum(r, ipv6);
      return r;
    }
    DropFraglistMemberHeaders(skb, ipv6);
    skb.ip_summed = IpSummed::kNone;
  }
  if (skb.ip_summed != IpSummed::kPartial) {
    // :116-127 set up the pseudo-header checksum the stack normally leaves.
    skb.ip_summed = IpSummed::kPartial;
    skb.csum_start = th;
    skb.csum_offset = hdr::kTcpCsumOfs;
    SetPseudoCheck(skb, l3, th, ipv6);
  }
  return TcpGsoSegmentCore(ctx, skb, mac_ofs, th, features);
}

}  // namespace offlab::kernel::gso_internal
