// What a NIC's Linux driver hands to the stack for a received frame: the
// skb with ip_summed / csum_level / csum decided from the real bytes the way
// that hardware and driver do, the layer offsets the driver and
// eth_type_trans set, and whether the data sits in page fragments or was
// copied. The NIC is a profile with a `kernel:` section (nic_profile.h);
// each driver's rules are cited in rx.cc / rx_drivers.cc ("v6.18.19" =
// 6952350/linux-6.18.y f3fce0151d48, the networking of Linux v6.18).
#pragma once

#include <cstdint>
#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel {

// The profile's kernel view; throws offlab::Error when the NIC has no Linux
// driver (pcap, dummy).
const KernelNicView& KernelView(const NicProfile& profile);

// The profile's default net device features as bits; throws offlab::Error
// naming an ethtool name features.h does not know.
DeviceFeatures KernelDeviceFeatures(const NicProfile& profile);

// What else arrives with a frame, for the NICs whose drivers get more than
// bytes from the other side.
struct RxMeta {
  // virtio_net / tun: the virtio-net header in front of the frame.
  VnetHdrTunnel vnet;
  // virtio_net: VIRTIO_NET_F_GUEST_UDP_TUNNEL_GSO(_CSUM) negotiated.
  bool vnet_tnl = false;
  bool vnet_tnl_csum = false;
  // tun: the TAP's configuration (header size).
  TapConfig tap;
  // ibmveth: the receive descriptor's flags (IBMVETH_RXQ_CSUM_GOOD: the
  // sending partition offloaded its checksum; IBMVETH_RXQ_LRG_PKT with the
  // MSS the hypervisor wrote).
  bool ibmveth_csum_good = true;
  bool ibmveth_large_packet = false;
  uint16_t ibmveth_mss = 0;
  uint32_t mtu = 1500;
};

struct RxResult {
  bool dropped = false;
  std::string drop_reason;  // why the driver dropped it (bad virtio-net header)
  SkBuff skb;
};

// The driver's receive with the profile's default features.
RxResult DriverReceiveFull(const Bytes& frame, const NicProfile& profile, KernelVersion kv,
                           Counters* counters, const RxMeta& meta = {});
// The same with the device's features as given (e.g. rx-checksum cleared by
// `ethtool -K <dev> rx off`: the driver then reports CHECKSUM_NONE).
RxResult DriverReceiveWith(const Bytes& frame, const NicProfile& profile, const DeviceFeatures& dev,
                           KernelVersion kv, Counters* counters, const RxMeta& meta = {});
// The same, taking the frame's buffer over instead of copying it.
RxResult DriverReceiveWith(Bytes&& frame, const NicProfile& profile, const DeviceFeatures& dev,
                           KernelVersion kv, Counters* counters, const RxMeta& meta = {});

// The common case: no metadata beyond the bytes, so nothing is dropped.
SkBuff DriverReceive(const Bytes& frame, const NicProfile& profile, KernelVersion kv = kLabKernel,
                     Counters* counters = nullptr);

}  // namespace offlab::kernel
