// What the OVS kernel datapath's receive leaves in the skb: the in-band VLAN
// tag taken out by skb_vlan_untag for every place a driver's COMPLETE sum may
// start and for a PARTIAL checksum, and the L4 header found behind IPv6
// extension headers (also by set(ipv6), which must know whether a routing
// header is still active). Expected sums come from test_util.h's plain-loop oracle
// over the untagged bytes; header lengths from RFC 8200 section 4 (8-octet
// units past the first 8) and RFC 4302 section 2.2 (AH: 4-octet units, less 2).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/skb_csum.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSum;

using testing::Put16;

int Mod(uint32_t s) { return static_cast<int>(OracleSum(nullptr, 0, s) % 0xffff); }

// TCP over IPv4 with 12 payload bytes, both checksums right.
Bytes Tcp4() {
  Bytes f =
      FromHex(H("0a8f394fe0738abf7e2f0584 0800 4500003412344000400600000a0000010a000002"
                "d478145100000001000000005010010000000000 000102030405060708090a0b"));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  return f;
}

Bytes Tagged(const Bytes& f) {
  Bytes t = f;
  const Bytes tag = FromHex("8100a005");
  t.insert(t.begin() + 12, tag.begin(), tag.end());
  return t;
}

TEST(KernelOvsReceive, UntagKeepsACompleteSumWhereverTheDriverStartedIt) {
  // Before the tag (the whole frame, or from the TPID), at the TCI (behind
  // the MAC header, the usual case) or behind the tag (at the IP header):
  // the sum stays COMPLETE and, once netdev_port_receive pushes the MAC
  // header back, is the sum of the untagged frame.
  const Bytes untagged = Tcp4();
  const Bytes tagged = Tagged(untagged);
  for (uint16_t from : {0, 12, 14, 18}) {
    SCOPED_TRACE("COMPLETE from " + std::to_string(from));
    SkBuff skb;
    skb.ip_summed = IpSummed::kComplete;
    skb.csum_from = from;
    skb.csum = OracleSum(&tagged[from], tagged.size() - from);
    skb.pkt = Packet(tagged);
    OvsSkb s = OvsVportReceive(std::move(skb));
    EXPECT_TRUE(s.vlan.present);
    EXPECT_EQ(s.skb.pkt.bytes(), untagged);
    ASSERT_EQ(s.skb.ip_summed, IpSummed::kComplete);
    EXPECT_EQ(s.skb.csum_from, 0);
    EXPECT_EQ(Mod(s.skb.csum), Mod(OracleSum(untagged.data(), untagged.size())));
  }
}

TEST(KernelOvsReceive, UntagMovesAPartialChecksumStartWithTheHeader) {
  // A PARTIAL skb (a local sender's) tagged in band: csum_start follows the
  // TCP header 4 bytes forward, so completing it gives the right checksum.
  const Bytes untagged = Tcp4();
  Bytes tagged = Tagged(untagged);
  size_t len = 0;
  Put16(tagged, 38 + 16, static_cast<uint16_t>(OraclePseudo(tagged, 18, 38, 6, &len)));
  SkBuff skb;
  skb.ip_summed = IpSummed::kPartial;
  skb.csum_from = 14;
  skb.csum_start = 38;
  skb.csum_offset = 16;
  skb.pkt = Packet(tagged);
  OvsSkb s = OvsVportReceive(std::move(skb));
  EXPECT_EQ(s.skb.csum_start, 34);
  ASSERT_TRUE(SkbCompletePartial(s.skb));
  EXPECT_EQ(s.skb.pkt.bytes(), untagged);
}

// TCP over IPv6 behind one extension header `ext` (its next header TCP).
Bytes Ipv6Behind(uint8_t ext_type, const std::string& ext_hex) {
  const std::string tcp = "d478145100000001000000005010010000000000";
  const Bytes ext = FromHex(H(ext_hex));
  char hdr[32];
  std::snprintf(hdr, sizeof hdr, "60000000%04zx%02x40", ext.size() + tcp.size() / 2, ext_type);
  return FromHex(H(std::string("0a8f394fe0738abf7e2f0584 86dd") + hdr +
                   "20010db8000000000000000000000001 20010db8000000000000000000000002" + ext_hex +
                   tcp));
}

TEST(KernelOvsReceive, Ipv6ExtensionHeaderLengthsByType) {
  struct Case {
    const char* what;
    uint8_t type;
    std::string ext;
    size_t len;
  };
  const Case cases[] = {
      // Destination options, Hdr Ext Len 1: (1 + 1) * 8 = 16 bytes.
      {"destination options", 60, "0601 0000000000000000000000000000", 16},
      // Hop-by-hop, Hdr Ext Len 0: 8 bytes.
      {"hop-by-hop", 0, "0600 000000000000", 8},
      // AH, Payload Len 4: (4 + 2) * 4 = 24 bytes.
      {"authentication header", 51, "0604 0000 00000001 00000001 000000000000000000000000", 24},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Bytes f = Ipv6Behind(c.type, c.ext);
    ASSERT_EQ(f.size(), 54 + c.len + 20);
    SkBuff skb;
    skb.csum_from = 14;
    skb.pkt = Packet(f);
    OvsSkb s = OvsVportReceive(std::move(skb));
    EXPECT_EQ(s.key.ip_proto, 6);
    EXPECT_EQ(s.skb.pkt.l4_ofs, 54 + c.len);
    EXPECT_EQ(Be16(f, s.skb.pkt.l4_ofs), 0xd478);  // the TCP source port
  }
}

TEST(KernelOvsSetIpv6, FinishedRoutingHeaderBehindOptionsLeavesTheDestinationInTheSum) {
  // Destination options (16 bytes: PadN of 14) + routing header with
  // segments left 0 + TCP: the IPv6 destination is the final one, so a
  // rewrite of it updates the TCP checksum (set_ipv6_addr's recalc when
  // ipv6_find_hdr finds no active routing header).
  Bytes f = Ipv6Behind(60, "2b01 010c 000000000000000000000000 0600 0400 00000000");
  ASSERT_EQ(f.size(), 54 + 24 + 20);
  Put16(f, 78 + 16, OracleL4Csum(f, 14, 78, 6, 16));
  SkBuff skb;
  skb.csum_from = 14;
  skb.pkt = Packet(f);
  OvsSkb s = OvsVportReceive(std::move(skb));
  OvsKeyIpv6 key, mask;
  key.dst.fill(0x22);
  mask.dst.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, key, mask), 0);
  const Bytes g = s.skb.pkt.bytes();
  EXPECT_EQ(g[14 + 24], 0x22);
  EXPECT_EQ(Be16(g, 78 + 16), OracleL4Csum(g, 14, 78, 6, 16));
}

}  // namespace
}  // namespace offlab::kernel
