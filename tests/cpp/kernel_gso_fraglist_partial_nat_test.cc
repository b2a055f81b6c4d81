// SKB_GSO_FRAGLIST segments after NAT rewrote the head, when the chained
// packets are CHECKSUM_PARTIAL (local TCP packets GRO'd as a frag_list on
// their way through, their TCP field the pseudo-header sum): the later
// segments take the head's addresses and ports, and their TCP field moves
// with the addresses only.
//
// Source: torvalds/linux v6.18 net/ipv4/tcp_offload.c
// __tcpv4_gso_segment_csum: inet_proto_csum_replace4(&th->check, seg,
// *oldip, newip, true) and inet_proto_csum_replace2(..., *oldport, newport,
// false); net/core/utils.c inet_proto_csum_replace4/2: for CHECKSUM_PARTIAL
// only a pseudo-header field changes the sum ("else if (pseudohdr) *sum =
// ~csum_fold(csum_add(csum_sub(csum_unfold(*sum), from), to))"), a port
// does not; the IPv4 header checksum follows the address (csum_replace4).
// Without scatter-gather every paged packet is linearized first.
// Expected packets: the originals rewritten the same way with the pseudo
// sum and header checksum summed again by hand (kernel_test_bytes.h).
#include <gtest/gtest.h>

#include <vector>

#include "kernel_gso_test_frames.h"
#include "offlab/linux/xmit.h"

namespace offlab::kernel {
namespace {

using namespace gsotest;

// Three IPv4 packets of a 3-MSS stream, TCP field = folded pseudo sum.
std::vector<Bytes> Packets() {
  std::vector<Bytes> p;
  for (size_t i = 0; i < 3; i++)
    p.push_back(TcpFrame(false, i * kMss, kMss, static_cast<uint16_t>(0x1234 + i),
                         0x01020304 + static_cast<uint32_t>(i * kMss), 0x10, false));
  return p;
}

// `f` with its IPv4 header checksum and TCP pseudo sum redone.
Bytes Redo(Bytes f) {
  Put16(f, kL3 + 10, 0);
  Put16(f, kL3 + 10, static_cast<uint16_t>(~Fold(Sum(f, kL3, kL3 + 20))));
  Put16(f, kTh + 16, Fold(Pseudo(f, kL3, static_cast<uint32_t>(f.size() - kTh))));
  return f;
}

SkBuff FraglistSkb(const std::vector<Bytes>& p) {
  Bytes all = p[0];
  SkBuff s;
  for (size_t i = 1; i < p.size(); i++) {
    all.insert(all.end(), p[i].begin() + kEth, p[i].end());
    s.frag_list_lens.push_back(static_cast<uint32_t>(p[i].size() - kEth));
  }
  Put16(all, kL3 + 2, static_cast<uint16_t>(all.size() - kL3));
  s.pkt = Packet(all);
  s.pkt.l3_ofs = kL3;
  s.pkt.l4_ofs = kTh;
  s.ip_summed = IpSummed::kPartial;
  s.csum_start = kTh;
  s.csum_offset = 16;
  s.gso_size = kMss;
  s.gso_segs = 3;
  s.gso_type = gso::kTcpv4 | gso::kFraglist;
  return s;
}

TEST(KernelGsoFraglistPartialNat, PartialSegmentsFollowTheAddressNotThePort) {
  const auto dev = Dev(netif::kSg | netif::kIpCsum | netif::kTso);
  std::vector<Bytes> p = Packets();
  std::vector<Bytes> want;
  for (Bytes f : p) {
    const uint8_t daddr[4] = {192, 0, 2, 77};
    std::copy(daddr, daddr + 4, f.begin() + kL3 + 16);
    Put16(f, kTh + 2, 0x0050);  // dport
    want.push_back(Redo(f));
  }
  p[0] = want[0];  // NAT rewrote the head only
  Counters c;
  auto segs = ValidateXmitSkb(FraglistSkb(p), dev, kLabKernel, &c);
  ASSERT_EQ(segs.size(), 3u);
  for (size_t i = 0; i < 3; i++) {
    EXPECT_EQ(ToHex(segs[i].pkt.bytes()), ToHex(want[i])) << i;
    EXPECT_EQ(segs[i].ip_summed, IpSummed::kPartial) << i;
  }
}

// skb_segment_list (net/core/skbuff.c v6.18): "if (skb_needs_linearize(skb,
// features) && __skb_linearize(skb))" for the head and for every member,
// skb_needs_linearize being "skb_shinfo(skb)->nr_frags && !(features &
// NETIF_F_SG)": without scatter-gather each paged packet comes out linear,
// its bytes unchanged; with it the pages stay.
TEST(KernelGsoFraglistPartialNat, PagedPacketsAreLinearizedWithoutSg) {
  std::vector<Bytes> p = Packets();
  XmitOptions paged;
  paged.frag_list_linear = false;  // members in page frags (a page-frag driver's)
  for (bool sg : {false, true}) {
    const auto dev = Dev((sg ? netif::kSg : 0) | netif::kIpCsum);
    SkBuff s = FraglistSkb(p);
    s.nr_frags = 1;  // the head's payload in a page as well
    Counters c;
    auto segs = ValidateXmitSkb(s, dev, paged, kLabKernel, &c);
    ASSERT_EQ(segs.size(), 3u) << sg;
    for (size_t i = 0; i < 3; i++) {
      EXPECT_EQ(segs[i].pkt.bytes(), p[i]) << sg << " " << i;
      EXPECT_EQ(segs[i].nr_frags, sg ? 1 : 0) << sg << " " << i;
    }
  }
}

}  // namespace
}  // namespace offlab::kernel
