// Frames and checks for the host tests, built and checked with the plain
// RFC 1071 oracle of test_util.h (nothing from offlab::csum): a guest's TSO
// frame and the segments it must become, a UDP frame, and the checks of a
// VXLAN frame on the wire.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_gro_test_frames.h"

namespace offlab::testing {

// The TCP flow every host test sends: 10.0.0.1:40000 -> 10.0.0.2:5201,
// seq 1000, IPv4 ID 100, payload byte i = (uint8_t)i over the whole stream.
inline Seg FlowSeg(size_t offset, size_t len, uint8_t flags) {
  Seg s;
  s.payload_len = len;
  s.seq = 1000 + static_cast<uint32_t>(offset);
  s.fill = static_cast<uint8_t>(offset);
  s.flags = flags;
  return s;
}

// The frame a guest hands its virtio NIC for a TSO send of `len` bytes:
// PSH|ACK, the TCP field holding the pseudo-header sum (NEEDS_CSUM).
inline Bytes GuestTsoFrame(size_t len) {
  Bytes f = TcpFrame(FlowSeg(0, len, 0x18));
  Put16(f, 34 + 16, PseudoFold4(&f[26], &f[30], 6, static_cast<uint32_t>(f.size() - 34)));
  return f;
}

// Segment k of that send as TSO must produce it (RFC 9293 segmentation as
// the kernel's tcp_gso_segment and NIC TSO do it): sequence advanced, PSH on
// the last segment only, IPv4 ID 100 + k, both checksums complete.
inline Bytes TsoSegment(size_t len, size_t mss, size_t k) {
  const size_t off = k * mss;
  const size_t n = (len + mss - 1) / mss;
  Seg s = FlowSeg(off, std::min(mss, len - off), k + 1 == n ? 0x18 : 0x10);
  s.id = static_cast<uint16_t>(100 + k);
  return TcpFrame(s);
}

// An Ethernet + IPv4 + UDP frame of `len` bytes (10.0.0.1:40000 ->
// 10.0.0.2:5000, DF, TTL 64) with a correct UDP checksum.
inline Bytes UdpFrame(size_t len, uint16_t id) {
  Bytes f(len, 0);
  const uint8_t head[] = {2, 0, 0, 0,    0, 2,  2,  0, 0, 0,  0, 1, 8, 0,  0x45, 0, 0,
                          0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0,    0, 2};
  std::copy(std::begin(head), std::end(head), f.begin());
  Put16(f, 16, static_cast<uint16_t>(len - 14));
  Put16(f, 18, id);
  FixIpv4Csum(f, 14);
  Put16(f, 34, 40000);
  Put16(f, 36, 5000);
  Put16(f, 38, static_cast<uint16_t>(len - 34));
  for (size_t i = 42; i < len; i++) f[i] = static_cast<uint8_t>(i * 3);
  FixL4Csum(f, 14, 34, 17, 6);
  return f;
}

// The inner frame of a VXLAN frame (outer Ethernet + IPv4 + UDP + VXLAN).
inline Bytes InnerOf(const Bytes& f) {
  return f.size() < 50 ? Bytes{} : Bytes(f.begin() + 50, f.end());
}

// Checks the outer headers of a VXLAN frame: IPv4 header checksum, lengths,
// the destination port and VNI, and the UDP checksum (verifying, or zero
// when `udp_csum` is false).
inline void ExpectVxlanOuter(const Bytes& f, bool udp_csum, uint32_t vni, const char* what) {
  ASSERT_GE(f.size(), 50u) << what;
  EXPECT_TRUE(OracleIpv4HeaderOk(f, 14)) << what;
  EXPECT_EQ(Be16(f, 16), f.size() - 14) << what;
  EXPECT_EQ(f[23], 17) << what;
  EXPECT_EQ(Be16(f, 36), 4789) << what;
  EXPECT_EQ(Be16(f, 38), f.size() - 34) << what;
  if (udp_csum)
    EXPECT_TRUE(OracleL4Ok(f, 14, 34, 17)) << what;
  else
    EXPECT_EQ(Be16(f, 40), 0) << what;
  EXPECT_EQ(f[42] & 0x08, 0x08) << what;
  EXPECT_EQ((uint32_t{f[46]} << 16) | (f[47] << 8) | f[48], vni) << what;
}

}  // namespace offlab::testing
