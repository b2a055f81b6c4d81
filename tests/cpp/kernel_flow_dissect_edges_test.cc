// Edges of the basic flow dissection the virtio-net header code relies on
// (FlowDissectBasic, models/src/linux/virtio_net_endpoints.cc): VLAN tags,
// IPv4 fragments, IPv6 extension and fragment headers, IP-in-IP, ARP/MPLS,
// the header-count limit and the refusals of cut-short headers. The rules
// are those of net/core/flow_dissector.c __skb_flow_dissect with the basic
// keys and no flags; expected offsets are counted by hand from the frames.
#include <gtest/gtest.h>

#include <cstdio>

#include "kernel_dissect_frames.h"
#include "kernel_test_skb.h"
#include "offlab/linux/virtio_net.h"

namespace offlab::kernel {
namespace {

using offlab::testing::H;
using offlab::testing::Ipv4Frame;
using offlab::testing::Ipv6Frame;

using dissect_frames::kArp;
using dissect_frames::kTcp;
using dissect_frames::kUdp;
using dissect_frames::Skb;
using dissect_frames::Tagged;

struct Dissected {
  bool ok = false;
  uint8_t proto = 0xee;
  uint16_t thoff = 0xeeee;
};

Dissected Dissect(const Bytes& f, uint16_t proto, size_t nhoff = 14) {
  Dissected d;
  const SkBuff s = Skb(f);
  d.ok = FlowDissectBasic(s, proto, nhoff, &d.proto, &d.thoff);
  return d;
}

// A bare IPv4 header (no options, checksum not summed) for `proto`.
std::string InnerIpv4(uint8_t proto, size_t l4len) {
  char ip[48];
  std::snprintf(ip, sizeof ip, "4500%04zx0000000040%02x0000c0000201c0000202", 20 + l4len,
                unsigned{proto});
  return ip;
}

TEST(KernelFlowDissectEdges, VlanTagsAreSkippedToTheInnerType) {
  // ETH_P_8021Q / ETH_P_8021AD: the tag's encapsulated type, nhoff += 4
  // (PROTO_AGAIN). One tag: IPv4 at 18, TCP at 38; two: TCP at 42.
  const Bytes one = Tagged(Ipv4Frame(6, kTcp), "8100 0064");
  Dissected d = Dissect(one, 0x8100);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 38);
  const Bytes two = Tagged(Ipv4Frame(17, kUdp), "88a8 0064 8100 00c8");
  d = Dissect(two, 0x88a8);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 17);
  EXPECT_EQ(d.thoff, 42);
}

TEST(KernelFlowDissectEdges, ATruncatedTagIsOutBad) {
  // The 4-byte vlan_hdr must be readable (__skb_header_pointer NULL ->
  // FLOW_DISSECT_RET_OUT_BAD): 17 bytes hold only 3 of it.
  const Bytes f = FromHex(H(offlab::testing::kKernelEth + "8100 0064 08"));
  EXPECT_FALSE(Dissect(f, 0x8100).ok);
}

TEST(KernelFlowDissectEdges, UnknownEthertypeIsOutBad) {
  // The default case of the protocol switch: FLOW_DISSECT_RET_OUT_BAD
  // (0x88b5, the IEEE local experimental type).
  Bytes f = Ipv4Frame(6, kTcp);
  f[12] = 0x88, f[13] = 0xb5;
  EXPECT_FALSE(Dissect(f, 0x88b5).ok);
}

TEST(KernelFlowDissectEdges, AnIpv4FragmentEndsTheDissectionAfterItsHeader) {
  // ip_is_fragment: first fragment (MF) and later ones both give OUT_GOOD
  // with ip_proto and thoff past the IPv4 header; the payload is not
  // followed even when it is IP-in-IP (it would be for a whole packet).
  const std::string inner = InnerIpv4(6, 20) + kTcp;
  for (uint16_t frag : {uint16_t{0x2000}, uint16_t{0x0001}}) {
    Dissected d = Dissect(Ipv4Frame(4, inner, frag), 0x0800);
    EXPECT_TRUE(d.ok) << frag;
    EXPECT_EQ(d.proto, 4) << frag;
    EXPECT_EQ(d.thoff, 34) << frag;
  }
  // Not a fragment (DF only): IPIP is followed to the inner TCP at 54.
  Dissected whole = Dissect(Ipv4Frame(4, inner, 0x4000), 0x0800);
  EXPECT_TRUE(whole.ok);
  EXPECT_EQ(whole.proto, 6);
  EXPECT_EQ(whole.thoff, 54);
}

TEST(KernelFlowDissectEdges, IpInIpIsFollowed) {
  // IPPROTO_IPV6 (41) in IPv4: the inner IPv6 header at 34, UDP at 74.
  const std::string v6 =
      "6000000000081140 20010db8000000000000000000000001 20010db8000000000000000000000002";
  Dissected d = Dissect(Ipv4Frame(41, H(v6) + H(kUdp)), 0x0800);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 17);
  EXPECT_EQ(d.thoff, 74);
  // IPv4 in IPv6: IPv6 header at 14, inner IPv4 at 54, TCP at 74.
  d = Dissect(Ipv6Frame(4, "", InnerIpv4(6, 20) + kTcp), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 74);
}

TEST(KernelFlowDissectEdges, Ipv6OptionHeadersAreSkippedByTheirLength) {
  // NEXTHDR_HOP / ROUTING / DEST: nhoff += (hdrlen + 1) << 3. Hop-by-hop
  // (8 bytes, next DEST), destination options with hdrlen 1 (16 bytes, next
  // ROUTING), routing (8 bytes, next TCP): TCP at 14 + 40 + 32 = 86.
  const std::string ext =
      "3c00 000000000000"
      "2b01 0000000000000000000000000000"
      "0600 000000000000";
  Dissected d = Dissect(Ipv6Frame(0, H(ext), kTcp), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 86);
}

TEST(KernelFlowDissectEdges, Ipv6OptionHeaderNeedsItsFirstTwoBytes) {
  // The 2-byte opthdr read: none or one byte after the fixed header is
  // OUT_BAD; two bytes are enough (the skip then runs past the end and
  // thoff is clamped to skb->len).
  EXPECT_FALSE(Dissect(Ipv6Frame(0, "", ""), 0x86dd).ok);
  EXPECT_FALSE(Dissect(Ipv6Frame(0, "06", ""), 0x86dd).ok);
  Dissected d = Dissect(Ipv6Frame(0, "0600", ""), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 56);
}

TEST(KernelFlowDissectEdges, AnIpv6FragmentHeaderEndsTheDissection) {
  // NEXTHDR_FRAGMENT: ip_proto = its next header, nhoff += 8, OUT_GOOD (no
  // FLOW_DISSECTOR_F_PARSE_1ST_FRAG), even when what follows is another
  // extension header.
  const std::string frag_then_dest =
      "3c000001 00000001"
      "0600 000000000000";
  Dissected d = Dissect(Ipv6Frame(44, H(frag_then_dest), kTcp), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 60);
  EXPECT_EQ(d.thoff, 62);
  // A fragment header cut to 7 bytes is OUT_BAD.
  EXPECT_FALSE(Dissect(Ipv6Frame(44, "11000001000000", ""), 0x86dd).ok);
}

TEST(KernelFlowDissectEdges, ExtensionHeaderNumbersMeanNothingInIpv4) {
  // The HOP/ROUTING/DEST and FRAGMENT cases break out unless proto is
  // ETH_P_IPV6: in IPv4 protocol 0 or 44 is the transport protocol, at 34.
  for (uint8_t p : {uint8_t{0}, uint8_t{44}}) {
    Dissected d = Dissect(Ipv4Frame(p, "0600000000000000" + kTcp), 0x0800);
    EXPECT_TRUE(d.ok) << int{p};
    EXPECT_EQ(d.proto, p);
    EXPECT_EQ(d.thoff, 34) << int{p};
  }
}

TEST(KernelFlowDissectEdges, ShortIpv6HeaderIsOutBad) {
  Bytes f = Ipv6Frame(6, "", kTcp);
  f.resize(14 + 39);
  EXPECT_FALSE(Dissect(f, 0x86dd).ok);
  f.push_back(0x01);  // the whole 40-byte header, nothing after it
  Dissected d = Dissect(f, 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.thoff, 54);
}

TEST(KernelFlowDissectEdges, ArpAndMplsDissectGoodAtTheNetworkHeader) {
  // __skb_flow_dissect_arp and __skb_flow_dissect_mpls return
  // FLOW_DISSECT_RET_OUT_GOOD at once when the dissector has no ARP / MPLS
  // key, and the basic dissector (flow_keys_basic_dissector_keys: CONTROL,
  // BASIC) has none: true, ip_proto 0, thoff = nhoff.
  const Bytes arp = FromHex(H(offlab::testing::kKernelEth + "0806" + kArp));
  for (uint16_t type : {uint16_t{0x0806}, uint16_t{0x8035}, uint16_t{0x8847}, uint16_t{0x8848}}) {
    Dissected d = Dissect(arp, type);
    EXPECT_TRUE(d.ok) << type;
    EXPECT_EQ(d.proto, 0) << type;
    EXPECT_EQ(d.thoff, 14) << type;
  }
  // Behind a tag the network header (and so thoff) is at 18.
  Dissected d = Dissect(Tagged(arp, "8100 0064"), 0x8100);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.thoff, 18);
  // A TAP write of the ARP frame: skb_probe_transport_header sets the
  // transport header at the network header.
  TapConfig plain;
  plain.vnet_hdr = false;
  SkBuff s;
  ASSERT_EQ(TapWrite(arp, VnetHdrTunnel{}, plain, &s), "");
  EXPECT_EQ(s.pkt.l3_ofs, 14);
  EXPECT_EQ(s.pkt.l4_ofs, 14);
}

// IPv6 with `n` destination-options headers (8 bytes each, the last one's
// next header TCP) and a TCP header.
Bytes DestOptsChain(int n) {
  std::string ext;
  for (int i = 0; i < n; ++i) ext += (i + 1 < n ? "3c00" : "0600") + std::string(12, '0');
  return Ipv6Frame(60, ext, kTcp);
}

TEST(KernelFlowDissectEdges, AtMostFifteenHeadersAreFollowed) {
  // MAX_FLOW_DISSECT_HDRS 15: each PROTO_AGAIN / IPPROTO_AGAIN counts one
  // (skb_flow_dissect_allowed, ++num_hdrs <= 15); when one more is refused
  // the dissection ends OUT_GOOD with ip_proto and nhoff as they stand.
  // 15 headers: all followed, TCP at 54 + 15 * 8 = 174.
  Dissected d = Dissect(DestOptsChain(15), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 174);
  // 16: the 16th is read (ip_proto 6, nhoff 182) but not followed; the same
  // place as following it.
  d = Dissect(DestOptsChain(16), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 6);
  EXPECT_EQ(d.thoff, 182);
  // 17: the dissection stops after the 16th with ip_proto 60 (the 17th
  // header), thoff 182, never reaching the TCP header at 190.
  d = Dissect(DestOptsChain(17), 0x86dd);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.proto, 60);
  EXPECT_EQ(d.thoff, 182);
}

}  // namespace
}  // namespace offlab::kernel
