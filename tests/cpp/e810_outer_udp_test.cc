// The E810 outer UDP checksum offload (DPDK Bugzilla 1406). The hardware adds
// the UDP segment to whatever the checksum field holds; since DPDK
// f876dbef0809 the driver's tx_prepare (rte_net_intel_cksum_flags_prepare,
// which OVS reaches through rte_eth_tx_prepare) seeds the field with the outer
// pseudo-header sum first, so the checksum on the wire is correct. The fault
// intel-outer-udp-unseeded is the DPDK before that commit: the field keeps
// OVS's 0xffff placeholder and the checksum is wrong.
//
// Expected values come from the plain oracle in test_util.h, recomputed over
// the wire bytes, or were computed by hand where stated.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/egress.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/tunnel.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::Be16;
using testing::kFrameG;
using testing::OracleL4Csum;
using testing::OracleL4Ok;
using testing::OracleSum;
using testing::Parsed;

constexpr uint8_t kUdp = 17, kTcp = 6;
constexpr size_t kL3 = 14;

size_t OuterL4(bool ipv6) { return ipv6 ? kL3 + 40 : kL3 + 20; }
// Outer Ethernet + IP + UDP + VXLAN, then the inner Ethernet header.
size_t InnerL3(bool ipv6) { return OuterL4(ipv6) + 8 + 8 + 14; }

TunnelConfig Vxlan(bool ipv6) {
  TunnelConfig t;
  bool v6 = false;
  t.type = TunnelType::kVxlan;
  t.ipv6 = ipv6;
  t.eth_src = {0xaa, 0x66, 0xaa, 0x66, 0x00, 0x00};
  t.eth_dst = {0xaa, 0x66, 0xaa, 0x66, 0x00, 0x01};
  t.ip_src = ParseIp(ipv6 ? "2001:db8::58" : "1.1.2.88", &v6);
  t.ip_dst = ParseIp(ipv6 ? "2001:db8::5c" : "1.1.2.92", &v6);
  t.key = 123;
  t.udp_src = 57363;
  t.csum = true;
  return t;
}

NicTx E810() { return NicTx::FromProfile(BuiltinProfile("e810")); }

// What OVS hands the E810 for one packet: encapsulated with the outer UDP
// checksum on, through netdev_send with the profile's capabilities.
PacketBatch ToTheNic(Packet inner, bool ipv6) {
  PacketBatch b{std::move(inner)};
  PushHeader(b, Vxlan(ipv6));
  EXPECT_EQ(b.size(), 1u);
  std::vector<std::string> errors;
  PacketBatch out = NetdevSend(b, E810().caps, nullptr, &errors);
  EXPECT_TRUE(errors.empty());
  for (const Packet& p : out) {
    // The precondition of the quirk: the outer UDP checksum is left to the NIC.
    EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
    EXPECT_EQ(p.offloads.tunnel(), TunnelType::kVxlan);
  }
  return out;
}

PacketBatch Transmit(const PacketBatch& batch) {
  PacketBatch wire;
  for (const Packet& p : batch) {
    std::vector<std::string> violations;
    for (Packet& f : NicTransmit(p, E810(), &violations)) wire.push_back(std::move(f));
    EXPECT_TRUE(violations.empty()) << violations.front();
  }
  return wire;
}

// The value hardware produces from a field that still holds the 0xffff
// placeholder: the complement of the segment's sum, without any pseudo-header.
uint16_t UnseededValue(const Bytes& f, size_t l4) {
  Bytes copy = f;
  copy[l4 + 6] = copy[l4 + 7] = 0xff;
  size_t len = Be16(copy, l4 + 4);
  uint16_t c = static_cast<uint16_t>(~OracleSum(copy.data() + l4, len));
  return c ? c : 0xffff;
}

// Guest traffic: the G frame with its TCP checksum partial.
Packet GuestTcp() {
  Packet p = Parsed(kFrameG);
  p.offloads.set_ip(CsumStatus::kGood);
  p.offloads.set_l4(CsumStatus::kPartial);
  return p;
}

// A TSO packet: 10.0.0.1 > 10.0.0.2 TCP 54392 > 5201, `payload` bytes i*7.
Packet GuestTso(size_t payload, uint16_t segsz) {
  Bytes f = FromHex(
      "0a8f394fe0738abf7e2f05840800"
      "4500000000004000400600000a0000010a000002"
      "d478145100000001000000015018020000000000");
  f.resize(f.size() + payload, 0);
  for (size_t i = 0; i < payload; i++) f[54 + i] = static_cast<uint8_t>(i * 7);
  PutBe16(&f[16], static_cast<uint16_t>(f.size() - 14));
  Packet p(f);
  Parse(p);
  p.offloads.set_ip(CsumStatus::kPartial);
  p.offloads.set_l4(CsumStatus::kPartial);
  p.tso_segsz = segsz;
  return p;
}

class E810OuterUdp : public ::testing::TestWithParam<bool> {};

TEST_P(E810OuterUdp, DriverSeedGivesTheCorrectChecksum) {
  const bool ipv6 = GetParam();
  ASSERT_TRUE(E810().outer_udp_needs_pseudo_seed);
  PacketBatch wire = Transmit(ToTheNic(GuestTcp(), ipv6));
  ASSERT_EQ(wire.size(), 1u);
  const Bytes f = wire[0].bytes();
  const size_t l4 = OuterL4(ipv6);
  ASSERT_EQ(Be16(f, l4 + 2), 4789);
  EXPECT_TRUE(OracleL4Ok(f, kL3, l4, kUdp));
  EXPECT_EQ(Be16(f, l4 + 6), OracleL4Csum(f, kL3, l4, kUdp, 6));
  EXPECT_TRUE(OracleL4Ok(f, InnerL3(ipv6), InnerL3(ipv6) + 20, kTcp));
  EXPECT_EQ(wire[0].offloads.l4(), CsumStatus::kGood);
}

TEST_P(E810OuterUdp, UnseededFieldGivesAWrongChecksum) {
  const bool ipv6 = GetParam();
  PacketBatch to_nic = ToTheNic(GuestTcp(), ipv6);
  ScopedFault fault(Fault::kIntelOuterUdpUnseeded);
  PacketBatch wire = Transmit(to_nic);
  ASSERT_EQ(wire.size(), 1u);
  const Bytes f = wire[0].bytes();
  const size_t l4 = OuterL4(ipv6);
  EXPECT_FALSE(OracleL4Ok(f, kL3, l4, kUdp));
  EXPECT_NE(Be16(f, l4 + 6), OracleL4Csum(f, kL3, l4, kUdp, 6));
  EXPECT_EQ(Be16(f, l4 + 6), UnseededValue(f, l4));
  // Only the outer UDP checksum is affected.
  EXPECT_TRUE(OracleL4Ok(f, InnerL3(ipv6), InnerL3(ipv6) + 20, kTcp));
}

TEST_P(E810OuterUdp, HardwareTsoSegmentsAllCarryTheCorrectChecksum) {
  const bool ipv6 = GetParam();
  // 1000 = 400 + 400 + 200 bytes: segments of two lengths.
  PacketBatch to_nic = ToTheNic(GuestTso(1000, 400), ipv6);
  ASSERT_EQ(to_nic.size(), 1u);
  ASSERT_EQ(to_nic[0].tso_segsz, 400);
  const size_t l4 = OuterL4(ipv6);
  for (bool fault : {false, true}) {
    SCOPED_TRACE(fault ? "unseeded" : "seeded");
    Faults::Clear();
    if (fault) Faults::Enable(Fault::kIntelOuterUdpUnseeded);
    PacketBatch wire = Transmit(to_nic);
    Faults::Clear();
    ASSERT_EQ(wire.size(), 3u);
    std::set<size_t> sizes;
    for (const Packet& seg : wire) {
      const Bytes f = seg.bytes();
      sizes.insert(f.size());
      EXPECT_EQ(Be16(f, l4 + 4), f.size() - l4);  // the segment's own UDP length
      EXPECT_EQ(OracleL4Ok(f, kL3, l4, kUdp), !fault);
      EXPECT_TRUE(OracleL4Ok(f, InnerL3(ipv6), InnerL3(ipv6) + 20, kTcp));
    }
    EXPECT_EQ(sizes.size(), 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Underlay, E810OuterUdp, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Ipv6" : "Ipv4";
                         });

TEST(E810OuterUdpFault, AffectsOnlyNicsThatNeedTheSeed) {
  // A NIC with the E810's capabilities that computes the whole outer UDP
  // checksum itself (no built-in profile offloads it without the seed).
  ScopedFault fault(Fault::kIntelOuterUdpUnseeded);
  PacketBatch to_nic = ToTheNic(GuestTcp(), false);
  NicTx whole = E810();
  whole.outer_udp_needs_pseudo_seed = false;
  PacketBatch wire = NicTransmit(to_nic[0], whole);
  ASSERT_EQ(wire.size(), 1u);
  EXPECT_TRUE(OracleL4Ok(wire[0].bytes(), kL3, OuterL4(false), kUdp));
}

TEST(E810OuterUdpFault, IsRegisteredWithTheDpdkFix) {
  // Nine historical faults and two seeded: one for the conformance fuzzer,
  // one for the verifier's directed witnesses.
  EXPECT_EQ(kNumFaults, 11);
  EXPECT_EQ(AllFaults().size(), 11u);
  std::set<std::string> names;
  for (Fault f : AllFaults()) {
    names.insert(FaultName(f));
    EXPECT_EQ(FaultFromName(FaultName(f)), f);
    const std::string project = FaultProject(f);
    // "seeded": a bug of the project's own, with no fixing commit.
    EXPECT_TRUE(project == "OVS" || project == "DPDK" || project == "seeded") << project;
  }
  EXPECT_EQ(names.size(), 11u);
  EXPECT_STREQ(FaultProject(Fault::kTcpZeroCsumTakenAsAbsent), "seeded");
  EXPECT_STREQ(FaultProject(Fault::kUdpUpdateZeroKeepsStaleCsum), "seeded");
  Fault f = FaultFromName("intel-outer-udp-unseeded");
  EXPECT_EQ(f, Fault::kIntelOuterUdpUnseeded);
  EXPECT_STREQ(FaultCommit(f), "f876dbef0809");
  EXPECT_STREQ(FaultProject(f), "DPDK");
  EXPECT_STREQ(FaultProject(Fault::kRecircResetsInnerOffsets), "OVS");
}

}  // namespace
}  // namespace offlab
