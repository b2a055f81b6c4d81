// NAPI_GRO_CB checksum bookkeeping: what a layer may assume about its
// checksum without summing (csum_cnt from CHECKSUM_UNNECESSARY levels,
// csum/csum_valid from CHECKSUM_COMPLETE or an earlier software sum), and
// the software sum when neither helps. Rules: include/net/gro.h and
// net/core/gro.c, torvalds/linux ff269e2cd5ad / 0b1605e45c36 (unchanged in
// v6.18 as far as these helpers go), from Tom Herbert's "net:
// skb_gro_checksum_* functions" (573e8fca255a, v3.16).
#include <algorithm>

#include "offlab/linux/gro_cb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/net/checksum.h"

namespace offlab::kernel {

uint16_t CsumAdd16(uint32_t a, uint32_t b) { return csum::Fold(uint64_t{a} + b); }

uint16_t CsumSub16(uint32_t a, uint32_t b) {
  // csum_sub: adding the complement subtracts in one's-complement arithmetic.
  return csum::Fold(uint64_t{a} + static_cast<uint16_t>(~b));
}

const uint8_t* GroHeader(const GroPacket& skb, size_t off, size_t len) {
  if (off > skb.skb.len() || len > skb.skb.len() - off) return nullptr;
  return skb.skb.pkt.data() + off;
}

uint8_t* GroHeaderMut(GroPacket& skb, size_t off, size_t len) {
  if (off > skb.skb.len() || len > skb.skb.len() - off) return nullptr;
  return skb.skb.pkt.data() + off;
}

void GroPostpullRcsum(GroPacket& skb, size_t start, size_t len) {
  // skb_gro_postpull_rcsum (include/net/gro.h): the running COMPLETE-style
  // sum no longer covers the pulled header. Header bytes are not metered:
  // the meter counts payload sums.
  if (!skb.cb.csum_valid) return;
  const uint8_t* h = GroHeader(skb, start, len);
  if (!h) return;
  skb.cb.csum = CsumSub16(skb.cb.csum, csum::Fold(csum::Partial(h, len)));
}

uint64_t GroPseudo(const GroPacket& skb, size_t nh, uint8_t proto) {
  // inet_gro_compute_pseudo / ip6_gro_compute_pseudo: the transport length
  // is skb_gro_len (what is left from the current GRO offset).
  if (nh >= kNoOffset) return 0;
  return PseudoHeaderSum(skb.skb, static_cast<uint16_t>(nh), proto,
                         static_cast<uint32_t>(GroLen(skb)));
}

namespace {

// __skb_gro_checksum_complete (net/core/gro.c): sums skb_gro_len bytes from
// the GRO offset in software; csum_valid becomes 1 and csum the payload sum
// whatever the verdict, so later (inner) layers reuse it.
bool GroChecksumComplete(GroPacket& skb, GroCtx& ctx) {
  const size_t len = GroLen(skb);
  const uint64_t wsum = SkbChecksum(skb.skb, skb.cb.data_offset, len);
  ctx.stats.csum_bytes += len;
  const bool ok = CsumAdd16(skb.cb.csum, csum::Fold(wsum)) == 0xffff;
  skb.cb.csum = csum::Fold(wsum);
  skb.cb.csum_valid = true;
  return ok;
}

// skb_gro_incr_csum_unnecessary (include/net/gro.h): a verified checksum
// consumes one CHECKSUM_UNNECESSARY level, or, when none is left, records
// itself on the skb (__skb_incr_checksum_unnecessary).
void GroIncrCsumUnnecessary(GroPacket& skb) {
  if (skb.cb.csum_cnt > 0)
    skb.cb.csum_cnt--;
  else
    SkbIncrChecksumUnnecessary(skb.skb);
}

}  // namespace

bool GroChecksumValidate(GroPacket& skb, bool zero_okay, uint16_t check, uint64_t pseudo,
                         GroCtx& ctx) {
  // __skb_gro_checksum_validate_needed: not for a PARTIAL skb whose checksum
  // start is at or after this layer (the sender's stack fills it), not at
  // the remote-checksum-offload start, not while UNNECESSARY levels remain,
  // and not for a zero UDP checksum where zero means "none".
  const bool partial_here =
      skb.skb.ip_summed == IpSummed::kPartial && skb.skb.csum_start >= skb.cb.data_offset;
  const bool at_remcsum =
      skb.cb.gro_remcsum_start != 0 && skb.cb.gro_remcsum_start == skb.cb.data_offset;
  const bool needed =
      !partial_here && !at_remcsum && skb.cb.csum_cnt == 0 && (!zero_okay || check != 0);
  bool ok = true;
  if (needed) {
    // __skb_gro_checksum_validate_complete: a valid running sum settles it
    // for free; otherwise the pseudo-header seeds a software sum.
    const uint16_t psum = csum::Fold(pseudo);
    if (skb.cb.csum_valid && CsumAdd16(psum, skb.cb.csum) == 0xffff) {
      ok = true;
    } else {
      skb.cb.csum = psum;
      ok = GroChecksumComplete(skb, ctx);
    }
  }
  if (ok) GroIncrCsumUnnecessary(skb);
  return ok;
}

void GroChecksumTryConvert(GroPacket& skb, uint64_t pseudo) {
  // skb_gro_checksum_try_convert: a checksum verified through csum_cnt
  // (hardware) becomes a COMPLETE-style sum of ~pseudo over the rest, so
  // inner checksums can be verified without summing.
  if (skb.cb.csum_cnt == 0 && !skb.cb.csum_valid) {
    skb.cb.csum = static_cast<uint16_t>(~csum::Fold(pseudo));
    skb.cb.csum_valid = true;
  }
}

bool UseLegacyChecksums(const KernelVersion& kv) { return !kv.rhel7 && !kv.AtLeast(3, 16); }

bool LegacyGroChecksum(GroPacket& skb, uint64_t pseudo, GroCtx& ctx) {
  // tcp4_gro_receive / tcp6_gro_receive before 573e8fca255a (torvalds/linux
  // v3.14 net/ipv4/tcp_offload.c): switch on skb->ip_summed; UNNECESSARY is
  // trusted whatever level it described (the outer one in a tunnel).
  bool ok = true;
  switch (skb.skb.ip_summed) {
    case IpSummed::kNone: {
      const size_t len = GroLen(skb);
      const uint64_t wsum = SkbChecksum(skb.skb, skb.cb.data_offset, len);
      ctx.stats.csum_bytes += len;
      ok = csum::Fold(csum::Add(wsum, pseudo)) == 0xffff;
      break;
    }
    case IpSummed::kComplete:
      ok = CsumAdd16(skb.cb.csum, csum::Fold(pseudo)) == 0xffff;
      break;
    default:
      return true;
  }
  if (!ok) return false;
  skb.skb.ip_summed = IpSummed::kUnnecessary;
  skb.skb.csum_level = 0;
  return true;
}

}  // namespace offlab::kernel
