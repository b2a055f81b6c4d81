// SPDX-License-Identifier: Apache-2.0
//
// skb_csum_hwoffload_help (net/core/dev.c; the IPv6 extension-header rule
// since v6.12, absent in v6.1.0): a device with only IPV6_CSUM checksums a
// TCP or UDP field behind a bare IPv6 header; with an extension header
// between them (the network header runs to the transport header) the
// checksum is done in software. Frame from scapy 2.x:
//   Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02")/
//   IPv6(src="2001:db8::1",dst="2001:db8::2")/IPv6ExtHdrHopByHop()/
//   TCP(sport=40000,dport=80,flags="S",seq=1000)
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/xmit.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

const std::string kHbhSyn =
    "02000000000202000000000186dd60000000001c004020010db800000000000000000000000120010db80000"
    "0000000000000000000206000104000000009c400050000003e8000000005002200093f50000";

SkBuff PartialHbhSyn() {
  SkBuff s;
  s.pkt = Packet(FromHex(kHbhSyn));
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 14 + 40 + 8;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = 14 + 40 + 8;
  s.csum_offset = 16;
  return s;
}

TEST(KernelXmitIpv6Ext, ExtensionHeadersTakeTheChecksumToSoftwareSince612) {
  const DeviceFeatures dev{netif::kSg | netif::kIpv6Csum, 0, 65536, 65535, 1500};
  for (const KernelVersion kv : {KernelVersion{6, 18, false}, KernelVersion{6, 1, false}}) {
    SCOPED_TRACE(kv.major * 100 + kv.minor);
    Counters c;
    const auto out = ValidateXmitSkb(PartialHbhSyn(), dev, XmitOptions{}, kv, &c);
    ASSERT_EQ(out.size(), 1u);
    const bool software = kv.AtLeast(6, 12);
    EXPECT_EQ(c.Get("xmit_csum_help"), software ? 1u : 0u);
    EXPECT_EQ(c.Get("xmit_csum_offloaded"), software ? 0u : 1u);
    EXPECT_EQ(out[0].ip_summed, software ? IpSummed::kNone : IpSummed::kPartial);
  }
}

}  // namespace
}  // namespace offlab::kernel
