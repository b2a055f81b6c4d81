// The OVS kernel datapath's actions on real bytes, for each ip_summed state:
// after a set action a correct packet must still be correct (PARTIAL after
// the software completion; COMPLETE with skb->csum still the sum of the
// bytes), and a wrong checksum must stay wrong by the same amount (RFC 1624).
// Expected values come from test_util.h's plain-loop oracle on the rewritten
// bytes, or from kernel behaviour documented in the cited source.
#include <gtest/gtest.h>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_vlan.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/ovs_dp_ct.h"
#include "offlab/linux/skb_csum.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::Be16;
using testing::H;
using testing::OracleL4Csum;
using testing::OraclePseudo;
using testing::OracleSum;

constexpr IpSummed kStates[] = {IpSummed::kNone, IpSummed::kUnnecessary, IpSummed::kComplete,
                                IpSummed::kPartial};
const std::string kEth = "0a8f394fe0738abf7e2f0584";

using testing::Put16;
// One's-complement difference a - b, as a value mod 0xffff.
int Diff(uint16_t a, uint16_t b) { return ((int{a} - int{b}) % 0xffff + 0xffff) % 0xffff; }
int Mod(uint32_t s) { return static_cast<int>(OracleSum(nullptr, 0, s) % 0xffff); }

// TCP (l4 csum at +16) or UDP (+6) over IPv4 with 12 payload bytes, both
// checksums filled in by the oracle.
Bytes Ipv4Frame(uint8_t proto, const std::string& extra = "") {
  const bool tcp = proto == 6;
  std::string l4 = tcp ? "d478145100000001000000005010010000000000" : "1f90003500140000";
  std::string ip =
      tcp ? "4500003412344000400600000a0000010a000002" : "4500002812344000401100000a0000010a000002";
  Bytes f = FromHex(H(kEth + "0800" + ip + l4 + "000102030405060708090a0b" + extra));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  const size_t co = tcp ? 16 : 6;
  Put16(f, 34 + co, OracleL4Csum(f, 14, 34, proto, co));
  return f;
}

Bytes Ipv6Frame(uint8_t proto) {
  std::string l4 = proto == 6    ? "d478145100000001000000005010010000000000"
                   : proto == 17 ? "1f90003500140000"
                                 : "8000000000070001";  // ICMPv6 echo request
  const size_t plen = l4.size() / 2 + 12;
  char hdr[32];
  std::snprintf(hdr, sizeof hdr, "60000000%04zx%02x40", plen, proto);
  Bytes f = FromHex(H(kEth + "86dd" + hdr + "20010db8000000000000000000000001" +
                      "20010db8000000000000000000000002" + l4 + "000102030405060708090a0b"));
  const size_t co = proto == 6 ? 16 : proto == 17 ? 6 : 2;
  Put16(f, 54 + co, OracleL4Csum(f, 14, 54, proto, co));
  return f;
}

size_t CsumOfs(uint8_t proto) { return proto == 6 ? 16 : proto == 17 ? 6 : 2; }

// The skb as a driver hands it up: data behind the MAC header; COMPLETE
// with the sum of the bytes from there; PARTIAL with the pseudo-header sum
// in the field.
OvsSkb Receive(Bytes f, IpSummed st, size_t l3, size_t l4, uint8_t proto) {
  SkBuff skb;
  skb.ip_summed = st;
  skb.csum_from = static_cast<uint16_t>(l3);
  if (st == IpSummed::kComplete) skb.csum = OracleSum(&f[l3], f.size() - l3);
  if (st == IpSummed::kPartial) {
    size_t len = 0;
    Put16(f, l4 + CsumOfs(proto), static_cast<uint16_t>(OraclePseudo(f, l3, l4, proto, &len)));
    skb.csum_start = static_cast<uint16_t>(l4);
    skb.csum_offset = static_cast<uint16_t>(CsumOfs(proto));
  }
  skb.pkt = Packet(f);
  return OvsVportReceive(std::move(skb));
}

Bytes Bytes_(const OvsSkb& s) { return s.skb.pkt.bytes(); }

// The packet is correct: PARTIAL completed in software first.
void ExpectCorrect(OvsSkb s, uint8_t proto, const std::string& what) {
  SCOPED_TRACE(what + " " + IpSummedName(s.skb.ip_summed));
  ASSERT_TRUE(SkbCompletePartial(s.skb));
  const Bytes f = Bytes_(s);
  const size_t l3 = s.skb.pkt.l3_ofs, l4 = s.skb.pkt.l4_ofs;
  if ((f[l3] >> 4) == 4) {
    EXPECT_EQ(OracleSum(&f[l3], 20), 0xffff) << "IPv4 header checksum";
  }
  const uint16_t field = Be16(f, l4 + CsumOfs(proto));
  if (!(proto == 17 && field == 0)) {
    EXPECT_EQ(field, OracleL4Csum(f, l3, l4, proto, CsumOfs(proto)));
  }
  if (s.skb.ip_summed == IpSummed::kComplete) {
    EXPECT_EQ(Mod(s.skb.csum), Mod(OracleSum(&f[s.skb.csum_from], f.size() - s.skb.csum_from)))
        << "skb->csum no longer the sum of the bytes";
  }
}

OvsKeyIpv4 Addr4(uint8_t a, uint8_t b) {
  OvsKeyIpv4 k;
  k.src = {192, 168, 7, a};
  k.dst = {172, 16, 0, b};
  return k;
}
OvsKeyIpv4 FullMask4() {
  OvsKeyIpv4 m;
  m.src = m.dst = {0xff, 0xff, 0xff, 0xff};
  return m;
}

TEST(KernelOvsSetIpv4, AddressesTosTtlEveryState) {
  for (uint8_t proto : {6, 17}) {
    for (IpSummed st : kStates) {
      OvsSkb s = Receive(Ipv4Frame(proto), st, 14, 34, proto);
      OvsKeyIpv4 key = Addr4(9, 77), mask = FullMask4();
      key.tos = 0xb8;
      mask.tos = 0xfc;
      key.ttl = 17;
      mask.ttl = 0xff;
      ASSERT_EQ(OvsSetIpv4(s, key, mask), 0);
      const Bytes f = Bytes_(s);
      EXPECT_EQ(f[26], 192);
      EXPECT_EQ(f[33], 77);
      EXPECT_EQ(f[15], 0xb8);
      EXPECT_EQ(f[22], 17);
      ExpectCorrect(s, proto, "set_ipv4");
    }
  }
}

TEST(KernelOvsSetIpv4, WrongChecksumsStayWrongBySameAmount) {
  for (uint8_t proto : {6, 17}) {
    for (IpSummed st : {IpSummed::kNone, IpSummed::kUnnecessary, IpSummed::kComplete}) {
      Bytes f = Ipv4Frame(proto);
      const size_t co = 34 + CsumOfs(proto);
      Put16(f, co, static_cast<uint16_t>(Be16(f, co) + 0x1111));
      Put16(f, 24, static_cast<uint16_t>(Be16(f, 24) ^ 0x0f00));
      const int l4_err = Diff(Be16(f, co), OracleL4Csum(f, 14, 34, proto, co - 34));
      Bytes hz = f;
      Put16(hz, 24, 0);
      const int ip_err0 = Diff(Be16(f, 24), static_cast<uint16_t>(~OracleSum(&hz[14], 20)));
      OvsSkb s = Receive(f, st, 14, 34, proto);
      ASSERT_EQ(OvsSetIpv4(s, Addr4(3, 4), FullMask4()), 0);
      const Bytes g = Bytes_(s);
      Bytes gz = g;
      Put16(gz, 24, 0);
      EXPECT_EQ(Diff(Be16(g, co), OracleL4Csum(g, 14, 34, proto, co - 34)), l4_err);
      EXPECT_EQ(Diff(Be16(g, 24), static_cast<uint16_t>(~OracleSum(&gz[14], 20))), ip_err0);
      if (st == IpSummed::kComplete) {
        EXPECT_EQ(Mod(s.skb.csum), Mod(OracleSum(g.data(), g.size())));
      }
    }
  }
}

TEST(KernelOvsSetIpv4, UdpZeroChecksumStaysZeroAndMangled0) {
  for (IpSummed st : {IpSummed::kNone, IpSummed::kComplete}) {
    Bytes f = Ipv4Frame(17);
    Put16(f, 40, 0);
    OvsSkb s = Receive(f, st, 14, 34, 17);
    ASSERT_EQ(OvsSetIpv4(s, Addr4(5, 6), FullMask4()), 0);
    EXPECT_EQ(Be16(Bytes_(s), 40), 0);
    ExpectCorrect(s, 17, "zero udp");
  }
  // A destination for which the correct UDP checksum is 0x0000: the field
  // goes out as 0xffff (CSUM_MANGLED_0), never as "no checksum".
  for (int b = 0; b < 256 * 256; b++) {
    Bytes f = Ipv4Frame(17);
    f[32] = static_cast<uint8_t>(b >> 8);
    f[33] = static_cast<uint8_t>(b);
    Bytes z = f;
    Put16(z, 40, 0);
    size_t len = 0;
    if (static_cast<uint16_t>(~OracleSum(&z[34], 20, OraclePseudo(z, 14, 34, 17, &len))) != 0)
      continue;
    OvsSkb s = Receive(Ipv4Frame(17), IpSummed::kNone, 14, 34, 17);
    OvsKeyIpv4 key = Addr4(0, 0), mask;
    key.dst = {f[30], f[31], f[32], f[33]};
    mask.dst = {0xff, 0xff, 0xff, 0xff};
    ASSERT_EQ(OvsSetIpv4(s, key, mask), 0);
    EXPECT_EQ(Be16(Bytes_(s), 40), 0xffff);
    return;
  }
  FAIL() << "no address gives a zero UDP checksum";
}

TEST(KernelOvsSetTp, PortsEveryState) {
  for (uint8_t proto : {6, 17}) {
    for (IpSummed st : kStates) {
      OvsSkb s = Receive(Ipv4Frame(proto), st, 14, 34, proto);
      const uint16_t pseudo_before = Be16(Bytes_(s), 34 + CsumOfs(proto));
      OvsKeyPorts key{4242, 8080}, mask{0xffff, 0xffff};
      ASSERT_EQ(proto == 6 ? OvsSetTcp(s, key, mask) : OvsSetUdp(s, key, mask), 0);
      EXPECT_EQ(Be16(Bytes_(s), 34), 4242);
      EXPECT_EQ(Be16(Bytes_(s), 36), 8080);
      // Ports are not in the pseudo-header: a PARTIAL field is untouched.
      if (st == IpSummed::kPartial) {
        EXPECT_EQ(Be16(Bytes_(s), 34 + CsumOfs(proto)), pseudo_before);
      }
      ExpectCorrect(s, proto, "set_tp");
    }
  }
}

TEST(KernelOvsSetTp, UdpZeroChecksumLeavesCompleteSumStale) {
  // set_udp writes the ports plainly when the checksum is 0 (actions.c:688);
  // skb->csum is not told, so it still sums the old bytes.
  Bytes f = Ipv4Frame(17);
  Put16(f, 40, 0);
  OvsSkb s = Receive(f, IpSummed::kComplete, 14, 34, 17);
  const int before = Mod(s.skb.csum);
  ASSERT_EQ(OvsSetUdp(s, {1, 2}, {0xffff, 0xffff}), 0);
  EXPECT_EQ(Mod(s.skb.csum), before);
  EXPECT_EQ(before, Mod(OracleSum(f.data(), f.size())));
}

TEST(KernelOvsSetIpv6, AddressesEveryStateAndProtocol) {
  for (uint8_t proto : {6, 17, 58}) {
    for (IpSummed st : kStates) {
      OvsSkb s = Receive(Ipv6Frame(proto), st, 14, 54, proto);
      OvsKeyIpv6 key, mask;
      key.src = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd};
      key.dst = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99};
      mask.src.fill(0xff);
      mask.dst.fill(0xff);
      ASSERT_EQ(OvsSetIpv6(s, key, mask), 0);
      EXPECT_EQ(Bytes_(s)[14 + 8 + 15], 0xcd);
      ExpectCorrect(s, proto, "set_ipv6 " + std::to_string(proto));
    }
  }
}

TEST(KernelOvsSetIpv6, Before55CompleteSumMovesByTheAddressChange) {
  // Before 189c9b1e9453 (v5.5) inet_proto_csum_replace16 also subtracted
  // the address change from skb->csum, which the bytes do not call for.
  OvsSkb s = Receive(Ipv6Frame(6), IpSummed::kComplete, 14, 54, 6);
  const Bytes before = Bytes_(s);
  const Bytes old_src(before.begin() + 22, before.begin() + 38);
  OvsKeyIpv6 key, mask;
  key.src.fill(0x11);
  mask.src.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, key, mask, KernelVersion{5, 4, false}), 0);
  const Bytes g = Bytes_(s);
  const int change = Diff(static_cast<uint16_t>(OracleSum(key.src.data(), 16)),
                          static_cast<uint16_t>(OracleSum(old_src.data(), 16)));
  EXPECT_EQ(Mod(s.skb.csum), (Mod(OracleSum(g.data(), g.size())) - change + 0xffff) % 0xffff);
  EXPECT_EQ(Be16(g, 54 + 16), OracleL4Csum(g, 14, 54, 6, 16));
}

TEST(KernelOvsSetIpv6, TclassLabelHlimitKeepCompleteSum) {
  OvsSkb s = Receive(Ipv6Frame(6), IpSummed::kComplete, 14, 54, 6);
  OvsKeyIpv6 key, mask;
  key.tclass = 0xb8;
  mask.tclass = 0xff;
  key.label = 0xabcde;
  mask.label = 0xfffff;
  key.hlimit = 3;
  mask.hlimit = 0xff;
  ASSERT_EQ(OvsSetIpv6(s, key, mask), 0);
  const Bytes g = Bytes_(s);
  EXPECT_EQ(H(ToHex(g.data() + 14, 4)), "6b8abcde");
  EXPECT_EQ(g[21], 3);
  ExpectCorrect(s, 6, "tclass/label/hlimit");
}

TEST(KernelOvsSetIpv6, RoutingHeaderWithSegmentsLeftKeepsL4Checksum) {
  // IPv6 + routing header (type 4, segments left 1) + TCP: the checksum
  // covers the final destination, so a dst rewrite does not touch it.
  Bytes f = Ipv6Frame(6);
  const Bytes rh = FromHex("0600040100000000");  // next TCP, len 0... segments_left 1
  f[20] = 43;
  f.insert(f.begin() + 54, rh.begin(), rh.end());
  Put16(f, 18, static_cast<uint16_t>(Be16(f, 18) + 8));
  OvsSkb s = Receive(f, IpSummed::kNone, 14, 62, 6);
  const uint16_t before = Be16(Bytes_(s), 62 + 16);
  OvsKeyIpv6 key, mask;
  key.dst.fill(0x22);
  mask.dst.fill(0xff);
  ASSERT_EQ(OvsSetIpv6(s, key, mask), 0);
  EXPECT_EQ(Be16(Bytes_(s), 62 + 16), before);
  EXPECT_EQ(Bytes_(s)[14 + 24], 0x22);
}

TEST(KernelOvsSetEth, CompleteSumFollowsAddresses) {
  OvsSkb s = Receive(Ipv4Frame(6), IpSummed::kComplete, 14, 34, 6);
  OvsKeyEthernet key, mask;
  key.src = {0x02, 0, 0, 0, 0, 1};
  key.dst = {0x02, 0, 0, 0, 0, 2};
  mask.src.fill(0xff);
  mask.dst.fill(0xff);
  ASSERT_EQ(OvsSetEthAddr(s, key, mask), 0);
  EXPECT_EQ(ToHex(Bytes_(s).data(), 12), "020000000002020000000001");
  ExpectCorrect(s, 6, "set_eth");
}

TEST(KernelOvsVlan, PushTwicePopTwice) {
  for (IpSummed st : kStates) {
    const Bytes orig = Ipv4Frame(6);
    OvsSkb s = Receive(orig, st, 14, 34, 6);
    ASSERT_EQ(OvsPushVlan(s, 0x8100, 0x1000 | 100), 0);  // CFI marks "present"
    EXPECT_TRUE(s.vlan.present);
    EXPECT_EQ(s.vlan.tci, 100);
    EXPECT_EQ(s.skb.len(), orig.size());  // accelerated: frame unchanged
    ASSERT_EQ(OvsPushVlan(s, 0x88a8, 200), 0);
    const Bytes g = Bytes_(s);
    EXPECT_EQ(ToHex(g.data() + 12, 6), "810000640800");  // old tag pushed in-band
    EXPECT_EQ(s.vlan.tpid, 0x88a8);
    EXPECT_EQ(s.skb.pkt.l3_ofs, 18);
    ExpectCorrect(s, 6, "after push");
    ASSERT_EQ(OvsPopVlan(s), 0);  // clears 200, moves 100 out of band
    EXPECT_TRUE(s.vlan.present);
    EXPECT_EQ(s.vlan.tci, 100);
    EXPECT_EQ(Bytes_(s).size(), orig.size());
    ExpectCorrect(s, 6, "after pop");
    ASSERT_EQ(OvsPopVlan(s), 0);
    EXPECT_FALSE(s.vlan.present);
    EXPECT_EQ(Bytes_(s).size(), orig.size());
  }
}

TEST(KernelOvsVlan, ReceiveMovesInBandTagOutOfBand) {
  Bytes f = Ipv4Frame(6);
  const Bytes tag = FromHex("8100a005");
  f.insert(f.begin() + 12, tag.begin(), tag.end());
  // The driver's COMPLETE sum starts behind the 14-byte MAC header, i.e.
  // at the TCI.
  OvsSkb s = Receive(f, IpSummed::kComplete, 14, 38, 6);
  EXPECT_TRUE(s.vlan.present);
  EXPECT_EQ(s.vlan.tci, 0xa005);
  EXPECT_EQ(Bytes_(s), Ipv4Frame(6));
  EXPECT_EQ(s.skb.csum_from, 0);
  ExpectCorrect(s, 6, "untagged on receive");
}

TEST(KernelOvsDecTtl, Ipv4HeaderAndIpv6StaleSum) {
  OvsSkb s = Receive(Ipv4Frame(6), IpSummed::kComplete, 14, 34, 6);
  ASSERT_EQ(OvsDecTtl(s), 0);
  EXPECT_EQ(Bytes_(s)[22], 63);
  ExpectCorrect(s, 6, "dec_ttl v4");
  // execute_dec_ttl does not update skb->csum for IPv6 (actions.c:1237).
  OvsSkb t = Receive(Ipv6Frame(6), IpSummed::kComplete, 14, 54, 6);
  const int before = Mod(t.skb.csum);
  ASSERT_EQ(OvsDecTtl(t), 0);
  EXPECT_EQ(Bytes_(t)[21], 63);
  EXPECT_EQ(Mod(t.skb.csum), before);
  EXPECT_NE(before, Mod(OracleSum(Bytes_(t).data(), Bytes_(t).size())));
  Bytes one = Ipv4Frame(6);
  one[22] = 1;
  OvsSkb u = Receive(one, IpSummed::kNone, 14, 34, 6);
  EXPECT_EQ(OvsDecTtl(u), ovs_err::kHostUnreach);
}

TEST(KernelOvsSetSctp, CrcErrorCarriedThrough) {
  Bytes f = FromHex(H(kEth + "0800" + "4500002c00004000408400000a0000010a000002" +
                      "0bb80bb9000000010000000000010004deadbeef"));
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  Bytes seg(f.begin() + 34, f.end());
  seg[8] = seg[9] = seg[10] = seg[11] = 0;
  const uint32_t crc = testing::OracleCrc32c(seg.data(), seg.size());
  for (int i = 0; i < 4; i++) f[42 + i] = static_cast<uint8_t>(crc >> (8 * i));
  for (uint8_t err : {0, 0x5a}) {
    Bytes g = f;
    g[42] ^= err;
    OvsSkb s = Receive(g, IpSummed::kNone, 14, 34, 132);
    ASSERT_EQ(OvsSetSctp(s, {7, 9}, {0xffff, 0xffff}), 0);
    Bytes h = Bytes_(s);
    EXPECT_EQ(testing::OracleSctpOk(h, 34, h.size() - 34), err == 0);
    h[42] ^= err;
    EXPECT_TRUE(testing::OracleSctpOk(h, 34, h.size() - 34));
  }
}

TEST(KernelOvsOutput, MtuVlanTruncAndVxlanRequest) {
  Bytes big(1514, 0);
  Put16(big, 12, 0x0800);
  OvsVport dev;
  OvsSkb s;
  s.skb.pkt = Packet(big);
  EXPECT_TRUE(OvsDoOutput(s, dev).handed_to_dev);
  s.skb.pkt.Resize(1515);
  OvsOutput o = OvsDoOutput(s, dev);
  EXPECT_FALSE(o.handed_to_dev);
  EXPECT_TRUE(o.tx_error);
  Put16(big, 12, 0x8100);  // one in-band tag is not counted
  big.resize(1518);
  s.skb.pkt = Packet(big);
  EXPECT_TRUE(OvsDoOutput(s, dev).handed_to_dev);
  s.cutlen = 1000;
  EXPECT_EQ(OvsDoOutput(s, dev).skb.skb.len(), 518u);
  s.cutlen = 0;
  OvsOutput v = OvsDoOutput(s, OvsVport::Vxlan());
  EXPECT_FALSE(v.vxlan.has_value());
  OvsTunnelKey k;
  k.tun_id = 0x1234567;
  k.csum = true;
  OvsSetTunnel(s, k);
  v = OvsDoOutput(s, OvsVport::Vxlan());
  ASSERT_TRUE(v.vxlan.has_value());
  EXPECT_EQ(v.vxlan->dst_port, 4789);
  EXPECT_EQ(v.vxlan->vni, 0x234567u);
  EXPECT_TRUE(v.vxlan->udp_csum);
  k.tp_dst = 8472;
  k.csum = false;
  OvsSetTunnel(s, k);
  v = OvsDoOutput(s, OvsVport::Vxlan());
  EXPECT_EQ(v.vxlan->dst_port, 8472);
  EXPECT_FALSE(v.vxlan->udp_csum);
}

TEST(KernelOvsDecTtl, ANonIpFrameIsLeftAlone) {
  // execute_dec_ttl acts on skb->protocol IPv4 or IPv6 only; anything else
  // (an ARP frame here) is left as it is and the actions go on (0).
  Bytes arp = FromHex(
      "ffffffffffff8abf7e2f0584080600010800060400018abf7e2f05840a0000020000000000000a000001");
  SkBuff skb;
  skb.pkt = Packet(arp);
  OvsSkb s = OvsVportReceive(std::move(skb));
  EXPECT_EQ(OvsDecTtl(s), 0);
  EXPECT_EQ(Bytes_(s), arp);
  // Nor a frame too short for an Ethernet header.
  SkBuff tiny;
  tiny.pkt = Packet(FromHex("ffffffffffff8abf7e2f"));
  OvsSkb t = OvsVportReceive(std::move(tiny));
  EXPECT_EQ(OvsDecTtl(t), 0);
}

TEST(KernelOvsSetTcp, AHeaderCutShortCannotBeMadeWritable) {
  // set_tcp: skb_ensure_writable(skb, skb_transport_offset(skb) +
  // sizeof(struct tcphdr)) fails for 10 bytes of TCP (-ENOMEM, actions.c),
  // and nothing is written.
  Bytes f = Ipv4Frame(6);
  f.resize(14 + 20 + 10);
  Put16(f, 16, 30);
  OvsSkb s = Receive(f, IpSummed::kNone, 14, 34, 6);
  ASSERT_EQ(s.skb.pkt.l4_ofs, 34);
  const OvsKeyPorts key{.src = 1234, .dst = 0}, mask{.src = 0xffff, .dst = 0};
  EXPECT_EQ(OvsSetTcp(s, key, mask), ovs_err::kNoMem);
  EXPECT_EQ(Bytes_(s), f);
}

}  // namespace
}  // namespace offlab::kernel
