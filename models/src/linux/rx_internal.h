// The per-driver receive rules behind DriverReceiveWith (rx.cc dispatches;
// rx_drivers.cc holds the drivers whose rules are not table-driven).
#pragma once

#include "offlab/linux/rx.h"

namespace offlab::kernel::rx_detail {

// mlx5e_handle_csum: CHECKSUM_COMPLETE with its fallbacks.
void Mlx5eHandleCsum(SkBuff& skb, const NicProfile& p, const DeviceFeatures& dev, Counters* c);
// ibmveth_poll's per-frame work: the large-packet and checksum helpers.
void IbmvethReceive(SkBuff& skb, const NicProfile& p, const DeviceFeatures& dev, KernelVersion kv,
                    const RxMeta& meta, Counters* c);
// virtnet_receive_done: the virtio-net header from the device. Returns ""
// or the reason the frame is dropped (counted in rx_frame_errors).
std::string VirtnetReceiveDone(SkBuff& skb, const RxMeta& meta, Counters* c);
// Whether the hardware's verification (the profile's rx_plain / rx_vxlan /
// rx_geneve / rx_gre) passes for these bytes; `tunnel` tells whether a
// tunnel the NIC parses was found and its inner checksums verified.
struct HwCheck {
  bool l4_checked = false;    // a TCP/UDP/SCTP checksum was verified (or absent UDP)
  bool bad = false;           // some verified checksum is wrong
  bool bad_outer_ip = false;  // ... the outer IPv4 header of a tunnelled frame
  bool bad_udp_only = false;  // every wrong one is a UDP checksum
  bool udp_zero = false;      // a UDP checksum of zero (none) was met
  bool tunnel = false;
  bool icmp = false;  // the innermost verified layer is ICMP / ICMPv6
};
HwCheck VerifyLikeHardware(const SkBuff& skb, const NicProfile& p);

}  // namespace offlab::kernel::rx_detail
