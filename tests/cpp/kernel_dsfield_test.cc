// SPDX-License-Identifier: Apache-2.0
//
// ipv4_change_dsfield / ipv6_change_dsfield (include/net/dsfield.h, v6.18),
// as the kernel datapath's set(ipv4(tos)) reaches them. The IPv4 header
// checksum is updated in the kernel's own 32-bit steps, whose end-around
// carry can leave 0x0000 where RFC 1624's update would give 0xffff: the
// expected bytes below follow those C statements by hand.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "offlab/linux/ovs_actions_csum.h"

namespace offlab::kernel {
namespace {

// An IPv4 header whose checksum field holds `check` and TOS `tos` (the
// other bytes play no part in the update).
std::array<uint8_t, 20> Header(uint16_t check, uint8_t tos) {
  std::array<uint8_t, 20> h{};
  h[0] = 0x45;
  h[1] = tos;
  h[10] = static_cast<uint8_t>(check >> 8);
  h[11] = static_cast<uint8_t>(check);
  return h;
}

uint16_t Check(const std::array<uint8_t, 20>& h) {
  return static_cast<uint16_t>(h[10] << 8 | h[11]);
}

TEST(KernelDsfield, Ipv4ChecksumFollowsTheKernelsCarrySteps) {
  // check = 0xfff7 + tos 0x28 = 0x1001f; (check + 1) >> 16 is 1, so check =
  // 0x10020 & 0xffff = 0x0020; minus dsfield (0x28 & 0x03) | 0x20 = 0x20
  // gives 0; no carry: the field becomes 0x0000.
  auto h = Header(0xfff7, 0x28);
  Ipv4ChangeDsfield(h.data(), 0x03, 0x20);
  EXPECT_EQ(h[1], 0x20);
  EXPECT_EQ(Check(h), 0x0000);

  // check = 0x1234 + 0x00 = 0x1234, no carry; minus 0xb8 = 0x117c.
  h = Header(0x1234, 0x00);
  Ipv4ChangeDsfield(h.data(), 0x00, 0xb8);
  EXPECT_EQ(h[1], 0xb8);
  EXPECT_EQ(Check(h), 0x117c);

  // check = 0x0010 + 0x04 = 0x14, minus dsfield 0x24: 0xfffffff0 as u32;
  // check += check >> 16 adds 0xffff: 0x1_0000_ffef, stored 0xffef.
  h = Header(0x0010, 0x04);
  Ipv4ChangeDsfield(h.data(), 0x03, 0x24);
  EXPECT_EQ(h[1], 0x24);
  EXPECT_EQ(Check(h), 0xffef);
}

}  // namespace
}  // namespace offlab::kernel
