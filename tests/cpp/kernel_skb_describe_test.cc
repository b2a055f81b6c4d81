// SPDX-License-Identifier: Apache-2.0
//
// The one-line skb description counterexamples and the Python repr show
// (offlab/linux/skb.h: "PARTIAL start=34 off=16 gso=tcpv4/1448x45 encap"):
// each ip_summed names only its own fields, then the flags that are set,
// then the length. Expected lines are written by hand from that format.
#include <gtest/gtest.h>

#include "offlab/linux/skb.h"

namespace offlab::kernel {
namespace {

SkBuff Sized(size_t n) {
  SkBuff s;
  s.pkt = Packet(Bytes(n, 0));
  return s;
}

TEST(KernelSkbDescribe, EachChecksumStateNamesOnlyItsOwnFields) {
  SkBuff none = Sized(60);
  EXPECT_EQ(Describe(none), "NONE len=60");

  SkBuff un = Sized(60);
  un.ip_summed = IpSummed::kUnnecessary;
  un.csum_level = 1;
  un.csum_from = 14;  // not an UNNECESSARY field: not shown
  EXPECT_EQ(Describe(un), "UNNECESSARY level=1 len=60");

  SkBuff co = Sized(60);
  co.ip_summed = IpSummed::kComplete;
  co.csum_from = 14;
  co.csum_level = 2;  // not a COMPLETE field
  co.csum_valid = true;
  EXPECT_EQ(Describe(co), "COMPLETE from=14 csum_valid len=60");

  SkBuff pa = Sized(1500);
  pa.ip_summed = IpSummed::kPartial;
  pa.csum_start = 34;
  pa.csum_offset = 16;
  pa.gso_size = 1448;
  pa.gso_segs = 45;
  pa.gso_type = gso::kTcpv4 | gso::kUdpTunnel;
  pa.encapsulation = true;
  pa.remcsum_offload = true;
  pa.frag_list_lens = {100, 200};
  pa.nr_frags = 3;
  EXPECT_EQ(Describe(pa),
            "PARTIAL start=34 off=16 gso=tcpv4|udp_tunnel/1448x45 encap remcsum frag_list=2 "
            "frags=3 len=1500");
}

TEST(KernelSkbDescribe, GsoTypeNamesEveryBitInOrderOrNone) {
  EXPECT_EQ(GsoTypeToString(0), "none");
  EXPECT_EQ(GsoTypeToString(gso::kTcpv6 | gso::kPartial | gso::kUdpTunnelCsum),
            "tcpv6|udp_tunnel_csum|partial");
  EXPECT_EQ(GsoTypeToString(gso::kFraglist), "fraglist");
  // Each of bits 0-18 alone by its SKB_GSO_* name (include/linux/skbuff.h,
  // lower case, the prefix dropped), and all of them in bit order.
  const char* kSkbGso[] = {"tcpv4",   "dodgy",          "tcp_ecn",    "tcp_fixedid",
                           "tcpv6",   "fcoe",           "gre",        "gre_csum",
                           "ipxip4",  "ipxip6",         "udp_tunnel", "udp_tunnel_csum",
                           "partial", "tunnel_remcsum", "sctp",       "esp",
                           "udp",     "udp_l4",         "fraglist"};
  std::string all;
  for (uint32_t bit = 0; bit < 19; bit++) {
    EXPECT_EQ(GsoTypeToString(1u << bit), kSkbGso[bit]) << bit;
    all += (bit ? "|" : "") + std::string(kSkbGso[bit]);
  }
  EXPECT_EQ(GsoTypeToString((1u << 19) - 1), all);
  EXPECT_EQ(IpSummedName(IpSummed::kPartial), std::string("PARTIAL"));
}

}  // namespace
}  // namespace offlab::kernel
