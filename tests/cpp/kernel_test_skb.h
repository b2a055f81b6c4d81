// Frames and skbs the kernel-path tests share: an IPv4 or IPv6 frame laid
// out by hand (Ethernet 8a:bf:7e:2f:05:84 -> 0a:8f:39:4f:e0:73; IPv4
// 10.0.0.1 -> 10.0.0.2, ID 0x1234, TTL 64; IPv6 2001:db8::1 -> ::2, hop
// limit 64), the IPv4 header checksum summed by the oracle of test_util.h,
// and an skb as the stack sees it past the MAC header.
#pragma once

#include <cstdio>
#include <string>

#include "offlab/linux/skb.h"
#include "test_util.h"

namespace offlab::testing {

inline const std::string kKernelEth = "0a8f394fe0738abf7e2f0584";

// IPv4 carrying the L4 bytes `l4hex` (nothing summed in them), flags and
// fragment offset `frag`.
inline Bytes Ipv4Frame(uint8_t proto, const std::string& l4hex, uint16_t frag = 0x4000) {
  char ip[64];
  std::snprintf(ip, sizeof ip, "4500%04zx1234%04x40%02x00000a0000010a000002", 20 + l4hex.size() / 2,
                unsigned{frag}, unsigned{proto});
  Bytes f = FromHex(H(kKernelEth + "0800" + ip + l4hex));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  return f;
}

// IPv6 whose first next header is `nh`, then `ext` extension-header bytes
// and the L4 bytes `l4hex` (nothing summed).
inline Bytes Ipv6Frame(uint8_t nh, const std::string& ext, const std::string& l4hex) {
  char ip[32];
  std::snprintf(ip, sizeof ip, "60000000%04zx%02x40", (ext.size() + l4hex.size()) / 2,
                unsigned{nh});
  return FromHex(H(kKernelEth + "86dd" + ip + "20010db8000000000000000000000001" +
                   "20010db8000000000000000000000002" + ext + l4hex));
}

// The frame from its MAC header with skb->data at the network header
// (csum_from 14) and the driver's `st`; a COMPLETE sum covers what follows
// the MAC header, as eth_type_trans leaves it.
inline kernel::SkBuff NetworkSkb(const Bytes& f, kernel::IpSummed st) {
  kernel::SkBuff skb;
  skb.pkt = Packet(f);
  skb.ip_summed = st;
  skb.csum_from = 14;
  if (st == kernel::IpSummed::kComplete) skb.csum = OracleSum(&f[14], f.size() - 14);
  return skb;
}

}  // namespace offlab::testing
