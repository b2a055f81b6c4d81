// Frames the Geneve driver tests build by hand: the Geneve header from RFC
// 8926 section 3.4, checksums with a plain 16-bit loop (RFC 1071), never with
// offlab::csum or the code under test.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "offlab/linux/geneve.h"
#include "offlab/net/bytes.h"
#include "test_util.h"

namespace offlab::kernel::genevetest {

using testing::Put16;

inline uint32_t Sum16(const Bytes& b, size_t from, size_t to, uint32_t acc = 0) {
  for (size_t i = from; i < to; i += 2) {
    acc += static_cast<uint32_t>(b[i] << 8) | (i + 1 < to ? b[i + 1] : 0);
    acc = (acc & 0xffff) + (acc >> 16);
  }
  return acc;
}
inline uint16_t Fold(uint32_t a) {
  while (a >> 16) a = (a & 0xffff) + (a >> 16);
  return static_cast<uint16_t>(a);
}
inline uint16_t At16(const Bytes& b, size_t o) {
  return static_cast<uint16_t>(b[o] << 8 | b[o + 1]);
}
inline void Append(Bytes& b, std::initializer_list<int> v) {
  for (int x : v) b.push_back(static_cast<uint8_t>(x));
}
// Pseudo-header sums for the IP header at `ip`.
inline uint32_t Pseudo4(const Bytes& b, size_t ip, uint16_t len) {
  return Sum16(b, ip + 12, ip + 20) + 17 + len;
}
inline uint32_t Pseudo6(const Bytes& b, size_t ip, uint16_t len) {
  return Sum16(b, ip + 8, ip + 40) + 17 + len;
}
inline bool UdpVerifies(const Bytes& b, size_t ip, size_t l4, bool v6) {
  const uint16_t len = static_cast<uint16_t>(b.size() - l4);
  return Fold(Sum16(b, l4, b.size(), v6 ? Pseudo6(b, ip, len) : Pseudo4(b, ip, len))) == 0xffff;
}

// Inner frame 02:..:01:0b -> 02:..:01:0a, 192.168.42.2:34904 ->
// 192.168.42.1:5555 "hello-offlab"; `full` = a finished UDP checksum, else
// the pseudo-header sum a CHECKSUM_PARTIAL sender leaves in the field.
inline Bytes Inner(bool full) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 1, 0x0a, 2, 0, 0, 0, 1, 0x0b, 0x08, 0x00});
  Append(b, {0x45, 0, 0,   0x28, 0x2a, 0xf4, 0x40, 0,   0x40, 0x11,
             0,    0, 192, 168,  42,   2,    192,  168, 42,   1});
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  Append(b, {0x88, 0x58, 0x15, 0xb3, 0x00, 0x14, 0, 0});
  for (char ch : std::string("hello-offlab")) b.push_back(static_cast<uint8_t>(ch));
  const uint32_t ph = Pseudo4(b, 14, 20);
  Put16(b, 40, full ? static_cast<uint16_t>(~Fold(Sum16(b, 34, b.size(), ph))) : Fold(ph));
  return b;
}

inline const std::array<uint8_t, 16> kV6Remote = {0xfd, 0, 0, 0, 0, 0, 0, 0,
                                                  0,    0, 0, 0, 0, 0, 0, 1};
inline const std::array<uint8_t, 16> kV6Local = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

// The outer frame: Ethernet, IPv4 10.1.0.1 -> 10.1.0.2 (ID 0x1234, TTL 64)
// or IPv6 fd00::1 -> fd00::2, UDP 49152 -> 6081 (checksum computed or 0),
// Geneve (RFC 8926: ver|opt_len, O|C, protocol 0x6558, VNI, reserved),
// options, inner frame.
struct Outer {
  bool v6 = false;
  bool csum = true;
  uint8_t flags = 0;  // O|C byte
  uint8_t ver = 0;
  uint32_t vni = 42;
  Bytes options;
  uint8_t tos = 0;
  uint16_t proto = 0x6558;  // the Geneve protocol type
};
inline Bytes BuildOuter(const Outer& o, const Bytes& inner) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 0, 0x0b, 2, 0, 0, 0, 0, 0x0a});
  const size_t udp_len = 8 + 8 + o.options.size() + inner.size();
  size_t l4 = 0;
  if (!o.v6) {
    Append(b, {0x08, 0x00, 0x45, o.tos, 0, 0, 0x12, 0x34, 0, 0, 64,
               17,   0,    0,    10,    1, 0, 1,    10,   1, 0, 2});
    Put16(b, 16, static_cast<uint16_t>(20 + udp_len));
    Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
    l4 = 34;
  } else {
    Append(b, {0x86, 0xdd, 0x60 | (o.tos >> 4), (o.tos & 0xf) << 4, 0, 0, 0, 0, 17, 64});
    Put16(b, 18, static_cast<uint16_t>(udp_len));
    b.insert(b.end(), kV6Remote.begin(), kV6Remote.end());
    b.insert(b.end(), kV6Local.begin(), kV6Local.end());
    l4 = 54;
  }
  Append(b, {0xc0, 0x00, 0x17, 0xc1, 0, 0, 0, 0});
  Put16(b, l4 + 4, static_cast<uint16_t>(udp_len));
  Append(b, {(o.ver << 6) | static_cast<int>(o.options.size() / 4), o.flags, o.proto >> 8,
             o.proto & 0xff, static_cast<int>(o.vni >> 16 & 0xff),
             static_cast<int>(o.vni >> 8 & 0xff), static_cast<int>(o.vni & 0xff), 0});
  b.insert(b.end(), o.options.begin(), o.options.end());
  b.insert(b.end(), inner.begin(), inner.end());
  if (o.csum) {
    const uint32_t ph = o.v6 ? Pseudo6(b, 14, static_cast<uint16_t>(udp_len))
                             : Pseudo4(b, 14, static_cast<uint16_t>(udp_len));
    uint16_t c = static_cast<uint16_t>(~Fold(Sum16(b, l4, b.size(), ph)));
    Put16(b, l4 + 6, c ? c : 0xffff);
  }
  return b;
}

inline GeneveConfig TxConfig() {
  GeneveConfig c;
  c.vni = 42;
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}
inline GeneveConfig RxConfig(bool v6 = false) {
  GeneveConfig c = TxConfig();
  c.mac = {2, 0, 0, 0, 1, 0x0a};
  c.ipv6 = v6;
  if (v6) {
    c.local = kV6Local;
    c.remote = kV6Remote;
  }
  return c;
}
inline UnderlayRoute Route() {
  UnderlayRoute r;
  r.src_mac = {2, 0, 0, 0, 0, 0x0b};
  r.dst_mac = {2, 0, 0, 0, 0, 0x0a};
  r.ip_id = 0x074f;
  r.flow_hash = 0;  // udp_flow_src_port(1, 65535) of hash 0 is 1
  return r;
}
inline SkBuff Skb(const Bytes& b, IpSummed s = IpSummed::kNone) {
  SkBuff k;
  k.pkt = Packet(b);
  k.ip_summed = s;
  if (s == IpSummed::kPartial) {
    k.csum_start = 34;
    k.csum_offset = 6;
  }
  return k;
}

// The frame geneve_xmit_skb is expected to send for Inner(false): IPv4
// 10.1.0.2 -> 10.1.0.1, ID 0x074f, no DF, TTL 64 (route), UDP 1 -> 6081.
inline Bytes ExpectedTx4(const Bytes& inner, const Bytes& opts, uint16_t udp_check) {
  Bytes b;
  Append(b, {2, 0, 0, 0, 0, 0x0a, 2, 0, 0, 0, 0, 0x0b, 0x08, 0x00});
  const size_t udp_len = 16 + opts.size() + inner.size();
  Append(b, {0x45, 0, 0, 0, 0x07, 0x4f, 0, 0, 64, 17, 0, 0, 10, 1, 0, 2, 10, 1, 0, 1});
  Put16(b, 16, static_cast<uint16_t>(20 + udp_len));
  Put16(b, 24, static_cast<uint16_t>(~Fold(Sum16(b, 14, 34))));
  Append(b, {0, 1, 0x17, 0xc1, 0, 0, 0, 0});
  Put16(b, 38, static_cast<uint16_t>(udp_len));
  Put16(b, 40, udp_check);
  Append(b, {static_cast<int>(opts.size() / 4), 0, 0x65, 0x58, 0, 0, 42, 0});
  b.insert(b.end(), opts.begin(), opts.end());
  b.insert(b.end(), inner.begin(), inner.end());
  return b;
}

}  // namespace offlab::kernel::genevetest
