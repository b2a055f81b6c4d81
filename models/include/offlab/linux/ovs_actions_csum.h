// The incremental checksum helpers the OVS kernel datapath's set actions and
// netfilter NAT share (include/net/checksum.h, include/net/dsfield.h,
// net/core/utils.c), reproduced bit for bit on an SkBuff's bytes: the exact
// 16-bit result (0x0000 vs 0xffff) depends on the kernel's arithmetic, and
// the effect on the skb depends on ip_summed (CHECKSUM_PARTIAL fields hold
// the pseudo-header sum and are updated "the other way"; CHECKSUM_COMPLETE
// updates skb->csum).
//
// Values are the big-endian field values (what GetBe16/GetBe32 return). The
// kernel computes in host (little-endian) lanes; one's-complement sums are
// byte-order independent and the zero/non-zero outcome of every step is the
// same in both lane orders, so big-endian lanes give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// csum_add (include/net/checksum.h): 32-bit add with end-around carry.
uint32_t WsumAdd(uint32_t a, uint32_t b);
// csum_sub: add the complement.
inline uint32_t WsumSub(uint32_t a, uint32_t b) { return WsumAdd(a, ~b); }
// csum_fold: fold to 16 bits and complement.
uint16_t CsumFold(uint32_t sum);
// csum_partial of an even-length byte run, as a 32-bit sum of big-endian
// 16-bit words added to `sum` (end-around carry).
uint32_t WsumPartial(const uint8_t* data, size_t len, uint32_t sum);

// csum_replace4 / csum_replace2 on the big-endian field at `field`.
void CsumReplace4(uint8_t* field, uint32_t from, uint32_t to);
void CsumReplace2(uint8_t* field, uint16_t from, uint16_t to);

// ipv4_change_dsfield / ipv6_change_dsfield (include/net/dsfield.h): tos =
// (tos & mask) | value, the IPv4 header checksum adjusted by that header's
// own 16-bit arithmetic. `iph` points at the IP header (20 / 4 bytes
// readable).
void Ipv4ChangeDsfield(uint8_t* iph, uint8_t mask, uint8_t value);
void Ipv6ChangeDsfield(uint8_t* ip6h, uint8_t mask, uint8_t value);

// inet_proto_csum_replace4/2/16 (net/core/utils.c, include/net/checksum.h):
// the L4 checksum field at `field_ofs` (2 bytes must be in the packet) after
// a 32-bit / 16-bit / 128-bit value covered by it changed from `from` to
// `to`. `pseudohdr`: the value is part of the pseudo-header (addresses), so a
// PARTIAL field (which holds the pseudo-header sum) changes too, and a
// COMPLETE skb->csum absorbs the field's change. No-op when the field is out
// of range.
void InetProtoCsumReplace4(SkBuff& skb, size_t field_ofs, uint32_t from, uint32_t to,
                           bool pseudohdr);
void InetProtoCsumReplace2(SkBuff& skb, size_t field_ofs, uint16_t from, uint16_t to,
                           bool pseudohdr);
void InetProtoCsumReplace16(SkBuff& skb, size_t field_ofs, const uint8_t from[16],
                            const uint8_t to[16], bool pseudohdr, const KernelVersion& kv);

// skb->csum bookkeeping for CHECKSUM_COMPLETE (other states unchanged).
// Bytes are summed as the kernel's csum_partial does: aligned as if they
// started on an even offset from skb->data, which every caller here
// guarantees (header fields at even offsets from the MAC header).
//   RcsumPull:  skb_postpull_rcsum(skb, start, len) without moving data:
//               subtracts the bytes (and a PARTIAL skb whose csum_start lies
//               before csum_from becomes NONE).
//   RcsumPush:  skb_postpush_rcsum(skb, start, len) without moving data.
//   RcsumReplace: csum_replace(&skb->csum, old, new) for `len` bytes that
//               changed in place (OVS's set_ipv6 tclass/label/hop limit).
void RcsumPull(SkBuff& skb, size_t ofs, size_t len);
void RcsumPush(SkBuff& skb, size_t ofs, size_t len);
void RcsumReplace(SkBuff& skb, const uint8_t* old_bytes, const uint8_t* new_bytes, size_t len);

// skb_pull_rcsum / skb_push_rcsum as the model keeps skb->data: csum_from is
// where skb->data points. Pull moves it forward by `len` subtracting the
// bytes from a COMPLETE sum; push moves it back adding them. Return false
// (nothing changed) when the move leaves the packet.
bool SkbPullRcsum(SkBuff& skb, size_t len);
bool SkbPushRcsum(SkBuff& skb, size_t len);

}  // namespace offlab::kernel
