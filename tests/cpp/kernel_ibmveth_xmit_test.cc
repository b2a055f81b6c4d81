// SPDX-License-Identifier: Apache-2.0
//
// ibmveth_start_xmit's largesend marking (v6.18 drivers/net/ethernet/ibm/
// ibmveth.c:1272-1286): with firmware largesend (PLSO) the MSS goes to the
// hypervisor as an argument; without it an IPv4 largesend is marked in the
// frame itself, 0xffff in the IP header checksum and the MSS in the TCP
// checksum field; an IPv6 one is not marked.
#include <gtest/gtest.h>

#include "kernel_test_bytes.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/net/bytes.h"

namespace offlab::kernel {
namespace {

uint16_t At16(const SkBuff& s, size_t at) {
  return static_cast<uint16_t>(s.pkt.data()[at] << 8 | s.pkt.data()[at + 1]);
}

// A local TCP/IPv4 TSO skb: 3000 bytes of payload at MSS 1000, CHECKSUM_PARTIAL.
SkBuff Tso4() {
  Bytes f = FromHex(
      "020000000002 020000000001 0800 45000bd4 00014000 4006 1234 0a000001 0a000002"
      "04d20050 00000001 00000000 5010 ffff abcd 0000");
  f.insert(f.end(), 3000, 'x');
  return testbytes::PartialTcp4Skb(f, 1000);
}

TEST(KernelIbmvethXmit, WithoutFirmwareLargesendTheFrameCarriesTheMarks) {
  IbmvethConfig cfg;
  cfg.fw_large_send = false;
  Counters c;
  IbmvethTx tx = IbmvethStartXmit(Tso4(), cfg, kLabKernel, &c);
  ASSERT_TRUE(tx.sent) << tx.drop;
  EXPECT_TRUE(tx.largesend);
  EXPECT_EQ(tx.mss, 0);
  EXPECT_EQ(At16(tx.skb, 24), 0xffff);  // IP header checksum
  EXPECT_EQ(At16(tx.skb, 50), 1000);    // TCP checksum field: the MSS
  EXPECT_EQ(c.Get("ibmveth_tx_large_packets"), 1u);
}

TEST(KernelIbmvethXmit, WithFirmwareLargesendTheMssIsAnArgument) {
  IbmvethConfig cfg;  // fw_large_send by default
  IbmvethTx tx = IbmvethStartXmit(Tso4(), cfg, kLabKernel);
  ASSERT_TRUE(tx.sent) << tx.drop;
  EXPECT_TRUE(tx.largesend);
  EXPECT_EQ(tx.mss, 1000);
  EXPECT_EQ(At16(tx.skb, 24), 0x1234);  // untouched
  EXPECT_EQ(At16(tx.skb, 50), 0);       // NO_CSUM: the field zeroed (:1258-1270)
}

}  // namespace
}  // namespace offlab::kernel
