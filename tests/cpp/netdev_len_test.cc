// Frames the datapath refuses for their length, with the counter OVS names
// them by. Expected values are derived by hand from OVS's source at
// d6a632a9b (the checks are the same in Debian's OVS 3.1 but for the TSO
// exemption): lib/dpif-netdev.c:7344-7348 (dfc_processing),
// lib/netdev-dummy.c:1367-1384 (netdev_dummy_send), lib/netdev-dpdk.c:105
// and 3043-3064 (MTU_TO_FRAME_LEN, netdev_dpdk_filter_packet_len),
// lib/flow.c:683-749 and 1068 (ipv4/ipv6_sanity_check, UDP) and
// lib/conntrack.c:1832-1842 (check_l4_udp).
#include <gtest/gtest.h>

#include <string>

#include "offlab/net/error.h"
#include "offlab/ovs/pipeline.h"
#include "test_util.h"

namespace offlab {
namespace {

using testing::H;
using testing::kFrameG;  // 118 bytes: Ethernet, IPv4 total length 104, TCP, payload

// A frame of `size` bytes: kFrameG cut or padded with zeros.
Bytes Sized(size_t size, const std::string& hex = kFrameG) {
  Bytes b = FromHex(hex);
  b.resize(size, 0);
  return b;
}

struct Bridge {
  Pipeline br;
  explicit Bridge(const PortConfig& p2 = {.name = "p2"}, PipelineConfig cfg = {}) : br(cfg) {
    br.AddPort({.name = "p1"});
    br.AddPort(p2);
    br.AddFlow("in_port=p1,actions=output:p2");
  }
  size_t Sent(const Bytes& frame, const RxMeta& meta = {}) {
    return br.Receive("p1", frame, meta).size();
  }
  uint64_t Count(const char* name) { return br.counters().Get(name); }
};

TEST(NetdevLen, RuntFramesAreDroppedOnReceive) {
  // dfc_processing: dp_packet_size(packet) < ETH_HEADER_LEN (14) -> deleted,
  // datapath_drop_rx_invalid_packet; 14 bytes pass (netdev_dummy_send sends
  // any size >= ETH_HEADER_LEN).
  Bridge b;
  EXPECT_EQ(b.Sent({}), 0u);
  EXPECT_EQ(b.Count("datapath_drop_rx_invalid_packet"), 1u);
  ASSERT_EQ(b.br.events().size(), 1u);
  EXPECT_EQ(b.br.events()[0],
            "drop: frame of 0 bytes is shorter than an Ethernet header (14 bytes)");
  EXPECT_EQ(b.Sent(Sized(13)), 0u);
  EXPECT_EQ(b.Count("datapath_drop_rx_invalid_packet"), 2u);
  EXPECT_EQ(b.Sent(Sized(14)), 1u);
  EXPECT_EQ(b.Count("datapath_drop_rx_invalid_packet"), 2u);
}

TEST(NetdevLen, RuntFramesAreDroppedOnAnyPortAndOnReceivePacket) {
  Bridge b({.name = "p2", .profile = "connectx6dx"});
  EXPECT_TRUE(b.br.Receive("p2", Sized(6)).empty());
  EXPECT_TRUE(b.br.ReceivePacket("p1", Packet(Sized(1))).empty());
  EXPECT_EQ(b.Count("datapath_drop_rx_invalid_packet"), 2u);
}

TEST(NetdevLen, DummySendRefusesFramesAboveMtuPlusEthernetHeader) {
  // max_size = mtu + ETH_HEADER_LEN = 1514 at the default MTU 1500.
  Bridge b;
  EXPECT_EQ(b.Sent(Sized(1514)), 1u);
  EXPECT_EQ(b.Count("tx_mtu_exceeded_drops"), 0u);
  EXPECT_EQ(b.Sent(Sized(1515)), 0u);
  EXPECT_EQ(b.Count("tx_mtu_exceeded_drops"), 1u);
  ASSERT_FALSE(b.br.events().empty());
  EXPECT_EQ(b.br.events().back(),
            "drop on p2: frame of 1515 bytes exceeds MTU 1500 (at most 1514 bytes without TSO)");
  // The frame of the issue: 70,000 bytes through a plain output flow.
  EXPECT_EQ(b.Sent(Sized(70000)), 0u);
  EXPECT_EQ(b.Count("tx_mtu_exceeded_drops"), 2u);
}

TEST(NetdevLen, DummySendAllowsAVlanTagAboveTheMtu) {
  // eth_type == ETH_TYPE_VLAN: max_size += VLAN_HEADER_LEN (4): 1518.
  const std::string tagged = H("0a8f394fe0738abf7e2f0584 8100 0064 0800") + kFrameG.substr(28);
  Bridge b;
  EXPECT_EQ(b.Sent(Sized(1518, tagged)), 1u);
  EXPECT_EQ(b.Sent(Sized(1519, tagged)), 0u);
  EXPECT_EQ(b.Count("tx_mtu_exceeded_drops"), 1u);
}

TEST(NetdevLen, PortMtuIsConfigurable) {
  Bridge b({.name = "p2", .mtu = 9000});
  EXPECT_EQ(b.Sent(Sized(9014)), 1u);
  EXPECT_EQ(b.Sent(Sized(9015)), 0u);
  // netdev_dummy_set_mtu: DUMMY_MIN_MTU 68 .. DUMMY_MAX_MTU 65535.
  Pipeline br;
  EXPECT_THROW(br.AddPort({.name = "a", .mtu = 67}), Error);
  EXPECT_THROW(br.AddPort({.name = "b", .mtu = 65536}), Error);
  EXPECT_NO_THROW(br.AddPort({.name = "c", .mtu = 68}));
}

TEST(NetdevLen, DpdkSendRefusesFramesAboveMtuToFrameLen) {
  // max_packet_len = MTU_TO_FRAME_LEN(1500) = 1500 + 14 + 4 = 1518; the
  // check is pkt_len > max_packet_len, tagged or not.
  Bridge b({.name = "p2", .profile = "connectx6dx"});
  EXPECT_EQ(b.Sent(Sized(1518)), 1u);
  EXPECT_EQ(b.Sent(Sized(1519)), 0u);
  EXPECT_EQ(b.Count("tx_mtu_exceeded_drops"), 1u);
  Bridge vhost({.name = "p2", .profile = "virtio"});  // netdev_dpdk_vhost_send: the same filter
  EXPECT_EQ(vhost.Sent(Sized(1519)), 0u);
  EXPECT_EQ(vhost.Count("tx_mtu_exceeded_drops"), 1u);
}

TEST(NetdevLen, TsoPacketsPassTheMtuCheck) {
  // A 3000-byte TCP packet with tso_segsz 1000 on a port that takes TSO
  // (netdev-dummy: userspace TSO and ol_tso_segsz) leaves whole.
  Bytes big = Sized(3000);
  big[16] = static_cast<uint8_t>((3000 - 14) >> 8);  // IPv4 total length 2986
  big[17] = static_cast<uint8_t>((3000 - 14) & 0xff);
  RxMeta meta;
  meta.tso_segsz = 1000;
  Bridge tso({.name = "p2", .options = {{"ol_tso_segsz", "1000"}}}, {.userspace_tso = true});
  EXPECT_EQ(tso.Sent(big, meta), 1u);
  EXPECT_EQ(tso.Count("tx_mtu_exceeded_drops"), 0u);
  // Without TSO on the port netdev_send segments it first (3 segments of
  // at most 1000 payload bytes): nothing is too long either.
  Bridge gso({.name = "p2"}, {.userspace_tso = true});
  EXPECT_EQ(gso.Sent(big, meta), 3u);
  EXPECT_EQ(gso.Count("tx_mtu_exceeded_drops"), 0u);
}

TEST(NetdevLen, DummySendStopsAtTheFirstTooLongFrameOfABatch) {
  // Software GSO hands the port one batch: 1054, 1054 and 1000-byte frames.
  // At MTU 1010 netdev-dummy (limit 1024) refuses the first and deletes the
  // rest unsent, the one that would fit too (netdev_dummy_send,
  // lib/netdev-dummy.c:1381-1384); netdev-dpdk (limit 1028, net_pcap: no
  // TSO) filters each frame and sends the last.
  Bytes big = Sized(3000);
  big[16] = static_cast<uint8_t>((3000 - 14) >> 8);
  big[17] = static_cast<uint8_t>((3000 - 14) & 0xff);
  RxMeta meta;
  meta.tso_segsz = 1000;
  Bridge dummy({.name = "p2", .mtu = 1010}, {.userspace_tso = true});
  EXPECT_EQ(dummy.Sent(big, meta), 0u);
  EXPECT_EQ(dummy.Count("tx_mtu_exceeded_drops"), 3u);
  Bridge dpdk({.name = "p2", .profile = "pcap", .mtu = 1010}, {.userspace_tso = true});
  EXPECT_EQ(dpdk.Sent(big, meta), 1u);
  EXPECT_EQ(dpdk.Count("tx_mtu_exceeded_drops"), 2u);
}

TEST(NetdevLen, IpLengthBeyondTheFrameIsCountedAndTheFrameGoesOn) {
  // ipv4_sanity_check: tot_len (104) > size (94) -> miniflow_extract goes to
  // `out` with only L2 fields; the packet is not dropped, so `tcp` does not
  // match it and the catch-all rule forwards it.
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("priority=10,in_port=p1,tcp,actions=output:p2");
  br.AddFlow("priority=0,in_port=p1,actions=output:p3");
  std::vector<Sent> out = br.Receive("p1", Sized(108));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p3");
  EXPECT_EQ(br.counters().Get("miniflow_extract_ipv4_pkt_len_error"), 1u);
  ASSERT_EQ(br.events().size(), 1u);
  EXPECT_EQ(br.events()[0],
            "parse: ipv4: total length inconsistent with frame: no L3/L4 fields "
            "(miniflow_extract_ipv4_pkt_len_error)");
  // Fewer than IP_HEADER_LEN bytes after Ethernet: pkt_too_short.
  EXPECT_EQ(br.Receive("p1", Sized(14 + 19)).size(), 1u);
  EXPECT_EQ(br.counters().Get("miniflow_extract_ipv4_pkt_too_short"), 1u);
  // The whole frame parses: tcp matches.
  out = br.Receive("p1", Sized(118));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p2");
  // More than 65535 bytes after the total length: size - tot_len > UINT16_MAX.
  Pipeline jumbo;
  jumbo.AddPort({.name = "p1"});
  jumbo.AddPort({.name = "p2", .mtu = 65535});
  jumbo.AddFlow("in_port=p1,actions=output:p2");
  (void)jumbo.Receive("p1", Sized(14 + 104 + 65535));
  EXPECT_EQ(jumbo.counters().Get("miniflow_extract_ipv4_pkt_len_error"), 0u);
  (void)jumbo.Receive("p1", Sized(14 + 104 + 65536));
  EXPECT_EQ(jumbo.counters().Get("miniflow_extract_ipv4_pkt_len_error"), 1u);
}

TEST(NetdevLen, Ipv6PayloadLengthBeyondTheFrame) {
  // ipv6_sanity_check: plen + IPV6_HEADER_LEN > size -> pkt_len_error; a
  // header shorter than 40 bytes -> pkt_too_short.
  const std::string v6 =
      H("0a8f394fe0738abf7e2f0584 86dd"
        "60000000 0014 06 40 20010db8000000000000000000000001 20010db8000000000000000000000002"
        "d47814510000000000000000501000000000 0000");
  Bridge b;
  EXPECT_EQ(b.Sent(FromHex(v6)), 1u);
  EXPECT_EQ(b.Count("miniflow_extract_ipv6_pkt_len_error"), 0u);
  EXPECT_EQ(b.Sent(Sized(14 + 40 + 19, v6)), 1u);
  EXPECT_EQ(b.Count("miniflow_extract_ipv6_pkt_len_error"), 1u);
  EXPECT_EQ(b.Sent(Sized(14 + 39, v6)), 1u);
  EXPECT_EQ(b.Count("miniflow_extract_ipv6_pkt_too_short"), 1u);
}

TEST(NetdevLen, UdpLengthBeyondTheFrameIsInvalidOnlyInConntrack) {
  // miniflow_extract reads UDP ports when UDP_HEADER_LEN bytes are there and
  // does not look at udp_len (lib/flow.c:1068): a plain flow forwards it.
  // check_l4_udp: udp_len > size -> not valid, ct_state +inv.
  const std::string ok =
      H("0a8f394fe0738abf7e2f0584 0800"
        "4500001c 00000000 4011 66cf 0a000001 0a000002"
        "04d2 1451 0008 0000");
  const std::string udp = testing::Sub(ok, "04d214510008", "04d214510040");  // udp_len 64
  Pipeline br;
  br.AddPort({.name = "p1"});
  br.AddPort({.name = "p2"});
  br.AddPort({.name = "p3"});
  br.AddFlow("table=0,in_port=p1,udp,actions=ct(table=1)");
  br.AddFlow("table=1,ct_state=+trk+inv,actions=output:p3");
  br.AddFlow("table=1,actions=output:p2");
  std::vector<Sent> out = br.Receive("p1", FromHex(udp));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p3");
  out = br.Receive("p1", FromHex(ok));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].port, "p2");
  Bridge plain;
  EXPECT_EQ(plain.Sent(FromHex(udp)), 1u);
  EXPECT_TRUE(plain.br.counters().values().count("miniflow_extract_ipv4_pkt_len_error") == 0);
}

TEST(NetdevLen, NoLimitWithoutAPort) {
  // SendThroughNic without a limit (trace replay, hw-replay) checks nothing.
  Packet p(Sized(70000));
  EXPECT_EQ(TxLengthRefusal(p, {}), "");
  EXPECT_EQ(MaxFrameLen(p, {.cls = NetdevClass::kLinux, .mtu = 1500}), SIZE_MAX);
}

TEST(NetdevLen, DummyRefusesAFrameShorterThanEthernet) {
  // netdev_dummy_send: "if (size < ETH_HEADER_LEN) { error = EMSGSIZE; ... }";
  // 14 bytes, the header alone, goes.
  const TxLengthLimit dummy{.cls = NetdevClass::kDummy, .mtu = 1500};
  EXPECT_EQ(TxLengthRefusal(Packet(Sized(10)), dummy),
            "frame of 10 bytes is shorter than an Ethernet header (EMSGSIZE)");
  EXPECT_EQ(TxLengthRefusal(Packet(Sized(13)), dummy),
            "frame of 13 bytes is shorter than an Ethernet header (EMSGSIZE)");
  EXPECT_EQ(TxLengthRefusal(Packet(Sized(14)), dummy), "");
}

}  // namespace
}  // namespace offlab
