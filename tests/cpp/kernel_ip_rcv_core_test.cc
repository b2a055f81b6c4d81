// ip_rcv_core (net/ipv4/ip_input.c) and ip6_rcv_core (net/ipv6/
// ip6_input.c) at v6.18: which header faults drop a packet, under which
// /proc/net/snmp counter (Ip: InHdrErrors, IpExt: InCsumErrors and
// InTruncatedPkts, Ip6InHdrErrors, Ip6InTruncatedPkts), the ECN counters
// (IPSTATS_MIB_NOECTPKTS + (tos & INET_ECN_MASK): NoECT, ECT(1), ECT(0),
// CE), and the trim to the IP length (a jumbogram left alone). Frames and
// checksums are built with the plain oracle of test_util.h.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "offlab/linux/stack_rx.h"
#include "offlab/net/counters.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;
using testing::OracleSum;
using testing::Put16;

const std::string kEth4 = "0a8f394fe0738abf7e2f05840800";
const std::string kEth6 = "0a8f394fe0738abf7e2f058486dd";
const std::string kUdp = "1f90003500140000000102030405060708090a0b";  // 20 bytes

// IPv4 header `first` byte (version/IHL), TOS, total length, header
// checksum from the oracle, UDP after it.
Bytes V4(uint8_t first = 0x45, uint8_t tos = 0, int tot = -1) {
  const size_t ihl = (first & 0x0f) * 4u;
  char ip[64];
  std::snprintf(ip, sizeof ip, "%02x%02x%04x1234400040110000c0a87b02c0a87b01", first, tos,
                tot < 0 ? static_cast<unsigned>(20 + kUdp.size() / 2) : static_cast<unsigned>(tot));
  std::string opts(ihl > 20 ? (ihl - 20) * 2 : 0, '0');
  Bytes f = FromHex(H(kEth4 + ip + opts + kUdp));
  if (ihl >= 20) Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], ihl)));
  return f;
}

Bytes V6(uint8_t tclass = 0, int plen = -1, uint8_t next = 17, uint8_t src0 = 0x20) {
  char ip[32];
  std::snprintf(ip, sizeof ip, "6%02x00000%04x%02x40", tclass,
                plen < 0 ? static_cast<unsigned>(kUdp.size() / 2) : static_cast<unsigned>(plen),
                next);
  char src[8];
  std::snprintf(src, sizeof src, "%02x", src0);
  return FromHex(H(kEth6 + ip + src + "010db8000000000000000000000001" +
                   "20010db8000000000000000000000002" + kUdp));
}

SkBuff Skb(const Bytes& f) {
  SkBuff s;
  s.pkt = Packet(f);
  s.csum_from = 14;
  return s;
}

struct Out {
  RxVerdict v;
  Counters c;
  SkBuff skb;
  IpRcvInfo info;
};

Out Rcv(const Bytes& f) {
  Out o;
  o.skb = Skb(f);
  o.v = IpRcvCore(o.skb, 14, kLabKernel, &o.c, &o.info);
  return o;
}

TEST(KernelIpRcvCore, Ipv4HeaderFaults) {
  // Shorter than a header.
  Bytes cut = V4();
  cut.resize(14 + 19);
  Out o = Rcv(cut);
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("Ip:InHdrErrors"), 1u);
  // IHL below 5, a version other than 4, an IHL longer than the packet.
  for (uint8_t first : {0x44, 0x55, 0x4f}) {
    Bytes f = V4();
    f[14] = first;
    o = Rcv(f);
    EXPECT_FALSE(o.v.delivered) << int{first};
    EXPECT_EQ(o.c.Get("Ip:InHdrErrors"), 1u) << int{first};
    EXPECT_EQ(o.c.Get("Ip:InReceives"), 1u);
  }
  // A bad header checksum: InCsumErrors and InHdrErrors.
  Bytes bad = V4();
  bad[25] ^= 1;
  o = Rcv(bad);
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("IpExt:InCsumErrors"), 1u);
  EXPECT_EQ(o.c.Get("Ip:InHdrErrors"), 1u);
  // A total length past the end: truncated; below the header: a header error.
  o = Rcv(V4(0x45, 0, 41));
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("IpExt:InTruncatedPkts"), 1u);
  EXPECT_EQ(o.c.Get("Ip:InHdrErrors"), 0u);
  o = Rcv(V4(0x46, 0, 23));
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("Ip:InHdrErrors"), 1u);
  EXPECT_EQ(o.c.Get("IpExt:InTruncatedPkts"), 0u);
}

TEST(KernelIpRcvCore, Ipv4OptionsPaddingAndFragments) {
  // Options move the L4 header; padding after the total length is cut.
  Bytes f = V4(0x46, 0, 24 + 20);
  f.insert(f.end(), {0xee, 0xee, 0xee});
  Out o = Rcv(f);
  ASSERT_TRUE(o.v.delivered);
  EXPECT_EQ(o.info.l4_ofs, 14 + 24);
  EXPECT_EQ(o.info.l4_len, 20u);
  EXPECT_EQ(o.skb.len(), f.size() - 3);
  EXPECT_EQ(o.info.proto, 17);
  EXPECT_FALSE(o.info.fragment);
  for (uint16_t frag : {0x2000, 0x0001, 0x4001}) {
    Bytes g = V4();
    Put16(g, 20, frag);
    Put16(g, 24, 0);
    Put16(g, 24, static_cast<uint16_t>(~OracleSum(&g[14], 20)));
    o = Rcv(g);
    ASSERT_TRUE(o.v.delivered);
    EXPECT_TRUE(o.info.fragment) << frag;
  }
}

TEST(KernelIpRcvCore, EcnCounters) {
  const char* v4[] = {"IpExt:InNoECTPkts", "IpExt:InECT1Pkts", "IpExt:InECT0Pkts",
                      "IpExt:InCEPkts"};
  const char* v6[] = {"Ip6InNoECTPkts", "Ip6InECT1Pkts", "Ip6InECT0Pkts", "Ip6InCEPkts"};
  for (uint8_t ecn = 0; ecn < 4; ecn++) {
    Out o4 = Rcv(V4(0x45, static_cast<uint8_t>(0xb8 | ecn)));
    Out o6 = Rcv(V6(static_cast<uint8_t>(0xb8 | ecn)));
    for (uint8_t k = 0; k < 4; k++) {
      EXPECT_EQ(o4.c.Get(v4[k]), k == ecn ? 1u : 0u) << v4[k];
      EXPECT_EQ(o6.c.Get(v6[k]), k == ecn ? 1u : 0u) << v6[k];
    }
    EXPECT_EQ(o4.info.tos, 0xb8 | ecn);
    EXPECT_EQ(o6.info.tos, 0xb8 | ecn);
  }
}

TEST(KernelIpRcvCore, Ipv6HeaderFaultsTrimAndJumbogram) {
  Bytes cut = V6();
  cut.resize(14 + 39);
  Out o = Rcv(cut);
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("Ip6InHdrErrors"), 1u);
  // A multicast source address (RFC 4291 2.7).
  o = Rcv(V6(0, -1, 17, 0xff));
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("Ip6InHdrErrors"), 1u);
  // A payload length past the end.
  o = Rcv(V6(0, 21));
  EXPECT_FALSE(o.v.delivered);
  EXPECT_EQ(o.c.Get("Ip6InTruncatedPkts"), 1u);
  EXPECT_EQ(o.c.Get("Ip6InHdrErrors"), 0u);
  // Padding cut to 40 + payload length.
  Bytes pad = V6(0, 12);
  o = Rcv(pad);
  ASSERT_TRUE(o.v.delivered);
  EXPECT_EQ(o.skb.len(), 14u + 40 + 12);
  EXPECT_EQ(o.info.l4_len, 12u);
  EXPECT_EQ(o.info.l4_ofs, 54);
  // Payload length 0 behind a hop-by-hop header: a jumbogram, not trimmed.
  Bytes jumbo = V6(0, 0, 0);
  o = Rcv(jumbo);
  ASSERT_TRUE(o.v.delivered);
  EXPECT_EQ(o.skb.len(), jumbo.size());
  EXPECT_EQ(o.info.proto, 0);
  // Payload length 0 otherwise: everything after the header is cut.
  o = Rcv(V6(0, 0, 17));
  ASSERT_TRUE(o.v.delivered);
  EXPECT_EQ(o.skb.len(), 14u + 40);
  // A fragment header is a fragment.
  o = Rcv(V6(0, -1, 44));
  ASSERT_TRUE(o.v.delivered);
  EXPECT_TRUE(o.info.fragment);
}

}  // namespace
}  // namespace offlab::kernel
