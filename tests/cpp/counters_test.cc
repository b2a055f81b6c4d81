// SPDX-License-Identifier: Apache-2.0
//
// Coverage counters: a name is found by its text wherever it comes from, the
// names list in order, and a copy or a move counts on its own.
#include "offlab/net/counters.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace offlab {
namespace {

TEST(Counters, ANameCountsTheSameFromAnyBuffer) {
  Counters c;
  c.Inc("dp_packet_gso");
  std::string name = "dp_packet_";
  name += "gso";  // the same text in another buffer
  c.Inc(name, 2);
  EXPECT_EQ(c.Get("dp_packet_gso"), 3u);
  EXPECT_EQ(c.Get("dp_packet"), 0u);
  EXPECT_EQ(c.values().size(), 1u);
}

TEST(Counters, ValuesListInNameOrder) {
  Counters c;
  for (const char* n : {"native_tnl_l3csum_checked", "conntrack_l4csum_err", "dp_packet_gso"})
    c.Inc(n);
  std::vector<std::string> names;
  for (const auto& [k, v] : c.values()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"conntrack_l4csum_err", "dp_packet_gso",
                                             "native_tnl_l3csum_checked"}));
}

TEST(Counters, ACopyCountsOnItsOwn) {
  Counters a;
  a.Inc("x", 5);
  Counters b = a;
  b.Inc("x");
  b.Inc("y");
  EXPECT_EQ(a.Get("x"), 5u);
  EXPECT_EQ(a.Get("y"), 0u);
  EXPECT_EQ(b.Get("x"), 6u);
  Counters c;
  c.Inc("z");
  c = b;
  c.Inc("x");
  EXPECT_EQ(b.Get("x"), 6u);
  EXPECT_EQ(c.Get("x"), 7u);
  EXPECT_EQ(c.Get("z"), 0u);
}

TEST(Counters, AMovedToCounterKeepsCountingAndTheSourceIsEmpty) {
  Counters a;
  a.Inc("x", 2);
  Counters b = std::move(a);
  b.Inc("x");
  EXPECT_EQ(b.Get("x"), 3u);
  EXPECT_TRUE(a.values().empty());  // NOLINT(bugprone-use-after-move): documented state
  a.Inc("x");
  EXPECT_EQ(a.Get("x"), 1u);
  Counters c;
  c = std::move(b);
  c.Inc("x");
  EXPECT_EQ(c.Get("x"), 4u);
}

TEST(Counters, ClearForgetsEveryName) {
  Counters c;
  c.Inc("x");
  c.Clear();
  EXPECT_EQ(c.Get("x"), 0u);
  c.Inc("x");
  EXPECT_EQ(c.Get("x"), 1u);
}

}  // namespace
}  // namespace offlab
