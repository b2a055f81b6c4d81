// SPDX-License-Identifier: Apache-2.0
//
// tcp_gro_receive (v6.18 net/ipv4/tcp_offload.c) compares a new segment's
// TCP header, options included, with the held packet's: when the held
// packet is too short to have a header that long (it carried a few bytes,
// the new one 40 bytes of options), the headers differ and the held packet
// is flushed, never merged; nothing past its end is read. Frames from the
// GRO test frames (plain-loop checksums).
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;

TEST(KernelGroTcpHeader, ALongerHeaderThanTheHeldPacketFlushesIt) {
  Seg a;
  a.payload_len = 10;
  Seg b = a;
  b.seq = a.seq + 10;
  b.options = Bytes(40, 0x01);  // 40 bytes of NOP options: data offset 15
  b.payload_len = 100;
  GroConfig c;
  c.features = kernel::netif::kGro;
  GroCell g(c);
  g.Receive(DriverSkb(TcpFrame(a), IpSummed::kUnnecessary));
  g.Receive(DriverSkb(TcpFrame(b), IpSummed::kUnnecessary));
  const auto up = g.Flush();
  EXPECT_EQ(up.size(), 2u);
  EXPECT_EQ(g.stats().merged, 0u);
}

}  // namespace
}  // namespace offlab::testing
