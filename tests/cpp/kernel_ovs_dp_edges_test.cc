// Edges of the OVS kernel datapath's receive and output (models/src/linux/
// ovs_dp.cc): skb_vlan_untag of a COMPLETE skb whose sum starts behind the
// tag or inside it, a tagged frame too short to untag, the flow key's IPv6
// walk stopping at NEXTHDR_NONE, at a cut-short extension header and at
// one that claims more than the packet, a cut-short IPv6 header, and a
// trunc cut larger than the frame. Sums by test_util.h's plain-loop oracle.
//
// Source: torvalds/linux v6.18 net/core/skbuff.c skb_vlan_untag
// (skb_reorder_vlan_header, skb_pull_rcsum of VLAN_HLEN),
// net/openvswitch/vport-netdev.c netdev_port_receive (skb_push +
// skb_postpush_rcsum back to the MAC header), net/openvswitch/flow.c
// parse_ipv6hdr (check_header, ipv6_find_hdr, -EPROTO) and key_extract,
// net/ipv6/exthdrs_core.c ipv6_find_hdr, net/openvswitch/actions.c do_output
// (pskb_trim to max(len - cutlen, ovs_mac_header_len)).
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/ovs_dp.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OracleSum;

const std::string kTcp = "d478145100000001000000005010010000000000";

// `f` with an 802.1Q tag (TCI 0x0064) after the MAC addresses.
Bytes Tagged(Bytes f) {
  const Bytes tag = {0x81, 0x00, 0x00, 0x64};
  f.insert(f.begin() + 12, tag.begin(), tag.end());
  return f;
}

TEST(KernelOvsDpEdges, UntagACompleteSumThatStartsBehindTheTag) {
  // The driver's sum starts at the TCP header (34 in the tagged frame):
  // the tag leaves before it, the start moves to 30, and the push back to
  // the MAC header adds the 30 untagged header bytes: the sum then covers
  // the whole untagged frame.
  const Bytes plain = Ipv4Frame(6, kTcp + "0102");
  SkBuff s;
  s.pkt = Packet(Tagged(plain));
  s.ip_summed = IpSummed::kComplete;
  s.csum_from = 38;
  s.csum = OracleSum(s.pkt.data() + 38, s.len() - 38);
  const OvsSkb o = OvsVportReceive(std::move(s));
  EXPECT_TRUE(o.vlan.present);
  EXPECT_EQ(o.vlan.tci, 0x0064);
  ASSERT_EQ(o.skb.pkt.bytes(), plain);
  ASSERT_EQ(o.skb.ip_summed, IpSummed::kComplete);
  EXPECT_EQ(o.skb.csum_from, 0);
  EXPECT_EQ(o.skb.csum % 0xffff, OracleSum(plain.data(), plain.size()) % 0xffff);
}

TEST(KernelOvsDpEdges, UntagASumStartingInsideTheTagDropsIt) {
  // skb->data between the TPID and the inner type is no state the kernel
  // reaches; the model gives up the COMPLETE sum rather than guess.
  SkBuff s;
  s.pkt = Packet(Tagged(Ipv4Frame(6, kTcp)));
  s.ip_summed = IpSummed::kComplete;
  s.csum_from = 16;
  s.csum = 0x1234;
  const OvsSkb o = OvsVportReceive(std::move(s));
  EXPECT_TRUE(o.vlan.present);
  EXPECT_EQ(o.skb.ip_summed, IpSummed::kNone);
}

TEST(KernelOvsDpEdges, ATaggedFrameTooShortToUntagKeepsItsTag) {
  // skb_vlan_untag needs the 4-byte tag (pskb_may_pull VLAN_HLEN): a frame
  // of 17 bytes keeps it in band; the key's type is the TPID's inner type
  // field (cut short: 0x81 only is there, so the tag is not parsed).
  Bytes f = Tagged(Ipv4Frame(6, kTcp));
  f.resize(17);
  SkBuff s;
  s.pkt = Packet(f);
  const OvsSkb o = OvsVportReceive(std::move(s));
  EXPECT_FALSE(o.vlan.present);
  EXPECT_EQ(o.skb.pkt.bytes(), f);
}

OvsSkb Receive(const Bytes& f) {
  SkBuff s;
  s.pkt = Packet(f);
  return OvsVportReceive(std::move(s));
}

TEST(KernelOvsDpEdges, TheIpv6WalkStopsAtNoneShortAndOverlongHeaders) {
  // NEXTHDR_NONE: ipv6_find_hdr breaks there (target -1): proto 59, the
  // transport header right after the IPv6 header.
  OvsSkb none = Receive(Ipv6Frame(59, "", ""));
  EXPECT_EQ(none.key.ip_proto, 59);
  EXPECT_EQ(none.skb.pkt.l4_ofs, 54);
  // One byte of a hop-by-hop header: its 2-byte option header cannot be
  // read, ipv6_find_hdr fails (-EBADMSG), parse_ipv6hdr returns -EPROTO:
  // proto stays NEXTHDR_NONE and key_extract puts the transport header at
  // the network header.
  OvsSkb cut = Receive(Ipv6Frame(0, "06", ""));
  EXPECT_EQ(cut.key.ip_proto, 59);
  EXPECT_EQ(cut.skb.pkt.l4_ofs, 14);
  // Four bytes of it: the option header is read (next 6, length 8) and the
  // walk ends on TCP at 62, past the end of the packet.
  OvsSkb four = Receive(Ipv6Frame(0, "06000000", ""));
  EXPECT_EQ(four.key.ip_proto, 6);
  EXPECT_EQ(four.skb.pkt.l4_ofs, kNoOffset);
  // One that claims (255 + 1) * 8 bytes: no transport header in the packet.
  OvsSkb big = Receive(Ipv6Frame(0, "06ff000000000000", kTcp));
  EXPECT_EQ(big.key.ip_proto, 6);
  EXPECT_EQ(big.skb.pkt.l4_ofs, kNoOffset);
  // A destination-options header of 16 bytes before TCP: TCP at 70.
  OvsSkb dst = Receive(Ipv6Frame(60, "06010000000000000000000000000000", kTcp));
  EXPECT_EQ(dst.key.ip_proto, 6);
  EXPECT_EQ(dst.skb.pkt.l4_ofs, 70);
}

TEST(KernelOvsDpEdges, ACutShortIpv6HeaderPutsTheTransportHeaderAtTheNetworkHeader) {
  // parse_ipv6hdr's check_header fails (-EINVAL): key_extract zeroes the IP
  // key and sets the transport header to the network header.
  Bytes f = Ipv6Frame(6, "", kTcp);
  f.resize(14 + 30);
  const OvsSkb o = Receive(f);
  EXPECT_EQ(o.key.eth_type, 0x86dd);
  EXPECT_EQ(o.key.ip_proto, 0);
  EXPECT_EQ(o.skb.pkt.l3_ofs, 14);
  EXPECT_EQ(o.skb.pkt.l4_ofs, 14);
}

TEST(KernelOvsDpEdges, ATruncBeyondTheFrameKeepsTheMacHeader) {
  const Bytes f = Ipv4Frame(6, kTcp);
  OvsSkb s = Receive(f);
  s.cutlen = 1000;
  const OvsOutput out = OvsDoOutput(std::move(s), OvsVport{});
  ASSERT_TRUE(out.handed_to_dev);
  EXPECT_EQ(out.skb.skb.pkt.bytes(), Bytes(f.begin(), f.begin() + 14));
  EXPECT_EQ(out.skb.cutlen, 0u);
  // A cut of 10 keeps len - 10.
  OvsSkb t = Receive(f);
  t.cutlen = 10;
  EXPECT_EQ(OvsDoOutput(std::move(t), OvsVport{}).skb.skb.len(), f.size() - 10);
}

}  // namespace
}  // namespace offlab::kernel
