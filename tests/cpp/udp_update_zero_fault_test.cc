// The seeded value-dependent fault udp-update-zero-keeps-stale-csum: the
// incremental UDP checksum update of a rewrite tests its result, not the old
// field, for "no checksum", so an update that comes out 0x0000 leaves the old
// checksum. Only that value is affected; the verifier's directed witnesses
// are solved to reach it (tests/python/test_verify_corners.py).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/addr.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/rewrite.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::Sub;
using testing::With;

// scapy: Ether(...)/IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64)/
//   UDP(sport=5000,dport=6000)/Raw(bytes(range(32))) -> checksum 0c8c
// (the vector of rewrite_test.cc's RuleMIpv6 cases).
const std::string kUdp6 =
    H("0a8f394fe0738abf7e2f058486dd"
      "6000000000281140 2001cafe000000000000000000000088 2001cafe000000000000000000000092"
      "138817700028 0c8c"
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

IpAddr V6(const std::string& s) {
  bool v6 = false;
  return ParseIp(s, &v6);
}

TEST(UdpUpdateZeroFault, KeepsTheStaleChecksumWhenTheUpdateComesOutZero) {
  // ::88 -> ::d14 makes RFC 1624 eqn. 3 give 0x0000 (scapy's full checksum of
  // the rewritten packet is ffff); with the fault the field stays 0c8c, which
  // that packet's checksum is not.
  ScopedFault fault(Fault::kUdpUpdateZeroKeepsStaleCsum);
  Packet p = With(kUdp6, CsumStatus::kUnknown, CsumStatus::kUnknown);
  ASSERT_TRUE(SetIpv6(p, {.src = V6("2001:cafe::d14")}));
  EXPECT_EQ(Hex(p),
            Sub(kUdp6, "2001cafe000000000000000000000088", "2001cafe000000000000000000000d14"));
}

TEST(UdpUpdateZeroFault, EveryOtherUpdateIsTheCorrectOne) {
  // Any other result is written as without the fault.
  Packet right = With(kUdp6, CsumStatus::kUnknown, CsumStatus::kUnknown);
  ASSERT_TRUE(SetIpv6(right, {.src = V6("2001:db8::1")}));
  ScopedFault fault(Fault::kUdpUpdateZeroKeepsStaleCsum);
  Packet p = With(kUdp6, CsumStatus::kUnknown, CsumStatus::kUnknown);
  ASSERT_TRUE(SetIpv6(p, {.src = V6("2001:db8::1")}));
  EXPECT_EQ(Hex(p), Hex(right));
  EXPECT_NE(Hex(p).substr(2 * 60, 4), "0c8c");
}

}  // namespace
}  // namespace offlab
