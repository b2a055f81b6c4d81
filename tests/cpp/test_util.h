// Shared helpers for the semantics tests. The checksum oracle here is a
// deliberately plain re-implementation (no code from offlab::csum), so a test
// that says "this field verifies" does not lean on the code it checks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/net/payload.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"

namespace offlab::testing {

// Hex with whitespace allowed, so frames can be laid out one header per chunk.
inline std::string H(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n') out.push_back(c);
  }
  return out;
}

inline Packet Parsed(const std::string& hex) {
  Packet p(FromHex(H(hex)));
  Parse(p);
  return p;
}

inline std::string Hex(const Packet& p) { return ToHex(p.bytes()); }

// A parsed frame with the given outer IP and L4 statuses.
inline Packet With(const std::string& hex, CsumStatus ip, CsumStatus l4) {
  Packet p = Parsed(hex);
  p.offloads.set_ip(ip);
  p.offloads.set_l4(l4);
  return p;
}

// One packet encapsulated by PushHeader.
inline Packet Push(Packet p, const TunnelConfig& t) {
  PacketBatch b{std::move(p)};
  PushHeader(b, t);
  return b.at(0);
}

// Replaces the first occurrence of `from` at or after `pos` (hex offsets).
inline std::string Sub(std::string s, const std::string& from, const std::string& to,
                       size_t pos = 0) {
  size_t at = s.find(from, pos);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

inline uint16_t Be16(const Bytes& b, size_t ofs) {
  return static_cast<uint16_t>((b[ofs] << 8) | b[ofs + 1]);
}

// Reference §3 block G (192.168.123.2 > .1, TCP 54392 > 5201 ACK, TTL 0,
// payload 00..3f) and the R2/R3 inner frame after mod_tp_dst:2222.
inline const std::string kFrameG =
    H("0a8f394fe0738abf7e2f05840800"
      "45000068000000000006433cc0a87b02c0a87b01"
      "d47814510000000000000000501000006b720000"
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f");
inline const std::string kFrameR2 =
    H("0a8f394fe0738abf7e2f05840800"
      "45000068000000000006433cc0a87b02c0a87b01"
      "d47808ae00000000000000005010000077150000"
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f");

// The R3 tunnel: vxlan key 123, aa:66:aa:66:00:00 1.1.2.88 > aa:66:aa:66:00:01
// 1.1.2.92, source port 57363 (tnl/egress_port_range 57363 57363).
inline TunnelConfig R3Tunnel(bool csum, TunnelType type = TunnelType::kVxlan) {
  TunnelConfig t;
  t.type = type;
  t.eth_src = {0xaa, 0x66, 0xaa, 0x66, 0x00, 0x00};
  t.eth_dst = {0xaa, 0x66, 0xaa, 0x66, 0x00, 0x01};
  t.ip_src = {1, 1, 2, 88};
  t.ip_dst = {1, 1, 2, 92};
  t.key = 123;
  t.udp_src = 57363;
  t.csum = csum;
  return t;
}

// R3's O(c): the outer headers for the 118-byte G frame, UDP checksum c.
inline std::string R3Outer(const std::string& ip_csum, const std::string& udp_csum) {
  return H("aa66aa660001aa66aa6600000800 4500009a000040004011" + ip_csum +
           "010102580101025c e01312b50086" + udp_csum + "0800000000007b00");
}

// Reference §3 R7: the 2054-byte IPv4 TSO frame (tos 1, TTL 64, 2000 zero
// bytes of payload) and the four 500-byte segments OVS sends for it.
inline std::string R7Frame() {
  return H("0a8f394fe0738abf7e2f05840800 450107f8000000004006fbaac0a87b02c0a87b01"
           "d478145100000000000000005010000047e60000") +
         std::string(4000, '0');
}
inline std::string R7Segment(int k) {
  static const char* ip_csum[] = {"0187", "0186", "0185", "0184"};
  static const char* seq[] = {"00000000", "000001f4", "000003e8", "000005dc"};
  static const char* tcp_csum[] = {"4dc2", "4bce", "49da", "47e6"};
  return H("0a8f394fe0738abf7e2f05840800 4501021c000" + std::to_string(k) + "00004006" +
           ip_csum[k] + "c0a87b02c0a87b01 d4781451" + seq[k] + "0000000050100000" + tcp_csum[k] +
           "0000") +
         std::string(1000, '0');
}

inline void Put16(Bytes& f, size_t ofs, uint16_t v) {
  f[ofs] = static_cast<uint8_t>(v >> 8);
  f[ofs + 1] = static_cast<uint8_t>(v);
}

// `flat` with only its first n bytes in the head and the rest a shared tail
// (offlab/net/packet.h), every offset, status and metadata field kept. The
// head's buffer past byte n holds the complement of each real byte, so code
// that reads a byte from the head before making sure it is there (Linear)
// reads a wrong value, not the right one by luck.
inline Packet SplitPoisoned(const Packet& flat, size_t n) {
  const Bytes real = flat.bytes();
  n = std::min(n, real.size());
  Bytes b = real;
  for (size_t i = n; i < b.size(); i++) b[i] = static_cast<uint8_t>(~b[i]);
  Packet p(b);
  p.Resize(n);
  if (n < real.size()) {
    Rope tail;
    tail.Append(Slice{PayloadBuf::Copy(real.data() + n, real.size() - n), 0, real.size() - n});
    p.AppendTail(tail);
  }
  p.l2_5_ofs = flat.l2_5_ofs;
  p.l3_ofs = flat.l3_ofs;
  p.l4_ofs = flat.l4_ofs;
  p.inner_l2_ofs = flat.inner_l2_ofs;
  p.inner_l3_ofs = flat.inner_l3_ofs;
  p.inner_l4_ofs = flat.inner_l4_ofs;
  p.offloads = flat.offloads;
  p.tso_segsz = flat.tso_segsz;
  p.md = flat.md;
  return p;
}

// --- oracle --------------------------------------------------------------

inline uint32_t OracleSum(const uint8_t* d, size_t n, uint32_t s = 0) {
  for (size_t i = 0; i < n; i++) s += (i & 1) ? d[i] : uint32_t{d[i]} << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return s;
}

inline bool OracleIpv4HeaderOk(const Bytes& f, size_t l3) {
  size_t ihl = (f[l3] & 0x0f) * 4u;
  return OracleSum(f.data() + l3, ihl) == 0xffff;
}

// Sum of the TCP/UDP pseudo-header for the IP header at `l3` (no IPv6
// extension headers: callers use plain headers), the segment length taken
// from the IP header.
inline uint32_t OraclePseudo(const Bytes& f, size_t l3, size_t l4, uint8_t proto, size_t* len) {
  uint32_t s = proto;
  if ((f[l3] >> 4) == 4) {
    s = OracleSum(f.data() + l3 + 12, 8, s);
    *len = Be16(f, l3 + 2) - (l4 - l3);
  } else {
    s = OracleSum(f.data() + l3 + 8, 32, s);
    *len = Be16(f, l3 + 4) + 40 - (l4 - l3);
  }
  return OracleSum(nullptr, 0, s + static_cast<uint32_t>(*len));
}

// True if the TCP/UDP/ICMPv6 checksum of the segment at `l4` verifies.
inline bool OracleL4Ok(const Bytes& f, size_t l3, size_t l4, uint8_t proto) {
  size_t len = 0;
  uint32_t s = OraclePseudo(f, l3, l4, proto, &len);
  return OracleSum(f.data() + l4, len, s) == 0xffff;
}

// The value a correct TCP/UDP checksum field at l4 + csum_ofs would hold.
inline uint16_t OracleL4Csum(const Bytes& f, size_t l3, size_t l4, uint8_t proto, size_t csum_ofs) {
  Bytes copy = f;
  copy[l4 + csum_ofs] = copy[l4 + csum_ofs + 1] = 0;
  size_t len = 0;
  uint32_t s = OraclePseudo(copy, l3, l4, proto, &len);
  uint16_t c = static_cast<uint16_t>(~OracleSum(copy.data() + l4, len, s));
  return (proto == 17 && c == 0) ? 0xffff : c;
}

// CRC32c bit by bit (RFC 9260 appendix B), for SCTP.
inline uint32_t OracleCrc32c(const uint8_t* d, size_t n) {
  uint32_t crc = 0xffffffff;
  for (size_t i = 0; i < n; i++) {
    crc ^= d[i];
    for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
  }
  return ~crc;
}

// True if the SCTP common header at `l4` carries the CRC32c of `len` bytes.
inline bool OracleSctpOk(const Bytes& f, size_t l4, size_t len) {
  Bytes seg(f.begin() + l4, f.begin() + l4 + len);
  uint32_t field = seg[8] | (seg[9] << 8) | (seg[10] << 16) | (uint32_t{seg[11]} << 24);
  seg[8] = seg[9] = seg[10] = seg[11] = 0;
  return OracleCrc32c(seg.data(), seg.size()) == field;
}

}  // namespace offlab::testing
