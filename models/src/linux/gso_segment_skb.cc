// skb_segment and skb_segment_list (net/core/skbuff.c) and the SKB_GSO_CB
// checksum helpers (include/net/gso.h), torvalds/linux 7d0a66e4bb90 (v6.18)
// unless a line says otherwise. The bytes of a segment do not depend on how
// the kernel builds it (copy, page-frag references, or a clone of a
// frag_list member); what does is the work (bytes copied and checksummed),
// the segment's ip_summed, and whether the kernel gets there at all (BUG()).
#include <algorithm>
#include <numeric>

#include "offlab/linux/gso_segment_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

namespace offlab::kernel::gso_internal {

void GsoResetChecksum(Seg& seg, uint16_t res) {
  // include/net/gso.h :47-55.
  if (seg.skb.remcsum_offload) return;
  seg.cb_csum = res;
  seg.cb_csum_start = seg.skb.csum_start;
}

uint16_t GsoMakeChecksum(Seg& seg, uint16_t transport, uint16_t res) {
  // include/net/gso.h :65-75.
  const size_t plen = seg.cb_csum_start > transport ? seg.cb_csum_start - transport : 0;
  const uint64_t partial = seg.cb_csum;
  seg.cb_csum = res;
  seg.cb_csum_start = transport;
  return csum::Finish(SwChecksum(seg.skb, transport, plen, partial));
}

namespace {

constexpr size_t kMaxSkbFrags = 17;  // MAX_SKB_FRAGS (CONFIG_MAX_SKB_FRAGS default)

// A segment's header: every byte before `doffset` (skb_segment copies the
// tunnel headers too, :4885-4887) and the skb fields __copy_skb_header
// copies; the GSO fields of skb_shared_info start out clear.
Seg NewSeg(const SkBuff& head, uint16_t doffset, size_t offset, size_t len) {
  Seg s;
  SkBuff& n = s.skb;
  n.pkt = Packet(nullptr, 0, 0);
  n.pkt.Reserve(size_t{doffset} + len);
  n.pkt.Put(head.pkt.data(), doffset);
  n.pkt.Put(head.pkt.data() + doffset + offset, len);
  n.pkt.l2_5_ofs = head.pkt.l2_5_ofs;
  n.pkt.l3_ofs = head.pkt.l3_ofs;
  n.pkt.l4_ofs = head.pkt.l4_ofs;
  n.pkt.inner_l2_ofs = head.pkt.inner_l2_ofs;
  n.pkt.inner_l3_ofs = head.pkt.inner_l3_ofs;
  n.pkt.inner_l4_ofs = head.pkt.inner_l4_ofs;
  n.ip_summed = head.ip_summed;
  n.csum_level = head.csum_level;
  n.csum = head.csum;
  n.csum_from = head.csum_from;
  n.csum_start = head.csum_start;
  n.csum_offset = head.csum_offset;
  n.csum_valid = head.csum_valid;
  n.csum_not_inet = head.csum_not_inet;
  n.encapsulation = head.encapsulation;
  n.remcsum_offload = head.remcsum_offload;
  s.cb_csum_start = doffset;
  s.data_offset = doffset;
  return s;
}

}  // namespace

SegResult SkbSegment(Ctx& ctx, const SkBuff& head, uint16_t doffset, uint16_t proto,
                     uint64_t features) {
  // net/core/skbuff.c :4695-5040.
  const KernelVersion kv = ctx.kv;
  if (doffset > head.len() || !head.gso_size) return Error(gso_err::kInval);
  const size_t payload = head.len() - doffset;
  const std::vector<uint32_t>& members = head.frag_list_lens;
  const size_t member_sum = std::accumulate(members.begin(), members.end(), size_t{0});
  if (member_sum > payload) return Error(gso_err::kInval);
  // The head's own data (linear area and page frags) comes first, then the
  // frag_list members. With page frags the linear area holds headers only.
  const size_t head_part = payload - member_sum;
  const size_t head_lin = head.nr_frags ? 0 : head_part;
  const bool mlin = ctx.opt.frag_list_linear;
  const bool mhf = ctx.opt.frag_list_head_frag;
  size_t mss = head.gso_size;

  // :4716-4735 an untrusted gso_size (DODGY) with linear non-head_frag
  // members that need not end on gso_size boundaries: copy instead of
  // sharing (no SG). Since v5.3 ("net: gso: Fix skb_segment splat when
  // splitting gso_size mangled skb having linear-headed frag_list",
  // 3dcbdb134f32; absent in v4.19, present in v5.10 skbuff.c).
  if (kv.AtLeast(5, 3) && (head.gso_type & gso::kDodgy) && mss != head_lin && !members.empty() &&
      mlin && !mhf)
    features &= ~netif::kSg;
  if (!proto) return Error(gso_err::kInval);  // :4737-4740
  const bool sg = features & netif::kSg;
  const bool csum = CanChecksumProtocol(features, proto);  // :4742-4743

  // :4745-4786 with SG and checksum offload: GSO_PARTIAL keeps all whole
  // MSS blocks in one GSO segment; without it a frag_list whose members are
  // equal and page-backed (head_frag linear areas since v4.17, "net: permit
  // skb_segment on head_frag frag_list skb" 13acc94eff12; v4.11
  // skbuff.c:3105 took none) is split at the members into GSO segments.
  size_t partial_segs = 0;
  if (sg && csum) {
    bool split = true;
    size_t len = payload;
    if (!(features & netif::kGsoPartial)) {
      split = !members.empty() && NetGsoOk(features, head.gso_type);
      for (size_t i = 0; split && i < members.size(); i++) {
        if (members[i] != members[0] && i + 1 < members.size()) split = false;
        if (mlin && !(kv.AtLeast(4, 17) && mhf)) split = false;
      }
      len = head_part;
      if (split && len != members[0]) split = false;
      if (split) Count(ctx.counters, "gso_frag_list_split");
    }
    if (split) {
      partial_segs = std::min<size_t>(len, 0xfffe) / mss;
      if (partial_segs > 1)
        mss *= partial_segs;
      else
        partial_segs = 0;
    }
  }

  // Member k covers [mstart[k], mstart[k] + members[k]) of the payload.
  std::vector<size_t> mstart(members.size());
  for (size_t k = 0, at = head_part; k < members.size(); at += members[k], k++) mstart[k] = at;
  // v6.1 moved the frag_list clone test before hsize is clamped, so that
  // without SG a member of exactly one segment is cloned, and copies
  // without SG no longer checksum what the device can (absent in v5.10,
  // present in v6.1.0 skbuff.c).
  const bool v61 = kv.AtLeast(6, 1);

  SegResult r;
  size_t offset = 0;
  do {
    const size_t len = std::min(mss, payload - offset);  // :4805-4811
    const long hsize = static_cast<long>(head_lin) - static_cast<long>(offset);
    size_t hs = static_cast<size_t>(std::max(hsize, 0L));  // :4858-4861
    if (hs > len || !sg) hs = len;
    const auto at = std::find(mstart.begin(), mstart.end(), offset);
    const bool at_member = offset >= head_part && at != mstart.end() && mlin;
    const size_t k = static_cast<size_t>(at - mstart.begin());
    // :4815-4816 (v4.11 skbuff.c:3150 tested the clamped hsize).
    const bool clone = (v61 ? hsize <= 0 : hs == 0) && at_member && (members[k] == len || sg);
    size_t copied = doffset;
    bool via_frags = false;
    if (clone) {
      // :4817 BUG_ON(skb_headlen(list_skb) > len), and :4830 BUG_ON(i >=
      // nfrags) when a linear member is shorter than the segment.
      if (members[k] != len) return Error(gso_err::kBug);
    } else if (sg && hs < len) {
      // :4921-4980 the rest of the segment as page-frag references. A
      // linear member reached here needs head_frag (:4935, since v4.17;
      // v4.11 skbuff.c:3244 BUG_ON(skb_headlen(list_skb))).
      copied += hs;
      via_frags = true;
      size_t pieces = offset + hs < head_part ? 1 : 0;
      for (size_t m = 0; m < members.size(); m++) {
        if (mstart[m] + members[m] <= offset + hs || mstart[m] >= offset + len) continue;
        pieces++;
        if (mlin && !(kv.AtLeast(4, 17) && mhf)) return Error(gso_err::kBug);
      }
      if (pieces > kMaxSkbFrags) return Error(gso_err::kInval);  // :4945-4951
    } else {
      copied += len;
    }

    Seg s = NewSeg(head, doffset, offset, len);
    s.skb.nr_frags = via_frags ? 1 : 0;
    // :4892-4908 a copy without SG (before v6.1 always) and :4982-4995 any
    // segment the device cannot checksum: CHECKSUM_NONE (kept PARTIAL under
    // remote checksum offload) and the payload sum for the protocol
    // handlers' gso_make_checksum.
    const bool sw_csum = !csum || (!sg && !clone && !v61);
    if (sw_csum) {
      if (!s.skb.remcsum_offload) s.skb.ip_summed = IpSummed::kNone;
      s.cb_csum = SwChecksum(s.skb, doffset, len);
      Count(ctx.counters, "gso_csum_bytes", len);
    }
    work::Segment(copied);
    Count(ctx.counters, "gso_copy_bytes", copied);
    r.segs.push_back(std::move(s));
    offset += len;
  } while (offset < payload);

  // :5004-5027 partial segments are GSO skbs of gso_size (the last one only
  // if more than one MSS remains).
  if (partial_segs) {
    uint32_t type = head.gso_type;
    if (features & netif::kGsoPartial) {
      type |= gso::kPartial;
      Count(ctx.counters, "gso_partial");
    }
    type &= ~gso::kDodgy;
    for (Seg& s : r.segs) {
      s.skb.gso_size = head.gso_size;
      s.skb.gso_segs = static_cast<uint16_t>(partial_segs);
      s.skb.gso_type = type;
      s.data_offset = doffset;
    }
    SkBuff& tail = r.segs.back().skb;
    const size_t tail_payload = tail.len() - doffset;
    if (tail_payload <= head.gso_size)
      tail.gso_size = 0;
    else if (r.segs.size() > 1)
      tail.gso_segs = static_cast<uint16_t>((tail_payload + head.gso_size - 1) / head.gso_size);
  }
  return r;
}

SegResult SkbSegmentList(Ctx& ctx, const SkBuff& head, uint64_t features) {
  // net/core/skbuff.c :4594-4684: the members (each a packet from its
  // network header on, as skb_gro_receive_list kept them) get the head's MAC
  // header again; the head keeps its own data and loses its GSO state.
  const std::vector<uint32_t>& members = head.frag_list_lens;
  const size_t member_sum = std::accumulate(members.begin(), members.end(), size_t{0});
  const uint16_t mac_len = head.pkt.l3_ofs;
  if (mac_len == kNoOffset || head.pkt.l4_ofs == kNoOffset || member_sum > head.len() ||
      head.pkt.l4_ofs < size_t{mac_len} + hdr::kIpv4MinLen ||
      head.len() - member_sum < size_t{head.pkt.l4_ofs} + hdr::kTcpMinLen ||
      head.len() - member_sum > 0xffff)
    return Error(gso_err::kInval);
  const size_t head_len = head.len() - member_sum;
  const size_t head_nh_len = head.pkt.l4_ofs - head.pkt.l3_ofs;

  SegResult r;
  Seg h = NewSeg(head, static_cast<uint16_t>(head_len), 0, 0);
  h.skb.nr_frags = head.nr_frags;
  // :4671-4673 skb_needs_linearize on the head (frag_list now gone).
  if (h.skb.nr_frags && !(features & netif::kSg)) {
    const size_t lin = head_len - std::min(head_len, size_t{head.pkt.l4_ofs});
    h.skb.nr_frags = 0;
    work::Segment(lin);
    Count(ctx.counters, "gso_copy_bytes", lin);
  }
  r.segs.push_back(std::move(h));

  size_t ofs = head_len;
  for (uint32_t m : members) {
    Seg s = NewSeg(head, mac_len, ofs - mac_len, 0);
    s.skb.pkt.Put(head.pkt.data() + ofs, m);
    ofs += m;
    // :4649-4653 the transport header moves by the difference of the
    // network header lengths (IPv4 options).
    size_t nh_len = head_nh_len;
    const uint8_t* ip = s.skb.pkt.data() + mac_len;
    if (m < 1) return Error(gso_err::kInval);
    if ((ip[0] >> 4) == 4) nh_len = (ip[0] & 0x0f) * 4u;
    if (m < nh_len + hdr::kTcpMinLen) return Error(gso_err::kInval);
    s.skb.pkt.l4_ofs = static_cast<uint16_t>(mac_len + nh_len);
    s.skb.nr_frags = ctx.opt.frag_list_linear ? 0 : 1;
    // :4654-4661 the MAC header is copied; a paged member without SG is
    // linearized.
    size_t copied = mac_len;
    if (s.skb.nr_frags && !(features & netif::kSg)) {
      s.skb.nr_frags = 0;
      copied += m;
    }
    work::Segment(copied);
    Count(ctx.counters, "gso_copy_bytes", copied);
    r.segs.push_back(std::move(s));
  }
  Count(ctx.counters, "gso_fraglist");
  return r;
}

}  // namespace offlab::kernel::gso_internal
