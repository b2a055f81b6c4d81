// Per-driver feature history for features_version.cc: each probe turns the
// profile's v6.18 registration into what the driver of an older upstream
// release registered, citing the trees it was read from. Trees are named
// owner/repo plus the commit stored here; "v6.18.19" is 6952350/linux-6.18.y
// f3fce0151d48, as in the profiles.
#pragma once

#include <string>

#include "offlab/linux/features_version.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel::fv {

struct ProbeCtx {
  const NicProfile& nic;
  KernelVersion asked;  // the host's kernel (maybe rhel7), for messages
  KernelVersion v;      // its upstream baseline (FeatureBaseline)
};

// Throws offlab::Error: kernel `c.asked` has no driver for this NIC.
[[noreturn]] void NoDriver(const ProbeCtx& c, const std::string& since);

// A driver that had not moved to NETIF_F_HW_CSUM yet offered the IPv4 and
// IPv6 checksums instead (both describe TCP/UDP checksum offload at any
// csum_start; HW_CSUM also covers other protocols, can_checksum_protocol).
void ChecksumByProtocol(uint64_t& features);

// Removes `bits` from features and hw_enc_features.
void DropBoth(NicFeatures& f, uint64_t bits);

void IxgbeProbe(const ProbeCtx& c, NicFeatures& f);
void I40eProbe(const ProbeCtx& c, NicFeatures& f);
void IceProbe(const ProbeCtx& c, NicFeatures& f);
void Mlx5eProbe(const ProbeCtx& c, NicFeatures& f);
void VirtnetProbe(const ProbeCtx& c, NicFeatures& f);
void TunNetInit(const ProbeCtx& c, NicFeatures& f);

}  // namespace offlab::kernel::fv
