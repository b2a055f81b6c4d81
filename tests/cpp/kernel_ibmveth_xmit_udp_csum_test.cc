// ibmveth_start_xmit has no UDP checksum offload (torvalds/linux v6.18
// drivers/net/ethernet/ibm/ibmveth.c:1244-1254): a CHECKSUM_PARTIAL skb
// that is not TCP gets skb_checksum_help, and when that fails ("tx: failed
// to checksum packet") the skb is dropped and counted (tx_dropped). It
// fails for a checksum start outside the linear data (net/core/dev.c
// skb_checksum_help: "offset >= skb_headlen(skb)" -> -EINVAL). A good one
// is sent with its UDP checksum filled in (RFC 768, checked by the oracle).
#include <gtest/gtest.h>

#include "kernel_test_skb.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {
namespace {

using testing::Ipv4Frame;
using testing::OracleL4Ok;
using testing::OracleSum;
using testing::Put16;

SkBuff PartialUdp(uint16_t csum_start) {
  Bytes f = Ipv4Frame(17, "1f900035000c000000010203");
  // The field holds the folded pseudo-header sum, as udp_send_skb leaves it.
  Put16(f, 40, static_cast<uint16_t>(OracleSum(f.data() + 26, 8, 17 + 12)));
  SkBuff s;
  s.pkt = Packet(f);
  s.pkt.l3_ofs = 14;
  s.pkt.l4_ofs = 34;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = csum_start;
  s.csum_offset = 6;
  return s;
}

TEST(KernelIbmvethXmitUdpCsum, UdpIsChecksummedInSoftwareOrDropped) {
  IbmvethConfig cfg;
  Counters c;
  IbmvethTx ok = IbmvethStartXmit(PartialUdp(34), cfg, kLabKernel, &c);
  ASSERT_TRUE(ok.sent) << ok.drop;
  EXPECT_TRUE(OracleL4Ok(ok.skb.pkt.bytes(), 14, 34, 17));
  EXPECT_EQ(c.Get("ibmveth_tx_dropped"), 0u);
  // csum_start past the 46-byte frame: skb_checksum_help fails.
  IbmvethTx bad = IbmvethStartXmit(PartialUdp(60), cfg, kLabKernel, &c);
  EXPECT_FALSE(bad.sent);
  EXPECT_EQ(bad.drop, "tx: failed to checksum packet");
  EXPECT_EQ(c.Get("ibmveth_tx_dropped"), 1u);
}

}  // namespace
}  // namespace offlab::kernel
