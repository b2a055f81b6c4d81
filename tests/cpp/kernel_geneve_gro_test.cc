// GRO of Geneve (geneve_gro_receive / geneve_gro_complete behind
// udp_gro_receive's tunnel admission): frames and the expected merged packet
// are built here with the plain-loop RFC 1071 oracle of the GRO test frames
// (nothing from offlab::csum), the Geneve header laid out per RFC 8926 3.4.
#include <gtest/gtest.h>

#include <tuple>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

struct Gnv {
  uint16_t id = 7;
  bool udp_csum = true;
  uint32_t vni = 42;
  uint8_t flags = 0;  // O (0x80) | C (0x40)
  Bytes options;
  uint16_t proto = 0x6558;  // protocol type
  uint8_t ver = 0;
};

// Ethernet, IPv4 192.168.1.1 -> .2 (DF), UDP 55555 -> 6081, Geneve, inner.
Bytes GeneveFrame(const Gnv& o, const Bytes& inner) {
  const size_t l3 = 14, l4 = 34, gh = 42;
  Bytes f(gh + 8, 0);
  const uint8_t dmac[6] = {2, 0, 0, 0, 0, 0x22}, smac[6] = {2, 0, 0, 0, 0, 0x11};
  std::copy(dmac, dmac + 6, f.begin());
  std::copy(smac, smac + 6, f.begin() + 6);
  Put16(f, 12, 0x0800);
  f[gh] = static_cast<uint8_t>((o.ver << 6) | o.options.size() / 4);
  f[gh + 1] = o.flags;
  Put16(f, gh + 2, o.proto);
  f[gh + 4] = static_cast<uint8_t>(o.vni >> 16);
  f[gh + 5] = static_cast<uint8_t>(o.vni >> 8);
  f[gh + 6] = static_cast<uint8_t>(o.vni);
  f.insert(f.end(), o.options.begin(), o.options.end());
  f.insert(f.end(), inner.begin(), inner.end());
  f[l3] = 0x45;
  Put16(f, l3 + 2, static_cast<uint16_t>(f.size() - l3));
  Put16(f, l3 + 4, o.id);
  Put16(f, l3 + 6, 0x4000);
  f[l3 + 8] = 64;
  f[l3 + 9] = 17;
  const uint8_t src[4] = {192, 168, 1, 1}, dst[4] = {192, 168, 1, 2};
  std::copy(src, src + 4, f.begin() + l3 + 12);
  std::copy(dst, dst + 4, f.begin() + l3 + 16);
  FixIpv4Csum(f, l3);
  Put16(f, l4, 55555);
  Put16(f, l4 + 2, 6081);
  Put16(f, l4 + 4, static_cast<uint16_t>(f.size() - l4));
  if (o.udp_csum) FixL4Csum(f, l3, l4, 17, 6);
  return f;
}

std::vector<Bytes> Train(int n, Gnv o, std::vector<Bytes>* inner_out = nullptr) {
  std::vector<Bytes> out;
  Seg s;
  for (int k = 0; k < n; k++) {
    const Bytes in = TcpFrame(s);
    if (inner_out) inner_out->push_back(in);
    out.push_back(GeneveFrame(o, in));
    s.seq += static_cast<uint32_t>(s.payload_len);
    s.id++;
    s.fill = static_cast<uint8_t>(s.fill + 5);
    o.id++;
  }
  return out;
}

GroConfig Cfg(int maj, int min, bool rhel7 = false) {
  GroConfig c;
  c.kv = {maj, min, rhel7};
  c.geneve.push_back({});
  return c;
}

size_t Merged(const GroConfig& c, const std::vector<Bytes>& frames, IpSummed s) {
  GroCell g(c);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f, s));
  g.Flush();
  return g.stats().merged;
}

TEST(KernelGeneveGro, TwoSegmentsMergeWithOuterChecksum) {
  Gnv o;
  o.options = {0x01, 0x02, 0x03, 0x01, 0xaa, 0xbb, 0xcc, 0xdd};
  std::vector<Bytes> inner;
  const auto frames = Train(2, o, &inner);
  GroCell g(Cfg(6, 18));
  EXPECT_EQ(g.Receive(DriverSkb(frames[0])), GroResult::kHeld);
  EXPECT_EQ(g.Receive(DriverSkb(frames[1])), GroResult::kMerged);
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  const SkBuff& m = out[0];
  const size_t in_mac = 14 + 20 + 8 + 8 + 8;  // options: 8 bytes
  // By hand: the first frame's outer headers, the merged inner packet,
  // outer IP length/checksum fixed, UDP length and the folded pseudo-header
  // in the UDP field (udp4_gro_complete with a checksum present).
  Bytes want(frames[0].begin(), frames[0].begin() + static_cast<long>(in_mac));
  const Bytes in = ExpectedMerged(inner, 34, 20);
  want.insert(want.end(), in.begin(), in.end());
  Put16(want, 16, static_cast<uint16_t>(want.size() - 14));
  FixIpv4Csum(want, 14);
  Put16(want, 38, static_cast<uint16_t>(want.size() - 34));
  Put16(want, 40, PseudoFold4(&want[26], &want[30], 17, static_cast<uint32_t>(want.size() - 34)));
  EXPECT_EQ(m.pkt.bytes(), want);
  EXPECT_EQ(m.gso_type, kernel::gso::kTcpv4 | kernel::gso::kUdpTunnelCsum);
  EXPECT_TRUE(m.encapsulation);
  EXPECT_EQ(m.pkt.inner_l2_ofs, in_mac);
  EXPECT_EQ(m.pkt.inner_l4_ofs, in_mac + 34);
  EXPECT_EQ(m.ip_summed, IpSummed::kPartial);
  EXPECT_EQ(m.csum_start, in_mac + 34);
  EXPECT_EQ(m.gso_segs, 2);
}

TEST(KernelGeneveGro, ZeroOuterChecksumMergesOn618NotOnRhel7) {
  Gnv o;
  o.udp_csum = false;
  const auto frames = Train(2, o);
  // 6.18: udp_gro_receive exempts a zero checksum (89e5c58fc1e2, v5.12).
  GroCell g(Cfg(6, 18));
  for (const Bytes& f : frames) g.Receive(DriverSkb(f));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kTcpv4 | kernel::gso::kUdpTunnel);
  EXPECT_EQ(out[0].pkt.data()[40] | out[0].pkt.data()[41], 0);
  // RHEL 7 (the 3.18 rule): the tunnel needs a validated checksum.
  GroCell r(Cfg(3, 10, true));
  EXPECT_EQ(r.Receive(DriverSkb(frames[0])), GroResult::kNormal);
  EXPECT_EQ(r.last_reason(), "udp_tunnel_csum_unvalidated");
  EXPECT_EQ(Merged(Cfg(3, 10, true), frames, IpSummed::kNone), 0u);
  // With a checksum RHEL 7 merges too.
  EXPECT_EQ(Merged(Cfg(3, 10, true), Train(2, Gnv{}), IpSummed::kUnnecessary), 1u);
}

TEST(KernelGeneveGro, HeaderBytesDecideTheFlow) {
  // OAM frames are never merged; the C bit is no obstacle.
  Gnv oam;
  oam.flags = 0x80;
  EXPECT_EQ(Merged(Cfg(6, 18), Train(3, oam), IpSummed::kNone), 0u);
  Gnv crit;
  crit.flags = 0x40;
  EXPECT_EQ(Merged(Cfg(6, 18), Train(3, crit), IpSummed::kNone), 2u);
  // Different option bytes (same length) or VNI: separate flows.
  Gnv a, b;
  a.options = {0, 1, 2, 1, 0, 0, 0, 1};
  b.options = {0, 1, 2, 1, 0, 0, 0, 2};
  auto fa = Train(2, a), fb = Train(2, b);
  EXPECT_EQ(Merged(Cfg(6, 18), {fa[0], fb[1]}, IpSummed::kNone), 0u);
  EXPECT_EQ(Merged(Cfg(6, 18), {fa[0], fa[1]}, IpSummed::kNone), 1u);
  // Options of 128 bytes or more (opt_len 32..63, its top bit set): the
  // same header bytes still merge (a mutation-bench survivor, run 2).
  Gnv big;
  big.options.assign(128, 0);
  for (size_t k = 0; k < 128; k += 4) {
    big.options[k + 1] = 0x01;  // option class 0x0001, type 1, length 0 words
    big.options[k + 2] = 0x01;
  }
  EXPECT_EQ(Merged(Cfg(6, 18), Train(2, big), IpSummed::kNone), 1u);
  Gnv v;
  v.vni = 43;
  EXPECT_EQ(Merged(Cfg(6, 18), {Train(1, Gnv{})[0], Train(2, v)[1]}, IpSummed::kNone), 0u);
}

TEST(KernelGeneveGro, NoGeneveHookBeforeV4AndNoSocketNoTunnel) {
  const auto frames = Train(3, Gnv{});
  EXPECT_EQ(Merged(Cfg(3, 19), frames, IpSummed::kUnnecessary), 0u);
  EXPECT_EQ(Merged(Cfg(4, 0), frames, IpSummed::kUnnecessary), 2u);
  EXPECT_EQ(Merged(GroConfig{}, frames, IpSummed::kUnnecessary), 0u);
  // A truncated header (options claimed, not present) is flushed, not read.
  Bytes cut = frames[0];
  cut.resize(50);
  cut[42] = 0x3f;
  GroCell g(Cfg(6, 18));
  g.Receive(DriverSkb(cut));
  EXPECT_EQ(g.Flush().size(), 1u);
}

// A protocol type of IPv4 or IPv6 (no inner Ethernet) goes straight to
// inet/ipv6 GRO (gro_find_receive_by_type) and completes there, the inner
// MAC header set at the inner network header; any other type and a
// version other than 0 are flushed.
TEST(KernelGeneveGro, IpProtocolTypesMergeOtherTypesFlush) {
  for (bool v6 : {false, true}) {
    Gnv o;
    o.proto = v6 ? 0x86dd : 0x0800;
    std::vector<Bytes> inner, frames;
    Seg s;
    s.ipv6 = v6;
    for (int k = 0; k < 2; k++) {
      inner.push_back(TcpFrame(s));
      frames.push_back(GeneveFrame(o, Bytes(inner.back().begin() + 14, inner.back().end())));
      s.seq += static_cast<uint32_t>(s.payload_len);
      s.id++;
      o.id++;
    }
    GroCell g(Cfg(6, 18));
    EXPECT_EQ(g.Receive(DriverSkb(frames[0])), GroResult::kHeld);
    EXPECT_EQ(g.Receive(DriverSkb(frames[1])), GroResult::kMerged);
    auto out = g.Flush();
    ASSERT_EQ(out.size(), 1u);
    const size_t in_l3 = 14 + 20 + 8 + 8, iplen = v6 ? 40 : 20;
    Bytes want(frames[0].begin(), frames[0].begin() + static_cast<long>(in_l3));
    const Bytes merged = ExpectedMerged(inner, 14 + iplen, 20);
    want.insert(want.end(), merged.begin() + 14, merged.end());
    Put16(want, 16, static_cast<uint16_t>(want.size() - 14));
    FixIpv4Csum(want, 14);
    Put16(want, 38, static_cast<uint16_t>(want.size() - 34));
    Put16(want, 40, PseudoFold4(&want[26], &want[30], 17, static_cast<uint32_t>(want.size() - 34)));
    EXPECT_EQ(out[0].pkt.bytes(), want) << v6;
    EXPECT_EQ(out[0].gso_type,
              (v6 ? kernel::gso::kTcpv6 : kernel::gso::kTcpv4) | kernel::gso::kUdpTunnelCsum);
    EXPECT_EQ(out[0].pkt.inner_l2_ofs, in_l3);
    EXPECT_EQ(out[0].pkt.inner_l4_ofs, in_l3 + iplen);
    EXPECT_EQ(out[0].gso_segs, 2);
  }
  for (auto [proto, ver, why] :
       {std::tuple{0x88cc, 0, "geneve_proto"}, std::tuple{0x6558, 1, "geneve_oam_or_version"}}) {
    Gnv o;
    o.proto = static_cast<uint16_t>(proto);
    o.ver = static_cast<uint8_t>(ver);
    const auto frames = Train(3, o);
    GroCell g(Cfg(6, 18));
    EXPECT_EQ(g.Receive(DriverSkb(frames[0])), GroResult::kNormal) << why;
    EXPECT_EQ(g.last_reason(), why);
    EXPECT_EQ(Merged(Cfg(6, 18), frames, IpSummed::kNone), 0u) << why;
  }
}

}  // namespace
}  // namespace offlab::testing
