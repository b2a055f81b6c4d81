// Linux virtual devices as `ip link add` creates them on 6.18: their default
// feature sets (veth, vxlan, bridge, tun/tap, and a TAP after TUNSETOFFLOAD)
// and veth's transmit rule on the skb. Features are the bits features.h
// models; each device also lists, by ethtool name, the features it has on
// that features.h does not model, so a comparison with `ethtool -k` can be
// exact. Sources are cited in devices.cc ("v6.18.19" = 6952350/linux-6.18.y
// f3fce0151d48) and were checked against `ethtool -k` on a 6.18 kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

struct VirtualDevice {
  std::string kind;  // "veth", "vxlan", "bridge", "tap"
  DeviceFeatures dev;
  // Features on by default that features.h has no bit for (ethtool names,
  // e.g. "highdma", "tx-ipxip4-segmentation", "tx-vlan-hw-insert").
  std::vector<std::string> unmodelled_on;
};

// veth_setup (+ register_netdevice's soft features; GRO off until XDP or
// `ethtool -K gro on`).
VirtualDevice VethDevice(KernelVersion kv = kLabKernel);
// vxlan_setup: no hw_enc_features beyond register_netdevice's SG|GSO_PARTIAL,
// so nothing is offloaded for an already encapsulated skb.
VirtualDevice VxlanDevice(KernelVersion kv = kLabKernel);
// br_dev_setup with no ports (ports change nothing modelled here: one port
// with HW_CSUM keeps it for all, netdev_increment_features).
VirtualDevice BridgeDevice(KernelVersion kv = kLabKernel);
// tun_net_init for IFF_TAP before any TUNSETOFFLOAD (no checksum offload).
VirtualDevice TapDevice(KernelVersion kv = kLabKernel);

// TUNSETOFFLOAD flags (include/uapi/linux/if_tun.h).
namespace tun_f {
constexpr uint32_t kCsum = 0x01;
constexpr uint32_t kTso4 = 0x02;
constexpr uint32_t kTso6 = 0x04;
constexpr uint32_t kTsoEcn = 0x08;
constexpr uint32_t kUfo = 0x10;
constexpr uint32_t kUso4 = 0x20;
constexpr uint32_t kUso6 = 0x40;
constexpr uint32_t kUdpTunnelGso = 0x80;       // 6.17+
constexpr uint32_t kUdpTunnelGsoCsum = 0x100;  // 6.17+
}  // namespace tun_f

// set_offload (drivers/net/tun.c): the TAP's features after TUNSETOFFLOAD
// with `tun_f`. Throws offlab::Error for what the ioctl refuses with
// -EINVAL (a flag left unconsumed, e.g. TSO without CSUM, USO4 without USO6,
// or a flag the kernel version does not know).
DeviceFeatures TapFeatures(uint32_t tun_f, KernelVersion kv = kLabKernel);

// veth_xmit's effect on the skb it hands to the peer. From 4.4 on (commit
// ce8c839b74e3) nothing changes; before it, CHECKSUM_NONE became
// CHECKSUM_UNNECESSARY when the peer had NETIF_F_RXCSUM, so packets with
// bad checksums were accepted as good.
void VethXmit(SkBuff& skb, const DeviceFeatures& peer, KernelVersion kv = kLabKernel);

// Whether veth_xmit hands the skb to the peer's NAPI instance (and so to
// GRO) rather than to netif_rx (v6.18.19 drivers/net/veth.c:373-374
// veth_xmit, :338-345 veth_skb_is_eligible_for_gro): the peer has NAPI
// (rx-gro on, or an XDP program: veth_set_features), and either the sending
// device has no TCP segmentation feature (NETIF_F_ALL_TSO) or the skb comes
// from a local socket and the peer has rx-gro-list or
// rx-udp-gro-forwarding. The NAPI path unclones the skb first (:936). Rule
// of v6.18; older kernels are not modelled here.
bool VethUsesNapi(const DeviceFeatures& tx, const DeviceFeatures& peer, bool peer_xdp = false,
                  bool from_local_socket = false);

// All four devices, for listing.
std::vector<VirtualDevice> AllVirtualDevices(KernelVersion kv = kLabKernel);

}  // namespace offlab::kernel
