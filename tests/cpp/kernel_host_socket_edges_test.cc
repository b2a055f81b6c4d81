// Edges of the host layer's local TCP socket skb (models/src/linux/
// host_tx.cc HostSocketSkb) and its names: an IPv6 segment above the MSS
// (TSO of SKB_GSO_TCPV6), a segment with no payload (nothing in page
// frags), an IPv6 TCP header cut short, a frame whose version nibble is not
// its ethertype's, and the names of values outside the enums. Sums by
// test_util.h's plain-loop oracle.
//
// Source: torvalds/linux 7d0a66e4bb90 (v6.18) net/ipv6/tcp_ipv6.c
// __tcp_v6_send_check (CHECKSUM_PARTIAL at the TCP header, offset 16, the
// folded pseudo-header sum in the field), net/ipv4/tcp_output.c
// tcp_set_skb_tso_segs (gso_size mss, DIV_ROUND_UP segments, sk_gso_type
// SKB_GSO_TCPV6 from tcp_v6_connect), net/ipv4/tcp.c tcp_sendmsg_locked
// (payload copied into page frags).
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/host.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::Ipv6Frame;
using testing::OraclePseudo;

const std::string kTcp = "d478145100000001000000005010010000000000";

KernelHost Host() { return MakeKernelHost(BuiltinProfile("e810"), kLabKernel); }

TEST(KernelHostSocketEdges, AnIpv6SegmentAboveTheMssIsATcpv6TsoSkb) {
  KernelHost h = Host();
  h.mss = 1000;
  const Bytes f = Ipv6Frame(6, "", kTcp + std::string(2 * 2500, '4'));
  SkBuff s;
  ASSERT_EQ(HostSocketSkb(h, f, &s), "");
  EXPECT_EQ(s.gso_type, gso::kTcpv6);
  EXPECT_EQ(s.gso_size, 1000);
  EXPECT_EQ(s.gso_segs, 3);
  EXPECT_EQ(s.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(s.csum_start, 54);
  EXPECT_EQ(s.csum_offset, 16);
  EXPECT_EQ(s.nr_frags, 1);
  size_t len = 0;
  EXPECT_EQ(testing::Be16(s.pkt.bytes(), 70), OraclePseudo(f, 14, 54, 6, &len));
  // Exactly one MSS of payload: not GSO.
  const Bytes one = Ipv6Frame(6, "", kTcp + std::string(2 * 1000, '4'));
  ASSERT_EQ(HostSocketSkb(h, one, &s), "");
  EXPECT_FALSE(s.is_gso());
}

TEST(KernelHostSocketEdges, ASegmentWithoutPayloadHasNoPageFrags) {
  SkBuff s;
  ASSERT_EQ(HostSocketSkb(Host(), Ipv4Frame(6, kTcp), &s), "");
  EXPECT_EQ(s.nr_frags, 0);
  EXPECT_FALSE(s.is_gso());
}

TEST(KernelHostSocketEdges, FramesThatAreNoLocalTcpSegment) {
  SkBuff s;
  // IPv6 with 10 bytes of TCP header.
  EXPECT_EQ(HostSocketSkb(Host(), Ipv6Frame(6, "", "d4781451000000010000"), &s), "frame too short");
  // Ethertype IPv4 over a version-6 header.
  Bytes v = Ipv4Frame(6, kTcp);
  v[14] = 0x65;
  EXPECT_EQ(HostSocketSkb(Host(), v, &s), "not IPv4/TCP or IPv6/TCP");
}

TEST(KernelHostSocketEdges, NamesOutsideTheEnumsAreQuestionMarks) {
  EXPECT_STREQ(HostSwitchName(static_cast<HostSwitch>(9)), "?");
  EXPECT_STREQ(HostAttachName(static_cast<HostAttach>(9)), "?");
  EXPECT_STREQ(HostSwitchName(HostSwitch::kOvs), "ovs");
  EXPECT_STREQ(HostAttachName(HostAttach::kForward), "forward");
}

}  // namespace
}  // namespace offlab::kernel
