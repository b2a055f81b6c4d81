// Reference §1.1 "netdev-linux TX netdev_linux_prepend_vnet_hdr": DATA_VALID
// for finished L4 checksums, a pseudo-header seed + NEEDS_CSUM for partial
// TCP/UDP, no flags otherwise; what the kernel then does with NEEDS_CSUM; and
// the seeded 5603b869a fault (IPv6 UDP seed read from the wrong base).
#include "offlab/ovs/vnet.h"

#include <gtest/gtest.h>

#include <string>

#include "offlab/ovs/faults.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::kFrameR2;
using testing::Parsed;
using testing::R3Outer;
using testing::Sub;

constexpr CsumStatus kUnknown = CsumStatus::kUnknown;
constexpr CsumStatus kBad = CsumStatus::kBad;
constexpr CsumStatus kGood = CsumStatus::kGood;
constexpr CsumStatus kPartial = CsumStatus::kPartial;

Packet With(const std::string& hex, CsumStatus l4) {
  Packet p = Parsed(hex);
  p.offloads.set_l4(l4);
  return p;
}

// G's TCP pseudo-header sum by hand: c0a8 + 7b02 + c0a8 + 7b01 + 0006 + 0054
// = 277ad, folded 77af. The ports are not in it, so R2 has the same seed.
const std::string kSeedG = "77af";

// scapy: eth/IPv6(src="2001:cafe::88",dst="2001:cafe::92",hlim=64)/
//   UDP(sport=5000,dport=6000)/Raw(bytes(range(32))) -> 0c8c; its pseudo-header
//   sum (Python: addresses + 17 + 40, folded) is d752.
const std::string kUdp6 =
    H("0a8f394fe0738abf7e2f058486dd 6000000000281140"
      "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
      "1388177000280c8c 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

TEST(VnetTx, GoodL4IsDataValid) {
  Packet p = With(kFrameG, kGood);
  VnetHdr h = VnetTransmit(p);
  EXPECT_EQ(h.flags, VnetHdr::kDataValid);
  EXPECT_EQ(h.csum_start, 0);
  EXPECT_EQ(h.csum_offset, 0);
  EXPECT_EQ(h.gso_type, VnetHdr::kGsoNone);
  EXPECT_EQ(Hex(p), kFrameG);
}

TEST(VnetTx, PartialTcpAndUdpGetTheSeed) {
  Packet p = With(Sub(kFrameG, "6b72", "0000"), kPartial);
  VnetHdr h = VnetTransmit(p);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(h.csum_start, 34);
  EXPECT_EQ(h.csum_offset, 16);
  EXPECT_EQ(Hex(p), Sub(kFrameG, "6b72", kSeedG));

  Packet q = With(Sub(kUdp6, "0c8c", "0000"), kPartial);
  h = VnetTransmit(q);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(h.csum_start, 54);
  EXPECT_EQ(h.csum_offset, 6);
  EXPECT_EQ(Hex(q), Sub(kUdp6, "0c8c", "d752"));
}

TEST(VnetTx, EverythingElseHasNoFlags) {
  // ip4/SCTP(sport=5000,dport=6000,tag=0x01020304)/Raw(bytes(range(16))):
  // the kernel takes csum_start/offset for SCTP only with SCTP GSO, so even a
  // partial SCTP checksum leaves with no flags (and no CRC).
  const std::string sctp =
      H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
        "1388177001020304 00000000 000102030405060708090a0b0c0d0e0f");
  struct Case {
    const char* name;
    std::string frame;
    CsumStatus l4;
  };
  const Case cases[] = {
      {"unknown", kFrameG, kUnknown},
      {"bad", Sub(kFrameG, "6b72", "dead"), kBad},
      {"sctp partial", sctp, kPartial},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Packet p = With(c.frame, c.l4);
    VnetHdr h = VnetTransmit(p);
    EXPECT_EQ(h.flags, 0);
    EXPECT_EQ(h.csum_start, 0);
    EXPECT_EQ(h.csum_offset, 0);
    EXPECT_EQ(Hex(p), c.frame);
  }
}

// R2 in the R3 tunnel without outer UDP checksum (outer L4 good).
Packet Tunnelled(CsumStatus inner_l4, const std::string& inner) {
  Packet p = With(inner, inner_l4);
  p.offloads.set_ip(kGood);
  PacketBatch b{p};
  PushHeader(b, testing::R3Tunnel(false));
  return b[0];
}

TEST(VnetTx, TunnelledNeedsBothLevelsGoodForDataValid) {
  Packet good = Tunnelled(kGood, kFrameR2);
  EXPECT_EQ(VnetTransmit(good).flags, VnetHdr::kDataValid);

  // Outer UDP good, inner TCP partial: the seed goes into the inner field.
  const std::string stale = Sub(kFrameR2, "7715", "0000");
  Packet partial = Tunnelled(kPartial, stale);
  VnetHdr h = VnetTransmit(partial);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(h.csum_start, 84);
  EXPECT_EQ(h.csum_offset, 16);
  EXPECT_EQ(Hex(partial),
            R3Outer("0000", "0000") + Sub(stale, "501000000000", "50100000" + kSeedG));

  Packet unknown = Tunnelled(kUnknown, kFrameR2);
  EXPECT_EQ(VnetTransmit(unknown).flags, 0);
}

TEST(VnetTx, TsoGivesTheGsoType) {
  Packet p = Parsed(testing::R7Frame());
  p.offloads.set_l4(kPartial);
  p.tso_segsz = 500;
  VnetHdr h = VnetTransmit(p);
  EXPECT_EQ(h.gso_type, VnetHdr::kGsoTcpv4);
  EXPECT_EQ(h.gso_size, 500);

  // The R7 IPv6 frame: 2001:cafe::88 > ::92, 2000 bytes of zero payload.
  Packet q = Parsed(H("0a8f394fe0738abf7e2f058486dd 6000000007e40640"
                      "2001cafe000000000000000000000088 2001cafe000000000000000000000092"
                      "d478145100000000000000005010000000000000") +
                    std::string(4000, '0'));
  q.offloads.set_l4(kPartial);
  q.tso_segsz = 500;
  h = VnetTransmit(q);
  EXPECT_EQ(h.gso_type, VnetHdr::kGsoTcpv6);
  EXPECT_EQ(h.gso_size, 500);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
}

// --- the kernel's side ---------------------------------------------------------------

TEST(VnetComplete, NeedsCsumYieldsTheCorrectChecksum) {
  struct Case {
    const char* name;
    Packet p;
    std::string done;
  };
  // scapy: ip4/UDP(sport=5000,dport=33728)/Raw(bytes(range(32))) sums to 0 -> ffff.
  const std::string udp_zero =
      H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
        "138883c00028ffff 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  Case cases[] = {
      {"tcp4 (G)", With(Sub(kFrameG, "6b72", "1111"), kPartial), kFrameG},
      {"udp6", With(Sub(kUdp6, "0c8c", "1111"), kPartial), kUdp6},
      {"udp sum 0", With(Sub(udp_zero, "0028ffff", "00281111"), kPartial), udp_zero},
      {"inner tcp (R3 csum=false)", Tunnelled(kPartial, Sub(kFrameR2, "7715", "1111")),
       R3Outer("0000", "0000") + kFrameR2},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    VnetHdr h = VnetTransmit(c.p);
    ASSERT_EQ(h.flags, VnetHdr::kNeedsCsum);
    VnetCompleteCsum(c.p, h);
    EXPECT_EQ(Hex(c.p), c.done);
  }
}

TEST(VnetComplete, SeededFaultMakesIpv6UdpWrong) {
  {
    ScopedFault f(Fault::kVnetIpv6UdpWrongPseudoBase);
    Packet p = With(Sub(kUdp6, "0c8c", "0000"), kPartial);
    VnetHdr h = VnetTransmit(p);
    VnetCompleteCsum(p, h);
    EXPECT_NE(Hex(p), kUdp6);
    EXPECT_FALSE(testing::OracleL4Ok(p.bytes(), 14, 54, 17));

    // TCP was never affected.
    Packet t = With(Sub(kFrameG, "6b72", "0000"), kPartial);
    VnetCompleteCsum(t, VnetTransmit(t));
    EXPECT_EQ(Hex(t), kFrameG);
  }
  Packet p = With(Sub(kUdp6, "0c8c", "0000"), kPartial);
  VnetCompleteCsum(p, VnetTransmit(p));
  EXPECT_EQ(Hex(p), kUdp6);
}

TEST(VnetComplete, AChecksumFieldPastTheFrameIsLeftAlone) {
  // NEEDS_CSUM whose csum_start + csum_offset + 2 runs past the packet: there
  // is no field to write (the datapath leaves the packet as it is).
  Packet p(FromHex(kFrameG));
  const Bytes before = p.bytes();
  VnetHdr h;
  h.flags = VnetHdr::kNeedsCsum;
  h.csum_start = static_cast<uint16_t>(before.size() - 10);
  h.csum_offset = 9;  // the field's second byte would be one past the end
  VnetCompleteCsum(p, h);
  EXPECT_EQ(p.bytes(), before);
  h.csum_offset = 8;  // the last two bytes: written
  VnetCompleteCsum(p, h);
  EXPECT_NE(p.bytes(), before);
}

TEST(VnetReceive, AChecksumFieldReachingPastTheFrameIsInvalid) {
  // NEEDS_CSUM at a start OVS does not parse to, whose field's second byte
  // is one past the frame: netdev-linux calls the checksum invalid
  // (netdev_linux_parse_vnet_hdr, "invalid l4 csum") and the packet is
  // dropped; with the field's last two bytes inside it, it is completed.
  Packet p(FromHex(kFrameG));
  Parse(p);
  const size_t n = p.size();
  VnetHdr h;
  h.flags = VnetHdr::kNeedsCsum;
  h.csum_start = static_cast<uint16_t>(n - 10);
  h.csum_offset = 9;
  Counters c;
  EXPECT_FALSE(VnetReceive(p, h, &c));
  EXPECT_EQ(c.Get("netdev_linux_invalid_l4_csum"), 1u);
  h.csum_offset = 8;
  Packet q(FromHex(kFrameG));
  Parse(q);
  EXPECT_TRUE(VnetReceive(q, h, &c));
  EXPECT_EQ(c.Get("netdev_linux_unknown_l4_csum"), 1u);
}

}  // namespace
}  // namespace offlab
