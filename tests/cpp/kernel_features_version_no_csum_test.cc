// SPDX-License-Identifier: Apache-2.0
//
// The drivers that once advertised IP_CSUM|IPV6_CSUM where they now advertise
// HW_CSUM (i40e before 6.1, mlx5 before 5.3, ixgbe before 4.6:
// features_version*.cc) turn HW_CSUM into the two, and only HW_CSUM: a device
// whose checksum offload is off (ethtool -K tx off clears all three) gains no
// checksum feature from an older kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "offlab/linux/features_version.h"
#include "offlab/linux/rx.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel {
namespace {

// The built-in profile with its kernel view's tx-checksum-* features taken out.
NicProfile WithoutTxChecksum(const char* name) {
  NicProfile p = BuiltinProfile(name);
  for (std::vector<std::string>* f : {&p.kernel->features, &p.kernel->hw_enc_features}) {
    std::erase_if(*f, [](const std::string& s) { return s.rfind("tx-checksum-", 0) == 0; });
  }
  return p;
}

constexpr uint64_t kAnyCsum = netif::kHwCsum | netif::kIpCsum | netif::kIpv6Csum;

TEST(KernelFeaturesVersionNoCsum, OlderKernelsAddNoChecksumOffload) {
  // The releases whose probe keeps the profile's set and only renames the
  // checksum bits: i40e 4.7 to 6.0, mlx5 before 5.3 (the ConnectX-5).
  const std::vector<std::pair<const char*, KernelVersion>> at = {
      {"x710", {4, 9, false}},      {"x710", {5, 15, false}},      {"x710", {6, 18, false}},
      {"connectx5", {5, 0, false}}, {"connectx5", {4, 19, false}}, {"connectx5", {6, 18, false}}};
  for (const auto& [name, kv] : at) {
    const NicFeatures f = KernelNicFeaturesAt(WithoutTxChecksum(name), kv);
    EXPECT_EQ(f.dev.features & kAnyCsum, 0u) << name << " at " << kv.ToString();
    EXPECT_EQ(f.dev.hw_enc_features & kAnyCsum, 0u) << name << " at " << kv.ToString();
  }
}

TEST(KernelFeaturesVersionNoCsum, WithChecksumOffloadTheyAdvertiseItByProtocol) {
  // The same kernels with the profiles as built: IP_CSUM|IPV6_CSUM in place of
  // HW_CSUM where the driver's probe of that release set them.
  const NicFeatures i40e = KernelNicFeaturesAt(BuiltinProfile("x710"), {4, 9, false});
  EXPECT_EQ(i40e.dev.features & kAnyCsum, netif::kIpCsum | netif::kIpv6Csum);
  const NicFeatures mlx5 = KernelNicFeaturesAt(BuiltinProfile("connectx5"), {5, 0, false});
  EXPECT_EQ(mlx5.dev.features & kAnyCsum, netif::kIpCsum | netif::kIpv6Csum);
}

}  // namespace
}  // namespace offlab::kernel
