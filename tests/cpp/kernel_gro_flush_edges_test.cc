// Edges of GRO's network-header flush rules (models/src/linux/gro_flush.cc):
// a TOS or DF change ends a train; the outer IPv4 ID of a VXLAN flow with
// DF, ignored from v6.10 until v6.18 took the outer level's ID into the
// fixed-or-incrementing rule. Frames: kernel_gro_test_frames.h.
//
// Source: torvalds/linux net/ipv4/af_inet.c / include/net/gro.h
// inet_gro_flush ("All fields must match except length and checksum":
// ttl, tos, DF); v6.12 include/net/gro.h ("if (flush | (outer && df))
// return flush;"), v6.18 the per-level ip_fixedid bit ("ipid_offset ^
// (count * !(NAPI_GRO_CB(p)->ip_fixedid & (1 << inner)))").
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::SkBuff;

std::vector<SkBuff> Gro(const GroConfig& c, const std::vector<Bytes>& frames) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f));
  return g.Flush();
}

TEST(KernelGroFlushEdges, ATosOrDfChangeEndsTheTrain) {
  Seg s;
  const auto segs = SegTrain(2, s);
  Seg tos = s;
  tos.tos = 0x10;
  tos.seq += 1000, tos.id++, tos.fill = 7;
  Seg nodf = s;
  nodf.df = false;
  nodf.seq += 1000, nodf.id++, nodf.fill = 7;
  for (const Bytes& second : {TcpFrame(tos), TcpFrame(nodf)}) {
    const auto out = Gro({}, {segs[0], second});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_FALSE(out[0].is_gso());
  }
  // The unchanged second segment merges.
  EXPECT_EQ(Gro({}, segs).size(), 1u);
}

TEST(KernelGroFlushEdges, AnOuterIdThatJumpsMergedOnlyBefore618) {
  // VXLAN over IPv4 with DF, outer IDs 7 then 100, the inner train's IDs
  // incrementing. v6.12: the outer header with DF is not looked at; v6.18:
  // the outer level's ID must be fixed or incrementing like the inner one.
  const auto inner = SegTrain(2);
  Outer a, b;
  a.id = 7, b.id = 100;
  const std::vector<Bytes> frames = {VxlanFrame(a, inner[0]), VxlanFrame(b, inner[1])};
  GroConfig c;
  c.vxlan.push_back({});
  c.kv = {6, 12, false};
  EXPECT_EQ(Gro(c, frames).size(), 1u);
  c.kv = kernel::kLabKernel;
  EXPECT_EQ(Gro(c, frames).size(), 2u);
  // Outer IDs 7, 8 (incrementing): merged on both.
  b.id = 8;
  const std::vector<Bytes> inc = {VxlanFrame(a, inner[0]), VxlanFrame(b, inner[1])};
  EXPECT_EQ(Gro(c, inc).size(), 1u);
  c.kv = {6, 12, false};
  EXPECT_EQ(Gro(c, inc).size(), 1u);
}

}  // namespace
}  // namespace offlab::testing
