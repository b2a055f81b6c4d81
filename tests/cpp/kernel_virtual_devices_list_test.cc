// The listing of the four virtual devices the host model knows (veth,
// vxlan, bridge, tap: devices.h), each the same device its own constructor
// gives for that kernel.
#include <gtest/gtest.h>

#include "offlab/linux/devices.h"

namespace offlab::kernel {
namespace {

TEST(KernelVirtualDevices, AllFourInListingOrder) {
  for (KernelVersion kv : {kLabKernel, KernelVersion{4, 19}}) {
    const auto all = AllVirtualDevices(kv);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0].kind, "veth");
    EXPECT_EQ(all[1].kind, "vxlan");
    EXPECT_EQ(all[2].kind, "bridge");
    EXPECT_EQ(all[3].kind, "tap");
    EXPECT_EQ(all[0].dev.features, VethDevice(kv).dev.features);
    EXPECT_EQ(all[1].dev.features, VxlanDevice(kv).dev.features);
    EXPECT_EQ(all[2].dev.features, BridgeDevice(kv).dev.features);
    EXPECT_EQ(all[3].dev.features, TapDevice(kv).dev.features);
  }
}

}  // namespace
}  // namespace offlab::kernel
