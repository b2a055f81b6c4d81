// ibmveth's receive checksum state is the hypervisor's word alone
// (torvalds/linux v6.18.19 drivers/net/ethernet/ibm/ibmveth.c:1530-1533
// ibmveth_poll: "if (csum_good) { skb->ip_summed = CHECKSUM_UNNECESSARY;
// ibmveth_rx_csum_helper(skb, adapter); }"): without IBMVETH_RXQ_CSUM_GOOD
// the skb stays CHECKSUM_NONE, and no hardware verification of the bytes
// is consulted, even for a profile (loadable from a file) that claims its
// NIC verifies plain TCP. Frames: kernel_test_skb.h; the TCP checksum by the
// plain oracle of test_util.h.
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/rx.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleL4Csum;
using testing::OracleL4Ok;
using testing::Put16;

TEST(KernelRxIbmvethFlagOnly, WithoutCsumGoodAGoodFrameStaysNoneWhateverTheProfileVerifies) {
  // 10.0.0.1 -> 10.0.0.2 TCP 54392 -> 5201, ACK, 16 payload bytes.
  Bytes f = Ipv4Frame(6,
                      "d4781451000000010000000050100100"
                      "00000000"
                      "00112233445566778899aabbccddeeff");
  Put16(f, 50, OracleL4Csum(f, 14, 34, 6, 16));
  ASSERT_TRUE(OracleL4Ok(f, 14, 34, 6));
  NicProfile p = BuiltinProfile("ibmveth_trunk");
  ASSERT_TRUE(p.kernel && p.kernel->csum_good_unverified);
  p.rx_plain.outer_ip = p.rx_plain.outer_l4 = true;
  RxMeta m;
  m.ibmveth_csum_good = false;
  const RxResult r = DriverReceiveFull(f, p, kLabKernel, nullptr, m);
  ASSERT_FALSE(r.dropped);
  EXPECT_EQ(r.skb.ip_summed, IpSummed::kNone);
  // With the flag: UNNECESSARY (a TCP checksum that is not 0 is left alone).
  m.ibmveth_csum_good = true;
  EXPECT_EQ(DriverReceiveFull(f, p, kLabKernel, nullptr, m).skb.ip_summed, IpSummed::kUnnecessary);
}

}  // namespace
}  // namespace offlab::kernel
