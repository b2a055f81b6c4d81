// The kernel's last step before a driver: validate_xmit_skb (net/core/dev.c)
// on SkBuff's real bytes. It asks what the device offers for this skb
// (netif_skb_features), segments in software what the device cannot
// (skb_gso_segment), linearizes what it cannot gather (skb_linearize) and
// completes checksums it cannot compute (skb_csum_hwoffload_help ->
// skb_checksum_help / skb_crc32c_csum_help). Baseline torvalds/linux
// 7d0a66e4bb90 (v6.18); the variants of older kernels are chosen by
// KernelVersion.
#pragma once

#include <cstdint>
#include <vector>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/linux/xmit_features.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// validate_xmit_skb: the skbs the driver's ndo_start_xmit receives, in
// order; empty when the kernel drops the skb (counted "tx_dropped" plus the
// reason). Counters (besides the gso_* ones of SkbGsoSegment):
// "xmit_gso" (skbs segmented in software), "xmit_linearize" and
// "xmit_linearize_bytes", "xmit_csum_help" (skb_checksum_help),
// "xmit_crc32c_help", "xmit_csum_offloaded" (left PARTIAL for the device).
// Work (bytes checksummed, copied, segments) goes to offlab::work's meter.
std::vector<SkBuff> ValidateXmitSkb(SkBuff skb, const DeviceFeatures& dev,
                                    KernelVersion kv = kLabKernel, Counters* counters = nullptr);
std::vector<SkBuff> ValidateXmitSkb(SkBuff skb, const DeviceFeatures& dev, const XmitOptions& opt,
                                    KernelVersion kv, Counters* counters);

// skb_checksum_help (net/core/dev.c :3541): a PARTIAL checksum completed in
// software (0 stored as 0xffff); COMPLETE just becomes NONE; a GSO skb is
// refused. Returns 0 or a negative errno.
int SkbChecksumHelp(SkBuff& skb, Counters* counters = nullptr);

// skb_csum_hwoffload_help (net/core/dev.c :3888) and its predecessors:
// leaves a PARTIAL checksum to a device that can do it, else completes it.
int SkbCsumHwoffloadHelp(SkBuff& skb, uint64_t features, KernelVersion kv,
                         Counters* counters = nullptr);

// __skb_linearize: page frags and frag_list pulled into the linear area.
// The bytes do not change; the copy is metered. `opt` says how frag_list
// members hold their data.
void SkbLinearize(SkBuff& skb, const XmitOptions& opt, Counters* counters = nullptr);

}  // namespace offlab::kernel
