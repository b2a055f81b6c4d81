// skb_mac_gso_segment's dispatch (net/core/gso.c, af_inet.c inet_gso_segment,
// ip6_offload.c ipv6_gso_segment at v6.18): a protocol with no GSO handler
// fails the skb (-EPROTONOSUPPORT: validate_xmit_skb drops it), the ones the
// kernel has but the model does not (GRE, IP-in-IP, ESP, SCTP, UDP_L4) are
// refused and counted as such, and before v6.18 a fixed IPv4 ID without DF
// fails the segmentation (v6.12 af_inet.c:1409-1416). Frames are the GSO test
// frames (plain-loop checksums).
#include <gtest/gtest.h>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/gso_segment.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

const DeviceFeatures kNoTso = Dev(netif::kSg | netif::kIpCsum | netif::kIpv6Csum);

// ValidateXmitSkb of `s` on a device without TSO, with its counters.
size_t Segments(const SkBuff& s, Counters* c, KernelVersion kv = kLabKernel) {
  return ValidateXmitSkb(s, kNoTso, XmitOptions{}, kv, c).size();
}

TEST(KernelGsoDispatch, ProtocolsWithoutAModelledHandler) {
  for (bool v6 : {false, true}) {
    const size_t proto_ofs = v6 ? kL3 + 6 : kL3 + 9;
    // The kernel's other handlers: GRE, IPIP, IPv6-in-IP, ESP, SCTP.
    for (uint8_t proto : {47, 4, 41, 50, 132}) {
      SkBuff s = GsoSkb(v6, 3000);
      s.pkt.data()[proto_ofs] = proto;
      Counters c;
      EXPECT_EQ(Segments(s, &c), 0u) << v6 << " " << int{proto};
      EXPECT_EQ(c.Get("gso_not_modelled"), 1u) << int{proto};
    }
    // No handler at all.
    SkBuff none = GsoSkb(v6, 3000);
    none.pkt.data()[proto_ofs] = 200;
    Counters c;
    EXPECT_EQ(Segments(none, &c), 0u);
    EXPECT_EQ(c.Get("gso_not_modelled"), 0u);
    EXPECT_EQ(c.Get("gso_error"), 1u);
    // UDP GSO of a datagram (UDP_L4): the kernel's, not the model's.
    SkBuff udp = GsoSkb(v6, 3000);
    udp.pkt.data()[proto_ofs] = 17;
    udp.gso_type = gso::kUdpL4;
    udp.csum_offset = 6;
    Counters u;
    EXPECT_EQ(Segments(udp, &u), 0u);
    EXPECT_EQ(u.Get("gso_not_modelled"), 1u);
  }
  // A network protocol without a handler (ARP's ethertype).
  SkBuff arp = GsoSkb(false, 3000);
  arp.pkt.data()[12] = 0x08;
  arp.pkt.data()[13] = 0x06;
  Counters c;
  EXPECT_EQ(Segments(arp, &c), 0u);
  EXPECT_EQ(c.Get("gso_error"), 1u);
}

TEST(KernelGsoDispatch, NoNetworkProtocolIsInvalidNotUnsupported) {
  // skb_mac_gso_segment: skb_network_protocol returns 0 when a VLAN tag's
  // next EtherType lies past the data (vlan_get_protocol_and_depth), and
  // that is -EINVAL; an EtherType with no handler is -EPROTONOSUPPORT.
  const DeviceFeatures dev = kNoTso;
  SkBuff cut = GsoSkb(false, 3000);
  cut.pkt.data()[12] = 0x81;  // 802.1Q: the next EtherType would be at 16
  cut.pkt.data()[13] = 0x00;
  cut.pkt.Resize(16);
  EXPECT_EQ(SkbGsoSegment(cut, 0, dev, XmitOptions{}, kLabKernel, nullptr).err, gso_err::kInval);
  SkBuff arp = GsoSkb(false, 3000);
  arp.pkt.data()[12] = 0x08;
  arp.pkt.data()[13] = 0x06;
  EXPECT_EQ(SkbGsoSegment(arp, 0, dev, XmitOptions{}, kLabKernel, nullptr).err,
            gso_err::kProtoNoSupport);
}

TEST(KernelGsoDispatch, TcpGsoTypeOverUdpIsInvalid) {
  // v6.18 net/ipv4/udp_offload.c udp4_ufo_fragment (and udp6_ufo_fragment):
  // segs starts as ERR_PTR(-EINVAL); not a UDP tunnel and "if
  // (!(skb_shinfo(skb)->gso_type & (SKB_GSO_UDP | SKB_GSO_UDP_L4))) goto
  // out;": a TCP GSO type over an IP header that says UDP is -EINVAL, not an
  // unsupported protocol.
  for (bool v6 : {false, true}) {
    SkBuff s = GsoSkb(v6, 3000);
    s.pkt.data()[v6 ? kL3 + 6 : kL3 + 9] = 17;
    Counters c;
    EXPECT_EQ(SkbGsoSegment(s, 0, kNoTso, XmitOptions{}, kLabKernel, &c).err, gso_err::kInval)
        << v6;
    EXPECT_EQ(c.Get("gso_not_modelled"), 0u) << v6;
  }
}

TEST(KernelGsoDispatch, FixedIdWithoutDfFailsBefore618) {
  const KernelVersion v612{6, 12};
  SkBuff s = GsoSkb(false, 3000);
  s.gso_type |= gso::kTcpFixedid;
  // With DF (the test frames set it): segmented, every segment the same ID.
  Counters ok;
  EXPECT_EQ(Segments(s, &ok, v612), 3u);
  // Without DF: refused.
  s.pkt.data()[kL3 + 6] &= static_cast<uint8_t>(~0x40);
  Counters bad;
  EXPECT_EQ(Segments(s, &bad, v612), 0u);
  EXPECT_EQ(bad.Get("gso_error"), 1u);
  // The last release of that rule and the first of 6.18's, where
  // SKB_GSO_TCP_FIXEDID is bit 30 and DF no longer matters: bit 3 means
  // nothing there, the IDs increment and the skb is segmented.
  Counters v617, v618;
  EXPECT_EQ(Segments(s, &v617, KernelVersion{6, 17}), 0u);
  EXPECT_EQ(v617.Get("gso_error"), 1u);
  EXPECT_EQ(Segments(s, &v618, KernelVersion{6, 18}), 3u);
  EXPECT_EQ(v618.Get("gso_error"), 0u);
}

}  // namespace
}  // namespace offlab::kernel
