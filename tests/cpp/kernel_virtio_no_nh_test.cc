// SPDX-License-Identifier: Apache-2.0
//
// __virtio_net_hdr_to_skb (v6.18 include/linux/virtio_net.h:150-154) for a
// GSO header without NEEDS_CSUM on an skb with no network header yet (a
// TAP's): it only checks that a minimal network and transport header fit,
// p_off = nh_min_len + thlen (20 + 20 for TCPv4, counted from the first
// byte, the MAC header not included), and that offset is where the "too
// small to be GSO" test measures the payload from (len - p_off > gso_size).
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/virtio_net.h"

namespace offlab::kernel {
namespace {

std::string Apply(size_t len, SkBuff* out) {
  VnetHdr h;
  h.gso_type = VnetHdr::kGsoTcpv4;
  h.gso_size = 100;
  out->pkt = Packet(Bytes(len, 0x45));
  return VirtioNetHdrToSkb(*out, h);
}

TEST(KernelVirtioNoNetworkHeader, AMinimalHeaderMustFitAndThePayloadCountsFromIt) {
  SkBuff s;
  EXPECT_EQ(Apply(39, &s), "packet shorter than a minimal header for its gso_type");
  EXPECT_EQ(Apply(40, &s), "");
  EXPECT_EQ(s.gso_size, 0);  // no payload at all
  EXPECT_EQ(Apply(140, &s), "");
  EXPECT_EQ(s.gso_size, 0);  // 100 bytes of payload: one segment, not GSO
  EXPECT_EQ(Apply(141, &s), "");
  EXPECT_EQ(s.gso_size, 100);
  EXPECT_EQ(s.gso_type, gso::kTcpv4 | gso::kDodgy);
}

}  // namespace
}  // namespace offlab::kernel
