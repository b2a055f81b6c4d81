// Driver receive: the dispatch on the profile's kernel view and the
// table-driven rule of the drivers that report CHECKSUM_UNNECESSARY for
// what their hardware verified (ixgbe, ice, i40e). Citations: v6.18.19 =
// 6952350/linux-6.18.y f3fce0151d48 (Linux v6.18 networking).
#include "offlab/linux/rx.h"

#include <string_view>

#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/net/headers.h"
#include "offlab/net/work.h"
#include "rx_internal.h"

namespace offlab::kernel {

namespace rx_detail {

namespace {

bool IsL4(std::string_view layer) { return layer == "tcp" || layer == "udp" || layer == "sctp"; }
bool IsIcmp(std::string_view layer) { return layer == "icmp" || layer == "icmpv6"; }

TunnelType TunnelOf(const Dissection& d) {
  for (const Layer& l : d.layers) {
    if (l.depth != 0) continue;
    if (l.name == "vxlan") return TunnelType::kVxlan;
    if (l.name == "geneve") return TunnelType::kGeneve;
    if (l.name == "gre") return TunnelType::kGre;
  }
  return TunnelType::kNone;
}

}  // namespace

RxValidation KernelRxValidation(const NicProfile& p, TunnelType tt) {
  // Under Linux a tunnel is parsed only when the driver programs it (the
  // kernel view's `tunnels`); otherwise the frame is a plain one to the NIC.
  const char* name = tt == TunnelType::kVxlan    ? "vxlan"
                     : tt == TunnelType::kGeneve ? "geneve"
                     : tt == TunnelType::kGre    ? "gre"
                                                 : "";
  bool parsed = false;
  if (p.kernel)
    for (const std::string& t : p.kernel->tunnels) parsed = parsed || t == name;
  if (!parsed) return p.rx_plain;
  RxValidation rv;
  rv.outer_ip = p.rx_plain.outer_ip;
  rv.outer_l4 = tt != TunnelType::kGre && !p.kernel->tunnel_outer_udp_unverified;
  rv.inner_ip = rv.inner_l4 = true;
  return rv;
}

HwCheck VerifyLikeHardware(const SkBuff& skb, const NicProfile& p) {
  // The NIC checks what the profile says it checks for this kind of packet,
  // on the bytes.
  const Dissection d = DissectQuiet(skb.pkt.data(), skb.len());
  const TunnelType tt = TunnelOf(d);
  const RxValidation rv = KernelRxValidation(p, tt);
  HwCheck h;
  h.tunnel = tt != TunnelType::kNone && (rv.inner_ip || rv.inner_l4);
  bool any_bad_non_udp = false;
  for (const ChecksumField& f : d.checksums) {
    // Each field's layer is classified once (several tests below ask).
    const bool ipv4 = f.layer == "ipv4", udp = f.layer == "udp";
    const bool l4 = udp || IsL4(f.layer), icmp = !ipv4 && !l4 && IsIcmp(f.layer);
    bool checked = false;
    if (f.depth == 0) {
      checked = (ipv4 && rv.outer_ip) || (l4 && rv.outer_l4) || (icmp && !h.tunnel);
    } else if (f.depth == 1 && h.tunnel) {
      checked = (ipv4 && rv.inner_ip) || (l4 && rv.inner_l4) || icmp;
    }
    if (!checked) continue;
    if (icmp) {
      // Hardware that reports ICMP does not verify its checksum.
      h.icmp = true;
      continue;
    }
    if (f.verdict == Verdict::kIncorrect) {
      h.bad = true;
      if (!udp) any_bad_non_udp = true;
      if (ipv4 && f.depth == 0 && h.tunnel) h.bad_outer_ip = true;
    } else if (f.verdict == Verdict::kAbsent && udp) {
      h.udp_zero = true;
    }
    if (l4 && f.verdict != Verdict::kNotChecked && (f.depth == 1 || !h.tunnel)) h.l4_checked = true;
  }
  h.bad_udp_only = h.bad && !any_bad_non_udp;
  return h;
}

}  // namespace rx_detail

namespace {

using rx_detail::HwCheck;

// ixgbe_rx_checksum (v6.18.19 drivers/net/ethernet/intel/ixgbe/ixgbe_main.c
// :1676-1731), ice_rx_csum (ice/ice_txrx_lib.c:110-176) and i40e_rx_checksum
// (i40e/i40e_txrx.c:1742-1805): NONE unless RXCSUM is on and the hardware parsed and
// verified an L4 checksum; a wrong checksum leaves NONE and is counted in
// the driver's error statistic; a good one is UNNECESSARY, at csum_level 1
// when the hardware verified a tunnel's inner checksum.
void VerifiedUnnecessary(SkBuff& skb, const NicProfile& p, const KernelNicView& kv,
                         const DeviceFeatures& dev, Counters* c) {
  if (!(dev.features & netif::kRxCsum)) return;  // ixgbe_main.c:1686, libeth_rx_pt_has_checksum
  const HwCheck h = rx_detail::VerifyLikeHardware(skb, p);
  if (h.bad) {
    // ixgbe_main.c:1705-1715 the 82599 reports UDP frames with a zero
    // checksum as errors, so the driver ignores every UDP L4 error there
    // (neither counted nor trusted).
    if (kv.udp_zero_csum_erratum && h.bad_udp_only) return;
    // ice_txrx_lib.c:143-146 ice counts a bad outer IPv4 header apart.
    const std::string& stat =
        h.bad_outer_ip && !kv.outer_ip_err_stat.empty() ? kv.outer_ip_err_stat : kv.csum_err_stat;
    if (!stat.empty()) Count(c, stat.c_str());
    return;
  }
  // The erratum's other side: a zero UDP checksum is flagged bad by the
  // 82599 and ignored, leaving NONE.
  if (kv.udp_zero_csum_erratum && h.udp_zero) return;
  // libeth_rx_pt_has_checksum (include/net/libeth/rx.h:286-293) accepts
  // ICMP packet types, which the hardware does not verify.
  if (!h.l4_checked && !(kv.icmp_unverified && h.icmp)) return;
  skb.ip_summed = IpSummed::kUnnecessary;
  // ice_txrx_lib.c:165-170, i40e_txrx.c:1793-1798 (tunnel_type >= GRENAT):
  // the inner checksum was the one verified.
  skb.csum_level = h.tunnel ? kv.tunnel_csum_level : 0;
}

}  // namespace

const KernelNicView& KernelView(const NicProfile& profile) {
  if (!profile.kernel)
    throw Error("profile " + profile.name + ": '" + profile.driver +
                "' has no Linux driver, so it cannot be a kernel NIC");
  return *profile.kernel;
}

DeviceFeatures KernelDeviceFeatures(const NicProfile& profile) {
  const KernelNicView& kv = KernelView(profile);
  DeviceFeatures d;
  for (const std::string& n : kv.features) d.features |= FeatureFromName(n);
  for (const std::string& n : kv.hw_enc_features) d.hw_enc_features |= FeatureFromName(n);
  return d;
}

RxResult DriverReceiveWith(const Bytes& frame, const NicProfile& profile, const DeviceFeatures& dev,
                           KernelVersion kv, Counters* counters, const RxMeta& meta) {
  return DriverReceiveWith(Bytes(frame), profile, dev, kv, counters, meta);
}

RxResult DriverReceiveWith(Bytes&& frame, const NicProfile& profile, const DeviceFeatures& dev,
                           KernelVersion kv, Counters* counters, const RxMeta& meta) {
  const KernelNicView& view = KernelView(profile);
  RxResult r;
  if (view.driver == "tun") {
    // A TAP's "receive" is a write() from its user (tun_get_user).
    r.drop_reason = TapWrite(frame, meta.vnet, meta.tap, &r.skb, counters);
    r.dropped = !r.drop_reason.empty();
    return r;
  }
  // The frame's buffer becomes the skb's (no headroom: a later push grows it).
  r.skb.pkt = Packet::Adopt(std::move(frame));
  SkBuff& skb = r.skb;
  // Page-backed receive buffers: the payload sits in a page fragment (the
  // model's nr_frags 1), which GRO merges as frags; copied frames are
  // linear (nr_frags 0) and GRO chains them on frag_list.
  skb.nr_frags = view.rx_page_frags ? 1 : 0;
  switch (view.rx_csum) {
    case KernelNicView::RxCsum::kNone:
      break;
    case KernelNicView::RxCsum::kUnnecessary:
      if (view.csum_good_unverified) {
        rx_detail::IbmvethReceive(skb, profile, dev, kv, meta, counters);
      } else {
        // The NIC verifies in hardware: no CPU work for the cost model.
        HardwareScope hw;
        VerifiedUnnecessary(skb, profile, view, dev, counters);
      }
      break;
    case KernelNicView::RxCsum::kComplete: {
      HardwareScope hw;  // the NIC sums the frame (mlx5e's CQE checksum)
      rx_detail::Mlx5eHandleCsum(skb, profile, dev, counters);
      break;
    }
    case KernelNicView::RxCsum::kVnetHdr:
      r.drop_reason = rx_detail::VirtnetReceiveDone(skb, meta, counters);
      r.dropped = !r.drop_reason.empty();
      if (r.dropped) return r;
      break;
  }
  // eth_type_trans: the stack gets the frame with its network header after
  // the Ethernet header (a VLAN tag left in the bytes is untagged later).
  if (skb.len() >= hdr::kEthLen && skb.pkt.l3_ofs == kNoOffset) skb.pkt.l3_ofs = hdr::kEthLen;
  return r;
}

RxResult DriverReceiveFull(const Bytes& frame, const NicProfile& profile, KernelVersion kv,
                           Counters* counters, const RxMeta& meta) {
  return DriverReceiveWith(frame, profile, KernelDeviceFeatures(profile), kv, counters, meta);
}

SkBuff DriverReceive(const Bytes& frame, const NicProfile& profile, KernelVersion kv,
                     Counters* counters) {
  return DriverReceiveFull(frame, profile, kv, counters).skb;
}

}  // namespace offlab::kernel
