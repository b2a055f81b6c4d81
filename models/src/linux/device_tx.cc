#include "offlab/linux/device_tx.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "offlab/linux/xmit_features.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

namespace offlab::kernel {

namespace {

bool IsIpv4(const Bytes& f, size_t l3) { return l3 < f.size() && (f[l3] >> 4) == 4; }

// The pseudo-header sum of the IP header at `l3` for `l4_len` bytes of
// `proto` (RFC 793 / RFC 8200 8.1).
uint64_t Pseudo(const Bytes& f, size_t l3, uint8_t proto, size_t l4_len) {
  if (IsIpv4(f, l3))
    return csum::PseudoIpv4(&f[l3 + hdr::kIpv4SrcOfs], &f[l3 + hdr::kIpv4DstOfs], proto,
                            static_cast<uint16_t>(l4_len));
  return csum::PseudoIpv6(&f[l3 + hdr::kIpv6SrcOfs], &f[l3 + hdr::kIpv6DstOfs], proto,
                          static_cast<uint32_t>(l4_len));
}

// A full transport checksum as hardware computes it: the field zeroed, the
// pseudo header from the IP header, every byte to the end.
void L4Checksum(Bytes& f, size_t l3, size_t l4, uint8_t proto, size_t field) {
  PutBe16(&f[l4 + field], 0);
  uint16_t c =
      csum::Finish(csum::Partial(&f[l4], f.size() - l4, Pseudo(f, l3, proto, f.size() - l4)));
  if (c == 0 && proto == hdr::kProtoUdp) c = 0xffff;
  PutBe16(&f[l4 + field], c);
}

void Ipv4HeaderChecksum(Bytes& f, size_t l3) {
  const size_t ihl = (f[l3] & 0x0f) * 4u;
  PutBe16(&f[l3 + hdr::kIpv4CsumOfs], 0);
  PutBe16(&f[l3 + hdr::kIpv4CsumOfs], csum::Compute(&f[l3], ihl));
}

// Sets an IP header's length field for a frame that ends at f.size().
void FixIpLength(Bytes& f, size_t l3) {
  if (IsIpv4(f, l3))
    PutBe16(&f[l3 + hdr::kIpv4TotLenOfs], static_cast<uint16_t>(f.size() - l3));
  else
    PutBe16(&f[l3 + hdr::kIpv6PlenOfs], static_cast<uint16_t>(f.size() - l3 - hdr::kIpv6Len));
}

void BumpIpv4Id(Bytes& f, size_t l3, size_t i) {
  if (!IsIpv4(f, l3)) return;
  const uint16_t id = GetBe16(&f[l3 + hdr::kIpv4IdOfs]);
  PutBe16(&f[l3 + hdr::kIpv4IdOfs], static_cast<uint16_t>(id + i));
}

bool Fits(const SkBuff& skb, uint16_t ofs, size_t need) {
  return ofs != kNoOffset && size_t{ofs} + need <= skb.len();
}

// An IPv4 header (its IHL) or IPv6 header at `l3` that ends by `end`.
bool IpFits(const SkBuff& skb, uint16_t l3, size_t end) {
  if (!Fits(skb, l3, 1)) return false;
  const uint8_t* ip = skb.pkt.data() + l3;
  const size_t need =
      (ip[0] >> 4) == 4 ? std::max<size_t>(hdr::kIpv4MinLen, (ip[0] & 0x0f) * 4u) : hdr::kIpv6Len;
  return size_t{l3} + need <= end;
}

// TSO: the headers duplicated in front of each gso_size slice of payload.
std::vector<Bytes> Tso(const SkBuff& skb, Counters* counters) {
  const Packet& p = skb.pkt;
  const bool enc = skb.encapsulation;
  const uint16_t tl3 = enc ? p.inner_l3_ofs : p.l3_ofs;
  const uint16_t th = enc ? p.inner_l4_ofs : p.l4_ofs;
  if (!Fits(skb, tl3, hdr::kIpv4MinLen) || !Fits(skb, th, hdr::kTcpMinLen) ||
      !Fits(skb, p.l3_ofs, hdr::kIpv4MinLen) || (enc && !Fits(skb, p.l4_ofs, hdr::kUdpLen))) {
    Count(counters, "device_tx_malformed");
    return {p.bytes()};
  }
  const size_t hdr_end = th + (p.data()[th + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (hdr_end > skb.len() || hdr_end < size_t{th} + hdr::kTcpMinLen ||
      !IpFits(skb, p.l3_ofs, hdr_end) || !IpFits(skb, tl3, th) ||
      (enc && size_t{p.l4_ofs} + hdr::kUdpLen > hdr_end)) {
    Count(counters, "device_tx_malformed");
    return {p.bytes()};
  }
  const size_t payload = skb.len() - hdr_end;
  const size_t mss = skb.gso_size;
  const size_t n = payload ? (payload + mss - 1) / mss : 1;
  // A GSO_PARTIAL skb's headers other than the TCP one are already right
  // for a duplicate (Documentation/networking/segmentation-offloads.rst,
  // "Partial Generic Segmentation Offload"); only IDs advance.
  const bool partial = skb.gso_type & gso::kPartial;
  const bool udp_csum = enc && (skb.gso_type & gso::kUdpTunnelCsum);
  std::vector<Bytes> out;
  out.reserve(n);
  for (size_t i = 0; i < n; i++) {
    const size_t off = i * mss, len = std::min(mss, payload - std::min(payload, off));
    Bytes f(p.data(), p.data() + hdr_end);
    f.insert(f.end(), p.data() + hdr_end + off, p.data() + hdr_end + off + len);
    uint8_t* t = &f[th];
    PutBe32(t + hdr::kTcpSeqOfs, GetBe32(t + hdr::kTcpSeqOfs) + static_cast<uint32_t>(off));
    uint16_t flags = GetBe16(t + hdr::kTcpOffFlagsOfs);
    if (i > 0) flags &= static_cast<uint16_t>(~0x0080);  // CWR on the first only
    if (i + 1 < n) flags &= static_cast<uint16_t>(~(hdr::kTcpFin | hdr::kTcpPsh));
    PutBe16(t + hdr::kTcpOffFlagsOfs, flags);
    for (const uint16_t l3 : {p.l3_ofs, enc ? p.inner_l3_ofs : kNoOffset}) {
      if (l3 == kNoOffset) continue;
      if (!partial) FixIpLength(f, l3);
      BumpIpv4Id(f, l3, i);
      if (IsIpv4(f, l3)) Ipv4HeaderChecksum(f, l3);
    }
    L4Checksum(f, tl3, th, hdr::kProtoTcp, hdr::kTcpCsumOfs);
    if (enc && !partial) {
      PutBe16(&f[p.l4_ofs + hdr::kUdpLenOfs], static_cast<uint16_t>(f.size() - p.l4_ofs));
      if (udp_csum) L4Checksum(f, p.l3_ofs, p.l4_ofs, hdr::kProtoUdp, hdr::kUdpCsumOfs);
    }
    out.push_back(std::move(f));
  }
  Count(counters, "device_tso_segments", out.size());
  return out;
}

// A device with NETIF_F_GSO_FRAGLIST (veth) sends the frag_list members as
// the packets they were, each behind the head's MAC header.
std::vector<Bytes> FraglistSplit(const SkBuff& skb) {
  const size_t members =
      std::accumulate(skb.frag_list_lens.begin(), skb.frag_list_lens.end(), size_t{0});
  const uint16_t mac = skb.pkt.l3_ofs;
  if (mac == kNoOffset || members > skb.len() || skb.len() - members < mac)
    return {skb.pkt.bytes()};
  const uint8_t* d = skb.pkt.data();
  size_t ofs = skb.len() - members;
  std::vector<Bytes> out{Bytes(d, d + ofs)};
  for (uint32_t m : skb.frag_list_lens) {
    Bytes f(d, d + mac);
    f.insert(f.end(), d + ofs, d + ofs + m);
    ofs += m;
    out.push_back(std::move(f));
  }
  return out;
}

// Whether the device computes this PARTIAL checksum (the capability rules of
// can_checksum_protocol and skb_csum_hwoffload_help).
bool CanDoChecksum(const SkBuff& skb, uint64_t f) {
  if (skb.csum_not_inet) return f & netif::kSctpCrc;
  if (f & netif::kHwCsum) return true;
  const uint16_t l3 = skb.encapsulation ? skb.pkt.inner_l3_ofs : skb.pkt.l3_ofs;
  if (!Fits(skb, l3, 1)) return false;
  const bool tcp_udp = skb.csum_offset == hdr::kTcpCsumOfs || skb.csum_offset == hdr::kUdpCsumOfs;
  const bool v4 = (skb.pkt.data()[l3] >> 4) == 4;
  return tcp_udp && (f & (v4 ? netif::kIpCsum : netif::kIpv6Csum));
}

// A GSO skb: the hardware cuts its frames from it and leaves it as it was.
std::vector<Bytes> GsoTransmit(const SkBuff& skb, uint64_t f, Counters* counters) {
  if (!NetGsoOk(f | kNetifGsoRobust, skb.gso_type)) {
    Count(counters, "device_tx_unsupported_gso");
    return {skb.pkt.bytes()};
  }
  if (skb.gso_type & gso::kFraglist) return FraglistSplit(skb);
  return Tso(skb, counters);
}

uint64_t TxFeatures(const SkBuff& skb, const DeviceFeatures& dev) {
  return skb.encapsulation ? dev.features & dev.hw_enc_features : dev.features;
}

}  // namespace

std::vector<Bytes> DeviceTransmit(SkBuff skb, const DeviceFeatures& dev, Counters* counters) {
  HardwareScope hw;
  const uint64_t f = TxFeatures(skb, dev);
  if (skb.is_gso()) return GsoTransmit(skb, f, counters);
  if (skb.ip_summed == IpSummed::kPartial) {
    const size_t field = size_t{skb.csum_start} + skb.csum_offset;
    if (skb.csum_start >= skb.len() || field + (skb.csum_not_inet ? 4 : 2) > skb.len()) {
      Count(counters, "device_tx_malformed");
    } else if (!CanDoChecksum(skb, f)) {
      Count(counters, "device_tx_unsupported_csum");
    } else if (skb.csum_not_inet) {
      // SCTP CRC32c over the packet with the field zeroed, little-endian.
      uint8_t* c = skb.pkt.data() + field;
      PutBe32(c, 0);
      const uint32_t crc =
          csum::Crc32c(skb.pkt.data() + skb.csum_start, skb.len() - skb.csum_start);
      for (int b = 0; b < 4; b++) c[b] = static_cast<uint8_t>(crc >> (8 * b));
      Count(counters, "device_csum");
    } else {
      // The field holds the pseudo-header sum; the device sums from
      // csum_start to the end and stores the complement.
      uint16_t c =
          csum::Finish(csum::Partial(skb.pkt.data() + skb.csum_start, skb.len() - skb.csum_start));
      if (c == 0 && skb.csum_offset == hdr::kUdpCsumOfs) c = 0xffff;
      PutBe16(skb.pkt.data() + field, c);
      Count(counters, "device_csum");
    }
  }
  return {std::move(skb.pkt).TakeBytes()};
}

std::vector<Bytes> DeviceTransmitKeep(const SkBuff& skb, const DeviceFeatures& dev,
                                      Counters* counters) {
  if (!skb.is_gso()) return DeviceTransmit(skb, dev, counters);
  HardwareScope hw;
  return GsoTransmit(skb, TxFeatures(skb, dev), counters);
}

}  // namespace offlab::kernel
