// Seed setup 4: a TCP stream over Linux VXLAN without an outer UDP
// checksum, with one, and with remote checksum offload (remcsumtx/rx), on
// 6.18 and 4.0. The client is a VM whose virtio NIC checksums plain
// packets but nothing inside a tunnel (virtio_net sets no checksum
// hw_enc_features without UDP-tunnel GSO); the server an Intel 82599, which
// verifies the outer UDP checksum and nothing inside. Software checksum
// bytes per packet are summed here from the kernel's rules.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"

namespace offlab::testing {
namespace {

using kernel::HostReceive;
using kernel::HostSocketSkb;
using kernel::HostTransmit;
using kernel::KernelHost;
using kernel::KernelVersion;
using kernel::RxOutcome;
using kernel::SkBuff;
using kernel::TxOutcome;
namespace netif = kernel::netif;

enum class Mode { kNone, kCsum, kRco };
constexpr size_t kMss = 1398;
constexpr size_t kPackets = 4;
constexpr size_t kTcp = 20 + kMss;  // what a TCP checksum covers per packet
const KernelVersion k40{4, 0, false};
const KernelVersion k618{6, 18, false};

KernelHost VxlanHost(KernelVersion kv, Mode m, bool client) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile(client ? "virtio" : "ixgbe_82599"), kv);
  // 4.0's virtio_net: no GRO_HW (v4.16) and no GSO_PARTIAL (v4.7), so
  // register_netdevice's hw_enc_features are SG only; the checksum
  // features of a plain packet are the same.
  if (client && !kv.AtLeast(4, 7)) {
    h.nic_dev.features &= ~(netif::kGroHw | netif::kGsoPartial);
    h.nic_dev.hw_enc_features = netif::kSg;
  }
  kernel::VxlanConfig vx;
  vx.vni = 42;
  vx.dstport = 4789;
  vx.port_min = 55555;
  vx.port_max = 55556;
  vx.local = {192, 168, 1, 1};
  vx.remote = {192, 168, 1, 2};
  if (!client) std::swap(vx.local, vx.remote);
  vx.ttl = 64;
  vx.mac = {2, 0, 0, 0, 0, static_cast<uint8_t>(client ? 1 : 2)};
  vx.udp_csum = m != Mode::kNone;
  vx.remcsum_tx = vx.remcsum_rx = m == Mode::kRco;
  h.vxlan = vx;
  h.route.src_mac = {2, 0, 0, 0, 0, 0x11};
  h.route.dst_mac = {2, 0, 0, 0, 0, 0x22};
  h.mss = kMss;
  h.stack.dev_mac = std::array<uint8_t, 6>{2, 0, 0, 0, 0, 2};
  return h;
}

struct Stream {
  std::vector<Bytes> wire;
  std::vector<uint64_t> client_csum;  // per packet
  RxOutcome server;
};

Stream RunStream(KernelVersion kv, Mode m) {
  Stream s;
  KernelHost a = VxlanHost(kv, m, true), b = VxlanHost(kv, m, false);
  for (size_t k = 0; k < kPackets; k++) {
    Seg seg = FlowSeg(k * kMss, kMss, 0x10);
    seg.id = static_cast<uint16_t>(100 + k);
    SkBuff skb;
    EXPECT_EQ(HostSocketSkb(a, TcpFrame(seg), &skb), "");
    const TxOutcome t = HostTransmit(a, skb);
    s.client_csum.push_back(t.work.csum_bytes);
    s.wire.insert(s.wire.end(), t.wire.begin(), t.wire.end());
  }
  s.server = HostReceive(b, s.wire);
  return s;
}

TEST(KernelHostSeed4, WireFramesCarryWhatEachModePromises) {
  for (KernelVersion kv : {k40, k618}) {
    for (Mode m : {Mode::kNone, Mode::kCsum, Mode::kRco}) {
      const Stream s = RunStream(kv, m);
      ASSERT_EQ(s.wire.size(), kPackets);
      for (size_t k = 0; k < kPackets; k++) {
        const Bytes& f = s.wire[k];
        ExpectVxlanOuter(f, m != Mode::kNone, 42, "stream frame");
        Bytes inner = InnerOf(f);
        Seg seg = FlowSeg(k * kMss, kMss, 0x10);
        seg.id = static_cast<uint16_t>(100 + k);
        Bytes want = TcpFrame(seg);
        if (m == Mode::kRco) {
          // RCO (dfd8645ea1bd, v4.0): the VXLAN header says where the inner
          // checksum starts (34 bytes into the inner frame, stored halved)
          // and the field still holds the pseudo-header sum.
          EXPECT_EQ(f[43], 0x20);
          EXPECT_EQ(f[49], 34 >> 1);
          Put16(want, 34 + 16, PseudoFold4(&want[26], &want[30], 6, kTcp));
        }
        EXPECT_EQ(inner, want) << kv.ToString() << " " << static_cast<int>(m) << " " << k;
      }
    }
  }
}

TEST(KernelHostSeed4, ClientChecksumBytesPerPacket) {
  // Every packet: ip_send_check of the outer IPv4 header (20). The virtio
  // NIC cannot checksum inside the tunnel, so an inner CHECKSUM_PARTIAL is
  // completed by skb_checksum_help in validate_xmit_skb (20 + 1398).
  //  - none: that inner pass.
  //  - udpcsum, 6.18: the inner pass, and udp_set_csum's lco_csum over the
  //    outer UDP header to the inner checksum start (8 + 8 + 14 + 20).
  //  - udpcsum, 4.0 (before local checksum offload, v4.6): the tunnel
  //    completes the inner checksum in software and the NIC the outer one.
  //  - RCO: the inner checksum is left to the receiver and the NIC
  //    computes the outer one: no pass at all.
  const struct {
    KernelVersion kv;
    Mode m;
    uint64_t bytes;
  } cases[] = {{k618, Mode::kNone, 20 + kTcp}, {k618, Mode::kCsum, 20 + kTcp + 50},
               {k618, Mode::kRco, 20},         {k40, Mode::kNone, 20 + kTcp},
               {k40, Mode::kCsum, 20 + kTcp},  {k40, Mode::kRco, 20}};
  for (const auto& c : cases) {
    const Stream s = RunStream(c.kv, c.m);
    for (uint64_t b : s.client_csum)
      EXPECT_EQ(b, c.bytes) << c.kv.ToString() << " mode " << static_cast<int>(c.m);
  }
}

TEST(KernelHostSeed4, ServerChecksumBytes) {
  // Per packet in GRO: the outer IPv4 header check (20). With a verified
  // outer checksum (the 82599 says UNNECESSARY) udp4_gro_receive converts
  // it into a running sum that the UDP (8), VXLAN (8) and Ethernet (14)
  // pulls keep and the inner TCP checksum is checked against, plus the
  // inner IPv4 header check (20): 70 bytes. Under RCO the inner field is
  // resolved from the same sum (skb_gro_remcsum_process) at no cost.
  // Without an outer checksum the 82599 leaves CHECKSUM_NONE (erratum) and
  // the inner TCP segment is summed in software.
  // Once per merged skb: ip_rcv_core on the outer (20) and inner (20)
  // headers, and on 6.18 the gro_cells pass's inner header check (20).
  const Stream none618 = RunStream(k618, Mode::kNone), csum618 = RunStream(k618, Mode::kCsum),
               rco618 = RunStream(k618, Mode::kRco);
  for (const Stream* s : {&none618, &csum618, &rco618}) {
    EXPECT_EQ(s->server.nic_gro.merged, kPackets - 1);
    EXPECT_EQ(s->server.counters.Get("Tcp:InSegs"), 1u);
    ASSERT_EQ(s->server.delivered.size(), 1u);
    // The merged segment: the first packet's headers, every payload byte,
    // the pseudo-header sum in the TCP field (CHECKSUM_PARTIAL).
    Bytes want = TcpFrame(FlowSeg(0, kPackets * kMss, 0x10));
    Put16(want, 50, PseudoFold4(&want[26], &want[30], 6, 20 + kPackets * kMss));
    EXPECT_EQ(s->server.delivered[0].pkt.bytes(), want);
  }
  EXPECT_EQ(none618.server.work.csum_bytes, kPackets * (40 + kTcp) + 60);
  EXPECT_EQ(csum618.server.work.csum_bytes, kPackets * 70 + 60);
  EXPECT_EQ(rco618.server.work.csum_bytes, kPackets * 70 + 60);

  // 4.0: a zero-checksum tunnel is not merged (the v3.18 rule); each inner
  // packet goes up alone and tcp_v4_rcv sums it. No gro_cells pass.
  const Stream none40 = RunStream(k40, Mode::kNone);
  EXPECT_EQ(none40.server.nic_gro.merged, 0u);
  EXPECT_EQ(none40.server.counters.Get("Tcp:InSegs"), kPackets);
  EXPECT_EQ(none40.server.work.csum_bytes, kPackets * (20 + 20 + 20 + kTcp));
  const Stream csum40 = RunStream(k40, Mode::kCsum);
  EXPECT_EQ(csum40.server.nic_gro.merged, kPackets - 1);
  EXPECT_EQ(csum40.server.work.csum_bytes, kPackets * 70 + 40);
  // RCO on 4.0: skb_remcsum_process had only its "nopartial" form (the
  // CHECKSUM_PARTIAL form came with REMCSUM_NOPARTIAL in v4.1), which
  // completes a non-COMPLETE skb's checksum from the inner MAC header: the
  // merged skb is summed once more (14 + 20 + 20 + 4 x 1398), then the 34
  // bytes before the checksum start and the inner Ethernet header (14).
  const Stream rco40 = RunStream(k40, Mode::kRco);
  EXPECT_EQ(rco40.server.nic_gro.merged, kPackets - 1);
  EXPECT_GE(rco40.server.work.csum_bytes, kPackets * 70 + 40 + (54 + kPackets * kMss) + 34 + 14);
}

}  // namespace
}  // namespace offlab::testing
