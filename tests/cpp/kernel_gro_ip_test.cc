// GRO's network layer (inet_gro_receive / ipv6_gro_receive, v6.18
// net/ipv4/af_inet.c, net/ipv6/ip6_offload.c): which IPv4 and IPv6 headers
// stop a merge before TCP looks at the segment. Each case is a train of
// three segments of one flow (the GRO test frames, plain-loop checksums)
// changed the same way; the rule is the cited one.
#include <gtest/gtest.h>

#include <functional>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::IpSummed;

// Frames merged from `frames` after `change` (then the IPv4 header
// checksum, if any, is summed again).
uint64_t Merged(std::vector<Bytes> frames, const std::function<void(Bytes&)>& change) {
  GroCell g;
  for (Bytes& f : frames) {
    change(f);
    if (f.size() >= 34 && f[12] == 0x08 && f[13] == 0x00 && (f[14] & 0x0f) >= 5 &&
        f.size() >= 14u + (f[14] & 0x0fu) * 4) {
      Put16(f, 24, 0);
      Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], (f[14] & 0x0fu) * 4)));
    }
    g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  }
  g.Flush();
  return g.stats().merged;
}

TEST(KernelGroIp, Ipv4HeadersThatStopAMerge) {
  const auto train = SegTrain(3);
  EXPECT_EQ(Merged(train, [](Bytes&) {}), 2u);  // the control
  // Only 20-byte headers merge: IHL 6 (an option word in the header).
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[14] = 0x46; }), 0u);
  // A fragment: MF, or an offset.
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[20] |= 0x20; }), 0u);
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[21] = 0x01; }), 0u);
  // The reserved flag bit.
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[20] |= 0x80; }), 0u);
  // A protocol without GRO (ICMP).
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[23] = 1; }), 0u);
  // Padding after tot_len, or a tot_len short of what is left: the length
  // must be what is left (TCP alone would take the second).
  EXPECT_EQ(Merged(train, [](Bytes& f) { f.insert(f.end(), {0, 0}); }), 0u);
  EXPECT_EQ(Merged(train, [](Bytes& f) { Put16(f, 16, static_cast<uint16_t>(Be16(f, 16) - 2)); }),
            0u);
  // A fragment stops at the IP layer: it goes up at once, before the held
  // packet of its flow (which TCP would have flushed first).
  {
    GroCell h;
    std::vector<Bytes> t = SegTrain(2);
    t[1][20] |= 0x20;
    Put16(t[1], 24, 0);
    Put16(t[1], 24, static_cast<uint16_t>(~OracleSum(&t[1][14], 20)));
    for (const Bytes& f : t) h.Receive(DriverSkb(f, IpSummed::kUnnecessary));
    auto out = h.Flush();
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].pkt.bytes(), t[1]);
    EXPECT_EQ(out[1].pkt.bytes(), t[0]);
  }
  // A wrong header checksum (not summed again: the change comes after).
  GroCell g;
  for (Bytes f : train) {
    f[24] ^= 0xff;
    g.Receive(DriverSkb(f, IpSummed::kUnnecessary));
  }
  g.Flush();
  EXPECT_EQ(g.stats().merged, 0u);
  // Another destination is another flow: 0-1-0-1 interleaved, no merge.
  Seg other;
  other.dst[3] = 99;
  auto b = SegTrain(2, other);
  EXPECT_EQ(Merged({train[0], b[0], train[1], b[1]}, [](Bytes&) {}), 2u);
}

TEST(KernelGroIp, Ipv6HeadersThatStopAMerge) {
  Seg s;
  s.ipv6 = true;
  const auto train = SegTrain(3, s);
  EXPECT_EQ(Merged(train, [](Bytes&) {}), 2u);
  // An extension header first (hop-by-hop): not pulled, not merged.
  EXPECT_EQ(Merged(train, [](Bytes& f) { f[20] = 0; }), 0u);
  // Padding, or a payload_len short of what follows: it must be exact.
  EXPECT_EQ(Merged(train, [](Bytes& f) { f.insert(f.end(), {0, 0}); }), 0u);
  EXPECT_EQ(Merged(train, [](Bytes& f) { Put16(f, 18, static_cast<uint16_t>(Be16(f, 18) - 2)); }),
            0u);
  // A frame cut inside its IPv6 header goes up as it is.
  Bytes cut = train[0];
  cut.resize(14 + 30);
  GroCell g;
  g.Receive(DriverSkb(cut, IpSummed::kUnnecessary));
  EXPECT_EQ(g.Flush().size(), 1u);
}

}  // namespace
}  // namespace offlab::testing
