// The skb a local TCP socket hands the host (HostSocketSkb): IPv6 as well
// as IPv4 (__tcp_v6_send_check: CHECKSUM_PARTIAL, the folded IPv6
// pseudo-header sum in the field; tcp_set_skb_tso_segs: TCPV6 GSO above the
// MSS), the IPv4 header checksum always software's (ip_send_check), and the
// frames it refuses. Frames are the GRO test frames; sums by the oracle.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::KernelHost;
using kernel::SkBuff;

KernelHost Host() {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.mss = 1000;
  return h;
}

TEST(KernelHostSocket, Ipv6SkbIsPartialWithThePseudoHeaderAndTcpv6Gso) {
  KernelHost h = Host();
  Seg s = FlowSeg(0, 2500, 0x10);
  s.ipv6 = true;
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(s), &skb), "");
  EXPECT_EQ(skb.ip_summed, kernel::IpSummed::kPartial);
  EXPECT_EQ(skb.csum_start, 54);
  EXPECT_EQ(skb.csum_offset, 16);
  EXPECT_EQ(skb.gso_type, kernel::gso::kTcpv6);
  EXPECT_EQ(skb.gso_segs, 3);
  const Bytes f = skb.pkt.bytes();
  EXPECT_EQ(Be16(f, 70), PseudoFold6(&f[22], &f[38], 6, static_cast<uint32_t>(f.size() - 54)));
  // At or below the MSS: no GSO.
  s.payload_len = 1000;
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(s), &skb), "");
  EXPECT_FALSE(skb.is_gso());
}

TEST(KernelHostSocket, Ipv4HeaderChecksumIsAlwaysComputed) {
  KernelHost h = Host();
  Bytes f = TcpFrame(FlowSeg(0, 500, 0x10));
  Put16(f, 24, 0x1234);  // whatever the caller left there
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(h, f, &skb), "");
  EXPECT_EQ(OracleSum(&skb.pkt.bytes()[14], 20), 0xffff);
}

TEST(KernelHostSocket, RefusedFrames) {
  KernelHost h = Host();
  SkBuff skb;
  // IPv6 carrying something other than TCP.
  Seg s = FlowSeg(0, 100, 0x10);
  s.ipv6 = true;
  Bytes v6 = TcpFrame(s);
  v6[20] = 17;
  EXPECT_NE(kernel::HostSocketSkb(h, v6, &skb), "");
  // An IPv6 frame cut inside its header.
  Bytes cut = TcpFrame(s);
  cut.resize(14 + 39);
  EXPECT_NE(kernel::HostSocketSkb(h, cut, &skb), "");
  // A TCP data offset below 5 words, or past the end.
  for (uint8_t doff : {0x40, 0xf0}) {
    Bytes t = TcpFrame(FlowSeg(0, 10, 0x10));
    t[34 + 12] = doff;
    EXPECT_EQ(kernel::HostSocketSkb(h, t, &skb), "bad TCP header length") << int{doff};
  }
  // An IPv4 packet over 65535 bytes.
  Bytes big = TcpFrame(FlowSeg(0, 65535 - 40 + 1, 0x10));
  EXPECT_EQ(kernel::HostSocketSkb(h, big, &skb), "IPv4 packet longer than 65535 bytes");
  // IPv4 with an IHL below 5.
  Bytes ihl = TcpFrame(FlowSeg(0, 10, 0x10));
  ihl[14] = 0x44;
  EXPECT_NE(kernel::HostSocketSkb(h, ihl, &skb), "");
}

}  // namespace
}  // namespace offlab::testing
