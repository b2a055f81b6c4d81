// GRO of VXLAN: which kernels merge a tunnel flow with and without an
// outer UDP checksum, the merged packet's bytes and GSO state, remote
// checksum offload, and plain UDP.
#include <gtest/gtest.h>

#include "kernel_gro_test_frames.h"
#include "offlab/linux/gro.h"

namespace offlab::testing {
namespace {

using kernel::GroCell;
using kernel::GroConfig;
using kernel::GroResult;
using kernel::IpSummed;
using kernel::SkBuff;

constexpr size_t kInner = 50;  // inner Ethernet header: 14 + 20 + 8 + 8

std::vector<Bytes> InnerTrain(int n, Seg s = {}) {
  std::vector<Bytes> out;
  for (int k = 0; k < n; k++) {
    out.push_back(TcpFrame(s));
    s.seq += static_cast<uint32_t>(s.payload_len);
    s.id++;
    s.fill = static_cast<uint8_t>(s.fill + 5);
  }
  return out;
}

std::vector<Bytes> VxlanTrain(const std::vector<Bytes>& inner, Outer o) {
  std::vector<Bytes> out;
  for (const Bytes& f : inner) {
    out.push_back(VxlanFrame(o, f));
    o.id++;
  }
  return out;
}

GroConfig VxlanCfg(int maj, int min, bool rhel7 = false) {
  GroConfig c;
  c.kv = {maj, min, rhel7};
  c.vxlan.push_back({});
  return c;
}

// Frames merged when `frames` go through GRO with the NIC's verdict.
size_t Merged(GroConfig c, const std::vector<Bytes>& frames, IpSummed s, bool encap = false) {
  GroCell g(c);
  for (const Bytes& f : frames) {
    SkBuff skb = DriverSkb(f, s);
    skb.encapsulation = encap;
    g.Receive(std::move(skb));
  }
  g.Flush();
  return g.stats().merged;
}

TEST(KernelGroVxlan, OuterChecksumRuleAcrossKernels) {
  const auto inner = InnerTrain(4);
  Outer with, without;
  without.udp_csum = false;
  const auto a = VxlanTrain(inner, with), b = VxlanTrain(inner, without);
  // A NIC without tunnel offloads: it verified the outer UDP checksum when
  // there was one (CHECKSUM_UNNECESSARY level 0), nothing otherwise.
  const IpSummed hw = IpSummed::kUnnecessary;
  // 6.18: both merge (89e5c58fc1e2 exempts zero-checksum tunnels).
  EXPECT_EQ(Merged(VxlanCfg(6, 18), a, hw), 3u);
  EXPECT_EQ(Merged(VxlanCfg(6, 18), b, IpSummed::kNone), 3u);
  // RHEL 7.1 / 3.18 rule: only with an outer checksum.
  EXPECT_EQ(Merged(VxlanCfg(3, 10, true), a, hw), 3u);
  EXPECT_EQ(Merged(VxlanCfg(3, 10, true), b, IpSummed::kNone), 0u);
  EXPECT_EQ(Merged(VxlanCfg(3, 10, true), b, hw), 0u);
  // 3.14: only frames the NIC marked as encapsulated (or COMPLETE).
  EXPECT_EQ(Merged(VxlanCfg(3, 14), a, hw), 0u);
  EXPECT_EQ(Merged(VxlanCfg(3, 14), a, hw, true), 3u);
  // No VXLAN socket on the port: plain UDP without a GRO socket, unmerged.
  EXPECT_EQ(Merged(GroConfig{}, a, hw), 0u);
}

TEST(KernelGroVxlan, ZeroChecksumUnderRhel7GoesUpAsItCame) {
  Outer o;
  o.udp_csum = false;
  const auto frames = VxlanTrain(InnerTrain(2), o);
  GroCell g(VxlanCfg(3, 10, true));
  EXPECT_EQ(g.Receive(DriverSkb(frames[0])), GroResult::kNormal);
  EXPECT_EQ(g.last_reason(), "udp_tunnel_csum_unvalidated");
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pkt.bytes(), frames[0]);
  // The zero checksum counted as verified (UNNECESSARY level 0).
  EXPECT_EQ(out[0].ip_summed, IpSummed::kUnnecessary);
  EXPECT_EQ(out[0].csum_level, 0);
}

TEST(KernelGroVxlan, MergedPacketBytesAndState) {
  const auto inner = InnerTrain(3);
  for (bool csum : {true, false}) {
    Outer o;
    o.udp_csum = csum;
    const auto frames = VxlanTrain(inner, o);
    GroCell g(VxlanCfg(6, 18));
    for (const Bytes& f : frames) g.Receive(DriverSkb(f));
    auto out = g.Flush();
    ASSERT_EQ(out.size(), 1u) << csum;
    const SkBuff& m = out[0];
    // Built by hand: outer headers of the first frame, the inner merged
    // packet, outer lengths and checksums fixed.
    Bytes want(frames[0].begin(), frames[0].begin() + kInner);
    const Bytes in = ExpectedMerged(inner, 34, 20);
    // The inner packet sits at 50: its pseudo-header field is location-free.
    want.insert(want.end(), in.begin(), in.end());
    Put16(want, 16, static_cast<uint16_t>(want.size() - 14));
    FixIpv4Csum(want, 14);
    Put16(want, 38, static_cast<uint16_t>(want.size() - 34));
    Put16(
        want, 40,
        csum ? PseudoFold4(&want[26], &want[30], 17, static_cast<uint32_t>(want.size() - 34)) : 0);
    EXPECT_EQ(m.pkt.bytes(), want) << csum;
    EXPECT_EQ(m.gso_type,
              kernel::gso::kTcpv4 | (csum ? kernel::gso::kUdpTunnelCsum : kernel::gso::kUdpTunnel));
    EXPECT_TRUE(m.encapsulation);
    EXPECT_EQ(m.pkt.inner_l2_ofs, kInner);
    EXPECT_EQ(m.pkt.inner_l3_ofs, kInner + 14);
    EXPECT_EQ(m.pkt.inner_l4_ofs, kInner + 34);
    EXPECT_EQ(m.ip_summed, IpSummed::kPartial);
    EXPECT_EQ(m.csum_start, kInner + 34);
    EXPECT_EQ(m.gso_size, 1000);
    EXPECT_EQ(m.gso_segs, 3);
    // With an outer checksum and CHECKSUM_NONE, the outer UDP payload is
    // summed once per frame and the inner TCP checksum rides on that sum.
    const size_t udp_payload = frames[0].size() - 34;
    EXPECT_EQ(g.stats().csum_bytes, csum ? 3 * udp_payload : 3u * 1020u) << csum;
  }
}

TEST(KernelGroVxlan, FixedOuterIpIdMerges) {
  // Checked on the lab kernel (6.18, veth GRO): a VXLAN train whose outer
  // IPv4 ID stays fixed is merged; so are the cases above (checksum present
  // or zero, RCO with remcsumrx) while RCO without remcsumrx, RCO under a
  // zero outer checksum and a bad inner checksum are not.
  std::vector<Bytes> frames;
  for (const Bytes& f : InnerTrain(3)) frames.push_back(VxlanFrame(Outer{}, f));
  EXPECT_EQ(Merged(VxlanCfg(6, 18), frames, IpSummed::kNone), 2u);
}

TEST(KernelGroVxlan, JumpingOuterIpIdSplitsOn618Only) {
  // Outer IDs 7, 500, 9000 with DF: the lab kernel (6.18) hands up three
  // unmerged frames; 6.10..6.17 exempted an outer header with DF.
  const auto inner = InnerTrain(3);
  const uint16_t ids[] = {7, 500, 9000};
  std::vector<Bytes> frames;
  for (int k = 0; k < 3; k++) {
    Outer o;
    o.id = ids[k];
    frames.push_back(VxlanFrame(o, inner[k]));
  }
  EXPECT_EQ(Merged(VxlanCfg(6, 18), frames, IpSummed::kNone), 0u);
  EXPECT_EQ(Merged(VxlanCfg(6, 12), frames, IpSummed::kNone), 2u);
}

TEST(KernelGroVxlan, DifferentVniDoesNotMerge) {
  const auto inner = InnerTrain(2);
  Outer o1, o2;
  o2.vni = 43;
  o2.id = 8;
  GroCell g(VxlanCfg(6, 18));
  g.Receive(DriverSkb(VxlanFrame(o1, inner[0])));
  EXPECT_EQ(g.Receive(DriverSkb(VxlanFrame(o2, inner[1]))), GroResult::kHeld);
  EXPECT_EQ(g.Flush().size(), 2u);
}

// Inner frames as an RCO sender leaves them: the TCP checksum field holds
// the pseudo-header sum (CHECKSUM_PARTIAL never completed).
std::vector<Bytes> RcoInner(int n) {
  auto inner = InnerTrain(n);
  for (Bytes& f : inner)
    Put16(f, 34 + 16, PseudoFold4(&f[26], &f[30], 6, static_cast<uint32_t>(f.size() - 34)));
  return inner;
}

TEST(KernelGroVxlan, RemoteChecksumOffload) {
  Outer o;
  o.rco = true;
  const auto frames = VxlanTrain(RcoInner(3), o);
  GroConfig c = VxlanCfg(6, 18);
  c.vxlan[0].remcsum_rx = true;
  for (bool nopartial : {false, true}) {
    c.vxlan[0].remcsum_nopartial = nopartial;
    GroCell g(c);
    for (const Bytes& f : frames) g.Receive(DriverSkb(f));
    EXPECT_EQ(g.stats().merged, 2u) << nopartial;
    auto out = g.Flush();
    ASSERT_EQ(out.size(), 1u);
    // remcsum_offload only marks a frame during GRO (cleared after).
    EXPECT_FALSE(out[0].remcsum_offload);
    EXPECT_EQ(out[0].gso_type & kernel::gso::kTunnelRemcsum, 0u);
    EXPECT_EQ(out[0].gso_segs, 3);
  }
  // Without remcsumrx the inner field is not a checksum: not merged.
  GroCell plain(VxlanCfg(6, 18));
  for (const Bytes& f : frames) plain.Receive(DriverSkb(f));
  EXPECT_EQ(plain.stats().merged, 0u);
  EXPECT_EQ(plain.stats().not_validated.at("tcp_csum"), 3u);
  // RCO needs a verified outer sum; a zero outer checksum gives none.
  Outer z = o;
  z.udp_csum = false;
  GroCell zero(c);
  zero.Receive(DriverSkb(VxlanFrame(z, RcoInner(1)[0])));
  EXPECT_EQ(zero.last_reason(), "vxlan_rco_csum_invalid");
}

TEST(KernelGroVxlan, RemoteChecksumOffloadFrom40) {
  // vxlan_gro_receive learned RCO with "vxlan: Remote checksum offload"
  // (v4.0): 3.19 takes the inner field (a pseudo-header sum) as a checksum
  // and merges nothing; 4.0 merges the train.
  Outer o;
  o.rco = true;
  const auto frames = VxlanTrain(RcoInner(3), o);
  for (int maj_min : {319, 400}) {
    GroConfig c = VxlanCfg(maj_min / 100, maj_min % 100);
    c.vxlan[0].remcsum_rx = true;
    GroCell g(c);
    for (const Bytes& f : frames) g.Receive(DriverSkb(f));
    EXPECT_EQ(g.stats().merged, maj_min == 400 ? 2u : 0u) << maj_min;
  }
}

TEST(KernelGroVxlan, NopartialRestoresTheHeldFrame) {
  Outer o;
  o.rco = true;
  const auto frames = VxlanTrain(RcoInner(1), o);
  GroConfig c = VxlanCfg(6, 18);
  c.vxlan[0].remcsum_rx = true;
  c.vxlan[0].remcsum_nopartial = true;
  GroCell g(c);
  EXPECT_EQ(g.Receive(DriverSkb(frames[0])), GroResult::kHeld);
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pkt.bytes(), frames[0]);
}

TEST(KernelGroUdp, PlainUdpNeedsAGroSocket) {
  // A UDP datagram train to port 9000.
  std::vector<Bytes> frames;
  for (int k = 0; k < 3; k++) {
    Outer o;
    o.dport = 9000;
    o.id = static_cast<uint16_t>(10 + k);
    Bytes payload(600, static_cast<uint8_t>(k));
    Bytes f = VxlanFrame(o, payload);  // an 8-byte "VXLAN" header + payload as data
    frames.push_back(f);
  }
  GroConfig none;
  EXPECT_EQ(Merged(none, frames, IpSummed::kNone), 0u);
  GroConfig sock;
  sock.udp_sockets.push_back({9000, true});
  GroCell g(sock);
  for (const Bytes& f : frames) g.Receive(DriverSkb(f));
  auto out = g.Flush();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].gso_type, kernel::gso::kUdpL4);
  EXPECT_EQ(out[0].gso_size, 608);
  EXPECT_EQ(out[0].csum_start, 34);
  EXPECT_EQ(out[0].csum_offset, 6);
  EXPECT_EQ(out[0].pkt.size(), 42u + 3 * 608u);
}

}  // namespace
}  // namespace offlab::testing
