// The dissector checked against checksum values computed outside offlab:
// Open vSwitch's tests/dpif-netdev.at frames and frames built by scapy
// (each with the expression that produced it), plus malformed input.
#include "offlab/net/dissect.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "dissect_vectors.h"
#include "offlab/net/bytes.h"

namespace offlab {
namespace {

using namespace dissect_vectors;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------
// Helpers.

Bytes Hex(const std::string& hex) { return FromHex(hex); }

// Replaces the one occurrence of `from` in a hex string, like the sed edits in
// dpif-netdev.at.
std::string Sub(std::string hex, const std::string& from, const std::string& to) {
  size_t at = hex.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(hex.find(from, at + 1), std::string::npos) << from << " is not unique";
  if (at != std::string::npos) hex.replace(at, from.size(), to);
  return hex;
}

// "name@depth" per layer.
std::vector<std::string> Stack(const Dissection& d) {
  std::vector<std::string> v;
  for (const Layer& l : d.layers) v.push_back(std::string(l.name) + "@" + std::to_string(l.depth));
  return v;
}

const ChecksumField* FindCsum(const Dissection& d, std::string_view layer, int depth) {
  for (const ChecksumField& c : d.checksums) {
    if (c.layer == layer && c.depth == depth) return &c;
  }
  return nullptr;
}

// The field must exist, hold `value`, and get `verdict`.
void ExpectCsum(const Dissection& d, std::string_view layer, int depth, uint32_t value,
                Verdict verdict) {
  const ChecksumField* c = FindCsum(d, layer, depth);
  ASSERT_NE(c, nullptr) << layer << "@" << depth << " missing in\n" << d.ToString();
  EXPECT_EQ(c->value, value) << layer << "@" << depth;
  EXPECT_EQ(c->verdict, verdict) << layer << "@" << depth << ": " << ToString(c->verdict) << "\n"
                                 << d.ToString();
}

// A correct field: its value is also what the dissector computes.
void ExpectGood(const Dissection& d, std::string_view layer, int depth, uint32_t value) {
  ExpectCsum(d, layer, depth, value, Verdict::kCorrect);
  if (const ChecksumField* c = FindCsum(d, layer, depth)) {
    EXPECT_EQ(c->expected, value);
  }
}

// A wrong field whose correct value is known from outside.
void ExpectBad(const Dissection& d, std::string_view layer, int depth, uint32_t value,
               uint32_t correct) {
  ExpectCsum(d, layer, depth, value, Verdict::kIncorrect);
  if (const ChecksumField* c = FindCsum(d, layer, depth)) {
    EXPECT_EQ(c->expected, correct);
  }
}

bool HasLine(const Dissection& d, const std::string& line) {
  std::string s = "\n" + d.ToString();
  return s.find("\n" + line + "\n") != std::string::npos;
}

// Decodes a copy in an allocation of exactly `len` bytes, so that AddressSanitizer
// catches a read one past the end (a vector's spare capacity would hide it).
Dissection DissectExact(const uint8_t* data, size_t len) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[len]);
  if (len) std::memcpy(copy.get(), data, len);
  return Dissect(copy.get(), len);
}

// What must hold for any input: nothing points outside the frame, the error
// is one line, and ToString prints one line per layer plus the error.
void ExpectSane(const Dissection& d, size_t len, const std::string& what) {
  for (const Layer& l : d.layers) {
    EXPECT_LE(l.offset + l.length, len) << what << " " << l.name;
    EXPECT_GE(l.depth, 0) << what;
    EXPECT_LE(l.depth, 8) << what;
  }
  for (const ChecksumField& c : d.checksums) {
    EXPECT_LE(c.offset + (c.layer == "sctp" ? 4 : 2), len) << what << " " << c.layer;
  }
  if (d.error) {
    EXPECT_FALSE(d.error->empty()) << what;
    EXPECT_EQ(d.error->find('\n'), std::string::npos) << what;
  }
  std::string s = d.ToString();
  size_t lines = 0;
  for (char ch : s) lines += ch == '\n';
  EXPECT_EQ(lines, d.layers.size() + (d.error ? 1 : 0)) << what;
}

struct Vector {
  const char* name;
  const char* hex;
};

const std::vector<Vector>& AllVectors() {
  static const std::vector<Vector> v = {
      {"kIpv6Udp", kIpv6Udp},
      {"kIpv6UdpZeroCsum", kIpv6UdpZeroCsum},
      {"kIpv6ExtTcp", kIpv6ExtTcp},
      {"kIpv6FirstFragUdp", kIpv6FirstFragUdp},
      {"kIpv6LaterFrag", kIpv6LaterFrag},
      {"kIpv4Sctp", kIpv4Sctp},
      {"kIpv6Sctp", kIpv6Sctp},
      {"kIpv4IcmpEcho", kIpv4IcmpEcho},
      {"kIpv6Icmpv6Echo", kIpv6Icmpv6Echo},
      {"kGeneveOpts", kGeneveOpts},
      {"kGreCksTeb", kGreCksTeb},
      {"kGreIpv6", kGreIpv6},
      {"kQinQUdp", kQinQUdp},
      {"kIpv4OptsPadded", kIpv4OptsPadded},
      {"kIpv6SrhUdp", kIpv6SrhUdp},
      {"kIpv6HaoUdp", kIpv6HaoUdp},
      {"kArpRequest", kArpRequest},
      {"kIpv4FirstFragTcp", kIpv4FirstFragTcp},
      {"kIpv4LaterFrag", kIpv4LaterFrag},
      {"kVxlanArp", kVxlanArp},
      {"kVxlanNdp", kVxlanNdp},
  };
  return v;
}

// ---------------------------------------------------------------------------
// Open vSwitch frames.

TEST(DissectOvs, PlainTcpFrameBothChecksumsCorrect) {
  Dissection d = Dissect(Hex(G()));
  EXPECT_FALSE(d.error) << *d.error;
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0", "tcp@0"}));
  ExpectGood(d, "ipv4", 0, 0x433c);
  ExpectGood(d, "tcp", 0, 0x6b72);
  EXPECT_EQ(FindCsum(d, "ipv4", 0)->offset, 24u);
  EXPECT_EQ(FindCsum(d, "tcp", 0)->offset, 50u);
  EXPECT_TRUE(HasLine(d, "ipv4 192.168.123.2 > 192.168.123.1 proto 6 ttl 0 csum 0x433c ok"))
      << d.ToString();
  EXPECT_NE(d.ToString().find("tcp 54392 > 5201 [A]"), std::string::npos) << d.ToString();
}

TEST(DissectOvs, BadIpChecksum) {
  Dissection d = Dissect(Hex(Sub(G(), "433c", "433d")));
  EXPECT_FALSE(d.error);
  ExpectBad(d, "ipv4", 0, 0x433d, 0x433c);
  ExpectGood(d, "tcp", 0, 0x6b72);
  EXPECT_NE(d.ToString().find("csum 0x433d bad (expected 0x433c)"), std::string::npos);
}

TEST(DissectOvs, BadTcpChecksum) {
  Dissection d = Dissect(Hex(Sub(G(), "6b72", "dead")));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "ipv4", 0, 0x433c);
  ExpectBad(d, "tcp", 0, 0xdead, 0x6b72);
}

TEST(DissectOvs, EthernetPaddingIsNotChecksummed) {
  Dissection d = Dissect(Hex(G() + std::string(2 * 20, '0')));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "ipv4", 0, 0x433c);
  ExpectGood(d, "tcp", 0, 0x6b72);
  EXPECT_NE(d.layers[1].summary.find("pad 20"), std::string::npos) << d.ToString();
}

TEST(DissectOvs, VxlanWithoutOuterChecksum) {
  Dissection d = Dissect(Hex(VxlanFrame("0000")));
  EXPECT_FALSE(d.error) << *d.error;
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0", "udp@0", "vxlan@0", "eth@1",
                                                "ipv4@1", "tcp@1"}));
  ExpectGood(d, "ipv4", 0, 0x339e);
  ExpectCsum(d, "udp", 0, 0x0000, Verdict::kAbsent);
  ExpectGood(d, "ipv4", 1, 0x433c);
  ExpectGood(d, "tcp", 1, 0x7715);
  EXPECT_EQ(FindCsum(d, "udp", 0)->offset, 40u);
  EXPECT_EQ(FindCsum(d, "tcp", 1)->offset, 100u);
  EXPECT_TRUE(HasLine(d, "vxlan vni 123")) << d.ToString();
  EXPECT_TRUE(HasLine(d, "  ipv4 192.168.123.2 > 192.168.123.1 proto 6 ttl 0 csum 0x433c ok"))
      << d.ToString();
}

TEST(DissectOvs, VxlanWithCorrectOuterChecksum) {
  Dissection d = Dissect(Hex(VxlanFrame("bf4d")));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "udp", 0, 0xbf4d);
  ExpectGood(d, "tcp", 1, 0x7715);
}

TEST(DissectOvs, VxlanOuterCorrectInnerIncorrect) {
  // dpif-netdev.at's bad_csum_expected: outer 4c12 over the inner 0xea50.
  Dissection d = Dissect(Hex(VxlanFrame("4c12", kTcp2222Bad)));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "udp", 0, 0x4c12);
  ExpectBad(d, "tcp", 1, 0xea50, 0x7715);
  EXPECT_TRUE(HasLine(d,
                      "  tcp 54392 > 2222 [A] seq 0 ack 0 win 0 len 64 csum 0xea50 bad "
                      "(expected 0x7715)"))
      << d.ToString();
}

TEST(DissectOvs, VxlanOuterChecksumDoesNotCoverAnotherInnerChecksum) {
  // 4c12 belongs to inner checksum 0xea50; over 0xdead both are wrong.
  Dissection d = Dissect(Hex(VxlanFrame("4c12", "d47808ae000000000000000050100000dead0000")));
  EXPECT_FALSE(d.error);
  ExpectCsum(d, "udp", 0, 0x4c12, Verdict::kIncorrect);
  ExpectBad(d, "tcp", 1, 0xdead, 0x7715);
  // dpif-netdev.at's bad_csum_updated: outer ffff is not the sum either.
  Dissection u = Dissect(Hex(VxlanFrame("ffff", "d47808ae000000000000000050100000dead0000")));
  ExpectCsum(u, "udp", 0, 0xffff, Verdict::kIncorrect);
}

TEST(DissectOvs, VxlanInnerUdp) {
  Dissection none = Dissect(Hex(VxlanUdpFrame("8643", "0000")));
  EXPECT_FALSE(none.error);
  ExpectGood(none, "udp", 0, 0x8643);
  ExpectCsum(none, "udp", 1, 0x0000, Verdict::kAbsent);
  ExpectGood(none, "ipv4", 1, 0x433d);

  Dissection good = Dissect(Hex(VxlanUdpFrame("bf64", "c6de")));
  ExpectGood(good, "udp", 0, 0xbf64);
  ExpectGood(good, "udp", 1, 0xc6de);

  Dissection bad = Dissect(Hex(VxlanUdpFrame("9bf2", "ea50")));
  ExpectGood(bad, "udp", 0, 0x9bf2);
  ExpectBad(bad, "udp", 1, 0xea50, 0xc6de);
}

TEST(DissectOvs, VxlanArpAndNdp) {
  Dissection arp = Dissect(Hex(kVxlanArp));
  EXPECT_FALSE(arp.error);
  ExpectGood(arp, "udp", 0, 0x1354);
  EXPECT_EQ(Stack(arp).back(), "arp@1");
  EXPECT_EQ(arp.layers.back().summary, "request who-has 192.168.123.1 tell 192.168.1.17");

  Dissection ndp = Dissect(Hex(kVxlanNdp));
  EXPECT_FALSE(ndp.error);
  ExpectGood(ndp, "udp", 0, 0xe106);
  ExpectGood(ndp, "icmpv6", 1, 0x6e26);
  EXPECT_TRUE(HasLine(ndp, "  ipv6 fe80::2 > ff02::1:ff00:1 next 58 hlim 255")) << ndp.ToString();
}

// ---------------------------------------------------------------------------
// scapy frames.

TEST(DissectScapy, Ipv6Udp) {
  Dissection d = Dissect(Hex(kIpv6Udp));
  EXPECT_FALSE(d.error);
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv6@0", "udp@0"}));
  ExpectGood(d, "udp", 0, 0x5109);
  EXPECT_TRUE(HasLine(d, "ipv6 2001:db8::1 > 2001:db8::2 next 17 hlim 64")) << d.ToString();

  Bytes b = Hex(kIpv6Udp);
  b.back() ^= 0x01;  // 0x0e0f -> 0x0e0e: one less in the sum, one more in its complement
  ExpectBad(Dissect(b), "udp", 0, 0x5109, 0x510a);
}

TEST(DissectScapy, Ipv6ZeroUdpChecksumIsAbsentButNoted) {
  Dissection d = Dissect(Hex(kIpv6UdpZeroCsum));
  EXPECT_FALSE(d.error);
  ExpectCsum(d, "udp", 0, 0, Verdict::kAbsent);
  EXPECT_EQ(FindCsum(d, "udp", 0)->expected, 0x5109u);
  EXPECT_NE(d.layers.back().summary.find("RFC 6935"), std::string::npos);
}

TEST(DissectScapy, Ipv6ExtensionHeadersAndRoutingFinalDestination) {
  Dissection d = Dissect(Hex(kIpv6ExtTcp));
  EXPECT_FALSE(d.error) << *d.error;
  EXPECT_EQ(Stack(d),
            (std::vector<std::string>{"eth@0", "ipv6@0", "ipv6-hopopts@0", "ipv6-dstopts@0",
                                      "ipv6-routing@0", "ipv6-frag@0", "tcp@0"}));
  // scapy puts the routing header's last address in the pseudo-header.
  ExpectGood(d, "tcp", 0, 0xf74d);
  EXPECT_EQ(d.layers.back().offset, 14u + 40 + 8 + 8 + 24 + 8);
}

TEST(DissectScapy, Ipv6SegmentRoutingUsesSegmentListZero) {
  // The same UDP datagram as kIpv6Udp, sent via 2001:db8::100 to 2001:db8::2.
  Dissection d = Dissect(Hex(kIpv6SrhUdp));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "udp", 0, 0x5109);
}

TEST(DissectScapy, Ipv6HomeAddressOptionIsTheSource) {
  Dissection d = Dissect(Hex(kIpv6HaoUdp));
  EXPECT_FALSE(d.error);
  ExpectGood(d, "udp", 0, 0x5093);
}

TEST(DissectScapy, Ipv6Fragments) {
  Dissection first = Dissect(Hex(kIpv6FirstFragUdp));
  EXPECT_FALSE(first.error) << *first.error;
  EXPECT_EQ(Stack(first).back(), "udp@0");
  ExpectCsum(first, "udp", 0, 0x1234, Verdict::kNotChecked);

  Dissection later = Dissect(Hex(kIpv6LaterFrag));
  EXPECT_FALSE(later.error);
  EXPECT_EQ(Stack(later), (std::vector<std::string>{"eth@0", "ipv6@0", "ipv6-frag@0"}));
  EXPECT_TRUE(later.checksums.empty());
}

TEST(DissectScapy, Ipv4Fragments) {
  Dissection first = Dissect(Hex(kIpv4FirstFragTcp));
  EXPECT_FALSE(first.error);
  ExpectGood(first, "ipv4", 0, 0x46bd);
  ExpectCsum(first, "tcp", 0, 0x1234, Verdict::kNotChecked);
  // The SCTP frame as a first fragment (MF set; IPv4 checksum 0x663b less
  // 0x2000 by RFC 1624): its CRC32c covers bytes not here, so not checked.
  Dissection sctp = Dissect(Hex(Sub(kIpv4Sctp, "000100004084663b", "000120004084463b")));
  EXPECT_FALSE(sctp.error);
  ExpectGood(sctp, "ipv4", 0, 0x463b);
  ExpectCsum(sctp, "sctp", 0, 0x57b49325, Verdict::kNotChecked);

  Dissection later = Dissect(Hex(kIpv4LaterFrag));
  EXPECT_FALSE(later.error);
  EXPECT_EQ(Stack(later), (std::vector<std::string>{"eth@0", "ipv4@0"}));
  ExpectGood(later, "ipv4", 0, 0x666d);
  EXPECT_NE(later.layers.back().summary.find("frag off 800"), std::string::npos);
}

TEST(DissectScapy, Sctp) {
  Dissection v4 = Dissect(Hex(kIpv4Sctp));
  EXPECT_FALSE(v4.error);
  ExpectGood(v4, "ipv4", 0, 0x663b);
  ExpectGood(v4, "sctp", 0, 0x57b49325);
  EXPECT_NE(v4.ToString().find("chunks DATA crc32c 0x57b49325 ok"), std::string::npos)
      << v4.ToString();

  Dissection v6 = Dissect(Hex(kIpv6Sctp));
  EXPECT_FALSE(v6.error);
  ExpectGood(v6, "sctp", 0, 0x40ce0d69);

  Bytes b = Hex(kIpv4Sctp);
  b[b.size() - 3] ^= 0x20;  // a byte of "hello sctp"
  ExpectBad(Dissect(b), "sctp", 0, 0x57b49325, FindCsum(Dissect(b), "sctp", 0)->expected);
  EXPECT_NE(FindCsum(Dissect(b), "sctp", 0)->expected, 0x57b49325u);
}

TEST(DissectScapy, IcmpAndIcmpv6) {
  Dissection v4 = Dissect(Hex(kIpv4IcmpEcho));
  EXPECT_FALSE(v4.error);
  ExpectGood(v4, "icmp", 0, 0xbf76);
  EXPECT_NE(v4.layers.back().summary.find("echo request id 66 seq 7"), std::string::npos);

  Dissection v6 = Dissect(Hex(kIpv6Icmpv6Echo));
  EXPECT_FALSE(v6.error);
  ExpectGood(v6, "icmpv6", 0, 0x499e);

  Bytes b = Hex(kIpv6Icmpv6Echo);
  b[22 + 15] ^= 0x01;  // the source address: only the pseudo-header changes
  ExpectCsum(Dissect(b), "icmpv6", 0, 0x499e, Verdict::kIncorrect);
}

TEST(DissectScapy, GeneveWithOptions) {
  Dissection d = Dissect(Hex(kGeneveOpts));
  EXPECT_FALSE(d.error) << *d.error;
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0", "udp@0", "geneve@0", "eth@1",
                                                "ipv4@1", "tcp@1"}));
  ExpectGood(d, "ipv4", 0, 0xe24a);
  ExpectGood(d, "udp", 0, 0x8cdd);
  ExpectGood(d, "ipv4", 1, 0xf76b);
  ExpectGood(d, "tcp", 1, 0xcdda);
  const Layer& g = d.layers[3];
  EXPECT_EQ(g.length, 8u + 8 + 12);
  EXPECT_EQ(g.summary, "vni 1193046 proto 0x6558 opt 0x0102/0x80/4 opt 0xffff/0x01/8");
}

TEST(DissectScapy, GreWithChecksumKeySequence) {
  Dissection d = Dissect(Hex(kGreCksTeb));
  EXPECT_FALSE(d.error);
  EXPECT_EQ(Stack(d),
            (std::vector<std::string>{"eth@0", "ipv4@0", "gre@0", "eth@1", "ipv4@1", "udp@1"}));
  ExpectGood(d, "ipv4", 0, 0x224d);
  ExpectGood(d, "gre", 0, 0x4bcd);
  ExpectGood(d, "ipv4", 1, 0xf76c);
  ExpectGood(d, "udp", 1, 0x2f0c);
  EXPECT_EQ(d.layers[2].summary, "proto 0x6558 C key 0x0a0b0c0d seq 42");
  EXPECT_EQ(d.layers[2].length, 16u);

  // The GRE checksum covers the payload: a payload byte breaks it and the
  // inner UDP checksum, but no header checksum.
  Bytes b = Hex(kGreCksTeb);
  b.back() ^= 0xff;
  Dissection bad = Dissect(b);
  ExpectCsum(bad, "gre", 0, 0x4bcd, Verdict::kIncorrect);
  ExpectCsum(bad, "udp", 1, 0x2f0c, Verdict::kIncorrect);
  ExpectGood(bad, "ipv4", 0, 0x224d);
  ExpectGood(bad, "ipv4", 1, 0xf76c);
}

TEST(DissectScapy, GreCarryingIpv6) {
  Dissection d = Dissect(Hex(kGreIpv6));
  EXPECT_FALSE(d.error);
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0", "gre@0", "ipv6@1", "udp@1"}));
  EXPECT_EQ(FindCsum(d, "gre", 0), nullptr);
  ExpectGood(d, "ipv4", 0, 0x224f);
  ExpectGood(d, "udp", 1, 0x6be7);
}

TEST(DissectScapy, QinQ) {
  Dissection d = Dissect(Hex(kQinQUdp));
  EXPECT_FALSE(d.error);
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "vlan@0", "vlan@0", "ipv4@0", "udp@0"}));
  EXPECT_EQ(d.layers[1].summary, "802.1ad vid 100 pcp 3 type 0x8100");
  EXPECT_EQ(d.layers[2].summary, "802.1Q vid 200 pcp 0 type 0x0800");
  ExpectGood(d, "ipv4", 0, 0x64bc);
  ExpectGood(d, "udp", 0, 0xa474);
}

TEST(DissectScapy, Ipv4OptionsAndPadding) {
  Dissection d = Dissect(Hex(kIpv4OptsPadded));
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.layers[1].length, 28u);
  ExpectGood(d, "ipv4", 0, 0x53b9);
  // The 10 padding bytes are outside the UDP checksum.
  ExpectGood(d, "udp", 0, 0x8a72);
  Bytes b = Hex(kIpv4OptsPadded);
  b.back() = 0xee;
  ExpectGood(Dissect(b), "udp", 0, 0x8a72);
}

TEST(DissectScapy, Arp) {
  Dissection d = Dissect(Hex(kArpRequest));
  EXPECT_FALSE(d.error);
  EXPECT_TRUE(HasLine(d, "arp request who-has 10.0.0.2 tell 10.0.0.1")) << d.ToString();
  EXPECT_TRUE(d.checksums.empty());
}

// ---------------------------------------------------------------------------
// Malformed input.

TEST(DissectMalformed, EmptyAndNull) {
  Dissection d = Dissect(nullptr, 0);
  ASSERT_TRUE(d.error);
  EXPECT_TRUE(d.layers.empty());
  EXPECT_EQ(*d.error, "eth: truncated, need 14 bytes at offset 0, have 0");
  EXPECT_TRUE(Dissect(Bytes{}).error);
}

// Every prefix of a valid frame: no crash, an error, and the layers and
// checksums decoded are a prefix of the whole frame's.
void CheckTruncations(const Bytes& full, const std::string& name, size_t padding = 0) {
  Dissection whole = Dissect(full);
  ASSERT_FALSE(whole.error) << name << ": " << *whole.error;
  for (size_t n = 0; n < full.size(); ++n) {
    Dissection d = DissectExact(full.data(), n);
    std::string what = name + " cut at " + std::to_string(n);
    ExpectSane(d, n, what);
    if (n + padding < full.size()) {
      EXPECT_TRUE(d.error) << what << "\n" << d.ToString();
    }
    ASSERT_LE(d.layers.size(), whole.layers.size()) << what;
    for (size_t i = 0; i < d.layers.size(); ++i) {
      EXPECT_EQ(d.layers[i].name, whole.layers[i].name) << what;
      EXPECT_EQ(d.layers[i].depth, whole.layers[i].depth) << what;
      EXPECT_EQ(d.layers[i].offset, whole.layers[i].offset) << what;
      EXPECT_EQ(d.layers[i].length, whole.layers[i].length) << what;
    }
    ASSERT_LE(d.checksums.size(), whole.checksums.size()) << what;
    for (size_t i = 0; i < d.checksums.size(); ++i) {
      EXPECT_EQ(d.checksums[i].offset, whole.checksums[i].offset) << what;
      EXPECT_EQ(d.checksums[i].verdict, whole.checksums[i].verdict) << what;
    }
  }
}

TEST(DissectMalformed, VxlanTruncatedAtEveryLength) {
  Bytes full = Hex(VxlanFrame("bf4d"));
  CheckTruncations(full, "vxlan");
  // Cuts inside the outer IPv4 datagram stop there; shorter ones earlier.
  Dissection d = Dissect(full.data(), 100);
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0"}));
  EXPECT_EQ(*d.error, "ipv4: total length 154 exceeds frame (100 bytes)");
  EXPECT_EQ(*Dissect(full.data(), 20).error, "ipv4: truncated, need 20 bytes at offset 14, have 6");
}

TEST(DissectMalformed, EveryVectorTruncatedAtEveryLength) {
  for (const Vector& v : AllVectors()) {
    size_t padding = std::string_view(v.name) == "kIpv4OptsPadded" ? 10 : 0;
    CheckTruncations(Hex(v.hex), v.name, padding);
  }
  CheckTruncations(Hex(G()), "G");
}

TEST(DissectMalformed, TruncatedInsideTheInnerFrame) {
  // Shorten the outer datagram (and its lengths) so that the inner TCP
  // header is cut: the outer layers and inner IPv4 survive.
  std::string hex = VxlanFrame("0000");
  hex = Sub(hex, "4500009a", "4500005e");  // outer total length 154 -> 94
  hex = Sub(hex, "e01312b50086", "e01312b5004a");
  Bytes b = Hex(hex);
  b.resize(14 + 94);
  Dissection d = Dissect(b);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv4: total length 104 exceeds frame (108 bytes)");
  EXPECT_EQ(Stack(d).back(), "ipv4@1");
  ExpectCsum(d, "ipv4", 0, 0x339e, Verdict::kIncorrect);
}

TEST(DissectMalformed, Ipv4IhlBelowFive) {
  Dissection d = Dissect(Hex(Sub(G(), "4500", "4400")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv4: IHL 4 below minimum 5");
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0"}));
}

TEST(DissectMalformed, Ipv4IhlExceedsFrame) {
  Dissection d = Dissect(Hex(std::string(kE) + "4f" + (kIpt + 2)));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv4: IHL 15 exceeds frame (34 bytes)");
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0"}));
}

TEST(DissectMalformed, Ipv4IhlTooLargeReadsTcpAsOptions) {
  // IHL 15 fits the datagram but takes the TCP header as options, whose
  // first "option" (0xd4, length 0x78) runs past the header.
  Dissection d = Dissect(Hex(Sub(G(), "4500", "4f00")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv4: option 0xd4 length 120 invalid (40 option bytes left)");
  EXPECT_EQ(Stack(d), (std::vector<std::string>{"eth@0", "ipv4@0"}));
  EXPECT_EQ(FindCsum(d, "ipv4", 0)->verdict, Verdict::kIncorrect);
}

TEST(DissectMalformed, Ipv4TotalLength) {
  Dissection big = Dissect(Hex(Sub(G(), "45000068", "45000100")));
  ASSERT_TRUE(big.error);
  EXPECT_EQ(*big.error, "ipv4: total length 256 exceeds frame (118 bytes)");
  EXPECT_EQ(Stack(big), (std::vector<std::string>{"eth@0", "ipv4@0"}));

  Dissection small = Dissect(Hex(Sub(G(), "45000068", "45000010")));
  ASSERT_TRUE(small.error);
  EXPECT_EQ(*small.error, "ipv4: total length 16 below header length 20");
}

TEST(DissectMalformed, Ipv4VersionMismatch) {
  Dissection d = Dissect(Hex(Sub(G(), "4500", "6500")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "ipv4: version 6 in an IPv4 header");
}

TEST(DissectMalformed, TcpDataOffset) {
  Dissection low = Dissect(Hex(Sub(G(), "5010", "4010")));
  ASSERT_TRUE(low.error);
  EXPECT_EQ(*low.error, "tcp: data offset 4 below minimum 5");
  EXPECT_EQ(Stack(low), (std::vector<std::string>{"eth@0", "ipv4@0"}));
  ExpectGood(low, "ipv4", 0, 0x433c);

  Dissection zero = Dissect(Hex(Sub(G(), "5010", "0010")));
  ASSERT_TRUE(zero.error);
  EXPECT_EQ(*zero.error, "tcp: data offset 0 below minimum 5");

  // A 40-byte datagram (no payload) whose TCP header claims 60 bytes.
  std::string hex = std::string(kE) + "45000028000000000006433cc0a87b02c0a87b01" + kTcp;
  Dissection high = Dissect(Hex(Sub(hex, "5010", "f010")));
  ASSERT_TRUE(high.error);
  EXPECT_EQ(*high.error, "tcp: data offset 15 (60 bytes) exceeds segment (20 bytes)");
}

TEST(DissectMalformed, UdpLength) {
  std::string v = kIpv6Udp;
  Dissection longer = Dissect(Hex(Sub(v, "162e0018", "162e0019")));
  ASSERT_TRUE(longer.error);
  EXPECT_EQ(*longer.error, "udp: length 25 exceeds IP payload (24 bytes)");

  Dissection tiny = Dissect(Hex(Sub(v, "162e0018", "162e0007")));
  ASSERT_TRUE(tiny.error);
  EXPECT_EQ(*tiny.error, "udp: length 7 below minimum 8");

  // A UDP length short of the IP payload: the surplus is not checksummed.
  Dissection shorter = Dissect(Hex(Sub(v, "162e0018", "162e0010")));
  EXPECT_FALSE(shorter.error);
  EXPECT_NE(shorter.layers.back().summary.find("surplus 8"), std::string::npos);
  ExpectCsum(shorter, "udp", 0, 0x5109, Verdict::kIncorrect);
}

TEST(DissectMalformed, Ipv6) {
  std::string v = kIpv6Udp;
  Dissection big = Dissect(Hex(Sub(v, "600000000018", "600000000019")));
  ASSERT_TRUE(big.error);
  EXPECT_EQ(*big.error, "ipv6: payload length 25 exceeds frame (78 bytes)");
  EXPECT_EQ(Stack(big), (std::vector<std::string>{"eth@0", "ipv6@0"}));

  // Hop-by-hop options anywhere but first.
  std::string ext = kIpv6ExtTcp;
  Dissection hbh = Dissect(Hex(Sub(ext, "2b0001040000", "000001040000")));
  ASSERT_TRUE(hbh.error);
  EXPECT_EQ(*hbh.error, "ipv6: hop-by-hop options header not directly after the IPv6 header");

  // A routing header longer than the payload.
  Dissection rt = Dissect(Hex(Sub(ext, "2c020001", "2c090001")));
  ASSERT_TRUE(rt.error);
  EXPECT_EQ(*rt.error, "ipv6-routing: length 80 exceeds payload (68 bytes left)");
  EXPECT_EQ(Stack(rt).back(), "ipv6-dstopts@0");
}

TEST(DissectMalformed, GeneveOptionLength) {
  // The second option claims 3 words of data where 2 remain.
  Dissection d = Dissect(Hex(Sub(kGeneveOpts, "ffff010211", "ffff010311")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "geneve: option 0xffff/0x01 length 16 exceeds options (12 bytes left)");
  EXPECT_EQ(Stack(d).back(), "geneve@0");

  Dissection ver = Dissect(Hex(Sub(kGeneveOpts, "0500655812", "4500655812")));
  ASSERT_TRUE(ver.error);
  EXPECT_EQ(*ver.error, "geneve: version 1 unsupported");
}

TEST(DissectMalformed, GreRoutingBit) {
  Dissection d = Dissect(Hex(Sub(kGreCksTeb, "b0006558", "f0006558")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "gre: routing present (R bit, RFC 1701) unsupported");
}

TEST(DissectMalformed, SctpChunkLength) {
  Dissection d = Dissect(Hex(Sub(kIpv4Sctp, "0000001a00000001", "0000009900000001")));
  ASSERT_TRUE(d.error);
  EXPECT_EQ(*d.error, "sctp: chunk 0 (type 0) length 153 invalid (28 bytes left)");
  EXPECT_EQ(Stack(d).back(), "sctp@0");
  ASSERT_NE(FindCsum(d, "sctp", 0), nullptr);
}

// Nests `levels` VXLAN encapsulations around G; lengths right, checksums not.
Bytes NestVxlan(int levels) {
  Bytes frame = Hex(G());
  for (int i = 0; i < levels; ++i) {
    Bytes outer =
        Hex("020000000002020000000001 0800"
            "45000000 00000000 4011 0000 0a000001 0a000002"
            "c0001 2b5 0000 0000"
            "08000000 00000100");
    PutBe16(outer.data() + 14 + 2, static_cast<uint16_t>(20 + 8 + 8 + frame.size()));
    PutBe16(outer.data() + 34 + 4, static_cast<uint16_t>(8 + 8 + frame.size()));
    outer.insert(outer.end(), frame.begin(), frame.end());
    frame = std::move(outer);
  }
  return frame;
}

TEST(DissectMalformed, EncapsulationDepthIsCapped) {
  Dissection ok = Dissect(NestVxlan(8));
  EXPECT_FALSE(ok.error) << *ok.error;
  ExpectGood(ok, "tcp", 8, 0x6b72);

  Dissection deep = Dissect(NestVxlan(9));
  ASSERT_TRUE(deep.error);
  EXPECT_EQ(*deep.error, "vxlan: encapsulation deeper than 8 levels");
  EXPECT_EQ(Stack(deep).back(), "vxlan@8");
}

TEST(DissectMalformed, RandomBytes) {
  for (uint32_t seed = 0; seed < 1000; ++seed) {
    std::mt19937 rng(seed);
    size_t len = std::uniform_int_distribution<size_t>(0, 256)(rng);
    Bytes b(len);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    // Half the inputs get a plausible Ethernet type so decoding goes deeper.
    static constexpr uint16_t kTypes[] = {0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806};
    if (seed % 2 && len >= 14) PutBe16(b.data() + 12, kTypes[seed / 2 % 5]);
    Dissection d = DissectExact(b.data(), len);
    ExpectSane(d, len, "seed " + std::to_string(seed));
  }
}

TEST(DissectMalformed, MutatedVectors) {
  std::vector<Bytes> frames;
  for (const Vector& v : AllVectors()) frames.push_back(Hex(v.hex));
  frames.push_back(Hex(VxlanFrame("bf4d")));
  frames.push_back(NestVxlan(3));
  for (size_t f = 0; f < frames.size(); ++f) {
    for (uint32_t seed = 0; seed < 300; ++seed) {
      std::mt19937 rng(seed * 7919 + static_cast<uint32_t>(f));
      Bytes b = frames[f];
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) b[rng() % b.size()] = static_cast<uint8_t>(rng());
      if (rng() % 4 == 0) b.resize(rng() % (b.size() + 1));
      Dissection d = DissectExact(b.data(), b.size());
      ExpectSane(d, b.size(), "frame " + std::to_string(f) + " seed " + std::to_string(seed));
    }
  }
}

// ---------------------------------------------------------------------------
// Output.

TEST(DissectToString, VerdictNames) {
  EXPECT_STREQ(ToString(Verdict::kCorrect), "ok");
  EXPECT_STREQ(ToString(Verdict::kIncorrect), "bad");
  EXPECT_STREQ(ToString(Verdict::kAbsent), "absent");
  EXPECT_STREQ(ToString(Verdict::kNotChecked), "unchecked");
}

TEST(DissectToString, ErrorIsTheLastLine) {
  Dissection d = Dissect(Hex(std::string(kE) + "4f" + (kIpt + 2)));
  EXPECT_EQ(d.ToString(),
            "eth 8a:bf:7e:2f:05:84 > 0a:8f:39:4f:e0:73 type 0x0800\n"
            "error: ipv4: IHL 15 exceeds frame (34 bytes)\n");
}

}  // namespace
}  // namespace offlab
