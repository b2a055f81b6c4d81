// Reference §1.1 "netdev-dpdk TX" row (partial = a request the NIC performs),
// the §6 "_disabled" exception, hardware TSO, the X710 and Intel outer UDP
// quirks (the E810 one also in e810_outer_udp_test.cc); receive coalescing is
// coalesce_test.cc.
//
// Frames: OVS's vectors R1-R3/R7 where they apply, else scapy 2.8 with the
// expression given; eth, oeth and vx() as in egress_test.cc.
#include "offlab/nic/nic.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "offlab/nic/caps.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/gso.h"
#include "offlab/ovs/send_prepare.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::kFrameR2;
using testing::Parsed;
using testing::Push;
using testing::R3Outer;
using testing::R3Tunnel;
using testing::Sub;
using testing::With;

constexpr CsumStatus kGood = CsumStatus::kGood;
constexpr CsumStatus kPartial = CsumStatus::kPartial;

NicTx Nic(uint32_t caps, uint32_t disabled = 0) {
  NicTx n;
  n.caps = caps;
  n.disabled = disabled;
  return n;
}

const std::string kR1Stale = Sub(kFrameG, "c0a87b01d478", "c0a80101d478");
const std::string kR1 = Sub(Sub(kR1Stale, "433c", "bd3c"), "6b72", "e572");
const std::string kR2Stale = Sub(kFrameG, "d4781451", "d47808ae");
const std::string kUdp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
      "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
const std::string kSctp4 =
    H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
      "1388177001020304a7c0ffe4 000102030405060708090a0b0c0d0e0f");

// --- checksum requests ------------------------------------------------------------------

TEST(NicTransmit, RequestedAndAdvertisedIsComputed) {
  struct Case {
    const char* name;
    std::string in, out;
    uint32_t caps;
  };
  const Case cases[] = {
      {"ipv4+tcp (R1)", kR1Stale, kR1, cap::kIpv4Cksum | cap::kTcpCksum},
      {"udp", Sub(kUdp4, "6c50", "1234"), kUdp4, cap::kIpv4Cksum | cap::kUdpCksum},
      {"sctp", Sub(kSctp4, "a7c0ffe4", "00000000"), kSctp4, cap::kIpv4Cksum | cap::kSctpCksum},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> violations;
    PacketBatch out = NicTransmit(With(c.in, kPartial, kPartial), Nic(c.caps), &violations);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Hex(out[0]), c.out);
    EXPECT_TRUE(violations.empty());
    EXPECT_EQ(out[0].offloads.ip(), kGood);
    EXPECT_EQ(out[0].offloads.l4(), kGood);
  }
}

TEST(NicTransmit, AdvertisedButDisabledLeavesTheBytes) {
  const uint32_t caps = cap::kIpv4Cksum | cap::kTcpCksum;
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(With(kR1Stale, kPartial, kPartial), Nic(caps, caps), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), kR1Stale);
  EXPECT_TRUE(violations.empty());
}

TEST(NicTransmit, NotAdvertisedIsAViolationAndBytesStay) {
  std::vector<std::string> violations;
  PacketBatch out =
      NicTransmit(With(kR1Stale, kPartial, kPartial), Nic(cap::kUdpCksum), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), kR1Stale);
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_NE(violations[0].find("ipv4_cksum"), std::string::npos);
  EXPECT_NE(violations[1].find("tcp"), std::string::npos);
}

TEST(NicTransmit, TunnelledRequestsInnerThenOuter) {
  // R1 (IP and TCP partial) in the R3 tunnel with csum=true, nothing done by
  // the datapath: the NIC finishes the inner checksums, then the outer ones.
  // scapy: vx(<R1>) -> outer IP 339e, UDP 454d.
  const uint32_t caps = cap::kIpv4Cksum | cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum;
  Packet p = Push(With(kR1Stale, kPartial, kPartial), R3Tunnel(true));
  SendPrepare(p, caps);
  ASSERT_EQ(Hex(p), R3Outer("0000", "ffff") + kR1Stale);
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(p, Nic(caps), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "454d") + kR1);
  EXPECT_TRUE(violations.empty());

  // The outer UDP offload failing: the 0xffff placeholder leaves (R3: both
  // disabled, outer ffff).
  out = NicTransmit(p, Nic(caps, cap::kOuterUdpCksum), &violations);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "ffff") + kR1);
}

// --- segmentation -----------------------------------------------------------------------

TEST(NicTransmit, HardwareTsoGivesR7Segments) {
  Packet p = Parsed(testing::R7Frame());
  p.tso_segsz = 500;
  std::vector<std::string> violations;
  PacketBatch out =
      NicTransmit(p, Nic(cap::kTcpTso | cap::kTcpCksum | cap::kIpv4Cksum), &violations);
  ASSERT_EQ(out.size(), 4u);
  for (int k = 0; k < 4; k++) EXPECT_EQ(Hex(out[k]), testing::R7Segment(k)) << k;
  EXPECT_TRUE(violations.empty());

  // Without TCP_TSO the request is refused and the frame leaves whole.
  out = NicTransmit(p, Nic(cap::kTcpCksum | cap::kIpv4Cksum), &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 2054u);
  EXPECT_EQ(violations.size(), 1u);
}

TEST(NicTransmit, TsoIpv4OnlySendsAnIpv6TsoPacketWhole) {
  // DPDK's TAP PMD: rte_gso segments IPv4 TCP only; an IPv6 TSO packet
  // leaves as one frame with its TCP checksum computed over all of it.
  NicTx nic = Nic(cap::kTcpTso | cap::kTcpCksum | cap::kIpv4Cksum);
  nic.tso_ipv4_only = true;
  Packet p4 = Parsed(testing::R7Frame());
  p4.tso_segsz = 500;
  EXPECT_EQ(NicTransmit(p4, nic).size(), 4u);
  // IPv6 (payload length 0x07e4 = 20 + 2000), TCP with a zero checksum field.
  const std::string v6 = H("0a8f394fe0738abf7e2f058486dd 6000000007e40640"
                           "20010db8000000000000000000000002 20010db8000000000000000000000001"
                           "d4781451000000000000000050100000 00000000") +
                         std::string(4000, '0');
  Packet p6 = With(v6, CsumStatus::kUnknown, kPartial);
  p6.tso_segsz = 500;
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(p6, nic, &violations);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(violations.empty());
  const Bytes f = out[0].bytes();
  EXPECT_EQ(f.size(), 14u + 40 + 20 + 2000);
  EXPECT_TRUE(testing::OracleL4Ok(f, 14, 54, 6));
  nic.tso_ipv4_only = false;  // any other NIC segments it
  EXPECT_EQ(NicTransmit(p6, nic).size(), 4u);
}

TEST(NicTransmit, HardwareTunnelTsoGivesCorrectSegments) {
  Packet inner = Parsed(testing::R7Frame());
  inner.tso_segsz = 500;
  Packet p = Push(inner, R3Tunnel(false));
  const uint32_t caps =
      cap::kTcpTso | cap::kVxlanTnlTso | cap::kTcpCksum | cap::kIpv4Cksum | cap::kOuterIpCksum;
  PacketBatch ready = NetdevSend({p}, caps);
  ASSERT_EQ(ready.size(), 1u);
  std::vector<std::string> violations;
  PacketBatch out = NicTransmit(ready[0], Nic(caps), &violations);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(violations.empty());
  // scapy: oeth/IP(src="1.1.2.88",dst="1.1.2.92",ttl=64,id=k,flags="DF",tos=1)/
  //   UDP(sport=57363,dport=4789,chksum=0)/VXLAN(vni=123,flags=0x08)/Raw(R7 seg k)
  const char* ip[] = {"000040004011 31e9", "000140004011 31e8", "000240004011 31e7",
                      "000340004011 31e6"};
  for (int k = 0; k < 4; k++) {
    EXPECT_EQ(Hex(out[k]), H(std::string("aa66aa660001aa66aa6600000800 4501024e") + ip[k] +
                             "010102580101025c e01312b5023a0000 0800000000007b00") +
                               testing::R7Segment(k))
        << k;
  }

  // TCP_TSO alone does not cover a VXLAN TSO packet.
  out = NicTransmit(ready[0], Nic(caps & ~cap::kVxlanTnlTso), &violations);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(violations.size(), 1u);
}

// --- outer UDP quirks ---------------------------------------------------------------------

// R2 partial in the R3 tunnel with csum=true, prepared for a NIC that
// advertises OUTER_UDP_CKSUM: the placeholder 0xffff is left for it.
Packet ReadyForOuterUdpOffload(uint32_t caps) {
  Packet inner = Parsed(kR2Stale);
  inner.offloads.set_ip(kGood);
  inner.offloads.set_l4(kPartial);
  Packet p = Push(inner, R3Tunnel(true));
  SendPrepare(p, caps);
  EXPECT_EQ(Hex(p), R3Outer("0000", "ffff") + kR2Stale);
  return p;
}

TEST(NicTransmit, X710LeavesTheOuterUdpAsIs) {
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_left_as_is = true;
  PacketBatch out = NicTransmit(ReadyForOuterUdpOffload(nic.caps), nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "ffff") + kFrameR2);
  EXPECT_FALSE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

TEST(NicTransmit, IntelPseudoSeedFromTheDriverGivesTheCorrectOuterChecksum) {
  // The hardware sums the UDP segment onto what the field holds, expecting the
  // pseudo-header sum there; the driver's tx_prepare writes it (DPDK
  // f876dbef0809). By hand (Python): the correct outer UDP checksum is bf4d.
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_needs_pseudo_seed = true;
  PacketBatch out = NicTransmit(ReadyForOuterUdpOffload(nic.caps), nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "bf4d") + kFrameR2);
  EXPECT_TRUE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

TEST(NicTransmit, IntelPseudoSeedMissingGivesAWrongOuterChecksum) {
  // DPDK before f876dbef0809 (fault intel-outer-udp-unseeded): the field keeps
  // the placeholder 0xffff, which adds nothing. By hand (Python):
  // ~fold(sum of e01312b50086ffff 0800000000007b00 + R2) = c69a; correct is bf4d.
  NicTx nic = Nic(cap::kTcpCksum | cap::kOuterIpCksum | cap::kOuterUdpCksum);
  nic.outer_udp_needs_pseudo_seed = true;
  Packet p = ReadyForOuterUdpOffload(nic.caps);
  ScopedFault fault(Fault::kIntelOuterUdpUnseeded);
  PacketBatch out = NicTransmit(p, nic);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Hex(out[0]), R3Outer("339e", "c69a") + kFrameR2);
  EXPECT_FALSE(testing::OracleL4Ok(out[0].bytes(), 14, 34, 17));
}

}  // namespace
}  // namespace offlab
