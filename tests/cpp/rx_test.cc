// Reference §1.1 receive rows: netdev-dummy RX options (through Pipeline
// ports), netdev-dpdk RX (NicReceive with a hand-built profile, and a vhost
// guest's partial), and netdev-linux vnet header RX.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/vnet.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Hex;
using testing::kFrameG;
using testing::Parsed;
using testing::R3Outer;
using testing::Sub;

// G with both checksums wrong, so nothing on the way may "fix" them.
const std::string kBadG = Sub(Sub(kFrameG, "433c", "433d"), "6b72", "dead");

// --- netdev-dummy ---------------------------------------------------------------------

// p2 advertises both offloads without performing them: what arrives shows the
// status word handed to the NIC and the bytes the datapath left.
std::vector<Sent> DummyRx(const std::map<std::string, std::string>& rx, const std::string& frame) {
  Pipeline br;
  br.AddPort({.name = "p1", .options = rx});
  br.AddPort({.name = "p2",
              .options = {{"ol_ip_tx_csum", "true"},
                          {"ol_ip_tx_csum_disabled", "true"},
                          {"ol_l4_tx_csum", "true"},
                          {"ol_l4_tx_csum_disabled", "true"}}});
  br.AddFlow("in_port=p1,actions=output:p2");
  return br.Receive("p1", FromHex(frame));
}

TEST(DummyRx, ForcedStatusesAreWhatTheDatapathSees) {
  // Reference §1 bit values; 0x200 is the TCP proto from the parse.
  const std::map<std::string, uint32_t> ip = {
      {"", 0}, {"good", 0x80}, {"bad", 0x10}, {"partial", 0x90}};
  const std::map<std::string, uint32_t> l4 = {
      {"", 0}, {"good", 0x100}, {"bad", 0x08}, {"partial", 0x108}};
  for (const auto& [ip_opt, ip_bits] : ip) {
    for (const auto& [l4_opt, l4_bits] : l4) {
      SCOPED_TRACE("ip=" + ip_opt + " l4=" + l4_opt);
      std::map<std::string, std::string> rx;
      if (!ip_opt.empty()) rx["ol_ip_rx_csum_set_" + ip_opt] = "true";
      if (!l4_opt.empty()) rx["ol_l4_rx_csum_set_" + l4_opt] = "true";
      auto out = DummyRx(rx, kBadG);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].offloads.word(), ip_bits | l4_bits | 0x200);
      EXPECT_EQ(ToHex(out[0].frame), kBadG);
    }
  }
}

TEST(DummyRx, GoodBeatsBadBeatsPartial) {
  struct Case {
    std::vector<std::string> set;
    uint32_t word;
  };
  const Case cases[] = {
      {{"good", "bad", "partial"}, 0x80 | 0x100},
      {{"good", "partial"}, 0x80 | 0x100},
      {{"bad", "partial"}, 0x10 | 0x08},
      {{"good", "bad"}, 0x80 | 0x100},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> rx;
    for (const std::string& s : c.set) {
      rx["ol_ip_rx_csum_set_" + s] = "true";
      rx["ol_l4_rx_csum_set_" + s] = "true";
    }
    auto out = DummyRx(rx, kBadG);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].offloads.word(), c.word | 0x200) << c.set.size();
  }
}

TEST(DummyRx, TsoSegszOnlyWithUserspaceTso) {
  const std::string r7 = testing::R7Frame();
  for (bool tso : {false, true}) {
    SCOPED_TRACE(tso);
    Pipeline br(PipelineConfig{.userspace_tso = tso});
    br.AddPort({.name = "p1", .options = {{"ol_tso_segsz", "500"}}});
    // Without userspace TSO netdev_dummy_send holds the 2054-byte frame to
    // the MTU (OVS d6a632a9b lib/netdev-dummy.c:1358-1384): 9000 lets it by.
    br.AddPort({.name = "p2", .options = {{"ol_tso_segsz", "500"}}, .mtu = 9000});
    br.AddFlow("in_port=p1,actions=output:p2");
    auto out = br.Receive("p1", FromHex(r7));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].tso_segsz, tso ? 500 : 0);
    EXPECT_EQ(ToHex(out[0].frame), r7);
  }
}

// --- netdev-dpdk --------------------------------------------------------------------------

NicProfile Validating(bool plain, bool vxlan_outer, bool vxlan_inner) {
  NicProfile prof;
  prof.name = "test";
  prof.rx_plain = {.outer_ip = plain, .outer_l4 = plain};
  prof.rx_vxlan = {.outer_ip = vxlan_outer,
                   .outer_l4 = vxlan_outer,
                   .inner_ip = vxlan_inner,
                   .inner_l4 = vxlan_inner};
  return prof;
}

TEST(DpdkRx, OffloadsAreTheFourChecksumBitsOnly) {
  struct Case {
    std::string frame;
    uint32_t word;
  };
  const Case cases[] = {
      {kFrameG, 0x80 | 0x100},
      {Sub(kFrameG, "433c", "433d"), 0x10 | 0x100},
      {Sub(kFrameG, "6b72", "dead"), 0x80 | 0x08},
      {kBadG, 0x10 | 0x08},
      // ip4/UDP(sport=5000,dport=6000)/Raw(bytes(range(32))), scapy.
      {H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
         "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
       0x80 | 0x100},
  };
  for (const Case& c : cases) {
    RxStatus st;
    Packet p = NicReceive(FromHex(c.frame), Validating(true, false, false), &st);
    // No proto and no tunnel bits: only the mbuf's RX checksum flags.
    EXPECT_EQ(p.offloads.word(), c.word);
    EXPECT_EQ(Hex(p), c.frame);
    Packet blind = NicReceive(FromHex(c.frame), Validating(false, false, false));
    EXPECT_EQ(blind.offloads.word(), 0u);
  }
}

TEST(DpdkRx, TunnelPacketKeepsOnlyTheOuterPair) {
  // R3 bexp with csum=true: outer 339e/4c12 valid, inner TCP ea50 wrong.
  const std::string frame = R3Outer("339e", "4c12") + Sub(testing::kFrameR2, "7715", "ea50");
  RxStatus st;
  Packet p = NicReceive(FromHex(frame), Validating(false, true, true), &st);
  EXPECT_EQ(p.offloads.word(), 0x80u | 0x100);
  EXPECT_EQ(st.tunnel, TunnelType::kVxlan);
  EXPECT_EQ(st.inner_ip, CsumStatus::kGood);
  EXPECT_EQ(st.inner_l4, CsumStatus::kBad);
  EXPECT_EQ(Hex(p), frame);
  // Plain-only validation says nothing about a VXLAN packet.
  EXPECT_EQ(NicReceive(FromHex(frame), Validating(true, false, false)).offloads.word(), 0u);
}

TEST(DpdkRx, VhostGuestPartialIsDeliveredPartial) {
  // A guest's CHECKSUM_PARTIAL: the TCP field holds the pseudo-header sum,
  // by hand c0a8 + 7b02 + c0a8 + 7b01 + 0006 + 0054 = 277ad -> 77af.
  const std::string seeded = Sub(kFrameG, "6b72", "77af");
  for (bool nic_offloads : {false, true}) {
    SCOPED_TRACE(nic_offloads);
    Pipeline br;
    br.AddPort({.name = "vhu", .profile = "pcap"});
    std::map<std::string, std::string> tx;
    if (nic_offloads) tx = {{"ol_l4_tx_csum", "true"}, {"ol_l4_tx_csum_disabled", "true"}};
    br.AddPort({.name = "p2", .options = tx});
    br.AddFlow("in_port=vhu,actions=output:p2");
    auto out = br.Receive("vhu", FromHex(seeded), RxMeta{.l4 = CsumStatus::kPartial});
    ASSERT_EQ(out.size(), 1u);
    if (nic_offloads) {
      EXPECT_EQ(out[0].offloads.word(), 0x108u | 0x200);
      EXPECT_EQ(ToHex(out[0].frame), seeded);
    } else {
      EXPECT_EQ(out[0].offloads.word(), 0x100u | 0x200);
      EXPECT_EQ(ToHex(out[0].frame), kFrameG);
    }
  }
}

// --- netdev-linux vnet header ----------------------------------------------------------------

struct VnetCase {
  const char* name;
  std::string frame;
  uint16_t start, offset;
  uint32_t proto_bits;
};

TEST(VnetRx, NeedsCsumOnTheProtoFieldIsPartial) {
  const VnetCase cases[] = {
      {"tcp", kFrameG, 34, 16, 0x200},
      // ip4/UDP(...)/Raw(bytes(range(32))) and ip4/SCTP(...)/Raw(bytes(range(16))), scapy.
      {"udp",
       H("0a8f394fe0738abf7e2f05840800 4500003c000000004011035dc0a87b02c0a87b01"
         "1388177000286c50 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
       34, 6, 0x400},
      {"sctp",
       H("0a8f394fe0738abf7e2f05840800 4500003000000000408402f6c0a87b02c0a87b01"
         "1388177001020304a7c0ffe4 000102030405060708090a0b0c0d0e0f"),
       34, 8, 0x600},
  };
  for (const VnetCase& c : cases) {
    SCOPED_TRACE(c.name);
    Packet p(FromHex(c.frame));
    ParseSimple(p);
    Counters counters;
    VnetHdr h{.flags = VnetHdr::kNeedsCsum, .csum_start = c.start, .csum_offset = c.offset};
    ASSERT_TRUE(VnetReceive(p, h, &counters));
    EXPECT_EQ(p.offloads.word(), 0x108 | c.proto_bits);
    EXPECT_EQ(Hex(p), c.frame);
    EXPECT_TRUE(counters.values().empty());
  }
}

TEST(VnetRx, NeedsCsumElsewhereIsComputedInSoftware) {
  // Inner TCP of a VXLAN frame (outer UDP checksum 0), seeded as a guest
  // would: the software checksum at start+offset gives G's 6b72, and the
  // outer L4 (UDP) is marked good.
  const std::string vx = R3Outer("339e", "0000") + Sub(kFrameG, "6b72", "77af");
  Packet p(FromHex(vx));
  ParseSimple(p);
  Counters counters;
  ASSERT_TRUE(VnetReceive(p, {.flags = VnetHdr::kNeedsCsum, .csum_start = 84, .csum_offset = 16},
                          &counters));
  EXPECT_EQ(Hex(p), R3Outer("339e", "0000") + kFrameG);
  EXPECT_EQ(p.offloads.word(), 0x100u | 0x400);
  EXPECT_EQ(counters.Get("netdev_linux_unknown_l4_csum"), 1u);

  // ICMP has no offload proto: computed (scapy ICMP(type=8,id=0x1234,seq=1)
  // /Raw(bytes(range(16))) -> ad8a) but the status stays unknown.
  const std::string icmp =
      H("0a8f394fe0738abf7e2f05840800 4500002c000000004001037dc0a87b02c0a87b01"
        "0800ad8a12340001000102030405060708090a0b0c0d0e0f");
  Packet q(FromHex(Sub(icmp, "ad8a", "0000")));
  ParseSimple(q);
  ASSERT_TRUE(VnetReceive(q, {.flags = VnetHdr::kNeedsCsum, .csum_start = 34, .csum_offset = 2},
                          &counters));
  EXPECT_EQ(Hex(q), icmp);
  EXPECT_EQ(q.offloads.word(), 0u);
  EXPECT_EQ(counters.Get("netdev_linux_unknown_l4_csum"), 2u);

  // Nor does any protocol numbered above SCTP's (132): the same bytes as
  // UDP-Lite (136; IP checksum 037d -> 02f6 by RFC 1624).
  const std::string lite = Sub(Sub(icmp, "4001037d", "408802f6"), "ad8a", "0000");
  Packet u(FromHex(lite));
  ParseSimple(u);
  ASSERT_TRUE(VnetReceive(u, {.flags = VnetHdr::kNeedsCsum, .csum_start = 34, .csum_offset = 2},
                          &counters));
  EXPECT_EQ(Hex(u), Sub(icmp, "4001037d", "408802f6"));
  EXPECT_EQ(u.offloads.word(), 0u);
}

TEST(VnetRx, OffsetsOutOfRangeDrop) {
  for (VnetHdr h : {VnetHdr{.flags = VnetHdr::kNeedsCsum, .csum_start = 118, .csum_offset = 0},
                    VnetHdr{.flags = VnetHdr::kNeedsCsum, .csum_start = 34, .csum_offset = 200}}) {
    Packet p = Parsed(kFrameG);
    Counters counters;
    EXPECT_FALSE(VnetReceive(p, h, &counters));
    EXPECT_EQ(counters.Get("netdev_linux_invalid_l4_csum"), 1u);
    EXPECT_EQ(Hex(p), kFrameG);
    EXPECT_EQ(p.offloads.word(), 0x200u);
  }
}

TEST(VnetRx, NoFlagsOrDataValidLeaveUnknown) {
  for (uint8_t flags : {uint8_t{0}, VnetHdr::kDataValid}) {
    Packet p(FromHex(kBadG));
    ParseSimple(p);
    Counters counters;
    ASSERT_TRUE(VnetReceive(p, {.flags = flags}, &counters));
    EXPECT_EQ(p.offloads.word(), 0x200u);
    EXPECT_EQ(Hex(p), kBadG);
    EXPECT_TRUE(counters.values().empty());
  }
}

TEST(VnetRx, GsoTcpSetsTsoSegsz) {
  struct Case {
    uint8_t type;
    uint16_t tso_segsz;
  };
  for (Case c : {Case{VnetHdr::kGsoTcpv4, 1448}, Case{VnetHdr::kGsoTcpv6, 1448},
                 Case{VnetHdr::kGsoNone, 0}}) {
    SCOPED_TRACE(int{c.type});
    Packet p = Parsed(testing::R7Frame());
    ASSERT_TRUE(VnetReceive(p, {.gso_type = c.type, .gso_size = 1448}));
    EXPECT_EQ(p.tso_segsz, c.tso_segsz);
    EXPECT_EQ(Hex(p), testing::R7Frame());
    EXPECT_EQ(p.offloads.word(), 0x200u);
  }
}

// netdev_linux_parse_vnet_hdr returns ENOTSUP for VIRTIO_NET_HDR_GSO_UDP (UFO)
// and the receive loop drops the packet; TCP with the ECN bit is still TCP.
TEST(VnetRx, GsoUdpIsDropped) {
  Packet p = Parsed(testing::R7Frame());
  EXPECT_FALSE(VnetReceive(p, {.gso_type = VnetHdr::kGsoUdp, .gso_size = 1448}));
  Packet q = Parsed(testing::R7Frame());
  ASSERT_TRUE(
      VnetReceive(q, {.gso_type = VnetHdr::kGsoTcpv4 | VnetHdr::kGsoEcn, .gso_size = 1448}));
  EXPECT_EQ(q.tso_segsz, 1448);
}

}  // namespace
}  // namespace offlab
