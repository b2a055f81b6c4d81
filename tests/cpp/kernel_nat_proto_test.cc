// Netfilter NAT's per-protocol rewrite (net/netfilter/nf_nat_proto.c at
// v6.18) beyond plain IPv4 TCP/UDP: IPv6 with extension headers and
// fragments, SCTP, ICMP and ICMPv6 ids, GRE, truncated headers and the
// IPv6 COMPLETE-sum fix of torvalds/linux 189c9b1e9453. Expected bytes come
// from the plain-loop oracle of test_util.h (a rewritten packet must verify
// from scratch) and from the kernel rules cited beside each case.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_test_skb.h"
#include "offlab/linux/nf_conntrack_nat.h"
#include "offlab/linux/skb_csum.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::NetworkSkb;
using testing::OracleCrc32c;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSctpOk;
using testing::OracleSum;
using testing::Put16;

const std::string kTcp = "d478145100000001000000005010010000000000";  // csum at 16
const std::string kUdp = "1f90003500140000";                          // len 20, csum at 6
const std::string kPayload = "000102030405060708090a0b";
const std::array<uint8_t, 16> kV6New = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                        0,    0,    0,    0,    0, 0, 0, 0x99};

size_t CsumOfs(uint8_t proto) { return proto == 6 ? 16 : proto == 17 ? 6 : 2; }
int Mod(uint32_t s) { return static_cast<int>(OracleSum(nullptr, 0, s) % 0xffff); }

// IPv6 (2001:db8::1 > 2001:db8::2, first next header `nh`) with `ext`
// extension-header bytes before the L4 header `l4` and kPayload; the L4
// checksum (TCP, UDP, ICMPv6) from the oracle.
Bytes V6(uint8_t nh, const std::string& ext, uint8_t proto, const std::string& l4) {
  Bytes f = Ipv6Frame(nh, ext, l4 + kPayload);
  const size_t l4o = 54 + ext.size() / 2;
  Put16(f, l4o + CsumOfs(proto), OracleL4Csum(f, 14, l4o, proto, CsumOfs(proto)));
  return f;
}

Bytes V4(uint8_t proto, const std::string& l4) { return Ipv4Frame(proto, l4); }
SkBuff Skb(const Bytes& f, IpSummed st) { return NetworkSkb(f, st); }

NatTarget V6Target(NatManip m, std::optional<uint16_t> port = 40000) {
  NatTarget t;
  t.manip = m;
  t.ipv6 = true;
  t.addr = kV6New;
  t.port = port;
  return t;
}

// SNAT to 198.51.100.7 / DNAT to 198.51.100.9, port 40000.
NatTarget V4Target(NatManip m = NatManip::kSrc) {
  NatTarget t;
  t.manip = m;
  t.addr = {198, 51, 100, static_cast<uint8_t>(m == NatManip::kSrc ? 7 : 9)};
  t.port = 40000;
  return t;
}

// nf_nat_ipv6_manip_pkt: TCP, UDP and ICMPv6 after SNAT and DNAT, from
// every ip_summed; a PARTIAL skb's pseudo-header seed is moved by the
// address only (inet_proto_csum_replace16 pseudohdr=true, the port's
// replace2 has pseudohdr=false) and completes to the right sum.
TEST(KernelNatProto, Ipv6EveryProtocolAndState) {
  const std::string icmp6_echo = "8000000000070001";
  for (uint8_t proto : {6, 17, 58}) {
    const std::string& l4 = proto == 6 ? kTcp : proto == 17 ? kUdp : icmp6_echo;
    for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete, IpSummed::kPartial}) {
      for (NatManip m : {NatManip::kSrc, NatManip::kDst}) {
        Bytes f = V6(proto, "", proto, l4);
        if (st == IpSummed::kPartial) {
          size_t len = 0;
          Put16(f, 54 + CsumOfs(proto),
                static_cast<uint16_t>(OraclePseudo(f, 14, 54, proto, &len)));
        }
        SkBuff skb = Skb(f, st);
        if (st == IpSummed::kPartial) {
          skb.csum_start = 54;
          skb.csum_offset = static_cast<uint16_t>(CsumOfs(proto));
        }
        ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(m)));
        SkBuff done = skb;
        ASSERT_TRUE(SkbCompletePartial(done));
        const Bytes g = done.pkt.bytes();
        const size_t a = m == NatManip::kSrc ? 22 : 38;
        EXPECT_TRUE(std::equal(kV6New.begin(), kV6New.end(), g.begin() + a));
        // The other address is kept.
        EXPECT_EQ(g[m == NatManip::kSrc ? 53 : 37], m == NatManip::kSrc ? 2 : 1);
        // TCP/UDP: the manip's port; ICMPv6 echo: the id (icmpv6_manip_pkt).
        const size_t port = proto == 58 ? 58 : 54 + (m == NatManip::kSrc ? 0 : 2);
        EXPECT_EQ(Be16(g, port), 40000);
        EXPECT_EQ(Be16(g, 54 + CsumOfs(proto)), OracleL4Csum(g, 14, 54, proto, CsumOfs(proto)))
            << int{proto} << " " << IpSummedName(st);
        if (st == IpSummed::kComplete) {
          EXPECT_EQ(Mod(skb.csum), Mod(OracleSum(&g[14], g.size() - 14)));
        }
      }
    }
  }
}

// icmpv6_manip_pkt: only echo request/reply carry an id; any other type
// gets the address folded into its checksum and keeps its bytes 4..7.
TEST(KernelNatProto, Icmpv6IdOnlyForEcho) {
  for (uint8_t type : {128, 129, 1, 2, 3, 135}) {
    char l4[17];
    std::snprintf(l4, sizeof l4, "%02x00000000070001", type);
    SkBuff skb = Skb(V6(58, "", 58, l4), IpSummed::kNone);
    ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kDst)));
    const Bytes g = skb.pkt.bytes();
    EXPECT_EQ(Be16(g, 58), (type == 128 || type == 129) ? 40000 : 7) << int{type};
    EXPECT_EQ(Be16(g, 56), OracleL4Csum(g, 14, 54, 58, 2)) << int{type};
  }
}

// ipv6_skip_exthdr: hop-by-hop and destination options count 8-byte units
// past the first, AH 4-byte units past the second.
TEST(KernelNatProto, Ipv6SkipsExtensionHeaders) {
  struct Case {
    uint8_t nh;
    std::string ext;
  } cases[] = {
      {0, "0600000000000000"},  // hop-by-hop, 8 bytes
      {60,
       "0601000000000000"
       "0000000000000000"},  // destination options, 16 bytes
      {51,
       "0602000000000100"
       "0000000100000000"},  // AH, payload length 2: 16 bytes
      {0,
       "3c00000000000000"
       "0600000000000000"},  // hop-by-hop, then destination options
  };
  for (const Case& c : cases) {
    Bytes f = V6(c.nh, c.ext, 6, kTcp);
    const size_t l4 = 54 + c.ext.size() / 2;
    SkBuff skb = Skb(f, IpSummed::kNone);
    ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kSrc)));
    const Bytes g = skb.pkt.bytes();
    EXPECT_EQ(Be16(g, l4), 40000) << c.ext;
    EXPECT_EQ(Be16(g, l4 + 16), OracleL4Csum(g, 14, l4, 6, 16)) << c.ext;
    // Nothing between the IPv6 header and the TCP header changed.
    EXPECT_TRUE(std::equal(f.begin() + 54, f.begin() + static_cast<ptrdiff_t>(l4), g.begin() + 54));
  }
}

// A first fragment (offset 0) gets its L4 header rewritten: its checksum
// covers the whole datagram, so the right value is the reassembled
// datagram's after the same NAT. A later fragment and a "no next header"
// packet get the address only.
TEST(KernelNatProto, Ipv6FragmentsAndNoNextHeader) {
  // The whole datagram, unfragmented, after NAT: its checksum by the oracle.
  Bytes whole = V6(6, "", 6, kTcp);
  Bytes natted = whole;
  std::copy(kV6New.begin(), kV6New.end(), natted.begin() + 22);
  Put16(natted, 54, 40000);
  const uint16_t want = OracleL4Csum(natted, 14, 54, 6, 16);

  // First fragment: a fragment header (M set, offset 0) and the first 24
  // L4 bytes of the datagram.
  Bytes first = FromHex(testing::H(testing::kKernelEth + "86dd" + "6000000000202c40" +
                                   "20010db8000000000000000000000001" +
                                   "20010db8000000000000000000000002" + "0600000100000001"));
  first.insert(first.end(), whole.begin() + 54, whole.begin() + 54 + 24);
  SkBuff skb = Skb(first, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kSrc)));
  Bytes g = skb.pkt.bytes();
  EXPECT_EQ(Be16(g, 62), 40000);
  EXPECT_EQ(Be16(g, 62 + 16), want);
  EXPECT_TRUE(std::equal(kV6New.begin(), kV6New.end(), g.begin() + 22));

  // A later fragment (offset 3 units): its bytes are data, not a header.
  Bytes later = first;
  Put16(later, 56, 0x0019);  // offset 3, M set
  skb = Skb(later, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kSrc)));
  g = skb.pkt.bytes();
  EXPECT_TRUE(std::equal(later.begin() + 54, later.end(), g.begin() + 54));
  EXPECT_TRUE(std::equal(kV6New.begin(), kV6New.end(), g.begin() + 22));

  // No next header: the address only.
  Bytes none = V6(59, "", 6, kTcp);
  skb = Skb(none, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kDst)));
  g = skb.pkt.bytes();
  EXPECT_TRUE(std::equal(none.begin() + 54, none.end(), g.begin() + 54));
  EXPECT_TRUE(std::equal(kV6New.begin(), kV6New.end(), g.begin() + 38));
}

// Before 189c9b1e9453 (v5.5) inet_proto_csum_replace16 also moved a
// COMPLETE skb->csum by the address change, though the field's change
// cancels it: the sum no longer matches the bytes, off by exactly that
// change. From v5.5 it is left alone and matches.
TEST(KernelNatProto, Ipv6CompleteSumBefore55IsOffByTheAddressChange) {
  const Bytes f = V6(6, "", 6, kTcp);
  for (KernelVersion kv : {KernelVersion{4, 19}, KernelVersion{5, 5}, KernelVersion{6, 18}}) {
    SkBuff skb = Skb(f, IpSummed::kComplete);
    NatTarget t = V6Target(NatManip::kSrc, std::nullopt);
    ASSERT_TRUE(NfNatManipPkt(skb, 14, t, kv));
    const Bytes g = skb.pkt.bytes();
    ASSERT_EQ(Be16(g, 54 + 16), OracleL4Csum(g, 14, 54, 6, 16));
    const uint32_t right = OracleSum(&g[14], g.size() - 14);
    if (kv.AtLeast(5, 5)) {
      EXPECT_EQ(Mod(skb.csum), Mod(right)) << kv.ToString();
    } else {
      // skb->csum = ~csum_partial(diff, ~skb->csum): the sum minus
      // (~from + to) over the 16 address bytes, which the bytes do not show.
      const uint32_t change =
          OracleSum(&kV6New[0], 16, static_cast<uint16_t>(~OracleSum(&f[22], 16)));
      EXPECT_EQ(Mod(static_cast<uint32_t>(Mod(skb.csum)) + change), Mod(right)) << kv.ToString();
      EXPECT_NE(Mod(skb.csum), Mod(right));
    }
  }
}

// sctp_manip_pkt: the port, then (unless PARTIAL) a CRC32c computed from
// scratch and CHECKSUM_NONE; a header cut to 8 bytes (an ICMP error's
// inner packet) gets the port only.
TEST(KernelNatProto, SctpRecomputesCrcUnlessPartial) {
  const std::string sctp =
      "1f90003500000001"
      "00000000"
      "00030014000000010000000000000000"
      "01020304";
  for (IpSummed st : {IpSummed::kNone, IpSummed::kUnnecessary, IpSummed::kPartial}) {
    for (bool bad : {false, true}) {
      Bytes f = V4(132, sctp);
      const uint32_t crc = OracleCrc32c(&f[34], f.size() - 34) ^ (bad ? 1u : 0u);
      for (int i = 0; i < 4; i++) f[42 + i] = static_cast<uint8_t>(crc >> (8 * i));
      SkBuff skb = Skb(f, st);
      const NatTarget t = V4Target(NatManip::kDst);
      ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
      const Bytes g = skb.pkt.bytes();
      EXPECT_EQ(Be16(g, 36), 40000);
      EXPECT_EQ(Be16(g, 34), 0x1f90);
      EXPECT_EQ(OracleSum(&g[14], 20), 0xffff);
      if (st == IpSummed::kPartial) {
        EXPECT_TRUE(std::equal(f.begin() + 42, f.begin() + 46, g.begin() + 42));
        EXPECT_EQ(skb.ip_summed, IpSummed::kPartial);
      } else {
        // Recomputed: even a bad CRC comes out right.
        EXPECT_TRUE(OracleSctpOk(g, 34, g.size() - 34)) << IpSummedName(st) << bad;
        EXPECT_EQ(skb.ip_summed, IpSummed::kNone);
      }
    }
  }
  Bytes cut = V4(132, "1f90003500000001");
  SkBuff skb = Skb(cut, IpSummed::kNone);
  const NatTarget t = V4Target();
  ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
  EXPECT_EQ(Be16(skb.pkt.bytes(), 34), 40000);
  EXPECT_EQ(skb.pkt.size(), cut.size());
}

// icmp_manip_pkt: the id of the query/reply types (echo, timestamp,
// information, address mask) becomes the tuple's; other types are left
// alone. No pseudo-header: the address never enters the ICMP checksum.
TEST(KernelNatProto, IcmpIdOnlyForQueryTypes) {
  for (int type = 0; type <= 20; type++) {
    char l4[17];
    std::snprintf(l4, sizeof l4, "%02x00000000070001", type);
    Bytes f = V4(1, std::string(l4) + kPayload);
    Put16(f, 36, static_cast<uint16_t>(~OracleSum(&f[34], f.size() - 34)));
    SkBuff skb = Skb(f, IpSummed::kNone);
    const NatTarget t = V4Target();
    ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
    const Bytes g = skb.pkt.bytes();
    const bool query = type == 0 || type == 8 || (type >= 13 && type <= 18);
    EXPECT_EQ(Be16(g, 38), query ? 40000 : 7) << type;
    EXPECT_EQ(OracleSum(&g[34], g.size() - 34), 0xffff) << type;
    EXPECT_EQ(OracleSum(&g[14], 20), 0xffff) << type;
    EXPECT_EQ(g[29], 7);
  }
}

// l4proto_manip_pkt by protocol: ICMP inside IPv6 and ICMPv6 inside IPv4
// are not rewritten, nor GRE (only its key, not modelled); the address is.
TEST(KernelNatProto, MismatchedAndUnmodelledProtocolsGetTheAddressOnly) {
  const std::string l4 = "0800000000070001" + kPayload;
  for (uint8_t proto : {58, 47}) {
    Bytes f = V4(proto, l4);
    SkBuff skb = Skb(f, IpSummed::kNone);
    const NatTarget t = V4Target(NatManip::kDst);
    ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
    const Bytes g = skb.pkt.bytes();
    EXPECT_TRUE(std::equal(f.begin() + 34, f.end(), g.begin() + 34)) << int{proto};
    EXPECT_EQ(g[33], 9);
    EXPECT_EQ(OracleSum(&g[14], 20), 0xffff);
  }
  Bytes f = V6(1, "", 6, kTcp);  // next header ICMP in an IPv6 packet
  SkBuff skb = Skb(f, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, V6Target(NatManip::kDst)));
  const Bytes g = skb.pkt.bytes();
  EXPECT_TRUE(std::equal(f.begin() + 54, f.end(), g.begin() + 54));
  EXPECT_EQ(g[53], 0x99);
}

// IPv4 options move the L4 header (ihl * 4).
TEST(KernelNatProto, Ipv4OptionsMoveTheL4Header) {
  Bytes f = FromHex(testing::H(testing::kKernelEth + "0800" +
                               "4600002c123440004006000 00a0000010a000002" + "01010100" + kUdp +
                               kPayload));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 24)));
  Put16(f, 38 + 6, OracleL4Csum(f, 14, 38, 17, 6));
  SkBuff skb = Skb(f, IpSummed::kNone);
  const NatTarget t = V4Target();
  ASSERT_TRUE(NfNatManipPkt(skb, 14, t));
  const Bytes g = skb.pkt.bytes();
  EXPECT_EQ(Be16(g, 38), 40000);
  EXPECT_EQ(Be16(g, 44), OracleL4Csum(g, 14, 38, 17, 6));
  EXPECT_EQ(OracleSum(&g[14], 24), 0xffff);
  EXPECT_TRUE(std::equal(f.begin() + 34, f.begin() + 38, g.begin() + 34));  // the options
}

// Headers that are not all in the skb: the kernel's skb_ensure_writable
// fails and the packet is dropped (false), except TCP, whose 8-byte form
// (an ICMP error's inner header) gets the port and keeps its checksum.
TEST(KernelNatProto, ShortHeaders) {
  const NatTarget t4 = V4Target();
  Bytes ip_short = V4(6, "");
  ip_short.resize(14 + 19);
  SkBuff skb = Skb(ip_short, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, t4));

  Bytes udp_short = V4(17, "1f900035001400");  // 7 bytes of UDP header
  skb = Skb(udp_short, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, t4));
  EXPECT_EQ(skb.pkt.bytes(), udp_short);

  Bytes icmp_short = V4(1, "08000000000700");
  skb = Skb(icmp_short, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, t4));

  Bytes tcp8 = V4(6, "d478145100000001");
  skb = Skb(tcp8, IpSummed::kNone);
  ASSERT_TRUE(NfNatManipPkt(skb, 14, t4));
  EXPECT_EQ(Be16(skb.pkt.bytes(), 34), 40000);
  EXPECT_EQ(skb.pkt.bytes()[29], 7);

  Bytes v6_short = V6(6, "", 6, kTcp);
  v6_short.resize(14 + 39);
  skb = Skb(v6_short, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, V6Target(NatManip::kSrc)));

  Bytes icmp6_short = V6(58, "", 58, "8000000000070001");
  icmp6_short.resize(54 + 7);
  skb = Skb(icmp6_short, IpSummed::kNone);
  EXPECT_FALSE(NfNatManipPkt(skb, 14, V6Target(NatManip::kSrc)));
}

}  // namespace
}  // namespace offlab::kernel
