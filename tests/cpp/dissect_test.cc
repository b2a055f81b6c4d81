// The independent dissector against Open vSwitch's published frames
// (tests/dpif-netdev.at vectors, see ovs_vectors_test.cc): verdicts must
// match what those frames are known to carry.
#include "offlab/dissect.h"

#include <gtest/gtest.h>

#include "offlab/bytes.h"

namespace offlab {
namespace {

const std::string kPay = ToHex([] {
  Bytes b;
  for (int i = 0; i < 64; i++) b.push_back(static_cast<uint8_t>(i));
  return b;
}());
const std::string kG =
    "0a8f394fe0738abf7e2f05840800"
    "45000068000000000006433cc0a87b02c0a87b01"
    "d47814510000000000000000501000006b720000" +
    kPay;
const std::string kInner =
    "0a8f394fe0738abf7e2f05840800"
    "45000068000000000006433cc0a87b02c0a87b01"
    "d47808ae00000000000000005010000077150000" +
    kPay;
std::string Outer(const std::string& c) {
  return "aa66aa660001aa66aa6600000800"
         "4500009a000040004011339e010102580101025c"
         "e01312b50086" +
         c + "0800000000007b00";
}

std::vector<std::pair<std::string, Verdict>> Verdicts(const std::string& hex) {
  std::vector<std::pair<std::string, Verdict>> v;
  Dissection d = Dissect(FromHex(hex));
  EXPECT_FALSE(d.error) << *d.error;
  for (const auto& c : d.checksums) v.push_back({c.layer + std::to_string(c.depth), c.verdict});
  return v;
}

using V = std::vector<std::pair<std::string, Verdict>>;

TEST(Dissect, OvsFrameVerdicts) {
  EXPECT_EQ(Verdicts(kG), (V{{"ipv40", Verdict::kCorrect}, {"tcp0", Verdict::kCorrect}}));
  std::string bad_ip = kG;
  bad_ip.replace(bad_ip.find("433c"), 4, "433d");
  EXPECT_EQ(Verdicts(bad_ip), (V{{"ipv40", Verdict::kIncorrect}, {"tcp0", Verdict::kCorrect}}));
  std::string bad_tcp = kG;
  bad_tcp.replace(bad_tcp.find("6b72"), 4, "dead");
  EXPECT_EQ(Verdicts(bad_tcp), (V{{"ipv40", Verdict::kCorrect}, {"tcp0", Verdict::kIncorrect}}));
}

TEST(Dissect, VxlanVerdicts) {
  const V absent{{"ipv40", Verdict::kCorrect},
                 {"udp0", Verdict::kAbsent},
                 {"ipv41", Verdict::kCorrect},
                 {"tcp1", Verdict::kCorrect}};
  EXPECT_EQ(Verdicts(Outer("0000") + kInner), absent);
  const V both{{"ipv40", Verdict::kCorrect},
               {"udp0", Verdict::kCorrect},
               {"ipv41", Verdict::kCorrect},
               {"tcp1", Verdict::kCorrect}};
  EXPECT_EQ(Verdicts(Outer("bf4d") + kInner), both);
  std::string bad_inner = kInner;
  bad_inner.replace(bad_inner.find("7715"), 4, "ea50");
  // OVS: 4c12 is the outer checksum valid over the bad inner segment.
  const V outer_ok{{"ipv40", Verdict::kCorrect},
                   {"udp0", Verdict::kCorrect},
                   {"ipv41", Verdict::kCorrect},
                   {"tcp1", Verdict::kIncorrect}};
  EXPECT_EQ(Verdicts(Outer("4c12") + bad_inner), outer_ok);
}

TEST(Dissect, TruncationNeverReadsPastTheEnd) {
  Bytes f = FromHex(Outer("bf4d") + kInner);
  for (size_t n = 0; n < f.size(); n++) {
    Bytes cut(f.begin(), f.begin() + static_cast<long>(n));
    Dissection d = Dissect(cut);
    EXPECT_TRUE(d.error.has_value()) << n;
    EXPECT_FALSE(d.ToString().empty());
  }
}

TEST(Dissect, MalformedHeadersAreNamed) {
  std::string ihl = kG;
  ihl.replace(28, 2, "4f");  // IHL 15 in a 20-byte header
  Dissection d = Dissect(FromHex(ihl.substr(0, 68)));
  ASSERT_TRUE(d.error);
  EXPECT_NE(d.error->find("IHL"), std::string::npos) << *d.error;
  std::string off = kG;
  off.replace(off.find("5010"), 2, "40");  // TCP data offset 4
  d = Dissect(FromHex(off));
  ASSERT_TRUE(d.error);
  EXPECT_NE(d.error->find("tcp"), std::string::npos) << *d.error;
}

}  // namespace
}  // namespace offlab
