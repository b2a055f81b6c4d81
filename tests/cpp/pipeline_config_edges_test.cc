// SPDX-License-Identifier: Apache-2.0
//
// Pipeline configuration and receive edges (models/src/ovs/pipeline.cc):
//  - a port needs a unique name, a tunnel port an underlay;
//  - netdev-dummy options (OVS d6a632a9b lib/netdev-dummy.c dummy_set_config,
//    1000-1060): ol_*_tx_csum advertises the offload, its "_disabled"
//    companion makes the dummy leave the requested checksum uncomputed
//    (netdev_dummy_send, 1345-1357, strips the flag from send-prepare only
//    when not disabled); ol_{ip,l4}_rx_csum_set_{good,bad,partial} read as
//    booleans, good before bad before partial (netdev_dummy_rxq_recv);
//    ol_tso_segsz is 1..65535; any other option is refused by offlab;
//  - frames are received on interfaces, never on a tunnel port; a port is
//    named by name or by its ofport number;
//  - a guest port (tap: driver tun) takes a TSO packet whole (the kernel or
//    the guest segments it, lib/netdev-linux.c netdev_linux_prepend_vnet_hdr).
// Frames: G and R1 of the reference (test_util.h / egress_test.cc), R7's TSO
// frame.
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/error.h"
#include "offlab/nic/caps.h"
#include "offlab/ovs/pipeline.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::kFrameG;
using testing::Sub;

std::string AddError(Pipeline& br, const PortConfig& cfg) {
  try {
    br.AddPort(cfg);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PipelineConfigEdges, PortNamesAndTunnelUnderlay) {
  Pipeline br;
  EXPECT_EQ(AddError(br, {.name = ""}), "port: a name is required");
  EXPECT_EQ(AddError(br, {.name = "p1"}), "");
  EXPECT_EQ(AddError(br, {.name = "p1"}), "port p1: duplicate name");
  EXPECT_EQ(AddError(br, {.name = "t1", .tunnel = testing::R3Tunnel(false)}),
            "port t1: tunnel port needs an underlay");
  TunnelConfig bad_vni = testing::R3Tunnel(false);
  bad_vni.key = 1u << 24;
  EXPECT_EQ(AddError(br, {.name = "t1", .tunnel = bad_vni, .underlay = "p1"}),
            "tunnel: VNI exceeds 24 bits");
  EXPECT_EQ(AddError(br, {.name = "t1", .tunnel = testing::R3Tunnel(false), .underlay = "p1"}), "");
  // Receiving on the tunnel port, by either entry point, is refused.
  for (int entry = 0; entry < 2; entry++) {
    try {
      if (entry == 0) {
        br.Receive("t1", FromHex(kFrameG));
      } else {
        br.ReceivePacket("t1", Packet(FromHex(kFrameG)));
      }
      ADD_FAILURE() << "received on a tunnel port";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "port t1: cannot receive on a tunnel port");
    }
  }
}

TEST(PipelineConfigEdges, PortsByNameOrNumber) {
  Pipeline br;
  br.AddPort({.name = "p1", .options = {{"ol_ip_tx_csum", "true"}}});
  br.AddPort({.name = "p2"});
  EXPECT_EQ(br.PortCaps("1"), cap::kIpv4Cksum);
  EXPECT_EQ(br.PortCaps("p1"), cap::kIpv4Cksum);
  EXPECT_EQ(br.PortCaps("2"), 0u);
  EXPECT_THROW(br.PortCaps("3"), Error);
  EXPECT_THROW(br.PortCaps(""), Error);
  EXPECT_THROW(br.PortCaps("1x"), Error);
}

TEST(PipelineConfigEdges, DummyOptionsRefusedByName) {
  Pipeline br;
  EXPECT_EQ(AddError(br, {.name = "a", .options = {{"ol_ip_rx_csum_set_fine", "true"}}}),
            "port a: unknown option 'ol_ip_rx_csum_set_fine'");
  EXPECT_EQ(AddError(br, {.name = "b", .options = {{"mtu", "1500"}}}),
            "port b: unknown option 'mtu'");
  for (const char* v : {"0", "65536", "12x", ""}) {
    EXPECT_EQ(AddError(br, {.name = "c", .options = {{"ol_tso_segsz", v}}}),
              std::string("option ol_tso_segsz: expected 1..65535, got '") + v + "'");
  }
  EXPECT_EQ(AddError(br, {.name = "c", .options = {{"ol_tso_segsz", "65535"}}}), "");
}

// kG through p1 (IPv4 status from p1's options) with mod_nw_dst to p2.
Sent Through(const std::map<std::string, std::string>& p1,
             const std::map<std::string, std::string>& p2, const RxMeta& meta = {}) {
  Pipeline br;
  br.AddPort({.name = "p1", .options = p1});
  br.AddPort({.name = "p2", .options = p2});
  br.AddFlow("in_port=p1,actions=mod_nw_dst:192.168.1.1,output:p2");
  auto out = br.Receive("p1", FromHex(kFrameG), meta);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Sent{} : out[0];
}

// R1: G after mod_nw_dst:192.168.1.1 with both checksums right (bd3c, e572).
const std::string kR1Stale = Sub(kFrameG, "c0a87b01d478", "c0a80101d478");
const std::string kR1 = Sub(Sub(kR1Stale, "433c", "bd3c"), "6b72", "e572");

TEST(PipelineConfigEdges, DisabledTxChecksumIsLeftUncomputed) {
  const std::map<std::string, std::string> partial = {{"ol_ip_rx_csum_set_partial", "true"}};
  // The dummy computes what it advertises...
  EXPECT_EQ(ToHex(Through(partial, {{"ol_ip_tx_csum", "true"}}).frame), kR1);
  // ...unless disabled: the IPv4 checksum stays as it came (433c), while the
  // TCP one, never partial, was updated incrementally.
  const Sent off =
      Through(partial, {{"ol_ip_tx_csum", "true"}, {"ol_ip_tx_csum_disabled", "true"}});
  EXPECT_EQ(ToHex(off.frame), Sub(kR1Stale, "6b72", "e572"));
  EXPECT_EQ(off.offloads.ip(), CsumStatus::kPartial);
  // "_disabled" false is the same as absent.
  EXPECT_EQ(
      ToHex(
          Through(partial, {{"ol_ip_tx_csum", "true"}, {"ol_ip_tx_csum_disabled", "false"}}).frame),
      kR1);
}

TEST(PipelineConfigEdges, ForcedRxStatusOrder) {
  // A status stays bad through the rewrite (incremental update, rule M) and
  // is handed over bad; good or partial become partial and are completed.
  auto ip_out = [](const std::map<std::string, std::string>& p1, const RxMeta& meta = {}) {
    return Through(p1, {}, meta).offloads.ip();
  };
  EXPECT_EQ(ip_out({{"ol_ip_rx_csum_set_bad", "true"}}), CsumStatus::kBad);
  EXPECT_EQ(ip_out({{"ol_ip_rx_csum_set_good", "false"}, {"ol_ip_rx_csum_set_bad", "true"}}),
            CsumStatus::kBad);
  EXPECT_EQ(ip_out({{"ol_ip_rx_csum_set_good", "true"}, {"ol_ip_rx_csum_set_bad", "true"}}),
            CsumStatus::kGood);
  EXPECT_EQ(ip_out({{"ol_ip_rx_csum_set_bad", "true"}, {"ol_ip_rx_csum_set_partial", "true"}}),
            CsumStatus::kBad);
  // The receive metadata overrides the port's option.
  EXPECT_EQ(ip_out({{"ol_ip_rx_csum_set_partial", "true"}}, RxMeta{.ip = CsumStatus::kBad}),
            CsumStatus::kBad);
  EXPECT_EQ(ip_out({}, RxMeta{.ip = CsumStatus::kBad}), CsumStatus::kBad);
  EXPECT_EQ(ip_out({}), CsumStatus::kUnknown);
}

TEST(PipelineConfigEdges, BadIpCsumNeedsAnIpv4Header) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddFlow("actions=drop");
  const Bytes arp = FromHex(
      "020000000002020000000001080600010800060400010200000000010a0000010000000000000a000002");
  EXPECT_THROW(br.Receive("p1", arp, RxMeta{.bad_ip_csum = true}), Error);
  Packet p(arp);
  try {
    ComposeBadIpCsum(p);
    ADD_FAILURE() << "an ARP frame got an IPv4 checksum";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bad_ip_csum: the frame has no IPv4 header");
  }
  EXPECT_EQ(p.bytes(), arp);
}

TEST(PipelineConfigEdges, ATapGuestTakesTsoWhole) {
  Pipeline br(PipelineConfig{.userspace_tso = true});
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "guest", .profile = "tap"});
  br.AddFlow("in_port=p1,actions=output:guest");
  const std::vector<Sent> out =
      br.Receive("p1", FromHex(testing::R7Frame()), RxMeta{.tso_segsz = 500});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 14u + 20u + 20u + 2000u);
  EXPECT_EQ(out[0].tso_segsz, 500);
}

TEST(PipelineConfigEdges, ReceivePacketOnAlternatingPorts) {
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("in_port=p1,actions=output:p3");
  br.AddFlow("in_port=p2,actions=output:p1");
  for (int round = 0; round < 2; round++) {
    auto a = br.ReceivePacket("p1", Packet(FromHex(kFrameG)));
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].port, "p3");
    auto b = br.ReceivePacket("p2", Packet(FromHex(kFrameG)));
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].port, "p1");
  }
}

}  // namespace
}  // namespace offlab
