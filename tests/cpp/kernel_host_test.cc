// The host composition: its configuration helpers, and seed setups 2 (an
// ibmveth trunk bridged by OVS) and 3 (BlueField-2 through openvswitch.ko,
// and the same flow offloaded to the eSwitch). Frames are built and checked
// with the oracle of test_util.h; expected behaviour is the kernel's, cited
// where it is used.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/host.h"
#include "offlab/net/error.h"

namespace offlab::testing {
namespace {

using kernel::HostAttach;
using kernel::HostOvsAction;
using kernel::HostReceive;
using kernel::HostSwitch;
using kernel::KernelHost;
using kernel::KernelVersion;
using kernel::RxOutcome;
using kernel::SkBuff;
namespace netif = kernel::netif;

TEST(KernelHostConfig, FeaturesComeFromTheProfileOrTheIbmvethDriver) {
  const KernelHost x = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  EXPECT_EQ(x.nic_dev.features,
            kernel::KernelDeviceFeatures(BuiltinProfile("ixgbe_82599")).features);
  EXPECT_FALSE(x.ibmveth.has_value());
  // ibmveth: no FRAGLIST before v4.19, FRAGLIST on an active trunk after.
  const KernelHost v411 = kernel::MakeKernelHost(BuiltinProfile("ibmveth_trunk"), {4, 11, false});
  const KernelHost v419 = kernel::MakeKernelHost(BuiltinProfile("ibmveth_trunk"), {4, 19, false});
  ASSERT_TRUE(v411.ibmveth.has_value());
  EXPECT_FALSE(v411.nic_dev.features & netif::kFraglist);
  EXPECT_TRUE(v419.nic_dev.features & netif::kFraglist);
  EXPECT_THROW(kernel::MakeKernelHost(BuiltinProfile("pcap")), Error);
}

TEST(KernelHostConfig, SocketSkbIsPartialAndTsoAboveTheMss) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.mss = 1000;
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(FlowSeg(0, 2500, 0x10)), &skb), "");
  EXPECT_EQ(skb.ip_summed, kernel::IpSummed::kPartial);
  EXPECT_EQ(skb.csum_start, 34);
  EXPECT_EQ(skb.csum_offset, 16);
  EXPECT_EQ(skb.gso_size, 1000);
  EXPECT_EQ(skb.gso_segs, 3);
  EXPECT_EQ(skb.gso_type, kernel::gso::kTcpv4);
  const Bytes f = skb.pkt.bytes();
  EXPECT_EQ(Be16(f, 50), PseudoFold4(&f[26], &f[30], 6, static_cast<uint32_t>(f.size() - 34)));
  ASSERT_EQ(kernel::HostSocketSkb(h, TcpFrame(FlowSeg(0, 1000, 0x10)), &skb), "");
  EXPECT_FALSE(skb.is_gso());
  EXPECT_NE(kernel::HostSocketSkb(h, UdpFrame(100, 1), &skb), "");
  EXPECT_NE(kernel::HostSocketSkb(h, Bytes(20, 0), &skb), "");
}

TEST(KernelHostConfig, RoutingToAGuestIsRefusedNotGuessed) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.attach = HostAttach::kTap;
  const RxOutcome r = HostReceive(h, {TcpFrame(FlowSeg(0, 100, 0x10))});
  EXPECT_TRUE(r.delivered.empty());
  EXPECT_EQ(r.drops.size(), 1u);
}

TEST(KernelHostConfig, MalformedFramesAreDroppedOrPassedUp) {
  // Truncations of a VXLAN frame at every length, and bytes that parse as
  // nothing: each is dropped somewhere or handed up, never read past.
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kTap;
  h.vxlan = kernel::VxlanConfig{};
  h.vxlan->dstport = 4789;
  h.vxlan->remote = {192, 168, 1, 2};
  // A real VXLAN frame: a local socket's packet through vxlan0.
  KernelHost sender = h;
  sender.sw = HostSwitch::kRouted;
  sender.attach = HostAttach::kSocket;
  SkBuff skb;
  ASSERT_EQ(kernel::HostSocketSkb(sender, TcpFrame(FlowSeg(0, 40, 0x10)), &skb), "");
  const kernel::TxOutcome sent = kernel::HostTransmit(sender, skb);
  ASSERT_EQ(sent.wire.size(), 1u);
  const Bytes& full = sent.wire[0];
  ASSERT_EQ(full.size(), 50u + 94u);
  std::vector<Bytes> frames;
  for (size_t n = 0; n < full.size(); n++) frames.emplace_back(full.begin(), full.begin() + n);
  for (size_t n = 0; n < 80; n++) frames.emplace_back(n, static_cast<uint8_t>(0x45 + n));
  const RxOutcome r = HostReceive(h, frames);
  uint64_t dropped = 0;
  for (const auto& [why, n] : r.drops) dropped += n;
  EXPECT_LE(r.delivered.size(), frames.size());
  EXPECT_GT(dropped, 0u);
  EXPECT_NE(kernel::HostSocketSkb(h, Bytes(14 + 20 + 10, 0x45), &skb), "");
  const kernel::TxOutcome t = kernel::HostTransmit(h, SkBuff{});
  EXPECT_TRUE(t.wire.size() <= 1);
}

TEST(KernelHostConfig, OvsDropsAnOverMtuFrameItWouldForward) {
  // ovs_vport_send (v6.18 net/openvswitch/vport.c): a packet that
  // is not GSO and longer than the output port's MTU is dropped and counted
  // as a tx error; nothing of it reaches the wire.
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"));
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kForward;
  h.mtu = 1000;
  const RxOutcome fits = HostReceive(h, {TcpFrame(FlowSeg(0, 900, 0x18))});
  EXPECT_EQ(fits.wire.size(), 1u);
  EXPECT_TRUE(fits.drops.empty());
  const RxOutcome big = HostReceive(h, {TcpFrame(FlowSeg(0, 1200, 0x18))});
  EXPECT_TRUE(big.wire.empty());
  ASSERT_EQ(big.drops.size(), 1u);
  EXPECT_NE(big.drops.begin()->first.find("over-mtu packet"), std::string::npos)
      << big.drops.begin()->first;
}

// --- seed 2: ibmveth trunk ------------------------------------------------

constexpr size_t kMss = 1448;

// Three MSS segments of one flow into an ibmveth trunk whose OVS bridge
// forwards them out of the trunk again.
RxOutcome Trunk(KernelVersion kv, bool large_send, std::vector<Bytes>* in) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ibmveth_trunk"), kv);
  h.ibmveth->large_send = large_send;
  h.nic_dev = kernel::IbmvethFeatures(*h.ibmveth, kv);
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kForward;
  in->clear();
  for (size_t k = 0; k < 3; k++) in->push_back(TsoSegment(3 * kMss, kMss, k));
  return HostReceive(h, *in);
}

TEST(KernelHostSeed2, CopiedFramesAreChainedOnFragListByGro) {
  std::vector<Bytes> in;
  const RxOutcome r = Trunk({6, 18, false}, false, &in);
  // ibmveth copies each frame into a linear skb, so skb_gro_receive chains
  // the later ones on frag_list.
  EXPECT_EQ(r.nic_gro.merged, 2u);
}

TEST(KernelHostSeed2, LargesendSegmentsLinearizesOrDropsByKernel) {
  std::vector<Bytes> in;
  // v4.11: the trunk has no NETIF_F_FRAGLIST, so validate_xmit_skb segments
  // the frag_list skb at the MSS in software; each segment goes to the
  // hypervisor with its TCP field zeroed (ibmveth's no-checksum descriptor
  // for CHECKSUM_PARTIAL).
  const RxOutcome v411 = Trunk({4, 11, false}, true, &in);
  ASSERT_EQ(v411.wire.size(), 3u);
  for (size_t k = 0; k < 3; k++) {
    Bytes want = in[k];
    Put16(want, 50, 0);
    EXPECT_EQ(v411.wire[k], want) << k;
    EXPECT_FALSE(v411.ibmveth[k].largesend);
  }
  // skb_segment copies the head's own MSS and the headers of the members,
  // which it clones: 3 x 54 + 1448.
  EXPECT_EQ(v411.work.copy_bytes, 3 * 54 + kMss);
  EXPECT_EQ(v411.work.sw_segments, 3u);
  // v4.19: FRAGLIST on an active trunk: the whole skb reaches the driver,
  // which linearizes the two members and sends one largesend of MSS 1448.
  const RxOutcome v419 = Trunk({4, 19, false}, true, &in);
  ASSERT_EQ(v419.wire.size(), 1u);
  EXPECT_EQ(v419.wire[0].size(), 54 + 3 * kMss);
  ASSERT_EQ(v419.ibmveth.size(), 1u);
  EXPECT_TRUE(v419.ibmveth[0].largesend);
  EXPECT_EQ(v419.ibmveth[0].mss, kMss);
  EXPECT_EQ(v419.work.copy_bytes, 2 * kMss);
  EXPECT_EQ(v419.work.sw_segments, 0u);
  // v6.18: the long-term-buffer copy takes only the linear part and page
  // frags, the length check fails, the skb is dropped.
  const RxOutcome v618 = Trunk({6, 18, false}, true, &in);
  EXPECT_TRUE(v618.wire.empty());
  EXPECT_EQ(v618.counters.Get("ibmveth_tx_dropped"), 1u);
  EXPECT_EQ(v618.drops.size(), 1u);
}

TEST(KernelHostSeed2, WithoutLargesendEveryKernelSegmentsAtTheMss) {
  // No TSO on the trunk (firmware without large send, or ethtool -K tso
  // off): net_gso_ok fails for every kernel and software GSO cuts the skb
  // at its gso_size, so nothing reaches the driver's frag_list handling.
  for (KernelVersion kv :
       {KernelVersion{4, 11, false}, KernelVersion{4, 19, false}, KernelVersion{6, 18, false}}) {
    std::vector<Bytes> in;
    const RxOutcome r = Trunk(kv, false, &in);
    ASSERT_EQ(r.wire.size(), 3u) << kv.ToString();
    for (size_t k = 0; k < 3; k++) {
      Bytes want = in[k];
      Put16(want, 50, 0);
      EXPECT_EQ(r.wire[k], want) << kv.ToString() << " " << k;
    }
    EXPECT_EQ(r.work.sw_segments, 3u);
  }
}

// --- seed 3: BlueField-2 ----------------------------------------------------

RxOutcome Bluefield(size_t len, bool offloaded, std::vector<Bytes>* in) {
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("bluefield2"));
  h.sw = HostSwitch::kOvs;
  h.attach = HostAttach::kForward;
  h.eswitch_offload = offloaded;
  HostOvsAction ip;
  ip.kind = HostOvsAction::Kind::kSetIpv4;
  ip.ipv4.dst = {10, 0, 0, 9};
  ip.ipv4_mask.dst = {255, 255, 255, 255};
  HostOvsAction udp;
  udp.kind = HostOvsAction::Kind::kSetUdp;
  udp.ports.dst = 9999;
  udp.ports_mask.dst = 0xffff;
  h.ovs_actions = {ip, udp};
  in->clear();
  for (uint16_t k = 0; k < 4; k++) in->push_back(UdpFrame(len, static_cast<uint16_t>(100 + k)));
  return HostReceive(h, *in);
}

TEST(KernelHostSeed3, KernelDatapathRewritesEveryPacketInSoftware) {
  for (size_t len : {size_t{64}, size_t{1500}}) {
    std::vector<Bytes> in;
    const RxOutcome r = Bluefield(len, false, &in);
    ASSERT_EQ(r.wire.size(), 4u) << len;
    EXPECT_EQ(r.counters.Get("host:switched"), 4u);
    for (size_t k = 0; k < 4; k++) {
      // set_ipv4 / set_udp rewrite the fields and update both checksums
      // incrementally: the frame leaves with correct checksums.
      Bytes want = in[k];
      want[33] = 9;
      Put16(want, 36, 9999);
      FixIpv4Csum(want, 14);
      FixL4Csum(want, 14, 34, 17, 6);
      EXPECT_EQ(r.wire[k], want) << len << " " << k;
    }
    // Per packet: inet_gro_receive's ip_fast_csum (20). mlx5e reports
    // frames above 64 bytes CHECKSUM_COMPLETE (en_rx.c:1524-1525), and
    // netdev_port_receive's skb_postpush_rcsum adds the 14 pushed MAC bytes
    // to that sum; a 64-byte frame is CHECKSUM_UNNECESSARY and needs none.
    // The set actions' checksum updates are word arithmetic, not passes.
    EXPECT_EQ(r.work.csum_bytes, 4 * (len == 64 ? 20u : 34u)) << len;
    EXPECT_EQ(r.work.copy_bytes, 0u);
  }
}

TEST(KernelHostSeed3, EswitchOffloadedFlowNeverReachesTheKernel) {
  // TC flower offload: the eSwitch matches and forwards the flow itself
  // (KernelHost::eswitch_offload), so no driver, GRO or OVS step runs.
  for (size_t len : {size_t{64}, size_t{1500}}) {
    std::vector<Bytes> in;
    const RxOutcome r = Bluefield(len, true, &in);
    EXPECT_EQ(r.hw_switched, 4u);
    EXPECT_TRUE(r.wire.empty());
    EXPECT_EQ(r.counters.Get("host:switched"), 0u);
    EXPECT_EQ(r.work.csum_bytes + r.work.copy_bytes + r.work.sw_segments, 0u);
  }
  KernelHost h = kernel::MakeKernelHost(BuiltinProfile("bluefield2"));
  h.eswitch_offload = true;
  EXPECT_EQ(kernel::HostTransmit(h, SkBuff{}).hw_switched, 1u);
}

}  // namespace
}  // namespace offlab::testing
