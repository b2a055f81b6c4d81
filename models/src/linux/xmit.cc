// validate_xmit_skb and its checksum and linearize steps (net/core/dev.c,
// torvalds/linux 7d0a66e4bb90, v6.18, unless a line says otherwise).
#include "offlab/linux/xmit.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "offlab/linux/gso_segment.h"
#include "offlab/linux/gso_segment_internal.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

namespace offlab::kernel {

namespace {

// skb_headlen: the linear part. The model keeps all bytes together; a
// frag_list's members follow the head's own data, and with page frags the
// linear area holds the headers (the stack's and GRO's layout): up to the
// end of the TCP/UDP header the checksum belongs to.
size_t SkbHeadlen(const SkBuff& skb) {
  const size_t members =
      std::accumulate(skb.frag_list_lens.begin(), skb.frag_list_lens.end(), size_t{0});
  const size_t own = skb.len() - std::min(members, skb.len());
  if (!skb.nr_frags) return own;
  const uint16_t l4 = skb.encapsulation ? skb.pkt.inner_l4_ofs : skb.pkt.l4_ofs;
  size_t end = l4 == kNoOffset ? skb.pkt.l3_ofs : l4;
  if (end == kNoOffset) end = hdr::kEthLen;
  if (l4 != kNoOffset && size_t{l4} + hdr::kTcpMinLen <= skb.len())
    end += std::max<size_t>(hdr::kUdpLen, (skb.pkt.data()[l4 + hdr::kTcpOffFlagsOfs] >> 4) * 4u);
  if (skb.ip_summed == IpSummed::kPartial)
    end = std::max<size_t>(end, size_t{skb.csum_start} + skb.csum_offset + 2);
  return std::min(end, own);
}

void MeterCopy(size_t n) {
  if (!work::hardware_depth) work::meter.copy_bytes += n;
}

// Stores the checksum a PARTIAL skb asks for and leaves it NONE: the
// Internet checksum of [csum_start, end) (the field holds the pseudo-header
// sum), 0 stored as CSUM_MANGLED_0 (dev.c :3588); or for csum_not_inet the
// CRC32c of [csum_start, end) as the bytes are, little-endian
// (skb_crc32c_csum_help, dev.c :3597-3632, sums the field as it finds it:
// the SCTP stack leaves it 0, sctp_packet_pack).
bool CompletePartial(SkBuff& skb) {
  const size_t start = skb.csum_start, field = start + skb.csum_offset;
  if (start >= skb.len() || field + (skb.csum_not_inet ? 4 : 2) > skb.len()) return false;
  uint8_t* f = skb.pkt.data() + field;
  if (skb.csum_not_inet) {
    const uint32_t crc = csum::Crc32c(skb.pkt.data() + start, skb.len() - start);
    for (int b = 0; b < 4; b++) f[b] = static_cast<uint8_t>(crc >> (8 * b));
  } else {
    const uint16_t c = csum::Finish(gso_internal::SwChecksum(skb, start, skb.len() - start));
    PutBe16(f, c ? c : 0xffff);
  }
  skb.ip_summed = IpSummed::kNone;
  skb.csum_not_inet = false;
  return true;
}

std::vector<SkBuff> Drop(Counters* counters, const char* why) {
  Count(counters, "tx_dropped");
  Count(counters, why);
  return {};
}

}  // namespace

int SkbChecksumHelp(SkBuff& skb, Counters* counters) {
  // :3541-3593.
  if (skb.ip_summed == IpSummed::kComplete) {  // :3546-3547
    skb.ip_summed = IpSummed::kNone;
    return 0;
  }
  if (skb.is_gso()) {  // :3549-3552 skb_warn_bad_offload
    Count(counters, "skb_warn_bad_offload");
    return gso_err::kInval;
  }
  // :3569-3582 the checksum start and field must lie in the linear area.
  const size_t headlen = SkbHeadlen(skb);
  if (skb.csum_start >= headlen || size_t{skb.csum_start} + skb.csum_offset + 2 > headlen)
    return gso_err::kInval;
  Count(counters, "xmit_csum_help");
  // :3575 skb_checksum over [csum_start, end); :3588 csum_fold(csum) ?:
  // CSUM_MANGLED_0; :3590 ip_summed = CHECKSUM_NONE.
  skb.csum_not_inet = false;
  return CompletePartial(skb) ? 0 : gso_err::kInval;
}

int SkbCsumHwoffloadHelp(SkBuff& skb, uint64_t features, KernelVersion kv, Counters* counters) {
  if (!kv.AtLeast(4, 13)) {
    // v4.11 dev.c:2989-2991: any checksum feature left after harmonize_features
    // (which already dropped them for a protocol the device cannot do).
    if (features & netif::kCsumMask) {
      Count(counters, "xmit_csum_offloaded");
      return 0;
    }
    return SkbChecksumHelp(skb, counters);
  }
  // :3891-3893 (since v4.13, "net: more accurate checksumming in
  // validate_xmit_skb()"; absent in v4.11, present in v4.19 dev.c): a CRC32c
  // (SCTP) needs NETIF_F_SCTP_CRC, else skb_crc32c_csum_help.
  if (skb.csum_not_inet) {
    if (features & netif::kSctpCrc) {
      Count(counters, "xmit_csum_offloaded");
      return 0;
    }
    Count(counters, "xmit_crc32c_help");
    return CompletePartial(skb) ? 0 : gso_err::kInval;
  }
  if (!kv.AtLeast(5, 12)) {
    // v4.19 / v5.10 dev.c skb_csum_hwoffload_help: any checksum feature.
    if (features & netif::kCsumMask) {
      Count(counters, "xmit_csum_offloaded");
      return 0;
    }
    return SkbChecksumHelp(skb, counters);
  }
  // :3895-3912 (since v5.12, "net: support ip generic csum processing in
  // skb_csum_hwoffload_help"; absent in v5.10, present in v6.1.0): HW_CSUM
  // does anything; IP_CSUM/IPV6_CSUM only a TCP or UDP checksum field, and
  // (since v6.12, absent in v6.1.0) no IPv6 extension headers (the network
  // header runs to the transport header validate_xmit_skb set to csum_start).
  bool offload = features & netif::kHwCsum;
  if (!offload && (features & (netif::kIpCsum | netif::kIpv6Csum))) {
    const bool ipv6_ext = kv.AtLeast(6, 12) && NetworkProtocol(skb, 0) == hdr::kEthTypeIpv6 &&
                          skb.pkt.l3_ofs != kNoOffset && skb.pkt.l4_ofs != kNoOffset &&
                          skb.pkt.l4_ofs - skb.pkt.l3_ofs != static_cast<int>(hdr::kIpv6Len);
    offload =
        !ipv6_ext && (skb.csum_offset == hdr::kTcpCsumOfs || skb.csum_offset == hdr::kUdpCsumOfs);
  }
  if (offload) {
    Count(counters, "xmit_csum_offloaded");
    return 0;
  }
  return SkbChecksumHelp(skb, counters);
}

void SkbLinearize(SkBuff& skb, const XmitOptions& opt, Counters* counters) {
  // __skb_linearize -> __pskb_pull_tail(skb, skb->data_len): everything
  // outside the linear area is copied into it.
  size_t copied = skb.len() - SkbHeadlen(skb);
  if (skb.has_frag_list() && !opt.frag_list_linear && !skb.nr_frags) copied = 0;
  skb.nr_frags = 0;
  skb.frag_list_lens.clear();
  MeterCopy(copied);
  Count(counters, "xmit_linearize");
  Count(counters, "xmit_linearize_bytes", copied);
}

std::vector<SkBuff> ValidateXmitSkb(SkBuff skb, const DeviceFeatures& dev, KernelVersion kv,
                                    Counters* counters) {
  return ValidateXmitSkb(std::move(skb), dev, XmitOptions{}, kv, counters);
}

std::vector<SkBuff> ValidateXmitSkb(SkBuff skb, const DeviceFeatures& dev, const XmitOptions& opt,
                                    KernelVersion kv, Counters* counters) {
  // :3977-4034 (the same steps in v4.11 dev.c:2954-3002).
  const uint64_t features = NetifSkbFeatures(skb, dev, opt, kv);
  if (NetifNeedsGso(skb, features)) {
    // :3994-4003 software GSO; the segments go to the driver as they are.
    GsoResult g = SkbGsoSegment(std::move(skb), features, dev, opt, kv, counters);
    if (g.err) return Drop(counters, "tx_drop_gso");
    if (!g.unsegmented) Count(counters, "xmit_gso");
    return std::move(g.segs);
  }
  // :4005-4007 gather limits.
  if (SkbNeedsLinearize(skb, features)) SkbLinearize(skb, opt, counters);
  // :4013-4022 the transport header is where the checksum starts; then the
  // device does the checksum or software does.
  if (skb.ip_summed == IpSummed::kPartial) {
    if (skb.csum_start < skb.len()) {
      if (skb.encapsulation)
        skb.pkt.inner_l4_ofs = skb.csum_start;
      else
        skb.pkt.l4_ofs = skb.csum_start;
    }
    if (SkbCsumHwoffloadHelp(skb, features, kv, counters)) return Drop(counters, "tx_drop_csum");
  }
  std::vector<SkBuff> out;
  out.push_back(std::move(skb));
  return out;
}

}  // namespace offlab::kernel
