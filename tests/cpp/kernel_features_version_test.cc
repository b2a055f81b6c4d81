// Net device features by kernel version. Every expected set is written out
// here from the drivers' probe code in the stored trees (cited in
// features_version*.cc and docs/kernel-model.md): e.g. 4.0's ixgbe_probe
// sets SG|IP_CSUM|IPV6_CSUM|TSO|TSO6|RXCSUM plus SCTP_CSUM on the 82599 and
// no hw_enc_features for it, so register_netdevice's SG is all a tunnelled
// skb keeps. The host test at the end follows the consequence through
// validate_xmit_skb: a VXLAN TSO skb on 4.0 is segmented in software, on
// 6.18 it goes to the NIC as one GSO_PARTIAL segment.
#include <gtest/gtest.h>

#include "kernel_host_test_frames.h"
#include "offlab/linux/features_version.h"
#include "offlab/linux/host.h"
#include "offlab/linux/rx.h"
#include "offlab/net/error.h"

namespace offlab::testing {
namespace {

using kernel::KernelVersion;
using kernel::NicFeatures;
namespace netif = kernel::netif;

constexpr uint64_t kSg = netif::kSg, kIp = netif::kIpCsum, kIp6 = netif::kIpv6Csum,
                   kHw = netif::kHwCsum, kTso = netif::kTso, kTso6 = netif::kTso6,
                   kEcn = netif::kTsoEcn, kMangle = netif::kTsoMangleid, kRx = netif::kRxCsum,
                   kSctp = netif::kSctpCrc, kGso = netif::kGsoSoftware, kGro = netif::kGro,
                   kPartial = netif::kGsoPartial, kGre = netif::kGsoGre,
                   kGreCsum = netif::kGsoGreCsum, kUdpTnl = netif::kGsoUdpTunnel,
                   kUdpTnlCsum = netif::kGsoUdpTunnelCsum, kUso = netif::kGsoUdpL4,
                   kFraglist = netif::kFraglist, kLro = netif::kLro, kGroHw = netif::kGroHw;
constexpr uint64_t kTunnels = kGre | kGreCsum | kUdpTnl | kUdpTnlCsum;

const KernelVersion kRhel7{3, 10, true};

NicFeatures At(const char* profile, KernelVersion kv) {
  return kernel::KernelNicFeaturesAt(BuiltinProfile(profile), kv);
}

void Expect(const char* profile, KernelVersion kv, uint64_t features, uint64_t enc,
            uint64_t partial) {
  const NicFeatures f = At(profile, kv);
  const std::string what = std::string(profile) + " at " + kv.ToString();
  EXPECT_EQ(kernel::FeatureNames(f.dev.features), kernel::FeatureNames(features)) << what;
  EXPECT_EQ(kernel::FeatureNames(f.dev.hw_enc_features), kernel::FeatureNames(enc)) << what;
  EXPECT_EQ(kernel::FeatureNames(f.gso_partial_features), kernel::FeatureNames(partial)) << what;
}

TEST(KernelFeaturesVersion, CoreBitsByRelease) {
  // netdev_features.h: the tunnel-checksum GSO bits by 3.18, RCO 3.19,
  // partial GSO and MANGLEID 4.7, UDP_L4 4.18, fraglist GSO 5.6.
  const uint64_t v310 = kernel::KernelFeatureBits({3, 10, false});
  EXPECT_TRUE(v310 & kUdpTnl);
  EXPECT_FALSE(v310 & (kUdpTnlCsum | kGreCsum));
  EXPECT_EQ(kernel::KernelFeatureBits(kRhel7), kernel::KernelFeatureBits({3, 18, false}));
  const uint64_t v40 = kernel::KernelFeatureBits({4, 0, false});
  EXPECT_TRUE(v40 & (kUdpTnlCsum | netif::kGsoTunnelRemcsum));
  EXPECT_FALSE(v40 & (kPartial | kMangle));
  const uint64_t v411 = kernel::KernelFeatureBits({4, 11, false});
  EXPECT_TRUE(v411 & kPartial);
  EXPECT_FALSE(v411 & kUso);
  const uint64_t v419 = kernel::KernelFeatureBits({4, 19, false});
  EXPECT_TRUE(v419 & (kUso | kGroHw));
  EXPECT_FALSE(v419 & netif::kGsoFraglist);
  EXPECT_TRUE(kernel::KernelFeatureBits({5, 6, false}) & netif::kGsoFraglist);
  // Both fraglist bits came with v5.6 ("net: Support GRO/GSO fraglist chaining").
  const uint64_t v55 = kernel::KernelFeatureBits({5, 5, false});
  EXPECT_FALSE(v55 & (netif::kGsoFraglist | netif::kGroFraglist));
  EXPECT_TRUE(kernel::KernelFeatureBits({5, 6, false}) & netif::kGroFraglist);
  EXPECT_FALSE(kernel::KernelFeatureBits({6, 18, false}) & netif::kLlTx);
}

TEST(KernelFeaturesVersion, Ixgbe82599) {
  // RHEL 7.1 (upstream 3.18's ixgbe 3.19.1-k) and 4.0: no tunnel offload,
  // per-protocol checksums, hw_enc_features only register_netdevice's SG.
  const uint64_t old = kSg | kIp | kIp6 | kTso | kTso6 | kRx | kSctp | kGso | kGro;
  Expect("ixgbe_82599", kRhel7, old, kSg, 0);
  Expect("ixgbe_82599", {4, 0, false}, old, kSg, 0);
  // 4.4: checksum offload for tunnelled packets (SG|IP_CSUM|IPV6_CSUM).
  Expect("ixgbe_82599", {4, 4, false}, old, kSg | kIp | kIp6, 0);
  // 4.11: HW_CSUM, tunnel TSO as GSO_PARTIAL, hw_enc_features = features
  // | TSO_MANGLEID (before the soft features are added).
  const uint64_t v411 = kSg | kTso | kTso6 | kRx | kHw | kPartial | kTunnels | kSctp;
  Expect("ixgbe_82599", {4, 11, false}, v411 | kGso | kGro, v411 | kMangle, kTunnels);
  Expect("ixgbe_82599", {4, 19, false}, v411 | kGso | kGro, v411 | kMangle, kTunnels);
  // 6.18: GSO_UDP_L4 too (from 5.6).
  Expect("ixgbe_82599", {6, 18, false}, v411 | kUso | kGso | kGro, v411 | kUso | kMangle, kTunnels);
}

TEST(KernelFeaturesVersion, I40eX710) {
  // 3.18 / RHEL 7.1 / 4.0: UDP-tunnel TSO of its own, no GRE yet.
  const uint64_t v318 = kSg | kIp | kIp6 | kSctp | kUdpTnl | kTso | kEcn | kTso6 | kRx;
  Expect("x710", kRhel7, v318 | kGso | kGro, kSg | kIp | kUdpTnl | kTso, 0);
  Expect("x710", {4, 0, false}, v318 | kGso | kGro, kSg | kIp | kUdpTnl | kTso, 0);
  Expect("x710", {4, 4, false}, v318 | kGre | kGso | kGro, kSg | kIp | kUdpTnl | kGre | kTso, 0);
  // 4.11: the hw_enc_features set (with the soft features) is also the
  // features; the X710 does the checksummed tunnels only as GSO_PARTIAL.
  const uint64_t v411 =
      kSg | kIp | kIp6 | kGso | kGro | kTso | kEcn | kTso6 | kTunnels | kPartial | kSctp | kRx;
  Expect("x710", {4, 11, false}, v411, v411 | kMangle, kUdpTnlCsum | kGreCsum);
  Expect("x710", {5, 10, false}, v411 | kUso, v411 | kUso | kMangle, kUdpTnlCsum | kGreCsum);
  // 6.18: HW_CSUM, and every tunnel type as GSO_PARTIAL.
  const uint64_t v618 = (v411 & ~(kIp | kIp6)) | kHw | kUso;
  Expect("x710", {6, 18, false}, v618, v618 | kMangle, kTunnels);
  EXPECT_THROW(At("x710", {3, 10, false}), Error);
}

TEST(KernelFeaturesVersion, IceE810) {
  EXPECT_THROW(At("e810", {4, 11, false}), Error);
  EXPECT_THROW(At("e810", kRhel7), Error);
  // 4.19: SG, RXCSUM, IP_CSUM, IPV6_CSUM, TSO, for tunnels too.
  const uint64_t v419 = kSg | kRx | kIp | kIp6 | kTso;
  Expect("e810", {4, 19, false}, v419 | kGso | kGro, v419 | kPartial | kMangle, 0);
  Expect("e810", {5, 4, false}, v419 | kSctp | kGso | kGro, v419 | kSctp | kPartial | kMangle, 0);
  // 5.10: TSO6, ECN, the tunnels, UDP_L4; checksummed tunnels partial.
  const uint64_t v510 = v419 | kSctp | kEcn | kTso6 | kTunnels | kPartial | kUso;
  Expect("e810", {5, 10, false}, v510 | kGso | kGro, v510 | kMangle, kUdpTnlCsum | kGreCsum);
  Expect("e810", {6, 18, false}, v510 | kGso | kGro, v510 | kMangle, kUdpTnlCsum | kGreCsum);
}

TEST(KernelFeaturesVersion, Mlx5eConnectX) {
  EXPECT_THROW(At("connectx5", {4, 4, false}), Error);
  EXPECT_THROW(At("connectx5", kRhel7), Error);
  EXPECT_THROW(At("connectx6dx", {5, 0, false}), Error);
  EXPECT_THROW(At("bluefield2", {5, 3, false}), Error);
  // 4.11: per-protocol checksums, UDP-tunnel TSO with its checksummed form
  // partial; no GRE, no UDP_L4.
  const uint64_t v411 =
      kSg | kIp | kIp6 | kGro | kTso | kTso6 | kRx | kUdpTnl | kUdpTnlCsum | kPartial | kGso;
  const uint64_t enc411 =
      kSg | kIp | kIp6 | kTso | kTso6 | kMangle | kUdpTnl | kUdpTnlCsum | kPartial;
  Expect("connectx5", {4, 11, false}, v411, enc411, kUdpTnlCsum);
  Expect("connectx5", {4, 19, false}, v411 | kGre | kGreCsum | kUso, enc411 | kGre | kGreCsum,
         kUdpTnlCsum | kGre | kGreCsum | kUso);
  const uint64_t v618 = (v411 & ~(kIp | kIp6)) | kHw | kGre | kGreCsum | kUso;
  const uint64_t enc618 = (enc411 & ~(kIp | kIp6)) | kHw | kGre | kGreCsum;
  Expect("bluefield2", {5, 4, false}, v618, enc618, kUdpTnlCsum | kGre | kGreCsum | kUso);
  Expect("connectx6dx", {6, 18, false}, v618, enc618, kUdpTnlCsum | kGre | kGreCsum | kUso);
}

TEST(KernelFeaturesVersion, VirtioNetAndTap) {
  // virtio_net: FRAGLIST beside HW_CSUM|SG until 4.2, RXCSUM from 3.14
  // (RHEL 7.1 as 3.18 has it), LRO for the guest offloads from 5.0, GRO_HW
  // from 5.15.
  const uint64_t base = kHw | kSg | kTso | kTso6 | kGso | kGro;
  Expect("virtio", {3, 10, false}, base | kFraglist, kSg, 0);
  Expect("virtio", kRhel7, base | kFraglist | kRx, kSg, 0);
  Expect("virtio", {4, 0, false}, base | kFraglist | kRx, kSg, 0);
  Expect("virtio", {4, 19, false}, base | kRx, kSg | kPartial, 0);
  Expect("virtio", {5, 10, false}, base | kRx | kLro, kSg | kPartial, 0);
  Expect("virtio", {6, 18, false}, base | kRx | kGroHw, kSg | kPartial, 0);
  // tun: the same features after TUNSETOFFLOAD everywhere; hw_enc_features
  // = hw_features only from 6.18.
  const uint64_t tap = kSg | kFraglist | kHw | kTso | kTso6 | kGso | kGro;
  Expect("tap", {6, 12, false}, tap, kSg | kPartial, 0);
  Expect("tap", kRhel7, tap, kSg, 0);
}

TEST(KernelFeaturesVersion, At618EveryProfileIsItsOwnKernelView) {
  // The profiles describe v6.18 drivers: nothing changes at 6.18 (ibmveth
  // takes IbmvethFeatures in both MakeKernelHost and here).
  for (const std::string& name : BuiltinProfileNames()) {
    const NicProfile p = BuiltinProfile(name);
    if (!p.kernel || p.kernel->driver == "ibmveth") continue;
    const kernel::DeviceFeatures want = kernel::KernelDeviceFeatures(p);
    const kernel::DeviceFeatures got = kernel::KernelDeviceFeaturesAt(p, kernel::kLabKernel);
    EXPECT_EQ(kernel::FeatureNames(got.features), kernel::FeatureNames(want.features)) << name;
    EXPECT_EQ(kernel::FeatureNames(got.hw_enc_features), kernel::FeatureNames(want.hw_enc_features))
        << name;
  }
  EXPECT_THROW(At("pcap", kernel::kLabKernel), Error);
}

// --- the 82599's VXLAN TSO through validate_xmit_skb ---------------------

constexpr size_t kMss = 1398;  // 1500 - 50 (VXLAN) - 52
constexpr size_t kSegs = 4;
constexpr size_t kLen = kMss * kSegs;

// Seed 4's sender: the host's own TCP into a Linux VXLAN device on an 82599.
kernel::TxOutcome SendOverVxlan(KernelVersion kv, bool udp_csum) {
  kernel::KernelHost h = kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"), kv);
  kernel::VxlanConfig vx;
  vx.vni = 42;
  vx.dstport = 4789;
  vx.port_min = 55555;
  vx.port_max = 55556;
  vx.local = {192, 168, 1, 1};
  vx.remote = {192, 168, 1, 2};
  vx.ttl = 64;
  vx.udp_csum = udp_csum;
  h.vxlan = vx;
  h.route.src_mac = {2, 0, 0, 0, 0, 0x11};
  h.route.dst_mac = {2, 0, 0, 0, 0, 0x22};
  h.mss = kMss;
  kernel::SkBuff skb;
  EXPECT_EQ(kernel::HostSocketSkb(h, TcpFrame(FlowSeg(0, kLen, 0x18)), &skb), "");
  EXPECT_EQ(skb.gso_segs, kSegs);
  return kernel::HostTransmit(h, skb);
}

TEST(KernelFeaturesVersion, VxlanTsoOn82599IsSoftwareGsoOn40AndPartialOn618) {
  EXPECT_EQ(kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599"), {4, 0, false})
                .nic_xmit.gso_partial_features,
            0u);
  EXPECT_EQ(kernel::MakeKernelHost(BuiltinProfile("ixgbe_82599")).nic_xmit.gso_partial_features,
            kTunnels);
  for (bool csum : {false, true}) {
    // 4.0: the 82599 has no UDP_TUNNEL feature, so validate_xmit_skb
    // segments in software: four skbs reach the driver. hw_enc_features
    // holds no checksum feature either, so each segment's inner TCP
    // checksum (20-byte header + 1398 bytes) is summed by the CPU.
    const kernel::TxOutcome old = SendOverVxlan({4, 0, false}, csum);
    EXPECT_EQ(old.to_driver.size(), kSegs) << csum;
    EXPECT_EQ(old.work.sw_segments, kSegs) << csum;
    EXPECT_EQ(old.counters.Get("gso_partial"), 0u) << csum;
    EXPECT_GE(old.work.csum_bytes, kSegs * (20 + kMss)) << csum;
    // 6.18: UDP_TUNNEL(_CSUM) are gso_partial_features: one partial
    // segment in software, the NIC's TSO cuts it into four and checksums
    // the inner segments, so no payload byte is summed by the CPU.
    const kernel::TxOutcome now = SendOverVxlan({6, 18, false}, csum);
    EXPECT_EQ(now.to_driver.size(), 1u) << csum;
    EXPECT_EQ(now.work.sw_segments, 1u) << csum;
    EXPECT_EQ(now.counters.Get("gso_partial"), 1u) << csum;
    EXPECT_EQ(now.counters.Get("device_tso_segments"), kSegs) << csum;
    EXPECT_LT(now.work.csum_bytes, kMss) << csum;
    for (const kernel::TxOutcome* t : {&old, &now}) {
      ASSERT_EQ(t->wire.size(), kSegs) << csum;
      for (size_t k = 0; k < kSegs; k++) {
        ExpectVxlanOuter(t->wire[k], csum, 42, "wire frame");
        EXPECT_EQ(InnerOf(t->wire[k]), TsoSegment(kLen, kMss, k)) << csum << " " << k;
      }
    }
  }
}

}  // namespace
}  // namespace offlab::testing
