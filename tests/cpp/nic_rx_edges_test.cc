// SPDX-License-Identifier: Apache-2.0
//
// NicReceive (models/src/nic/nic.cc) on frames whose headers a NIC cannot
// check. A NIC reports an L4 checksum status only for a TCP, UDP or SCTP
// header it parsed whole (DPDK rte_net_get_ptype gives no L4 packet type for
// a header cut short, and the PMDs set RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN then,
// lib/mbuf/rte_mbuf_core.h); ICMP has no L4 checksum offload at all; a
// non-IP frame has no IP status. In a tunnel, the inner headers are checked
// only when the NIC finds an inner Ethernet frame after the tunnel header.
// The profile here validates every level (as rx_test.cc's hand-built ones).
// Frames: G and R2 of the reference (test_util.h), R3's VXLAN header (the
// OVS tunnel-push-pop.at encapsulation of R2, outer checksums 339e / bf4d).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/bytes.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::Sub;

NicProfile AllLevels() {
  NicProfile prof;
  prof.name = "all";
  const RxValidation all{.outer_ip = true, .outer_l4 = true, .inner_ip = true, .inner_l4 = true};
  prof.rx_plain = prof.rx_vxlan = prof.rx_geneve = prof.rx_gre = all;
  return prof;
}

RxStatus Rx(const std::string& hex) {
  RxStatus st;
  const Packet p = NicReceive(FromHex(hex), AllLevels(), &st);
  // netdev-dpdk keeps the outer pair only.
  EXPECT_EQ(p.offloads.ip(), st.ip);
  EXPECT_EQ(p.offloads.l4(), st.l4);
  EXPECT_EQ(p.l3_ofs, kNoOffset);
  return st;
}

// An IPv4 header (10.0.0.1 > 10.0.0.2, id 7) of protocol `proto` whose total
// length gives `l4_len` bytes of L4, its checksum right, then `l4` (hex).
std::string Ip4(uint8_t proto, size_t l4_len, const std::string& l4) {
  Bytes f =
      FromHex(H("020000000002020000000001 0800 45000000 0007 0000 40 00 0000"
                "0a000001 0a000002" +
                l4));
  f[23] = proto;
  testing::Put16(f, 16, static_cast<uint16_t>(20 + l4_len));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(f.data() + 14, 20)));
  return ToHex(f);
}

TEST(NicRxEdges, L4HeadersCutShortHaveNoStatus) {
  // TCP: 10 of 20 bytes; UDP: 6 of 8; SCTP: 10 of 12 (the frame padded on).
  const std::string pad(2 * 20, '0');
  for (const auto& [proto, len] : {std::pair{6, 10}, {17, 6}, {132, 10}}) {
    SCOPED_TRACE(proto);
    const RxStatus st = Rx(Ip4(static_cast<uint8_t>(proto), len, pad));
    EXPECT_EQ(st.ip, CsumStatus::kGood);
    EXPECT_EQ(st.l4, CsumStatus::kUnknown);
    EXPECT_EQ(st.tunnel, TunnelType::kNone);
  }
  // A whole UDP header with a wrong checksum is checked: bad.
  EXPECT_EQ(Rx(Ip4(17, 8, "1388 0035 0008 1234")).l4, CsumStatus::kBad);
}

TEST(NicRxEdges, IcmpAndNonIpHaveNoL4Status) {
  // ICMP echo request, checksum right or not: no L4 checksum offload.
  const RxStatus icmp = Rx(Ip4(1, 8, "0800 f7ff 0000 0000"));
  EXPECT_EQ(icmp.ip, CsumStatus::kGood);
  EXPECT_EQ(icmp.l4, CsumStatus::kUnknown);
  // ARP.
  const RxStatus arp =
      Rx("020000000002020000000001080600010800060400010200000000010a0000010000000000000a000002");
  EXPECT_EQ(arp.ip, CsumStatus::kUnknown);
  EXPECT_EQ(arp.l4, CsumStatus::kUnknown);
}

// R3's outer headers with UDP length and IP total length for `inner`.
std::string Vxlan(const std::string& inner) {
  const size_t udp_len = 16 + inner.size() / 2;
  Bytes f = FromHex(H("aa66aa660001aa66aa6600000800 45000000 0000 4000 40 11 0000"
                      "010102580101025c e01312b5 0000 0000 0800000000007b00") +
                    inner);
  testing::Put16(f, 16, static_cast<uint16_t>(20 + udp_len));
  testing::Put16(f, 24, static_cast<uint16_t>(~testing::OracleSum(f.data() + 14, 20)));
  testing::Put16(f, 38, static_cast<uint16_t>(udp_len));
  return ToHex(f);
}

TEST(NicRxEdges, VxlanInnerLevels) {
  // R3 as OVS sends it: every checksum right.
  const RxStatus r3 = Rx(testing::R3Outer("339e", "bf4d") + testing::kFrameR2);
  EXPECT_EQ(r3.tunnel, TunnelType::kVxlan);
  EXPECT_EQ(r3.ip, CsumStatus::kGood);
  EXPECT_EQ(r3.l4, CsumStatus::kGood);
  EXPECT_EQ(r3.inner_ip, CsumStatus::kGood);
  EXPECT_EQ(r3.inner_l4, CsumStatus::kGood);
  // The inner TCP checksum broken (7715 -> 7716); the outer UDP checksum 0.
  const RxStatus bad = Rx(Vxlan(Sub(testing::kFrameR2, "7715", "7716")));
  EXPECT_EQ(bad.l4, CsumStatus::kGood);
  EXPECT_EQ(bad.inner_ip, CsumStatus::kGood);
  EXPECT_EQ(bad.inner_l4, CsumStatus::kBad);
  // 13 bytes after the VXLAN header: no inner frame, nothing inner checked.
  const RxStatus cut = Rx(Vxlan("00112233445566778899aabbcc"));
  EXPECT_EQ(cut.tunnel, TunnelType::kVxlan);
  EXPECT_EQ(cut.ip, CsumStatus::kGood);
  EXPECT_EQ(cut.inner_ip, CsumStatus::kUnknown);
  EXPECT_EQ(cut.inner_l4, CsumStatus::kUnknown);
  // An inner ARP frame: no inner IP or L4 to check.
  const RxStatus arp = Rx(Vxlan(
      "020000000002020000000001080600010800060400010200000000010a0000010000000000000a000002"));
  EXPECT_EQ(arp.inner_ip, CsumStatus::kUnknown);
  EXPECT_EQ(arp.inner_l4, CsumStatus::kUnknown);
}

}  // namespace
}  // namespace offlab
