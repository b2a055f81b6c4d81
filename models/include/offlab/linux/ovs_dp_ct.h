// The OVS kernel datapath's ct() action (OVS_ACTION_ATTR_CT, torvalds/linux
// 008f05a72d32 net/openvswitch/actions.c:1395 -> ovs_ct_execute in
// net/openvswitch/conntrack.c) as far as checksums go: skb->data is pulled
// to the network header (skb_pull_rcsum), the skb trimmed to the IP length
// (pskb_trim_rcsum: Ethernet padding leaves a COMPLETE sum, or turned it to
// NONE before v4.20), nf_conntrack_in runs with hook NF_INET_PRE_ROUTING
// (__ovs_ct_lookup's nf_hook_state), so the L4 checksum is validated when
// net.netfilter.nf_conntrack_checksum is set and a bad one makes the packet
// +trk+inv; NAT rewrites with the nf_nat_manip_pkt rules; then the MAC
// header is pushed back (skb_push_rcsum). The skb's checksum state after it
// (e.g. NONE -> COMPLETE from the software check) is what later actions see.
#pragma once

#include <cstdint>
#include <optional>

#include "offlab/linux/nf_conntrack.h"
#include "offlab/linux/nf_conntrack_nat.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

struct OvsCtAction {
  uint16_t zone = 0;
  bool commit = false;
  // ct(nat(...)): the rewrite this packet gets from the connection's NAT
  // binding (the binding itself is the caller's). Applied only to a tracked
  // packet of a confirmed connection or one being committed, as
  // __ovs_ct_lookup does.
  std::optional<NatTarget> nat;
  NfCtExisting existing = NfCtExisting::kNone;
};

struct OvsCtOutcome {
  int err = 0;             // ovs_ct_execute's return (the skb is freed if non-zero)
  bool looked_up = false;  // nf_conntrack_in ran (not skipped as cached)
  NfCtResult ct;           // its verdict when it ran
  bool nat_applied = false;
};

OvsCtOutcome OvsCtExecute(OvsSkb& s, const OvsCtAction& action, const NfConntrackConfig& cfg,
                          const KernelVersion& kv = kLabKernel);

// pskb_trim_rcsum (include/linux/skbuff.h, pskb_trim_rcsum_slow in
// net/core/skbuff.c) to `len` bytes from skb->data (csum_from): a COMPLETE
// sum loses the trailing bytes' share (torvalds/linux 88078d98d1bb "net:
// pskb_trim_rcsum() and CHECKSUM_COMPLETE are friends", taken as v4.20 with
// its odd-offset fix d55bef5059dd; also in 4.4/4.9 stable), before that it
// became NONE; a PARTIAL skb whose checksum field would be cut fails (-EINVAL).
// Returns 0 or -EINVAL.
int PskbTrimRcsum(SkBuff& skb, size_t len, const KernelVersion& kv = kLabKernel);

}  // namespace offlab::kernel
