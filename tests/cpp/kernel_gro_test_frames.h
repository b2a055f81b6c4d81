// Frames for the GRO tests, built here with the plain-loop RFC 1071 oracle
// of test_util.h (nothing from offlab::csum), and the expected merged
// packets built the same way: headers of the first segment, payloads
// appended, lengths and checksums recomputed by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "offlab/linux/gro.h"
#include "offlab/net/bytes.h"
#include "test_util.h"

namespace offlab::testing {

struct Seg {
  uint8_t mac_dst[6] = {0x02, 0, 0, 0, 0, 0x02};
  uint8_t mac_src[6] = {0x02, 0, 0, 0, 0, 0x01};
  uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
  uint8_t ttl = 64, tos = 0;
  uint16_t id = 100;
  bool df = true;
  uint16_t sport = 40000, dport = 5201;
  uint32_t seq = 1000, ack = 77;
  uint8_t flags = 0x10;  // ACK
  uint16_t window = 512;
  Bytes options;
  size_t payload_len = 1000;
  uint8_t fill = 0;  // payload byte k is fill + k
  bool bad_tcp_csum = false;
  bool bad_ip_csum = false;
  bool ipv6 = false;
};

// Folded pseudo-header sum (not complemented) for IPv4 / IPv6.
inline uint16_t PseudoFold4(const uint8_t* src, const uint8_t* dst, uint8_t proto, uint32_t len) {
  uint32_t s = OracleSum(src, 4);
  s = OracleSum(dst, 4, s);
  return static_cast<uint16_t>(OracleSum(nullptr, 0, s + proto + len));
}
inline uint16_t PseudoFold6(const uint8_t* src, const uint8_t* dst, uint8_t proto, uint32_t len) {
  uint32_t s = OracleSum(src, 16);
  s = OracleSum(dst, 16, s);
  return static_cast<uint16_t>(OracleSum(nullptr, 0, s + proto + (len >> 16) + (len & 0xffff)));
}

inline void FixIpv4Csum(Bytes& f, size_t l3) {
  f[l3 + 10] = f[l3 + 11] = 0;
  Put16(f, l3 + 10, static_cast<uint16_t>(~OracleSum(f.data() + l3, 20)));
}

// A correct L4 checksum for the segment at l4 (proto 6 or 17) over the rest.
inline void FixL4Csum(Bytes& f, size_t l3, size_t l4, uint8_t proto, size_t field) {
  f[l4 + field] = f[l4 + field + 1] = 0;
  const uint32_t len = static_cast<uint32_t>(f.size() - l4);
  const uint16_t ps = (f[l3] >> 4) == 4 ? PseudoFold4(&f[l3 + 12], &f[l3 + 16], proto, len)
                                        : PseudoFold6(&f[l3 + 8], &f[l3 + 24], proto, len);
  uint16_t c = static_cast<uint16_t>(~OracleSum(f.data() + l4, len, ps));
  if (proto == 17 && c == 0) c = 0xffff;
  Put16(f, l4 + field, c);
}

inline uint8_t V6Addr(const uint8_t* v4, int k) {
  return k < 12 ? (k == 0 ? 0xfd : 0) : v4[k - 12];
}

// Ethernet + IPv4/IPv6 + TCP frame.
inline Bytes TcpFrame(const Seg& s) {
  const size_t l3 = 14, iplen = s.ipv6 ? 40 : 20, l4 = l3 + iplen;
  const size_t thlen = 20 + s.options.size();
  Bytes f(l4 + thlen + s.payload_len, 0);
  std::copy(s.mac_dst, s.mac_dst + 6, f.begin());
  std::copy(s.mac_src, s.mac_src + 6, f.begin() + 6);
  Put16(f, 12, s.ipv6 ? 0x86dd : 0x0800);
  if (s.ipv6) {
    f[l3] = static_cast<uint8_t>(0x60 | (s.tos >> 4));
    f[l3 + 1] = static_cast<uint8_t>(s.tos << 4);
    Put16(f, l3 + 4, static_cast<uint16_t>(thlen + s.payload_len));
    f[l3 + 6] = 6;
    f[l3 + 7] = s.ttl;
    for (int k = 0; k < 16; k++)
      f[l3 + 8 + k] = V6Addr(s.src, k), f[l3 + 24 + k] = V6Addr(s.dst, k);
  } else {
    f[l3] = 0x45;
    f[l3 + 1] = s.tos;
    Put16(f, l3 + 2, static_cast<uint16_t>(20 + thlen + s.payload_len));
    Put16(f, l3 + 4, s.id);
    Put16(f, l3 + 6, s.df ? 0x4000 : 0);
    f[l3 + 8] = s.ttl;
    f[l3 + 9] = 6;
    std::copy(s.src, s.src + 4, f.begin() + l3 + 12);
    std::copy(s.dst, s.dst + 4, f.begin() + l3 + 16);
    FixIpv4Csum(f, l3);
    if (s.bad_ip_csum) f[l3 + 11] ^= 0x5a;
  }
  Put16(f, l4, s.sport);
  Put16(f, l4 + 2, s.dport);
  for (int k = 0; k < 4; k++) f[l4 + 4 + k] = static_cast<uint8_t>(s.seq >> (24 - 8 * k));
  for (int k = 0; k < 4; k++) f[l4 + 8 + k] = static_cast<uint8_t>(s.ack >> (24 - 8 * k));
  f[l4 + 12] = static_cast<uint8_t>((thlen / 4) << 4);
  f[l4 + 13] = s.flags;
  Put16(f, l4 + 14, s.window);
  std::copy(s.options.begin(), s.options.end(), f.begin() + l4 + 20);
  for (size_t k = 0; k < s.payload_len; k++) f[l4 + thlen + k] = static_cast<uint8_t>(s.fill + k);
  FixL4Csum(f, l3, l4, 6, 16);
  if (s.bad_tcp_csum) f[l4 + 17] ^= 0x01;
  return f;
}

// A VXLAN frame (outer IPv4/UDP, VNI `vni`) around `inner`. With `rco`
// the VXLAN header carries remote checksum offload for the inner TCP
// header (start = its offset in the inner frame) and the inner TCP field
// must hold the pseudo-header sum (the caller arranges that).
struct Outer {
  uint8_t src[4] = {192, 168, 1, 1}, dst[4] = {192, 168, 1, 2};
  uint16_t sport = 55555, dport = 4789;
  uint16_t id = 7;
  bool udp_csum = true;
  uint32_t vni = 42;
  bool rco = false;
  size_t rco_start = 34;
};

inline Bytes VxlanFrame(const Outer& o, const Bytes& inner) {
  const size_t l3 = 14, l4 = 34, vx = 42;
  Bytes f;
  // Room first: GCC 12's -Warray-bounds misreads the reallocating insert.
  f.reserve(vx + 8 + inner.size());
  f.resize(vx + 8, 0);
  const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x22}, smac[6] = {0x02, 0, 0, 0, 0, 0x11};
  std::copy(dmac, dmac + 6, f.begin());
  std::copy(smac, smac + 6, f.begin() + 6);
  Put16(f, 12, 0x0800);
  f.insert(f.end(), inner.begin(), inner.end());
  f[l3] = 0x45;
  Put16(f, l3 + 2, static_cast<uint16_t>(f.size() - l3));
  Put16(f, l3 + 4, o.id);
  Put16(f, l3 + 6, 0x4000);
  f[l3 + 8] = 64;
  f[l3 + 9] = 17;
  std::copy(o.src, o.src + 4, f.begin() + l3 + 12);
  std::copy(o.dst, o.dst + 4, f.begin() + l3 + 16);
  FixIpv4Csum(f, l3);
  Put16(f, l4, o.sport);
  Put16(f, l4 + 2, o.dport);
  Put16(f, l4 + 4, static_cast<uint16_t>(f.size() - l4));
  f[vx] = 0x08;
  if (o.rco) f[vx + 1] = 0x20;  // VXLAN_HF_RCO (bit 21 of the flags word)
  f[vx + 4] = static_cast<uint8_t>(o.vni >> 16);
  f[vx + 5] = static_cast<uint8_t>(o.vni >> 8);
  f[vx + 6] = static_cast<uint8_t>(o.vni);
  if (o.rco) f[vx + 7] = static_cast<uint8_t>(o.rco_start >> 1);  // TCP: bit 7 clear
  if (o.udp_csum) FixL4Csum(f, l3, l4, 17, 6);
  return f;
}

// `n` consecutive segments of one flow from `s`: sequence, IP ID and
// payload fill advance.
inline std::vector<Bytes> SegTrain(int n, Seg s = {}, uint8_t fill_step = 7) {
  std::vector<Bytes> out;
  for (int k = 0; k < n; k++) {
    out.push_back(TcpFrame(s));
    s.seq += static_cast<uint32_t>(s.payload_len);
    s.id++;
    s.fill = static_cast<uint8_t>(s.fill + fill_step);
  }
  return out;
}

// An SkBuff as a driver hands it to napi_gro_receive.
inline kernel::SkBuff DriverSkb(const Bytes& f, kernel::IpSummed s = kernel::IpSummed::kNone,
                                uint8_t level = 0) {
  kernel::SkBuff skb;
  skb.pkt = Packet(f);
  skb.pkt.l3_ofs = 14;
  skb.ip_summed = s;
  skb.csum_level = level;
  if (s == kernel::IpSummed::kComplete && f.size() >= 14) {
    skb.csum = OracleSum(f.data() + 14, f.size() - 14);
    skb.csum_from = 14;
  }
  return skb;
}

// The merged IPv4/IPv6 + TCP packet GRO should hand up for `segs` (plain,
// no tunnel): first segment's headers, all payloads, lengths fixed, IPv4
// header checksum recomputed, TCP field = folded pseudo-header sum.
inline Bytes ExpectedMerged(const std::vector<Bytes>& segs, size_t l4, size_t thlen) {
  Bytes m(segs[0].begin(), segs[0].begin() + static_cast<long>(l4 + thlen));
  for (const Bytes& s : segs) m.insert(m.end(), s.begin() + static_cast<long>(l4 + thlen), s.end());
  const size_t l3 = 14;
  const uint32_t tcp_len = static_cast<uint32_t>(m.size() - l4);
  if ((m[l3] >> 4) == 4) {
    Put16(m, l3 + 2, static_cast<uint16_t>(m.size() - l3));
    FixIpv4Csum(m, l3);
    Put16(m, l4 + 16, PseudoFold4(&m[l3 + 12], &m[l3 + 16], 6, tcp_len));
  } else {
    Put16(m, l3 + 4, static_cast<uint16_t>(m.size() - l3 - 40));
    Put16(m, l4 + 16, PseudoFold6(&m[l3 + 8], &m[l3 + 24], 6, tcp_len));
  }
  return m;
}

}  // namespace offlab::testing
