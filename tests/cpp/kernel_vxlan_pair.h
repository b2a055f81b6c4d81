// The two ends of the VXLAN tests' tunnel: the sender vx0 (10.1.0.1) and
// the receiving device (10.1.0.2, MAC 02:00:00:00:01:0b), VNI 42 on the
// IANA port 4789, no outer UDP checksum; and the inner UDP datagram
// (8080 > 53, 4 bytes) they carry.
#pragma once

#include <cstdint>
#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/vxlan.h"

namespace offlab::kernel::vxlan_pair {

inline const std::string kUdp = "1f900035000c000000010203";

inline VxlanConfig Tx() {
  VxlanConfig c;
  c.name = "vx0";
  c.vni = 42;
  c.dstport = 4789;
  c.port_min = 40000;
  c.port_max = 40001;
  c.local = {10, 1, 0, 1};
  c.remote = {10, 1, 0, 2};
  c.udp_csum = false;
  return c;
}

inline VxlanConfig Rx() {
  VxlanConfig c = Tx();
  c.mac = {0x02, 0, 0, 0, 0x01, 0x0b};
  c.local = {10, 1, 0, 2};
  c.remote = {10, 1, 0, 1};
  return c;
}

// The inner frame with IPv4 TOS `ds`, its header checksum redone by the
// test oracle.
inline Bytes Inner4(uint8_t ds) {
  Bytes f = testing::Ipv4Frame(17, kUdp);
  f[15] = ds;
  testing::Put16(f, 24, 0);
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(&f[14], 20)));
  return f;
}

}  // namespace offlab::kernel::vxlan_pair
