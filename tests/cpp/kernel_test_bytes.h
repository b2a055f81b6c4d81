// Byte helpers the kernel tests build expected frames with: a plain RFC 1071
// sum (independent of offlab::csum), big-endian fields, appending bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "offlab/linux/skb.h"
#include "offlab/net/bytes.h"

namespace offlab::kernel::testbytes {

inline uint32_t Sum(const Bytes& b, size_t from, size_t to, uint32_t s = 0) {
  for (size_t i = from; i + 1 < to; i += 2) s += (b[i] << 8) | b[i + 1];
  if ((to - from) % 2) s += b[to - 1] << 8;
  return s;
}
inline uint16_t Fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}
inline void Put16(Bytes& b, size_t o, uint32_t v) {
  b[o] = static_cast<uint8_t>(v >> 8);
  b[o + 1] = static_cast<uint8_t>(v);
}
inline uint16_t Get16(const Bytes& b, size_t o) {
  return static_cast<uint16_t>((b[o] << 8) | b[o + 1]);
}
inline void Add(Bytes& b, std::initializer_list<uint32_t> v) {
  for (uint32_t x : v) b.push_back(static_cast<uint8_t>(x));
}

// An IPv4/TCP frame (Ethernet at 0, IPv4 at 14, TCP at 34) as a local
// CHECKSUM_PARTIAL skb; with `mss`, a TCPv4 GSO skb of ceil(payload / mss)
// segments.
inline SkBuff PartialTcp4Skb(const Bytes& f, uint16_t mss = 0) {
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 34;
  s.csum_offset = 16;
  if (mss) {
    const size_t payload = f.size() > 54 ? f.size() - 54 : 0;
    s.gso_size = mss;
    s.gso_segs = static_cast<uint16_t>((payload + mss - 1) / mss);
    s.gso_type = gso::kTcpv4;
  }
  return s;
}

}  // namespace offlab::kernel::testbytes
