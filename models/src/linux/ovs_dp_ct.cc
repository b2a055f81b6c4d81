#include "offlab/linux/ovs_dp_ct.h"

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"

// Sources (v6.18 unless noted): net/openvswitch/conntrack.c ovs_ct_execute,
// __ovs_ct_lookup (nf_hook_state .hook = NF_INET_PRE_ROUTING), skb_nfct_cached,
// ovs_ct_update_key; net/netfilter/nf_conntrack_ovs.c nf_ct_skb_network_trim
// (ovs_skb_network_trim in conntrack.c before v6.3); net/core/skbuff.c
// pskb_trim_rcsum_slow.

namespace offlab::kernel {

int PskbTrimRcsum(SkBuff& skb, size_t len, const KernelVersion& kv) {
  const size_t data = skb.csum_from;
  if (data > skb.len() || len >= skb.len() - data) return 0;  // nothing to cut
  const size_t cut = data + len;
  if (skb.ip_summed == IpSummed::kComplete) {
    if (kv.AtLeast(4, 20)) {
      // csum_block_sub(csum, skb_checksum(skb, len, delta, 0), len): the
      // tail's sum is rotated a byte when it starts at an odd offset (the
      // odd-offset fix, d55bef5059dd, reached the same release).
      const size_t n = skb.len() - cut;
      work::Csum(n);
      uint32_t tail = WsumPartial(skb.pkt.data() + cut, n, 0);
      if (len & 1) tail = (tail >> 8) | (tail << 24);
      skb.csum = WsumSub(skb.csum, tail);
    } else {
      skb.ip_summed = IpSummed::kNone;
    }
  } else if (skb.ip_summed == IpSummed::kPartial) {
    const size_t field = size_t{skb.csum_start} + skb.csum_offset;
    if (field + 2 > cut) return -22;
  }
  skb.pkt.Resize(cut);
  return 0;
}

OvsCtOutcome OvsCtExecute(OvsSkb& s, const OvsCtAction& action, const NfConntrackConfig& cfg,
                          const KernelVersion& kv) {
  OvsCtOutcome out;
  SkBuff& skb = s.skb;
  const uint16_t l3 = skb.pkt.l3_ofs;
  const bool ipv4 = s.key.eth_type == hdr::kEthTypeIpv4;
  const bool ipv6 = s.key.eth_type == hdr::kEthTypeIpv6;
  if (l3 == kNoOffset || (!ipv4 && !ipv6) || l3 < skb.csum_from) {
    out.err = ovs_err::kInval;
    return out;
  }
  // "The conntrack module expects to be working at L3."
  const size_t nh_ofs = l3 - skb.csum_from;
  SkbPullRcsum(skb, nh_ofs);
  // nf_ct_skb_network_trim: to the length the IP header gives.
  size_t iplen = skb.len() - l3;
  if (ipv4 && skb.len() >= size_t{l3} + hdr::kIpv4MinLen) {
    const uint16_t tot = GetBe16(skb.pkt.data() + l3 + hdr::kIpv4TotLenOfs);
    // skb_ip_totlen: a GSO packet may carry tot_len 0 (BIG TCP).
    if (tot || !skb.is_gso()) iplen = tot;
  } else if (ipv6 && skb.len() >= size_t{l3} + hdr::kIpv6Len) {
    iplen = hdr::kIpv6Len + GetBe16(skb.pkt.data() + l3 + hdr::kIpv6PlenOfs);
  }
  if (const int err = PskbTrimRcsum(skb, iplen, kv)) {
    out.err = err;  // kfree_skb
    return out;
  }
  if (s.key.frag != OvsFlowKey::Frag::kNone) {
    // handle_fragments (defragmentation) is not modelled.
    SkbPushRcsum(skb, nh_ofs);
    out.err = ovs_err::kInval;
    return out;
  }
  // skb_nfct_cached: the skb still holds its entry from an earlier ct() in
  // the same zone (e.g. before a recirculation): conntrack is not run again.
  const bool cached = s.nfct_attached && s.ct_zone == action.zone;
  uint8_t state = s.ct_state;
  if (!cached) {
    out.looked_up = true;
    out.ct = NfConntrackIn(skb, l3, NfHook::kPreRouting, cfg, action.existing);
    state = out.ct.OvsCtState();
    s.nfct_attached = out.ct.tracked;
  }
  s.ct_zone = action.zone;
  // NAT for a tracked packet of a confirmed connection or one being
  // committed, unless this pass already NATed it.
  const bool confirmed = action.existing != NfCtExisting::kNone;
  if (action.nat && s.nfct_attached && (confirmed || action.commit) &&
      !(state & (ovs_cs::kSrcNat | ovs_cs::kDstNat))) {
    if (!NfNatManipPkt(skb, l3, *action.nat, kv)) {
      out.err = ovs_err::kInval;
    } else {
      out.nat_applied = true;
      state |= action.nat->manip == NatManip::kSrc ? ovs_cs::kSrcNat : ovs_cs::kDstNat;
      s.hash_valid = false;
    }
  }
  s.ct_state = state;
  SkbPushRcsum(skb, nh_ofs);
  OvsFlowKeyExtract(s);
  return out;
}

}  // namespace offlab::kernel
