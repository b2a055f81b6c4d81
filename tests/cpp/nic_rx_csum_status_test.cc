// SPDX-License-Identifier: Apache-2.0
//
// The L4 status a receiving NIC reports, for the two cases the plain
// TCP/UDP check does not cover:
//  - a UDP checksum of 0 ("no checksum", RFC 768; forbidden over IPv6 by
//    RFC 8200 section 8.1). DPDK's TAP PMD (profile dpdk_tap) reports
//    RX_L4_CKSUM_NONE for it over IPv4, which OVS reads as "partial", and
//    checks it like any other over IPv6, where it is wrong
//    (drivers/net/tap/rte_eth_tap.c:384-403 at v22.11.11); a NIC that checks
//    UDP without that quirk (x710) calls it good, "no checksum" being no error.
//  - SCTP, whose CRC32c (RFC 9260 appendix B) an i40e (x710) verifies:
//    L4E set means bad, otherwise good (DPDK i40e_rxd_error_to_pkt_flags).
// Frames from scapy 2.x, E = Ether(src="02:00:00:00:00:01",dst="02:00:00:00:00:02").
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {
namespace {

// E/IP(src="10.0.0.1",dst="10.0.0.2",id=7)/UDP(sport=5000,dport=53,chksum=0)/Raw(b"query")
const std::string kUdp4Zero =
    "02000000000202000000000108004500002100070000401166c30a0000010a00000213880035000d00007175"
    "657279";
// E/IPv6(src="2001:db8::1",dst="2001:db8::2")/UDP(sport=5000,dport=53,chksum=0)/Raw(b"query")
const std::string kUdp6Zero =
    "02000000000202000000000186dd60000000000d114020010db800000000000000000000000120010db80000"
    "0000000000000000000213880035000d00007175657279";
// The same with scapy's checksum.
const std::string kUdp6 =
    "02000000000202000000000186dd60000000000d114020010db800000000000000000000000120010db80000"
    "0000000000000000000213880035000d40ba7175657279";
// E/IP(src="10.0.0.1",dst="10.0.0.2",id=11)/SCTP(sport=7000,dport=7001,tag=1)/
//   SCTPChunkData(data=b"abcd")
const std::string kSctp =
    "020000000002020000000001080045000034000b0000408466390a0000010a0000021b581b59000000017687"
    "f4700000001400000000000000000000000061626364";

CsumStatus L4(const std::string& hex, const std::string& profile) {
  RxStatus st;
  NicReceive(FromHex(hex), BuiltinProfile(profile), &st);
  return st.l4;
}

TEST(NicRxCsumStatus, ZeroUdpChecksumOverIpv4) {
  EXPECT_EQ(L4(kUdp4Zero, "dpdk_tap"), CsumStatus::kPartial);
  EXPECT_EQ(L4(kUdp4Zero, "x710"), CsumStatus::kGood);
}

TEST(NicRxCsumStatus, ZeroUdpChecksumOverIpv6IsCheckedByTheTapPmd) {
  EXPECT_EQ(L4(kUdp6Zero, "dpdk_tap"), CsumStatus::kBad);
  EXPECT_EQ(L4(kUdp6, "dpdk_tap"), CsumStatus::kGood);
}

TEST(NicRxCsumStatus, SctpCrc32cVerified) {
  EXPECT_EQ(L4(kSctp, "x710"), CsumStatus::kGood);
  // The last data byte 'd' (0x64) changed to 'e': the CRC no longer matches.
  std::string bad = kSctp;
  ASSERT_EQ(bad.substr(bad.size() - 2), "64");
  bad.replace(bad.size() - 2, 2, "65");
  EXPECT_EQ(L4(bad, "x710"), CsumStatus::kBad);
}

}  // namespace
}  // namespace offlab
