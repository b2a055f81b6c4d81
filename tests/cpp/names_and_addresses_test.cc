// Names and addresses the CLI and scenario files take: net device features
// by their ethtool names (net/ethtool/common.c netdev_features_strings at
// v6.18), IP and MAC addresses, and the host's switch and attach kinds.
#include <gtest/gtest.h>

#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/host.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"

namespace offlab {
namespace {

TEST(FeatureNames, EthtoolNamesBothWays) {
  using namespace kernel;
  struct Case {
    uint64_t bit;
    const char* name;
  } cases[] = {{netif::kSg, "tx-scatter-gather"},
               {netif::kIpCsum, "tx-checksum-ipv4"},
               {netif::kHwCsum, "tx-checksum-ip-generic"},
               {netif::kIpv6Csum, "tx-checksum-ipv6"},
               {netif::kFraglist, "tx-scatter-gather-fraglist"},
               {netif::kTso, "tx-tcp-segmentation"},
               {netif::kTso6, "tx-tcp6-segmentation"},
               {netif::kGsoUdpTunnelCsum, "tx-udp_tnl-csum-segmentation"},
               {netif::kGsoPartial, "tx-gso-partial"},
               {netif::kSctpCrc, "tx-checksum-sctp"},
               {netif::kRxCsum, "rx-checksum"},
               {netif::kGro, "rx-gro"},
               {netif::kGroFraglist, "rx-gro-list"},
               {netif::kGroUdpFwd, "rx-udp-gro-forwarding"},
               {netif::kGsoSoftware, "tx-generic-segmentation"}};
  uint64_t all = 0;
  for (const Case& c : cases) {
    EXPECT_STREQ(FeatureName(c.bit), c.name);
    EXPECT_EQ(FeatureFromName(c.name), c.bit) << c.name;
    all |= c.bit;
  }
  // A bit that is no feature; a name that is none.
  EXPECT_STREQ(FeatureName(1ull << 62), "?");
  EXPECT_THROW(FeatureFromName("tx-checksumming"), Error);
  // FeatureNames lists each set bit once, nothing else.
  const auto names = FeatureNames(netif::kSg | netif::kGro);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], "tx-scatter-gather");
  EXPECT_EQ(names[1], "rx-gro");
  EXPECT_TRUE(FeatureNames(0).empty());
  EXPECT_EQ(FeatureNames(all).size(), sizeof cases / sizeof cases[0]);
}

TEST(Addresses, IpAndMacParsing) {
  bool v6 = true;
  const IpAddr a = ParseIp("192.0.2.7", &v6);
  EXPECT_FALSE(v6);
  EXPECT_EQ(a[0], 192);
  EXPECT_EQ(a[3], 7);
  const IpAddr b = ParseIp("2001:db8::1", &v6);
  EXPECT_TRUE(v6);
  EXPECT_EQ(b[0], 0x20);
  EXPECT_EQ(b[15], 1);
  EXPECT_THROW(ParseIp("192.0.2", &v6), Error);
  EXPECT_THROW(ParseIp("", &v6), Error);

  const MacAddr m = ParseMac("02:00:0A:ff:10:01");
  EXPECT_EQ(m[2], 0x0a);
  EXPECT_EQ(m[3], 0xff);
  EXPECT_EQ(MacToString(m), "02:00:0a:ff:10:01");
  for (const char* bad : {"02:00:0a:ff:10", "02:00:0a:ff:10:01:02", "02:00:0a:ff:10:1ff",
                          "02:00:0a:ff:10:01x", "hello"}) {
    EXPECT_THROW(ParseMac(bad), Error) << bad;
  }
}

TEST(HostKinds, Names) {
  using kernel::HostAttach;
  using kernel::HostSwitch;
  EXPECT_STREQ(kernel::HostSwitchName(HostSwitch::kRouted), "routed");
  EXPECT_STREQ(kernel::HostSwitchName(HostSwitch::kBridge), "bridge");
  EXPECT_STREQ(kernel::HostSwitchName(HostSwitch::kOvs), "ovs");
  EXPECT_STREQ(kernel::HostAttachName(HostAttach::kSocket), "socket");
  EXPECT_STREQ(kernel::HostAttachName(HostAttach::kTap), "tap");
  EXPECT_STREQ(kernel::HostAttachName(HostAttach::kVeth), "veth");
  EXPECT_STREQ(kernel::HostAttachName(HostAttach::kForward), "forward");
}

}  // namespace
}  // namespace offlab
