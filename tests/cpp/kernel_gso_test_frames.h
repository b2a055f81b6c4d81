// Frames the kernel GSO tests build from scratch: Ethernet + IPv4/IPv6 +
// TCP with payload byte k = 7k + 3, checksums summed by the plain RFC 1071
// loop of kernel_test_bytes.h; nothing is taken from the code under test.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "kernel_test_bytes.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel::gsotest {

using namespace testbytes;  // Sum, Fold, Put16, Get16, Add

inline constexpr size_t kEth = 14, kL3 = 14, kTh = 34, kHdr = 54, kMss = 1448;

inline uint32_t Pseudo(const Bytes& f, size_t l3, uint32_t len) {
  const bool v6 = (f[l3] >> 4) == 6;
  const size_t a = l3 + (v6 ? 8 : 12), e = l3 + (v6 ? 40 : 20);
  return Sum(f, a, e) + 6 + (len >> 16) + (len & 0xffff);
}
inline uint8_t PayloadByte(size_t i) { return static_cast<uint8_t>(i * 7 + 3); }

// An Ethernet + IPv4 (or IPv6) + TCP frame carrying payload bytes
// [off, off + len); IPv4 header checksum filled, TCP checksum complete when
// `complete`, else the pseudo-header sum as CHECKSUM_PARTIAL leaves it.
inline Bytes TcpFrame(bool v6, size_t off, size_t len, uint16_t id, uint32_t seq, uint8_t flags,
                      bool complete) {
  Bytes f;
  Add(f, {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, v6 ? 0x86u : 0x08u, v6 ? 0xddu : 0u});
  const size_t l3len = v6 ? 40 : 20;
  if (v6) {
    Add(f, {0x60, 0, 0, 0, 0, 0, 6, 64});
    for (int i = 0; i < 2; i++) Add(f, {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1u + i});
    Put16(f, kL3 + 4, 20 + len);
  } else {
    Add(f, {0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2});
    Put16(f, kL3 + 2, 40 + len);
    Put16(f, kL3 + 4, id);
    Put16(f, kL3 + 10, static_cast<uint16_t>(~Fold(Sum(f, kL3, kL3 + 20))));
  }
  const size_t th = kL3 + l3len;
  Add(f, {0x9c, 0x40, 0x14, 0x51,  seq >> 24, seq >> 16, seq >> 8, seq, 0x11, 0x22,
          0x33, 0x44, 0x50, flags, 0x20,      0,         0,        0,   0,    0});
  for (size_t i = 0; i < len; i++) f.push_back(PayloadByte(off + i));
  const uint32_t pseudo = Pseudo(f, kL3, static_cast<uint32_t>(f.size() - th));
  Put16(f, th + 16,
        complete ? static_cast<uint16_t>(~Fold(Sum(f, th, f.size(), pseudo))) : Fold(pseudo));
  return f;
}

// A TCP GSO skb as the stack leaves it: CHECKSUM_PARTIAL at the TCP header.
inline SkBuff GsoSkb(bool v6, size_t payload, uint8_t flags = 0x98) {
  SkBuff s;
  s.pkt = Packet(TcpFrame(v6, 0, payload, 0x1234, 0x01020304, flags, false));
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = v6 ? kL3 + 40 : kTh;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = s.pkt.l4_ofs;
  s.csum_offset = 16;
  s.gso_size = kMss;
  s.gso_type = v6 ? gso::kTcpv6 : gso::kTcpv4;
  s.gso_segs = static_cast<uint16_t>((payload + kMss - 1) / kMss);
  return s;
}

// Segment i of `payload` bytes as the wire must carry it: ID and sequence
// advance, FIN/PSH only on the last, CWR only on the first.
inline Bytes Expected(bool v6, size_t payload, size_t i, uint8_t flags = 0x98) {
  const size_t n = (payload + kMss - 1) / kMss, off = i * kMss;
  uint8_t f = flags;
  if (i > 0) f &= ~0x80;
  if (i + 1 < n) f &= ~0x09;
  return TcpFrame(v6, off, std::min(kMss, payload - off), static_cast<uint16_t>(0x1234 + i),
                  0x01020304 + static_cast<uint32_t>(off), f, true);
}

inline DeviceFeatures Dev(uint64_t f) { return DeviceFeatures{f, 0, 65536, 65535, 1500}; }

}  // namespace offlab::kernel::gsotest
