#include "offlab/linux/ovs_actions_csum.h"

#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

// Citations: torvalds/linux 05909cd9a0c8 include/net/checksum.h (csum_add
// :51, csum16_add :64, csum_block_add :78, CSUM_MANGLED_0 :111,
// csum_replace4 :118, csum_replace2 :131, inet_proto_csum_replace2 :145);
// these helpers are unchanged in v6.18 apart from __always_inline.
// net/core/utils.c inet_proto_csum_replace4/16 as of v6.18 (the stored
// torvalds/linux copy of utils.c predates them; text checked against a v6.16+
// copy of the file).

namespace offlab::kernel {

uint32_t WsumAdd(uint32_t a, uint32_t b) {
  // checksum.h:51 csum_add: a carry out of bit 31 comes back in at bit 0.
  const uint32_t r = a + b;
  return r + (r < b ? 1u : 0u);
}

uint16_t CsumFold(uint32_t sum) {
  // csum_fold: two folds of the high half into the low half, complemented.
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

uint32_t WsumPartial(const uint8_t* data, size_t len, uint32_t sum) {
  for (size_t i = 0; i + 1 < len; i += 2) sum = WsumAdd(sum, GetBe16(data + i));
  // An odd tail byte is the high byte of a last word (csum_partial pads).
  if (len & 1) sum = WsumAdd(sum, uint32_t{data[len - 1]} << 8);
  return sum;
}

namespace {

// csum16_add (checksum.h:64): 16-bit end-around-carry add.
uint16_t Csum16Add(uint16_t csum, uint16_t addend) {
  const uint16_t r = static_cast<uint16_t>(csum + addend);
  return static_cast<uint16_t>(r + (r < addend ? 1 : 0));
}

// The one's-complement sum of a 16-byte value as csum_partial makes it.
uint32_t Sum128(const uint8_t* v, bool complement) {
  uint32_t s = 0;
  for (int i = 0; i < 16; i += 4) {
    const uint32_t w = GetBe32(v + i);
    s = WsumAdd(s, complement ? ~w : w);
  }
  return s;
}

bool FieldFits(const SkBuff& skb, size_t field_ofs) { return field_ofs + 2 <= skb.len(); }

}  // namespace

void CsumReplace4(uint8_t* field, uint32_t from, uint32_t to) {
  // checksum.h:118: ~unfold(sum) - from + to, folded and complemented.
  const uint32_t tmp = WsumSub(~uint32_t{GetBe16(field)}, from);
  PutBe16(field, CsumFold(WsumAdd(tmp, to)));
}

void CsumReplace2(uint8_t* field, uint16_t from, uint16_t to) {
  // checksum.h:131 csum_replace2, RFC 1624 eqn. 3 in 16-bit arithmetic.
  const uint16_t hc = static_cast<uint16_t>(~GetBe16(field));
  const uint16_t sub = Csum16Add(hc, static_cast<uint16_t>(~from));
  PutBe16(field, static_cast<uint16_t>(~Csum16Add(sub, to)));
}

void Ipv4ChangeDsfield(uint8_t* iph, uint8_t mask, uint8_t value) {
  // include/net/dsfield.h ipv4_change_dsfield (torvalds/linux 1da177e4c3f4
  // include/net/dsfield.h:27, unchanged through v6.18): the header checksum
  // is adjusted in 32-bit host arithmetic on its big-endian value, with its
  // own carry rules, so the exact result is reproduced step by step.
  uint32_t check = GetBe16(iph + hdr::kIpv4CsumOfs);
  const uint8_t tos = iph[hdr::kIpv4TosOfs];
  const uint8_t dsfield = static_cast<uint8_t>((tos & mask) | value);
  check += tos;
  if ((check + 1) >> 16) check = (check + 1) & 0xffff;
  check -= dsfield;
  check += check >> 16;
  PutBe16(iph + hdr::kIpv4CsumOfs, static_cast<uint16_t>(check));
  iph[hdr::kIpv4TosOfs] = dsfield;
}

void Ipv6ChangeDsfield(uint8_t* ip6h, uint8_t mask, uint8_t value) {
  // include/net/dsfield.h ipv6_change_dsfield: the traffic class sits in
  // bits 4..11 of the first 16-bit word.
  uint16_t tmp = GetBe16(ip6h);
  tmp = static_cast<uint16_t>((tmp & ((mask << 4) | 0xf00f)) | (value << 4));
  PutBe16(ip6h, tmp);
}

void InetProtoCsumReplace4(SkBuff& skb, size_t field_ofs, uint32_t from, uint32_t to,
                           bool pseudohdr) {
  if (!FieldFits(skb, field_ofs)) return;
  uint8_t* field = skb.pkt.data() + field_ofs;
  if (skb.ip_summed != IpSummed::kPartial) {
    // net/core/utils.c inet_proto_csum_replace4(): csum_replace4 on the
    // field; for COMPLETE with a pseudo-header value, skb->csum moves by the
    // field's change only (address +d and IPv4 header checksum -d cancel
    // inside the covered bytes): csum = ~(~csum - from + to).
    CsumReplace4(field, from, to);
    if (skb.ip_summed == IpSummed::kComplete && pseudohdr)
      skb.csum = ~WsumAdd(WsumSub(~skb.csum, from), to);
  } else if (pseudohdr) {
    // PARTIAL: the field holds the folded pseudo-header sum (not
    // complemented), so it moves the other way: ~csum_fold(unfold - from +
    // to).
    const uint32_t s = WsumAdd(WsumSub(GetBe16(field), from), to);
    PutBe16(field, static_cast<uint16_t>(~CsumFold(s)));
  }
}

void InetProtoCsumReplace2(SkBuff& skb, size_t field_ofs, uint16_t from, uint16_t to,
                           bool pseudohdr) {
  // checksum.h:145: the 16-bit values widened to __be32. In memory that puts
  // them in the first 16-bit lane followed by a zero lane; in big-endian
  // lanes that is value << 16.
  InetProtoCsumReplace4(skb, field_ofs, uint32_t{from} << 16, uint32_t{to} << 16, pseudohdr);
}

void InetProtoCsumReplace16(SkBuff& skb, size_t field_ofs, const uint8_t from[16],
                            const uint8_t to[16], bool pseudohdr, const KernelVersion& kv) {
  if (!FieldFits(skb, field_ofs)) return;
  uint8_t* field = skb.pkt.data() + field_ofs;
  // diff[] = { ~from[0..3], to[0..3] } summed by csum_partial.
  const uint32_t diff = WsumAdd(Sum128(from, true), Sum128(to, false));
  if (skb.ip_summed != IpSummed::kPartial) {
    PutBe16(field, CsumFold(WsumAdd(diff, ~uint32_t{GetBe16(field)})));
    // Before torvalds/linux 189c9b1e9453 ("net: Fix skb->csum update in
    // inet_proto_csum_replace16()", v5.5; in stable 4.9.213, 4.14.y and
    // 5.4.18) a COMPLETE skb->csum was moved by the field's change as for
    // IPv4, though with no IPv6 header checksum the address and field
    // changes already cancel: the update left skb->csum wrong. RHEL 7 is
    // modelled as its 3.10 base.
    if (!kv.AtLeast(5, 5) && skb.ip_summed == IpSummed::kComplete && pseudohdr)
      skb.csum = ~WsumAdd(diff, ~skb.csum);
  } else if (pseudohdr) {
    PutBe16(field, static_cast<uint16_t>(~CsumFold(WsumAdd(diff, GetBe16(field)))));
  }
}

void RcsumPull(SkBuff& skb, size_t ofs, size_t len) {
  if (skb.ip_summed == IpSummed::kComplete) {
    // __skb_postpull_rcsum (include/linux/skbuff.h): csum - sum(bytes).
    if (ofs > skb.len() || len > skb.len() - ofs) return;
    work::Csum(len);
    skb.csum = WsumSub(skb.csum, WsumPartial(skb.pkt.data() + ofs, len, 0));
  } else if (skb.ip_summed == IpSummed::kPartial && skb.csum_start < skb.csum_from) {
    // skb_checksum_start_offset(skb) < 0: the checksum start was pulled off.
    skb.ip_summed = IpSummed::kNone;
  }
}

void RcsumPush(SkBuff& skb, size_t ofs, size_t len) {
  // __skb_postpush_rcsum (include/linux/skbuff.h): csum + sum(bytes).
  if (skb.ip_summed != IpSummed::kComplete) return;
  if (ofs > skb.len() || len > skb.len() - ofs) return;
  work::Csum(len);
  skb.csum = WsumAdd(skb.csum, WsumPartial(skb.pkt.data() + ofs, len, 0));
}

void RcsumReplace(SkBuff& skb, const uint8_t* old_bytes, const uint8_t* new_bytes, size_t len) {
  // csum_replace(&skb->csum, old, new) = csum - old + new, COMPLETE only.
  if (skb.ip_summed != IpSummed::kComplete) return;
  skb.csum =
      WsumAdd(WsumSub(skb.csum, WsumPartial(old_bytes, len, 0)), WsumPartial(new_bytes, len, 0));
}

bool SkbPullRcsum(SkBuff& skb, size_t len) {
  if (skb.csum_from > skb.len() || len > skb.len() - skb.csum_from) return false;
  // skb_pull_rcsum (net/core/skbuff.c): __skb_pull moves skb->data first,
  // then skb_postpull_rcsum subtracts the pulled bytes and finds a PARTIAL
  // checksum start before the new data (skb_checksum_start_offset < 0).
  const size_t from = skb.csum_from;
  skb.csum_from = static_cast<uint16_t>(from + len);
  RcsumPull(skb, from, len);
  return true;
}

bool SkbPushRcsum(SkBuff& skb, size_t len) {
  if (len > skb.csum_from) return false;
  skb.csum_from = static_cast<uint16_t>(skb.csum_from - len);
  RcsumPush(skb, skb.csum_from, len);
  return true;
}

}  // namespace offlab::kernel
