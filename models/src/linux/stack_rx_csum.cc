#include "offlab/linux/stack_rx_csum.h"

#include <algorithm>

#include "offlab/linux/skb_csum.h"
#include "offlab/net/checksum.h"

namespace offlab::kernel {

namespace {

// The 16-bit sum of a piece that starts an odd number of bytes into the
// region a sum covers has its byte lanes swapped (csum_block_sub / RFC 1071
// byte-order independence): rotate it back before combining.
uint16_t AlignedSum(uint64_t piece, size_t distance) {
  uint16_t f = csum::Fold(piece);
  if (distance & 1) f = static_cast<uint16_t>((f << 8) | (f >> 8));
  return f;
}

}  // namespace

bool CsumUnnecessaryAt(const SkBuff& skb, size_t data) {
  if (skb.ip_summed == IpSummed::kUnnecessary || skb.csum_valid) return true;
  return skb.ip_summed == IpSummed::kPartial && skb.csum_start >= data;
}

size_t PullRcsum(SkBuff& skb, size_t data, size_t len, KernelVersion kv) {
  len = std::min(len, skb.len() - std::min(data, skb.len()));
  if (skb.ip_summed == IpSummed::kComplete) {
    // csum covers [csum_from, end) with csum_from == data; remove the pulled
    // bytes (they start at csum_from, so no lane swap).
    if (skb.csum_from < data + len) {
      const size_t n = data + len - skb.csum_from;
      SkbPostpullRcsum(skb, n);
    }
  } else if (skb.ip_summed == IpSummed::kPartial && skb.csum_start < data + len &&
             kv.AtLeast(4, 7)) {
    skb.ip_summed = IpSummed::kNone;
  }
  return data + len;
}

void TrimRcsum(SkBuff& skb, size_t data, size_t len, KernelVersion kv) {
  const size_t new_end = data + len;
  if (new_end >= skb.len()) return;
  if (skb.ip_summed == IpSummed::kComplete) {
    if (kv.AtLeast(4, 20)) {
      const uint64_t tail = SkbChecksum(skb, new_end, skb.len() - new_end);
      const uint16_t t = AlignedSum(tail, new_end - skb.csum_from);
      skb.csum = csum::Fold(csum::Add(skb.csum, static_cast<uint16_t>(~t)));
    } else {
      skb.ip_summed = IpSummed::kNone;
    }
  }
  skb.pkt.Resize(new_end);
}

CsumValidation SkbChecksumValidate(SkBuff& skb, size_t data, uint64_t pseudo, bool complete,
                                   bool zero_okay, uint16_t check, KernelVersion kv) {
  CsumValidation r;
  // Callers keep a COMPLETE sum starting at data; catch up if they did not.
  if (skb.ip_summed == IpSummed::kComplete && skb.csum_from < data)
    SkbPostpullRcsum(skb, data - skb.csum_from);
  skb.csum_valid = false;
  // __skb_checksum_validate_needed: nothing to verify.
  if (CsumUnnecessaryAt(skb, data) || (zero_okay && check == 0)) {
    skb.csum_valid = true;
    // csum_level (and its decrement) arrived in v3.18 (Tom Herbert, "net:
    // Add skb->csum_level"); RHEL 7 carries it. Before, UNNECESSARY vouched
    // for every checksum in the packet.
    if (kv.AtLeast(3, 18) || kv.rhel7) SkbDecrChecksumUnnecessary(skb);
    return r;
  }
  // __skb_checksum_validate_complete: a device sum that verifies is enough.
  if (skb.ip_summed == IpSummed::kComplete && skb.csum_from == data &&
      csum::Fold(csum::Add(skb.csum, pseudo)) == 0xffff) {
    skb.csum_valid = true;
    return r;
  }
  const size_t len = skb.len() - std::min(data, skb.len());
  if (complete || len <= kChecksumBreak) {
    r.error = !SkbChecksumComplete(skb, data, pseudo);
    return r;
  }
  // Deferred. A device COMPLETE sum that failed is not trusted any more
  // (udp4_csum_init / udp6_csum_init: skb_checksum_complete_unset).
  if (skb.ip_summed == IpSummed::kComplete) skb.ip_summed = IpSummed::kNone;
  r.deferred = true;
  return r;
}

bool SkbChecksumCompleteAt(SkBuff& skb, size_t data, uint64_t pseudo) {
  if (CsumUnnecessaryAt(skb, data)) return false;
  return !SkbChecksumComplete(skb, data, pseudo);
}

void SkbChecksumTryConvert(SkBuff& skb, size_t data, uint64_t pseudo) {
  if (skb.ip_summed != IpSummed::kNone || !skb.csum_valid) return;
  skb.ip_summed = IpSummed::kComplete;
  skb.csum = static_cast<uint16_t>(~csum::Fold(pseudo));
  skb.csum_from = static_cast<uint16_t>(data);
}

}  // namespace offlab::kernel
