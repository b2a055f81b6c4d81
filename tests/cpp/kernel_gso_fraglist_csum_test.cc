// SKB_GSO_FRAGLIST segments after NAT rewrote the head: __tcpv4/6_gso_
// segment_list_csum (net/ipv4/tcp_offload.c:34-86, net/ipv6/
// tcpv6_offload.c:95-147 at torvalds/linux 7d0a66e4bb90) give every later
// packet the head's addresses and ports, with their TCP checksums updated.
// The expected segments are the original packets rewritten the same way and
// summed again from scratch (kernel_test_bytes.h), so the test holds for
// any update that leaves a correct checksum, and fails for one that does not.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

struct Change {
  size_t ofs;  // from the start of the frame
  std::vector<uint8_t> to;
};

size_t Th(bool v6) { return v6 ? kL3 + 40 : kTh; }

// `f` with its IPv4 header checksum and TCP checksum summed again.
Bytes Resum(Bytes f, bool v6) {
  const size_t th = Th(v6);
  if (!v6) {
    Put16(f, kL3 + 10, 0);
    Put16(f, kL3 + 10, static_cast<uint16_t>(~Fold(Sum(f, kL3, kL3 + 20))));
  }
  Put16(f, th + 16, 0);
  const uint32_t pseudo = Pseudo(f, kL3, static_cast<uint32_t>(f.size() - th));
  Put16(f, th + 16, static_cast<uint16_t>(~Fold(Sum(f, th, f.size(), pseudo))));
  return f;
}

Bytes Apply(Bytes f, const std::vector<Change>& changes) {
  for (const Change& c : changes) std::copy(c.to.begin(), c.to.end(), f.begin() + c.ofs);
  return f;
}

// The three packets of a 3-MSS TCP stream, as fraglist GRO keeps them.
std::vector<Bytes> Packets(bool v6) {
  std::vector<Bytes> p;
  for (size_t i = 0; i < 3; i++) p.push_back(Expected(v6, 3 * kMss, i, 0x10));
  return p;
}

// The GRO'd skb: the head's bytes, then each later packet's IP header
// onward on frag_list; the head's IP length covers them all
// (inet_gro_complete / ipv6_gro_complete).
SkBuff FraglistSkb(const std::vector<Bytes>& p, bool v6) {
  Bytes all = p[0];
  SkBuff s;
  for (size_t i = 1; i < p.size(); i++) {
    all.insert(all.end(), p[i].begin() + kEth, p[i].end());
    s.frag_list_lens.push_back(static_cast<uint32_t>(p[i].size() - kEth));
  }
  if (v6)
    Put16(all, kL3 + 4, static_cast<uint16_t>(all.size() - kL3 - 40));
  else
    Put16(all, kL3 + 2, static_cast<uint16_t>(all.size() - kL3));
  s.pkt = Packet(all);
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = static_cast<uint16_t>(Th(v6));
  s.ip_summed = IpSummed::kUnnecessary;
  s.gso_size = kMss;
  s.gso_segs = static_cast<uint16_t>(p.size());
  s.gso_type = (v6 ? gso::kTcpv6 : gso::kTcpv4) | gso::kFraglist;
  return s;
}

TEST(KernelGsoFragList, SegmentsTakeTheNattedHeadsAddressesAndPorts) {
  const auto dev = Dev(netif::kSg | netif::kIpCsum | netif::kIpv6Csum | netif::kTso | netif::kTso6);
  struct Case {
    const char* what;
    bool v6;
    std::vector<Change> changes;
  } cases[] = {
      {"v4 daddr", false, {{kL3 + 16, {192, 0, 2, 77}}}},
      {"v4 saddr", false, {{kL3 + 12, {198, 51, 100, 1}}}},
      {"v4 sport", false, {{kTh, {0xab, 0xcd}}}},
      {"v4 dport", false, {{kTh + 2, {0x00, 0x50}}}},
      {"v4 daddr and dport", false, {{kL3 + 16, {192, 0, 2, 77}}, {kTh + 2, {0x00, 0x50}}}},
      {"v4 saddr and dport", false, {{kL3 + 12, {198, 51, 100, 1}}, {kTh + 2, {0x00, 0x50}}}},
      {"v6 saddr", true, {{kL3 + 8 + 15, {0x77}}}},
      {"v6 daddr", true, {{kL3 + 24 + 3, {0x99}}}},
      {"v6 sport", true, {{kL3 + 40, {0xab, 0xcd}}}},
      {"v6 dport", true, {{kL3 + 42, {0x00, 0x50}}}},
      {"v6 saddr and sport", true, {{kL3 + 8 + 15, {0x77}}, {kL3 + 40, {0xab, 0xcd}}}},
  };
  for (const Case& c : cases) {
    std::vector<Bytes> p = Packets(c.v6);
    std::vector<Bytes> want;
    for (const Bytes& f : p) want.push_back(Resum(Apply(f, c.changes), c.v6));
    p[0] = want[0];  // NAT rewrote the head only
    Counters counters;
    auto segs = ValidateXmitSkb(FraglistSkb(p, c.v6), dev, kLabKernel, &counters);
    ASSERT_EQ(segs.size(), 3u) << c.what;
    for (size_t i = 0; i < 3; i++) EXPECT_EQ(segs[i].pkt.bytes(), want[i]) << c.what << " " << i;
  }
}

// Unchanged heads leave every packet as it came (the first comparison
// returns early), and a second packet differing from the head is what
// triggers the fix-up: the kernel compares the head with the next only.
TEST(KernelGsoFragList, OnlyTheSecondPacketDecidesWhetherToRewrite) {
  const auto dev = Dev(netif::kSg | netif::kIpCsum | netif::kTso);
  std::vector<Bytes> p = Packets(false);
  // The third packet alone carries another port: with the second like the
  // head, nothing is rewritten and the third keeps its own.
  p[2] = Resum(Apply(p[2], {{kTh + 2, {0x00, 0x50}}}), false);
  auto segs = ValidateXmitSkb(FraglistSkb(p, false), dev);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(segs[i].pkt.bytes(), p[i]) << i;
}

}  // namespace
}  // namespace offlab::kernel
