// The receive-side checksum steps the local stack and UDP tunnels share,
// expressed on SkBuff with an explicit `data` offset: the kernel's skb->data
// as a byte offset from the MAC header (SkBuff keeps every offset relative to
// the MAC header, and CHECKSUM_COMPLETE's sum starts at csum_from == data).
//
// Sources (torvalds/linux; the lab kernel is 6.18):
//   include/linux/skbuff.h  skb_csum_unnecessary, skb_postpull_rcsum,
//     __skb_checksum_validate_needed, __skb_checksum_validate_complete,
//     __skb_checksum_validate (CHECKSUM_BREAK), skb_checksum_try_convert
//   net/core/skbuff.c  __skb_checksum_complete, pskb_trim_rcsum_slow
#pragma once

#include <cstddef>
#include <cstdint>

#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// CHECKSUM_BREAK (include/linux/skbuff.h): packets this short are verified at
// once by __skb_checksum_validate even when the caller defers the check.
constexpr size_t kChecksumBreak = 76;

// skb_csum_unnecessary with skb->data at `data`: UNNECESSARY, csum_valid, or
// PARTIAL whose csum_start is at or after data (skb_checksum_start_offset
// >= 0: a checksum the local stack will still fill in).
bool CsumUnnecessaryAt(const SkBuff& skb, size_t data);

// skb_pull_rcsum: pulls `len` bytes at `data` (returns the new data offset).
// COMPLETE drops their sum; PARTIAL whose csum_start falls behind the new
// data becomes NONE (skb_postpull_rcsum, torvalds/linux v4.7 "skbuff: Fix skb
// checksum partial check" 31b33dfb0a14; before it PARTIAL was left alone).
size_t PullRcsum(SkBuff& skb, size_t data, size_t len, KernelVersion kv);

// pskb_trim_rcsum: trims the frame to end `data + len` bytes after data.
// v4.20+ ("net: pskb_trim_rcsum() and CHECKSUM_COMPLETE are friends",
// 88078d98d1bb) keeps COMPLETE by subtracting the trimmed bytes; earlier
// kernels set CHECKSUM_NONE.
void TrimRcsum(SkBuff& skb, size_t data, size_t len, KernelVersion kv);

// Result of __skb_checksum_validate: `error` is the kernel's non-zero
// return (a checksum known to be bad); `deferred` says nothing was verified
// yet (the caller must still run the full check, as tcp_checksum_complete and
// udp_lib_checksum_complete do).
struct CsumValidation {
  bool error = false;
  bool deferred = false;
};

// __skb_checksum_validate(skb, proto, complete, zero_okay, check, pseudo)
// with data at the transport header; `pseudo` is the unfolded pseudo-header
// sum. UNNECESSARY loses one level (__skb_decr_checksum_unnecessary, from
// v3.18's csum_level); a zero `check` with zero_okay counts as verified.
CsumValidation SkbChecksumValidate(SkBuff& skb, size_t data, uint64_t pseudo, bool complete,
                                   bool zero_okay, uint16_t check, KernelVersion kv);

// The full check that still follows a deferred validation
// (udp_lib_checksum_complete / tcp_checksum_complete): nothing to do when the
// skb is csum-unnecessary at data, else __skb_checksum_complete. True = bad.
bool SkbChecksumCompleteAt(SkBuff& skb, size_t data, uint64_t pseudo);

// skb_checksum_try_convert: a NONE skb whose checksum was verified
// (csum_valid) becomes COMPLETE with csum = ~pseudo, the sum the verified
// packet must have; tunnels use it so inner checksums need no second pass.
void SkbChecksumTryConvert(SkBuff& skb, size_t data, uint64_t pseudo);

}  // namespace offlab::kernel
