// KernelNicFeaturesAt for an ibmveth profile: the features are the ibmveth
// driver's own for that kernel (IbmvethFeatures with the profile's trunk
// mode and the default "ibm,illan-options" / large-send firmware), not a
// table's. The difference that matters across versions: NETIF_F_FRAGLIST,
// which an active trunk gets from v4.19 on (torvalds/linux v4.19
// drivers/net/ethernet/ibm/ibmveth.c ibmveth_probe: "if (ret == H_SUCCESS
// && (adapter->is_active_trunk)) netdev->features |= NETIF_F_FRAGLIST";
// absent in v4.11).
#include <gtest/gtest.h>

#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/features_version.h"
#include "offlab/linux/rx.h"

namespace offlab::kernel {
namespace {

TEST(KernelFeaturesVersionIbmveth, TheDriversOwnFeaturesForTheTrunk) {
  const NicProfile p = BuiltinProfile("ibmveth_trunk");
  IbmvethConfig cfg;
  cfg.active_trunk = KernelView(p).active_trunk;
  ASSERT_TRUE(cfg.active_trunk);
  for (KernelVersion kv : {KernelVersion{4, 11}, KernelVersion{4, 19}, kLabKernel}) {
    const NicFeatures f = KernelNicFeaturesAt(p, kv);
    EXPECT_EQ(f.dev.features, IbmvethFeatures(cfg, kv).features) << kv.ToString();
    EXPECT_EQ(f.gso_partial_features, 0u) << kv.ToString();
  }
  EXPECT_FALSE(KernelNicFeaturesAt(p, {4, 11}).dev.features & netif::kFraglist);
  EXPECT_TRUE(KernelNicFeaturesAt(p, {4, 19}).dev.features & netif::kFraglist);
}

}  // namespace
}  // namespace offlab::kernel
