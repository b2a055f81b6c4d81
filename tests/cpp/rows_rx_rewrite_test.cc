// One test (at least) per row of the reference transition table (§1.1) for
// receive, parse, rule M (§1.2) and the vnet header, asserting the status
// word and the bytes. Expected values are hand-derived in the comments or are
// Open vSwitch's vectors; csum:: serves only as "does this field verify".
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/nic/caps.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/rewrite.h"
#include "offlab/ovs/vnet.h"
#include "ovs_frames.h"

namespace offlab {
namespace {

using namespace testdata;

// OVS tests/dpif-netdev.at frame G: IPv4 checksum 0x433c and TCP 0x6b72 correct.

// --- RX netdev-dummy -------------------------------------------------------
Offloads HandedToNic(std::map<std::string, std::string> rx_opts, bool tso = false) {
  Pipeline br(PipelineConfig{.userspace_tso = tso});
  br.AddPort({.name = "p1", .options = rx_opts});
  // A port that advertises everything the dummy can, so nothing is finished.
  br.AddPort({.name = "p2", .options = {{"ol_ip_tx_csum", "true"}, {"ol_l4_tx_csum", "true"}}});
  br.AddFlow("in_port=p1,actions=output:p2");
  auto out = br.Receive("p1", FromHex(kG));
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(ToHex(out[0].frame), kG);  // RX changes no byte
  return out.empty() ? Offloads() : out[0].offloads;
}

TEST(RowRxDummy, GoodBeatsBadBeatsPartial) {
  EXPECT_EQ(HandedToNic({}).ip(), CsumStatus::kUnknown);
  EXPECT_EQ(HandedToNic({{"ol_ip_rx_csum_set_partial", "true"}}).ip(), CsumStatus::kPartial);
  EXPECT_EQ(
      HandedToNic({{"ol_ip_rx_csum_set_bad", "true"}, {"ol_ip_rx_csum_set_partial", "true"}}).ip(),
      CsumStatus::kBad);
  EXPECT_EQ(HandedToNic({{"ol_ip_rx_csum_set_good", "true"},
                         {"ol_ip_rx_csum_set_bad", "true"},
                         {"ol_ip_rx_csum_set_partial", "true"}})
                .ip(),
            CsumStatus::kGood);
  EXPECT_EQ(HandedToNic({{"ol_l4_rx_csum_set_partial", "true"}}).l4(), CsumStatus::kPartial);
  // bits: IP GOOD 1<<7; L4 partial = GOOD 1<<8 | BAD 1<<3; TCP 1<<9 set by parse.
  EXPECT_EQ(HandedToNic({{"ol_ip_rx_csum_set_good", "true"}, {"ol_l4_rx_csum_set_partial", "true"}})
                .word(),
            (1u << 7) | (1u << 8) | (1u << 3) | (1u << 9));
}

TEST(RowRxDummy, TsoSegszOnlyWithUserspaceTso) {
  for (bool tso : {false, true}) {
    Pipeline br(PipelineConfig{.userspace_tso = tso});
    br.AddPort({.name = "p1", .options = {{"ol_tso_segsz", "20"}}});
    br.AddPort({.name = "p2"});
    br.AddFlow("in_port=p1,actions=output:p2");
    auto out = br.Receive("p1", FromHex(kG));
    // 64 payload bytes in segments of 20: 4 frames when TSO is on, else 1.
    EXPECT_EQ(out.size(), tso ? 4u : 1u);
  }
}

// The tap sees each netdev_send call's packet as a trace's tx record holds it:
// before send-prepare and segmentation, requests still partial.
TEST(PipelineTxTap, SeesEachSendBeforeSendPrepareAndNumbersItsFrames) {
  Pipeline br(PipelineConfig{.userspace_tso = true});
  br.AddPort(
      {.name = "p1", .options = {{"ol_tso_segsz", "20"}, {"ol_l4_rx_csum_set_partial", "true"}}});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("in_port=p1,actions=output:p2,output:p3");
  struct Tapped {
    std::string port;
    Bytes frame;
    CsumStatus l4;
    uint16_t tso_segsz;
    uint32_t tx;
  };
  std::vector<Tapped> tapped;
  br.SetTxTap([&](const std::string& port, const Packet& p, uint32_t tx) {
    tapped.push_back({port, p.bytes(), p.offloads.l4(), p.tso_segsz, tx});
  });
  for (int round = 0; round < 2; ++round) {  // numbering restarts per Receive
    tapped.clear();
    auto out = br.Receive("p1", FromHex(kG));
    ASSERT_EQ(tapped.size(), 2u);
    for (uint32_t i = 0; i < 2; ++i) {
      EXPECT_EQ(tapped[i].port, i == 0 ? "p2" : "p3");
      EXPECT_EQ(tapped[i].tx, i);
      EXPECT_EQ(ToHex(tapped[i].frame), kG);  // nothing computed or cut yet
      EXPECT_EQ(tapped[i].l4, CsumStatus::kPartial);
      EXPECT_EQ(tapped[i].tso_segsz, 20);
    }
    // 64 payload bytes in segments of 20 on each of two ports.
    ASSERT_EQ(out.size(), 8u);
    for (size_t k = 0; k < out.size(); ++k) {
      EXPECT_EQ(out[k].tx, k < 4 ? 0u : 1u);
      EXPECT_EQ(out[k].port, k < 4 ? "p2" : "p3");
    }
  }
}

TEST(PipelinePorts, ALinuxSystemPortHasNoOffloadsWithoutUserspaceTso) {
  // ibmveth_trunk.yaml: tcp/udp checksum and TSO, all through netdev_linux_set_ol.
  for (bool tso : {false, true}) {
    Pipeline br(PipelineConfig{.userspace_tso = tso});
    br.AddPort({.name = "trunk", .profile = "ibmveth_trunk"});
    br.AddPort({.name = "nic", .profile = "connectx6dx"});
    const uint32_t linux_caps = cap::kTcpCksum | cap::kUdpCksum | cap::kTcpTso;
    EXPECT_EQ(br.PortCaps("trunk"), tso ? linux_caps : 0u);
    // A DPDK port keeps its checksum offloads; only TSO needs the option.
    EXPECT_TRUE(br.PortCaps("nic") & cap::kTcpCksum);
    EXPECT_EQ((br.PortCaps("nic") & cap::kTcpTso) != 0, tso);
  }
}

// --- RX netdev-dpdk (hardware validation) ----------------------------------
TEST(RowRxDpdk, StatusesFromHardwareOnly) {
  NicProfile prof;
  prof.rx_plain = {true, true, false, false};
  Bytes good = FromHex(kG);
  RxStatus st;
  Packet p = NicReceive(good, prof, &st);
  EXPECT_EQ(p.offloads.word(), (1u << 7) | (1u << 8));  // IP good, L4 good, no proto/tunnel
  EXPECT_EQ(p.bytes(), good);
  Bytes bad_ip = good;
  bad_ip[25] ^= 1;
  EXPECT_EQ(NicReceive(bad_ip, prof).offloads.word(), (1u << 4) | (1u << 8));
  Bytes bad_l4 = good;
  bad_l4[50] ^= 1;
  EXPECT_EQ(NicReceive(bad_l4, prof).offloads.word(), (1u << 7) | (1u << 3));
  NicProfile blind;
  EXPECT_EQ(NicReceive(good, blind).offloads.word(), 0u);
}

// --- RX netdev-linux vnet header --------------------------------------------
Packet ParsedG() {
  Packet p(FromHex(kG));
  Parse(p);
  return p;
}

TEST(RowRxVnet, NeedsCsumAtTheL4FieldIsPartial) {
  Packet p = ParsedG();
  VnetHdr h{.flags = VnetHdr::kNeedsCsum, .csum_start = 34, .csum_offset = 16};
  Counters c;
  ASSERT_TRUE(VnetReceive(p, h, &c));
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  EXPECT_EQ(ToHex(p.bytes()), kG);
  EXPECT_TRUE(c.values().empty());
}

TEST(RowRxVnet, OtherNeedsCsumIsFinishedInSoftware) {
  Packet p = ParsedG();
  // The TCP segment summed from its start, the result stored at the given
  // offset (here the urgent pointer field, 18): what the kernel would do.
  Bytes before = p.bytes();
  VnetHdr h{.flags = VnetHdr::kNeedsCsum, .csum_start = 34, .csum_offset = 18};
  Counters c;
  ASSERT_TRUE(VnetReceive(p, h, &c));
  EXPECT_EQ(c.Get("netdev_linux_unknown_l4_csum"), 1u);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kGood);
  Bytes after = p.bytes();
  EXPECT_EQ(GetBe16(&after[34 + 18]), csum::NaiveCompute(&before[34], before.size() - 34));
}

TEST(RowRxVnet, OutOfRangeOffsetsDrop) {
  Packet p = ParsedG();
  VnetHdr h{.flags = VnetHdr::kNeedsCsum, .csum_start = 200, .csum_offset = 16};
  Counters c;
  EXPECT_FALSE(VnetReceive(p, h, &c));
  EXPECT_EQ(c.Get("netdev_linux_invalid_l4_csum"), 1u);
}

TEST(RowRxVnet, DataValidIgnoredAndGsoSetsSegsz) {
  Packet p = ParsedG();
  ASSERT_TRUE(VnetReceive(p, {.flags = VnetHdr::kDataValid}));
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kUnknown);
  ASSERT_TRUE(VnetReceive(p, {.gso_type = VnetHdr::kGsoTcpv4, .gso_size = 1448}));
  EXPECT_EQ(p.tso_segsz, 1448);
  EXPECT_EQ(ToHex(p.bytes()), kG);
}

// --- TX netdev-linux vnet header --------------------------------------------
TEST(RowTxVnet, GoodIsDataValidPartialIsSeeded) {
  Packet p = ParsedG();
  p.offloads.set_l4(CsumStatus::kGood);
  EXPECT_EQ(VnetTransmit(p).flags, VnetHdr::kDataValid);
  Packet q = ParsedG();
  q.offloads.set_l4(CsumStatus::kPartial);
  VnetHdr h = VnetTransmit(q);
  EXPECT_EQ(h.flags, VnetHdr::kNeedsCsum);
  EXPECT_EQ(h.csum_start, 34);
  EXPECT_EQ(h.csum_offset, 16);
  // The seed is the folded pseudo-header sum: c0a8+7b02+c0a8+7b01+0006+0054
  // = 0x277ad, folded 0x77ad + 0x2 = 0x77af.
  EXPECT_EQ(GetBe16(q.data() + 50), 0x77af);
  VnetCompleteCsum(q, h);
  EXPECT_EQ(ToHex(q.bytes()), kG);  // the kernel finishes it to OVS's 6b72
  Packet r = ParsedG();
  EXPECT_EQ(VnetTransmit(r).flags, 0);  // unknown: no flags
}

Bytes Ipv6Udp() {
  // Ethernet, IPv6 2001:db8::1 > 2001:db8::2 (next UDP), UDP 1000 > 2000 with 40
  // payload bytes (the seeded bug reads addresses 8..40 bytes into the L4 header).
  return FromHex(std::string("02000000000202000000000186dd6000000000301140") +
                 "20010db800000000000000000000000120010db8000000000000000000000002" +
                 "03e807d000300000" + std::string(80, 'a'));
}

TEST(RowTxVnet, Ipv6UdpSeedAndTheSeededBug) {
  for (bool fault : {false, true}) {
    std::unique_ptr<ScopedFault> f;
    if (fault) f = std::make_unique<ScopedFault>(Fault::kVnetIpv6UdpWrongPseudoBase);
    Packet p(Ipv6Udp());
    Parse(p);
    p.offloads.set_l4(CsumStatus::kPartial);
    VnetHdr h = VnetTransmit(p);
    VnetCompleteCsum(p, h);
    Bytes w = p.bytes();
    bool ok = csum::Verify(&w[54], 48, csum::PseudoIpv6(&w[22], &w[38], 17, 48));
    EXPECT_EQ(ok, !fault) << (fault ? "5603b869a re-created" : "fixed");
  }
}

// --- Parse ------------------------------------------------------------------
TEST(RowParse, SetsProtoNeverStatus) {
  Packet p(FromHex(kG));
  p.offloads.set_ip(CsumStatus::kBad);
  p.offloads.set_l4(CsumStatus::kPartial);
  FlowKey k = Parse(p);
  EXPECT_EQ(p.offloads.word(), (1u << 4) | (1u << 8) | (1u << 3) | (1u << 9));
  EXPECT_EQ(k.tp_dst, 5201);
  EXPECT_EQ(p.l3_ofs, 14);
  EXPECT_EQ(p.l4_ofs, 34);
  Packet q(FromHex(kG));
  ParseSimple(q);
  EXPECT_EQ(q.offloads.l4_proto(), L4Proto::kTcp);
}

TEST(RowParse, LaterFragmentAndTruncatedL4SetNoProto) {
  std::string frag = kG;
  frag.replace(frag.find("0000000006433c"), 14, "0001000006433b");  // offset 8 bytes
  Packet p(FromHex(frag));
  Parse(p);
  EXPECT_EQ(p.offloads.l4_proto(), L4Proto::kNone);
  EXPECT_EQ(p.l4_ofs, 34);  // where its data starts (lib/flow.c:1001), but no protocol
  Packet q(FromHex(kG.substr(0, 2 * 44)));  // 10 bytes of TCP
  FlowKey k = Parse(q);
  EXPECT_EQ(q.offloads.l4_proto(), L4Proto::kNone);
  EXPECT_FALSE(k.error.empty());
}

// --- Rule M -----------------------------------------------------------------
TEST(RowRuleM, ValidBecomesPartialBytesUntouched) {
  Packet p = ParsedG();
  p.offloads.set_ip(CsumStatus::kGood);
  p.offloads.set_l4(CsumStatus::kGood);
  SetIpv4(p, {.dst = std::array<uint8_t, 4>{192, 168, 1, 1}});
  EXPECT_EQ(p.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kPartial);
  Bytes w = p.bytes();
  EXPECT_EQ(GetBe16(&w[24]), 0x433c);  // stale on purpose
  EXPECT_EQ(GetBe16(&w[50]), 0x6b72);
}

TEST(RowRuleM, BadStaysBadBySameError) {
  Packet p = ParsedG();
  p.data()[50] ^= 0x40;  // TCP checksum 0x6b72 -> 0x2b72: wrong by a fixed amount
  p.offloads.set_l4(CsumStatus::kBad);
  SetL4Ports(p, std::nullopt, 2222);
  EXPECT_EQ(p.offloads.l4(), CsumStatus::kBad);
  // OVS R2: the correct checksum after mod_tp_dst:2222 is 0x7715; ours is off by the
  // same one's-complement error as before: 0x7715 - 0x4000 = 0x3715.
  EXPECT_EQ(GetBe16(p.data() + 50), 0x3715);
}

Bytes Udp4(uint16_t sport, uint16_t csum_field) {
  Bytes f = FromHex(
      "02000000000202000000000108004500001c00000000401100000a0000010a000002"
      "0000000000080000");
  PutBe16(&f[24], csum::Compute(&f[14], 20));
  PutBe16(&f[34], sport);
  PutBe16(&f[40], csum_field);
  return f;
}

TEST(RowRuleM, UdpZeroStaysZeroAndComputedZeroIsFfff) {
  Packet z(Udp4(1, 0));
  Parse(z);
  SetL4Ports(z, 7, std::nullopt);
  SetIpv4(z, {.src = std::array<uint8_t, 4>{9, 9, 9, 9}});
  EXPECT_EQ(GetBe16(z.data() + 40), 0);
  // ~(~0x1234 + ~0x0001 + 0x1235) folds to 0xffff, i.e. an update result of 0.
  Packet p(Udp4(0x0001, 0x1234));
  Parse(p);
  SetL4Ports(p, 0x1235, std::nullopt);
  EXPECT_EQ(GetBe16(p.data() + 40), 0xffff);
}

Bytes Sctp4() {
  Bytes f = FromHex(
      "02000000000202000000000108004500002800000000408400000a0000010a000002"
      "0001000200000000000000000102030405060708");
  PutBe16(&f[24], csum::Compute(&f[14], 20));
  PutBe32(&f[42], __builtin_bswap32(csum::Crc32c(&f[34], 20)));
  return f;
}

uint32_t SctpError(const Packet& p) {
  Bytes w = p.bytes();
  uint32_t field = __builtin_bswap32(GetBe32(&w[42]));
  PutBe32(&w[42], 0);
  return field ^ csum::Crc32c(&w[34], 20);
}

TEST(RowRuleM, SctpCrcKeepsItsErrorDelta) {
  for (uint32_t err : {0u, 0x5a5a0001u}) {
    Packet p(Sctp4());
    p.data()[42] ^= static_cast<uint8_t>(err);
    p.data()[45] ^= static_cast<uint8_t>(err >> 24);
    Parse(p);
    uint32_t before = SctpError(p);
    SetL4Ports(p, 77, 88);
    EXPECT_EQ(SctpError(p), before);
    EXPECT_EQ(GetBe16(p.data() + 34), 77);
  }
}

Bytes Ipv6Tcp(bool routing_segments_left) {
  // IPv6 with a routing header (type 0 layout, one address) then TCP.
  std::string rh = routing_segments_left ? "060200010000000020010db8000000000000000000000099"
                                         : "060200000000000020010db8000000000000000000000099";
  Bytes f = FromHex(
      "02000000000202000000000186dd"
      "60000000002c2b40"
      "20010db8000000000000000000000001"
      "20010db8000000000000000000000002" +
      rh +
      "00500051000000000000000050100000"
      "00000000");
  return f;
}

TEST(RowRuleM, Ipv6DstWithSegmentsLeftSkipsL4) {
  for (bool sl : {false, true}) {
    Packet p(Ipv6Tcp(sl));
    Parse(p);
    const uint16_t before = GetBe16(p.data() + p.l4_ofs + 16);
    bool v6;
    SetIpv6(p, {.dst = ParseIp("2001:db8::3", &v6)});
    const uint16_t after = GetBe16(p.data() + p.l4_ofs + 16);
    // Without segments left the pseudo-header grew by (3 - 2), so RFC 1624 gives
    // ~(~0x0000 + ~2 + 3) = ~0x0001 = 0xfffe; with segments left the field is kept.
    EXPECT_EQ(before, 0);
    EXPECT_EQ(after, sl ? 0x0000 : 0xfffe);
  }
}

TEST(RowRuleM, Icmpv6AlwaysIncremental) {
  // ICMPv6 echo request with a correct checksum (computed over the pseudo-header).
  Bytes f = FromHex(
      "02000000000202000000000186dd"
      "6000000000083a40"
      "20010db8000000000000000000000001"
      "20010db8000000000000000000000002"
      "8000000000010001");
  PutBe16(&f[56], csum::Finish(csum::Partial(&f[54], 8, csum::PseudoIpv6(&f[22], &f[38], 58, 8))));
  Packet p(f);
  Parse(p);
  p.offloads.set_l4(CsumStatus::kGood);  // no status covers ICMPv6: ignored
  bool v6;
  SetIpv6(p, {.src = ParseIp("2001:db8::77", &v6)});
  Bytes w = p.bytes();
  EXPECT_TRUE(csum::Verify(&w[54], 8, csum::PseudoIpv6(&w[22], &w[38], 58, 8)));
}

// --- Upcall ------------------------------------------------------------------
TEST(RowUpcall, ControllerGetsEveryPartialFinished) {
  Pipeline br;
  br.AddPort(
      {.name = "p1",
       .options = {{"ol_ip_rx_csum_set_partial", "true"}, {"ol_l4_rx_csum_set_partial", "true"}}});
  br.AddFlow("in_port=p1,actions=controller");
  std::string stale = kG;
  stale.replace(stale.find("433c"), 4, "0000");
  stale.replace(stale.find("6b72"), 4, "0000");
  auto out = br.Receive("p1", FromHex(stale));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "controller");
  EXPECT_EQ(ToHex(out[0].frame), kG);  // both computed: OVS's 433c and 6b72
  EXPECT_EQ(out[0].offloads.ip(), CsumStatus::kGood);
  EXPECT_EQ(out[0].offloads.l4(), CsumStatus::kGood);
}

// --- IP_ECN_set_ce (rule M on the IPv4 header) ------------------------------------
TEST(RowRuleM, EcnCeUnderRuleM) {
  // G with TOS 0x01 (ECT(1)) and a correct checksum: 0x433c - 0x0001 = 0x433b.
  std::string ect = kG;
  ect.replace(ect.find("4500006800"), 10, "4501006800");
  ect.replace(ect.find("433c"), 4, "433b");
  Packet u(FromHex(ect));
  Parse(u);
  ASSERT_TRUE(SetEcnCe(u));
  // Unknown status: TOS 01 -> 03 updated incrementally: 0x433b - 0x0002 = 0x4339.
  EXPECT_EQ(ToHex(u.data() + 14, 2), "4503");
  EXPECT_EQ(GetBe16(u.data() + 24), 0x4339);
  Packet v(FromHex(ect));
  Parse(v);
  v.offloads.set_ip(CsumStatus::kGood);
  ASSERT_TRUE(SetEcnCe(v));
  EXPECT_EQ(v.offloads.ip(), CsumStatus::kPartial);
  EXPECT_EQ(GetBe16(v.data() + 24), 0x433b);  // untouched, left for send-prepare
  Packet n(FromHex(kG));                      // TOS 0: not ECN-capable, nothing to mark
  Parse(n);
  EXPECT_FALSE(SetEcnCe(n));
}

// --- ICMPv6 neighbour discovery ----------------------------------------------------
Bytes NeighborSolicit(bool correct) {
  // NS for 2001:db8::2 with a source link-layer option 02:00:00:00:00:01.
  Bytes f = FromHex(std::string("02000000000202000000000186dd6000000000203aff") +
                    "20010db8000000000000000000000001" + "ff020000000000000000000000000002" +
                    "8700000000000000" + "20010db8000000000000000000000002" + "0101020000000001");
  PutBe16(&f[56],
          csum::Finish(csum::Partial(&f[54], 32, csum::PseudoIpv6(&f[22], &f[38], 58, 32))));
  if (!correct) f[57] ^= 0x10;
  return f;
}

bool Icmpv6Ok(const Bytes& w) {
  return csum::Verify(&w[54], 32, csum::PseudoIpv6(&w[22], &w[38], 58, 32));
}

TEST(RowIcmpv6Nd, SetNdIsIncrementalAndKeepsABadChecksumBad) {
  bool v6;
  for (bool correct : {true, false}) {
    Packet p(NeighborSolicit(correct));
    Parse(p);
    ASSERT_TRUE(SetNd(p, ParseIp("2001:db8::77", &v6), ParseMac("02:aa:bb:cc:dd:ee")));
    Bytes w = p.bytes();
    EXPECT_EQ(ToHex(&w[62], 16), "20010db8000000000000000000000077");
    EXPECT_EQ(ToHex(&w[80], 6), "02aabbccddee");
    EXPECT_EQ(Icmpv6Ok(w), correct);
  }
}

TEST(RowIcmpv6Nd, SetNdExtRecomputesInFull) {
  for (bool correct : {true, false}) {
    Packet p(NeighborSolicit(correct));
    Parse(p);
    ASSERT_TRUE(SetNdExt(p, 0x20000000u, 2));
    Bytes w = p.bytes();
    EXPECT_EQ(ToHex(&w[58], 4), "20000000");
    EXPECT_EQ(w[78], 2);
    // A full recomputation: correct afterwards whatever it was before (OVS behaviour;
    // ICMPv6 has no offload status to say it was bad).
    EXPECT_TRUE(Icmpv6Ok(w));
  }
}

// A neighbour advertisement (136) for 2001:db8::2 whose first option is a
// nonce (type 14, length 1: RFC 3971) and whose second is the target
// link-layer address 02:00:00:00:00:02: packet_set_nd rewrites only the
// link-layer option, and works on advertisements too.
Bytes NeighborAdvert() {
  Bytes f = FromHex(std::string("02000000000202000000000186dd6000000000283aff") +
                    "20010db8000000000000000000000002" + "20010db8000000000000000000000001" +
                    "8800000060000000" + "20010db8000000000000000000000002" + "0e01010203040506" +
                    "0201020000000002");
  PutBe16(&f[56],
          csum::Finish(csum::Partial(&f[54], 40, csum::PseudoIpv6(&f[22], &f[38], 58, 40))));
  return f;
}

TEST(RowIcmpv6Nd, SetNdRewritesTheLinkLayerOptionOfAnAdvertisementOnly) {
  Packet p(NeighborAdvert());
  Parse(p);
  ASSERT_TRUE(SetNd(p, std::nullopt, ParseMac("02:aa:bb:cc:dd:ee")));
  const Bytes w = p.bytes();
  EXPECT_EQ(ToHex(&w[78], 8), "0e01010203040506");  // the nonce as it was
  EXPECT_EQ(ToHex(&w[86], 8), "020102aabbccddee");
  EXPECT_TRUE(csum::Verify(&w[54], 40, csum::PseudoIpv6(&w[22], &w[38], 58, 40)));
}

}  // namespace
}  // namespace offlab
