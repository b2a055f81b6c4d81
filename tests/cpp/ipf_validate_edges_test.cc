// SPDX-License-Identifier: Apache-2.0
//
// Ipf::Validate (models/src/ovs/ipf.cc, ipf_v6.cc) on odd fragments, after
// OVS v3.1.0 lib/ipf.c:
//  - ipf_is_valid_v4_frag (575-625): no L3 or fewer than 20 bytes of it is
//    invalid; a datagram that is no fragment is not ipf's; a total length
//    beyond the L3 bytes, an IHL below 20 or a total length below the IHL is
//    invalid; an unknown header checksum is verified in software
//    (ipf_l3csum_checked) and a bad one is invalid (ipf_l3csum_err).
//  - ipf_is_valid_v6_frag (660-710): no L4 offset or fewer than 40 bytes of
//    L3 is invalid; a payload length past the L3 bytes is invalid; the
//    fragment header is found by parse_ipv6_ext_hdrs, through Hop-by-Hop,
//    Destination Options, Routing ((Hdr Ext Len + 1) * 8 bytes, RFC 8200
//    section 4) and AH ((Payload Len + 2) * 4 bytes, RFC 4302 section 2.2);
//    an extension chain cut short by the payload length has no fragment
//    header, so the packet is not ipf's; an atomic fragment is no fragment.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/ovs/ipf.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Sub;
using V = Ipf::Verdict;

const std::string kEth4 = "020000000002020000000001 0800";
// scapy: IP(src="10.0.0.1",dst="10.0.0.2",id=7,frag=1,proto=17)/Raw(bytes(range(28))):
// the last fragment (offset 8, MF clear), header checksum 66b3.
const std::string kV4Last = H(kEth4 +
                              "4500003000070001401166b30a0000010a000002"
                              "000102030405060708090a0b0c0d0e0f101112131415161718191a1b");

Packet At(const std::string& hex, uint16_t l3, uint16_t l4) {
  Packet p(FromHex(hex));
  p.l3_ofs = l3;
  p.l4_ofs = l4;
  return p;
}

TEST(IpfValidateEdges, Ipv4UnknownChecksumIsVerifiedOnce) {
  Ipf ipf;
  Counters c;
  Packet p = At(kV4Last, 14, 34);
  EXPECT_EQ(ipf.Validate(p, &c), V::kFragment);
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kGood);
  EXPECT_EQ(c.Get("ipf_l3csum_checked"), 1u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 0u);

  Packet bad = At(Sub(kV4Last, "66b3", "66b4"), 14, 34);
  EXPECT_EQ(ipf.Validate(bad, &c), V::kInvalid);
  EXPECT_EQ(bad.offloads.ip(), CsumStatus::kBad);
  EXPECT_EQ(c.Get("ipf_l3csum_checked"), 2u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 1u);

  // A status the NIC reported is trusted: good is not checked again, bad is
  // invalid without a look at the bytes.
  Packet trusted = At(Sub(kV4Last, "66b3", "66b4"), 14, 34);
  trusted.offloads.set_ip(CsumStatus::kGood);
  EXPECT_EQ(ipf.Validate(trusted, &c), V::kFragment);
  Packet reported_bad = At(kV4Last, 14, 34);
  reported_bad.offloads.set_ip(CsumStatus::kBad);
  EXPECT_EQ(ipf.Validate(reported_bad, &c), V::kInvalid);
  EXPECT_EQ(c.Get("ipf_l3csum_checked"), 2u);
  EXPECT_EQ(c.Get("ipf_l3csum_err"), 2u);
}

TEST(IpfValidateEdges, Ipv4HeaderGuards) {
  Ipf ipf;
  auto verdict = [&](Packet p) { return ipf.Validate(p, nullptr); };
  EXPECT_EQ(verdict(At(kV4Last, kNoOffset, kNoOffset)), V::kInvalid);
  // 19 bytes of L3.
  EXPECT_EQ(verdict(At(kV4Last.substr(0, 2 * (14 + 19)), 14, kNoOffset)), V::kInvalid);
  // Neither MF nor an offset: a whole datagram, conntrack's.
  EXPECT_EQ(verdict(At(Sub(kV4Last, "00070001", "00070000"), 14, 34)), V::kNotFragment);
  // Each with its header checksum right (66b3 adjusted by the word's change),
  // so that only the length rule can refuse it.
  // Total length 49 > the 48 bytes of L3 (checksum 66b3 - 1).
  EXPECT_EQ(verdict(At(Sub(Sub(kV4Last, "45000030", "45000031"), "66b3", "66b2"), 14, 34)),
            V::kInvalid);
  // IHL 16 bytes (4500 -> 4400: checksum + 0100).
  EXPECT_EQ(verdict(At(Sub(Sub(kV4Last, "45000030", "44000030"), "66b3", "67b3"), 14, 34)),
            V::kInvalid);
  // Total length 16, below the 20-byte header (checksum + 0020).
  EXPECT_EQ(verdict(At(Sub(Sub(kV4Last, "45000030", "45000010"), "66b3", "66d3"), 14, 34)),
            V::kInvalid);
  // Bytes past the total length are padding: total length 40 of 48 is fine
  // (checksum of the changed header: 66b3 + 8 = 66bb).
  EXPECT_EQ(verdict(At(Sub(Sub(kV4Last, "45000030", "45000028"), "66b3", "66bb"), 14, 34)),
            V::kFragment);
}

// fd00::2 > fd00::1, payload 80: Hop-by-Hop (next 60), Destination Options
// (next 43), Routing (next 51, 16 bytes), AH (next 44, 24 bytes), Fragment
// (next 17, offset 16, M clear, id 7) and 16 data bytes.
const std::string kV6Frag =
    H("020000000002020000000001 86dd"
      "60000000 0050 00 40 fd000000000000000000000000000002 fd000000000000000000000000000001"
      "3c 00 01 04 00000000"
      "2b 00 01 04 00000000"
      "33 01 00 00 00000000 0000000000000000"
      "2c 04 0000 00000001 00000001 000000000000000000000000"
      "11 00 0010 00000007"
      "000102030405060708090a0b0c0d0e0f");
constexpr uint16_t kL4 = 14 + 40 + 64;

TEST(IpfValidateEdges, Ipv6FragmentHeaderBehindEveryExtensionHeader) {
  Ipf ipf;
  auto verdict = [&](const std::string& hex) {
    Packet p = At(hex, 14, kL4);
    return ipf.Validate(p, nullptr);
  };
  EXPECT_EQ(verdict(kV6Frag), V::kFragment);
  // The first fragment (offset 0, M): 120 bytes of L3 < min_v6_frag_size 1280.
  EXPECT_EQ(verdict(Sub(kV6Frag, "1100001000000007", "1100000100000007")), V::kInvalid);
  // Offset 0 and M clear: an atomic fragment is no fragment.
  EXPECT_EQ(verdict(Sub(kV6Frag, "1100001000000007", "1100000000000007")), V::kNotFragment);
}

TEST(IpfValidateEdges, Ipv6ChainCutByThePayloadLengthHasNoFragmentHeader) {
  Ipf ipf;
  auto verdict = [&](const std::string& hex) {
    Packet p = At(hex, 14, kL4);
    return ipf.Validate(p, nullptr);
  };
  // Payload length 12: 4 bytes after Hop-by-Hop, no room for the next header
  // (the rest of the frame is padding).
  EXPECT_EQ(verdict(Sub(kV6Frag, "600000000050", "60000000000c")), V::kNotFragment);
  // Payload length 28: the 16-byte Routing header has 12 bytes.
  EXPECT_EQ(verdict(Sub(kV6Frag, "600000000050", "60000000001c")), V::kNotFragment);
}

TEST(IpfValidateEdges, Ipv6HeaderGuards) {
  Ipf ipf;
  auto verdict = [&](Packet p) { return ipf.Validate(p, nullptr); };
  EXPECT_EQ(verdict(At(kV6Frag, 14, kNoOffset)), V::kInvalid);
  EXPECT_EQ(verdict(At(kV6Frag.substr(0, 2 * (14 + 39)), 14, 53)), V::kInvalid);
  // Payload length 81 > the 80 bytes there are.
  EXPECT_EQ(verdict(At(Sub(kV6Frag, "600000000050", "600000000051"), 14, kL4)), V::kInvalid);
  // Shorter than an Ethernet header.
  EXPECT_EQ(verdict(At(kV6Frag.substr(2 * 14, 2 * 13), 0, 8)), V::kInvalid);
}

}  // namespace
}  // namespace offlab
