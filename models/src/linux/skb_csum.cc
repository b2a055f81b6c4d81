#include "offlab/linux/skb_csum.h"

#include <algorithm>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

uint64_t SkbChecksum(const SkBuff& skb, size_t offset, size_t len, uint64_t sum) {
  if (offset >= skb.len()) return sum;
  len = std::min(len, skb.len() - offset);
  // csum::Partial meters the bytes as software checksum work itself.
  // An odd offset would swap the byte lanes of the sum (csum_block_add); the
  // callers here always start on the header boundary, which is even.
  return csum::Partial(skb.pkt.data() + offset, len, sum);
}

uint64_t PseudoHeaderSum(const SkBuff& skb, uint16_t l3_ofs, uint8_t proto, uint32_t l4_len) {
  if (l3_ofs == kNoOffset || l3_ofs >= skb.len()) return 0;
  const uint8_t* ip = skb.pkt.data() + l3_ofs;
  const size_t room = skb.len() - l3_ofs;
  if ((ip[0] >> 4) == 4 && room >= hdr::kIpv4MinLen)
    return csum::PseudoIpv4(ip + hdr::kIpv4SrcOfs, ip + hdr::kIpv4DstOfs, proto,
                            static_cast<uint16_t>(l4_len));
  if ((ip[0] >> 4) == 6 && room >= hdr::kIpv6Len)
    return csum::PseudoIpv6(ip + hdr::kIpv6SrcOfs, ip + hdr::kIpv6DstOfs, proto, l4_len);
  return 0;
}

bool SkbCsumUnnecessary(const SkBuff& skb, size_t data_ofs) {
  // torvalds/linux v6.18 include/linux/skbuff.h skb_csum_unnecessary():
  // UNNECESSARY, csum_valid, or PARTIAL with skb_checksum_start_offset >= 0.
  if (skb.ip_summed == IpSummed::kUnnecessary || skb.csum_valid) return true;
  return skb.ip_summed == IpSummed::kPartial && skb.csum_start >= data_ofs;
}

void SkbIncrChecksumUnnecessary(SkBuff& skb) {
  if (skb.ip_summed == IpSummed::kUnnecessary) {
    if (skb.csum_level < kMaxCsumLevel) skb.csum_level++;
  } else if (skb.ip_summed == IpSummed::kNone) {
    skb.ip_summed = IpSummed::kUnnecessary;
    skb.csum_level = 0;
  }
}

void SkbDecrChecksumUnnecessary(SkBuff& skb) {
  if (skb.ip_summed != IpSummed::kUnnecessary) return;
  if (skb.csum_level == 0)
    skb.ip_summed = IpSummed::kNone;
  else
    skb.csum_level--;
}

void SkbPostpullRcsum(SkBuff& skb, size_t len) {
  if (skb.ip_summed == IpSummed::kComplete) {
    // csum_sub(skb->csum, csum_partial(start, len)): adding the complement
    // of the pulled bytes' folded sum removes them.
    const uint64_t pulled = SkbChecksum(skb, skb.csum_from, len);
    skb.csum = static_cast<uint32_t>(
        csum::Fold(csum::Add(skb.csum, static_cast<uint16_t>(~csum::Fold(pulled)))));
  }
  skb.csum_from = static_cast<uint16_t>(std::min<size_t>(skb.csum_from + len, skb.len()));
}

bool SkbChecksumComplete(SkBuff& skb, size_t offset, uint64_t pseudo) {
  const uint64_t sum = SkbChecksum(skb, offset, skb.len() - std::min(offset, skb.len()));
  const bool ok = csum::Fold(csum::Add(sum, pseudo)) == 0xffff;
  skb.ip_summed = IpSummed::kComplete;
  skb.csum = csum::Fold(sum);
  skb.csum_from = static_cast<uint16_t>(std::min(offset, skb.len()));
  skb.csum_valid = ok;
  return ok;
}

bool SkbCompletePartial(SkBuff& skb) {
  if (skb.ip_summed != IpSummed::kPartial) return true;
  const size_t start = skb.csum_start, field = size_t{skb.csum_start} + skb.csum_offset;
  const size_t field_len = skb.csum_not_inet ? 4 : 2;  // CRC32c or Internet checksum
  if (start >= skb.len() || field + field_len > skb.len()) return false;
  if (skb.csum_not_inet) {
    // SCTP: CRC32c over the packet with the field zeroed (skb_crc32c_csum_help).
    uint8_t* p = skb.pkt.data() + field;
    PutBe32(p, 0);
    const uint32_t crc = csum::Crc32c(skb.pkt.data() + start, skb.len() - start);
    // The CRC is stored little-endian on the wire (RFC 9260 appendix A).
    p[0] = static_cast<uint8_t>(crc);
    p[1] = static_cast<uint8_t>(crc >> 8);
    p[2] = static_cast<uint8_t>(crc >> 16);
    p[3] = static_cast<uint8_t>(crc >> 24);
  } else {
    const uint64_t sum = SkbChecksum(skb, start, skb.len() - start);
    // net/core/dev.c skb_checksum_help() stores csum_fold(csum) ?: CSUM_MANGLED_0:
    // a result of 0 goes out as 0xffff (which also verifies), so a UDP
    // checksum is never turned into "no checksum".
    uint16_t c = csum::Finish(sum);
    if (c == 0) c = 0xffff;
    PutBe16(skb.pkt.data() + field, c);
  }
  skb.ip_summed = IpSummed::kNone;
  skb.csum_not_inet = false;
  return true;
}

}  // namespace offlab::kernel
