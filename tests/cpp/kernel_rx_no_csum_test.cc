// A driver that reports no receive checksum (a profile whose kernel view
// says rx_csum: none): the skb keeps the CHECKSUM_NONE it was allocated
// with (include/linux/skbuff.h: "CHECKSUM_NONE: The device did not
// checksum this packet"), whatever the frame, and no checksum statistic
// moves. The stack then verifies it in software. Frames from
// kernel_test_skb.h with oracle checksums.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/rx.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleL4Csum;
using testing::Put16;

TEST(KernelRxNoCsum, TheSkbStaysChecksumNone) {
  NicProfile p = BuiltinProfile("ixgbe_82599");
  ASSERT_TRUE(p.kernel.has_value());
  p.kernel->rx_csum = KernelNicView::RxCsum::kNone;
  Bytes f = Ipv4Frame(17, "1f900035000c000000010203");
  Put16(f, 40, OracleL4Csum(f, 14, 34, 17, 6));
  Counters c;
  const SkBuff s = DriverReceive(f, p, kLabKernel, &c);
  EXPECT_EQ(s.ip_summed, IpSummed::kNone);
  EXPECT_EQ(s.csum_level, 0);
  EXPECT_EQ(s.pkt.bytes(), f);
  EXPECT_EQ(s.pkt.l3_ofs, 14);  // eth_type_trans
  EXPECT_TRUE(c.values().empty());
  // The same frame through the profile as shipped: the 82599 verifies it.
  EXPECT_EQ(DriverReceive(f, BuiltinProfile("ixgbe_82599")).ip_summed, IpSummed::kUnnecessary);
}

}  // namespace
}  // namespace offlab::kernel
