// The IP ID rule of GRO across a VXLAN tunnel in the v4.7..v6.9 form
// (torvalds/linux v5.10 net/ipv4/af_inet.c inet_gro_receive): each IPv4
// level computes flush_id for the held packet, 0xFFFF unless the ID
// advanced by the count when the datagram is not atomic (no DF); "if
// (NAPI_GRO_CB(skb)->is_atomic) NAPI_GRO_CB(p)->flush_id = flush_id; else
// NAPI_GRO_CB(p)->flush_id |= flush_id;" with is_atomic then the level's
// DF, so behind an outer header without DF the inner level cannot clear
// the outer's verdict; tcp_gro_receive flushes on a non-zero flush_id
// (net/ipv4/tcp_offload.c). Frames from kernel_gro_test_frames.h.
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::IpSummed;

// Two VXLAN frames of one inner TCP flow (inner DF, inner IDs 100, 101),
// the outer IPv4 header without DF and outer IDs 7 and `second_id`.
size_t Merged(uint16_t second_id) {
  const auto inner = SegTrain(2);
  Outer o;
  std::vector<Bytes> frames;
  for (size_t k = 0; k < 2; k++) {
    o.id = k ? second_id : 7;
    Bytes f = VxlanFrame(o, inner[k]);
    Put16(f, 20, 0);  // outer flags: DF clear
    FixIpv4Csum(f, 14);
    frames.push_back(f);
  }
  GroConfig c;
  c.kv = {5, 10};
  c.vxlan.push_back({});
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  g.Flush();
  return g.stats().merged;
}

TEST(KernelGroFlushIdTunnel, OuterIdWithoutDfMustAdvance) {
  EXPECT_EQ(Merged(8), 1u);  // 7 + count 1
  EXPECT_EQ(Merged(7), 0u);  // fixed outer ID without DF: flush_id 0xFFFF stands
}

}  // namespace
}  // namespace offlab::testing
