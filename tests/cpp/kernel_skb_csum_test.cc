// PseudoHeaderSum (inet_compute_pseudo / ip6_compute_pseudo) against the
// plain-loop oracle of test_util.h, and its refusal of an offset with no
// complete IP header behind it.
#include <gtest/gtest.h>

#include <algorithm>

#include "offlab/linux/skb_csum.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;
using testing::OraclePseudo;
using testing::OracleSum;

int Mod(uint64_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<int>(s % 0xffff);
}

SkBuff Skb(const Bytes& f) {
  SkBuff skb;
  skb.pkt = Packet(f);
  return skb;
}

TEST(KernelSkbCsum, PseudoHeaderSumOfIpv4AndIpv6) {
  const Bytes v4 =
      FromHex(H("0a8f394fe0738abf7e2f0584 0800 4500003412344000400600000a0000010a000002"
                "d478145100000001000000005010010000000000 000102030405060708090a0b"));
  size_t len = 0;
  const uint32_t want4 = OraclePseudo(v4, 14, 34, 6, &len);
  EXPECT_EQ(Mod(PseudoHeaderSum(Skb(v4), 14, 6, static_cast<uint32_t>(len))), Mod(want4));
  const Bytes v6 =
      FromHex(H("0a8f394fe0738abf7e2f0584 86dd 6000000000200640"
                "20010db8000000000000000000000001 20010db8000000000000000000000002"
                "d478145100000001000000005010010000000000 000102030405060708090a0b"));
  const uint32_t want6 = OraclePseudo(v6, 14, 54, 6, &len);
  EXPECT_EQ(Mod(PseudoHeaderSum(Skb(v6), 14, 6, static_cast<uint32_t>(len))), Mod(want6));
}

TEST(KernelSkbCsum, PseudoHeaderSumIsZeroWithoutAHeader) {
  const Bytes v4 =
      FromHex(H("0a8f394fe0738abf7e2f0584 0800 4500003412344000400600000a0000010a000002"
                "d478145100000001000000005010010000000000"));
  EXPECT_EQ(PseudoHeaderSum(Skb(v4), static_cast<uint16_t>(v4.size()), 6, 20), 0u);
  EXPECT_EQ(PseudoHeaderSum(Skb(v4), static_cast<uint16_t>(v4.size() - 10), 6, 20), 0u);
  // The unset offset (0xffff) is no position, even in a packet long enough
  // to hold an IPv4 header exactly there.
  Bytes big(0xffff + 40, 0);
  std::copy(v4.begin() + 14, v4.begin() + 34, big.begin() + 0xffff);
  EXPECT_EQ(PseudoHeaderSum(Skb(big), kNoOffset, 6, 20), 0u);
}

}  // namespace
}  // namespace offlab::kernel
