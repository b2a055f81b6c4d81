// Software GSO on SkBuff's real bytes: __skb_gso_segment (net/core/gso.c)
// and the protocol handlers it reaches: inet_gso_segment / ipv6_gso_segment,
// tcp4/tcp6_gso_segment -> tcp_gso_segment, skb_udp_tunnel_segment (UDP
// tunnels incl. remote checksum offload and GSO_PARTIAL), skb_segment
// (incl. its frag_list handling) and skb_segment_list (SKB_GSO_FRAGLIST).
// Baseline torvalds/linux 7d0a66e4bb90 (v6.18); rules that changed are
// chosen by KernelVersion. Not modelled (the skb is dropped with
// -EPROTONOSUPPORT and counted as "gso_not_modelled"): GRE, IPIP/SIT,
// UDP_L4 (USO), UFO, SCTP, ESP, and UDP frag_list GSO.
#pragma once

#include <cstdint>
#include <vector>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/linux/xmit_features.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// Negative errno values as the kernel returns them, plus kBug: an skb the
// kernel meets with BUG()/BUG_ON (a crash there; a drop here).
namespace gso_err {
constexpr int kNomem = -12;
constexpr int kInval = -22;
constexpr int kProtoNoSupport = -93;
constexpr int kBug = -1000;
}  // namespace gso_err

struct GsoResult {
  int err = 0;  // 0, or a gso_err value (the skb is then dropped)
  // skb_gso_segment returned NULL: nothing to segment (tcp_gso_segment found
  // the device can take the DODGY skb as it is). `segs` holds the skb.
  bool unsegmented = false;
  std::vector<SkBuff> segs;
};

// skb_gso_segment(skb, features) as validate_xmit_skb calls it (tx path).
// `features` are netif_skb_features; `dev` supplies dev->features,
// hw_enc_features and (in `opt`) gso_partial_features. Counters:
// "gso_segments" (segments made), "gso_copy_bytes" (bytes copied into
// them), "gso_csum_bytes" (payload checksummed while copying),
// "gso_partial" (skbs split for GSO_PARTIAL), "gso_frag_list_split",
// "gso_fraglist" (skb_segment_list), "gso_unsegmented", and on errors
// "gso_not_modelled", "skb_segment_bug", "gso_error".
GsoResult SkbGsoSegment(SkBuff skb, uint64_t features, const DeviceFeatures& dev,
                        const XmitOptions& opt, KernelVersion kv, Counters* counters);

}  // namespace offlab::kernel
