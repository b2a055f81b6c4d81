// Net device features by kernel version. A NIC profile's `kernel:` section
// describes what a v6.18 driver registers; a host on an older kernel gets
// what that kernel's driver registered instead: feature bits the core did
// not define yet are gone (GSO_PARTIAL before 4.7, GSO_UDP_L4 before 4.18,
// ...), and each driver's own history is applied (ixgbe's tunnel TSO only as
// GSO_PARTIAL from 4.7 and HW_CSUM instead of IP_CSUM|IPV6_CSUM from 4.6,
// mlx5e from 4.2, ice from 4.17, ...). Every step cites the trees it was
// read from (features_version*.cc); docs/kernel-model.md has the table.
#pragma once

#include <cstdint>

#include "offlab/linux/features.h"
#include "offlab/linux/version.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel {

// The upstream release whose feature bits and drivers `kv` has: `kv` itself,
// or for `rhel7` (RHEL 7.1, 3.10.0-229) upstream 3.18 (features_version.cc
// says why).
KernelVersion FeatureBaseline(KernelVersion kv);

// The features.h bits kernel `kv`'s include/linux/netdev_features.h defines.
uint64_t KernelFeatureBits(KernelVersion kv);

// What a driver registered: dev->features and dev->hw_enc_features (gso
// sizes and MTU at DeviceFeatures' defaults), and dev->gso_partial_features,
// the tunnel GSO types the device does only as GSO_PARTIAL (XmitOptions).
struct NicFeatures {
  DeviceFeatures dev;
  uint64_t gso_partial_features = 0;
};

// The profile's NIC as the driver of kernel `kv` registered it; at 6.18 the
// profile's own features. An ibmveth profile gets IbmvethFeatures for a
// default IbmvethConfig on its trunk setting. Throws offlab::Error when the
// profile has no kernel view, or when kernel `kv` has no driver for the NIC
// (e.g. mlx5e before 4.2, a ConnectX-6 Dx before 5.3, ice before 4.17).
NicFeatures KernelNicFeaturesAt(const NicProfile& nic, KernelVersion kv);

// The same, features only.
DeviceFeatures KernelDeviceFeaturesAt(const NicProfile& nic, KernelVersion kv);

}  // namespace offlab::kernel
