// The checksum helpers of include/linux/skbuff.h and net/core/skbuff.c that
// every kernel operation shares (torvalds/linux v6.18), on SkBuff's real
// bytes. Sums are unfolded one's-complement values as net/checksum.h makes
// them; compare with csum::Fold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "offlab/linux/skb.h"

namespace offlab::kernel {

// skb_checksum: the one's-complement sum of [offset, offset + len) (clipped
// to the skb), added to `sum`. Counts the bytes as software checksum work.
uint64_t SkbChecksum(const SkBuff& skb, size_t offset, size_t len, uint64_t sum = 0);

// The pseudo-header sum (inet_compute_pseudo / ip6_compute_pseudo) of the
// IPv4 or IPv6 header at `l3_ofs` for a transport payload of `l4_len` bytes
// with protocol `proto`. Returns 0 if there is no complete IP header there.
uint64_t PseudoHeaderSum(const SkBuff& skb, uint16_t l3_ofs, uint8_t proto, uint32_t l4_len);

// skb_csum_unnecessary (include/linux/skbuff.h): UNNECESSARY, csum_valid, or
// PARTIAL whose checksum start is at or after skb->data (skb_checksum_start_
// offset >= 0: a local sender will write the checksum itself). `data_ofs` is
// where skb->data points at the call, as an offset from the MAC header.
bool SkbCsumUnnecessary(const SkBuff& skb, size_t data_ofs = 0);

// __skb_incr_checksum_unnecessary / __skb_decr_checksum_unnecessary
// (include/linux/skbuff.h): one more (less) verified level; NONE becomes
// UNNECESSARY level 0, and decrementing level 0 gives NONE.
void SkbIncrChecksumUnnecessary(SkBuff& skb);
void SkbDecrChecksumUnnecessary(SkBuff& skb);

// skb_postpull_rcsum (include/linux/skbuff.h): after the bytes
// [csum_from, csum_from + len) are pulled, a COMPLETE sum no longer covers
// them; csum_from moves past them. A PARTIAL skb whose checksum start was
// pulled becomes NONE (since 31b33dfb0a14, v4.7; pass kv to select).
void SkbPostpullRcsum(SkBuff& skb, size_t len);

// __skb_checksum_complete (net/core/skbuff.c): sums from `offset` to the
// end, adds `pseudo`, and (the skb being unshared) leaves it COMPLETE over
// [offset, end) with csum_valid telling whether it verified. Returns true
// when the checksum is correct (the folded result is 0xffff).
bool SkbChecksumComplete(SkBuff& skb, size_t offset, uint64_t pseudo);

// The checksum a PARTIAL skb asks for: store ~fold(sum [csum_start, end)) at
// csum_start + csum_offset and leave ip_summed NONE (skb_checksum_help,
// net/core/dev.c, without its GSO and error paths). Returns false when the
// offsets are out of range.
bool SkbCompletePartial(SkBuff& skb);

}  // namespace offlab::kernel
