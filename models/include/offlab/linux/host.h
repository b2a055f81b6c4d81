// A Linux host as the seed setups built it, composed from the kernel model's
// operations: a physical NIC (a NIC profile's kernel view), optionally a
// VXLAN device, a switch between the NIC and the guest (the local stack's
// routing, a Linux bridge, or the OVS kernel datapath with its set actions
// and a VXLAN vport), and the guest's attachment (a TAP with a virtio-net
// header, a veth into a container, a local socket, or forwarding out the NIC
// again). HostTransmit and HostReceive chain the existing operations in the
// kernel's order; no checksum or offload rule lives here (each is cited where
// it is implemented: rx.cc, gro*.cc, vxlan_*.cc, stack_rx*.cc, ovs_*.cc,
// xmit*.cc, gso_segment*.cc, device_tx*.cc, virtio_net*.cc, devices.cc).
// What this layer adds is the path: which operation follows which, per
// kernel version where the path itself changed (host_path.cc cites those).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/devices.h"
#include "offlab/linux/features.h"
#include "offlab/linux/gro.h"
#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/rx.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/stack_rx.h"
#include "offlab/linux/version.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/linux/vxlan.h"
#include "offlab/linux/xmit_features.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/net/virtio_net_hdr.h"
#include "offlab/net/work.h"
#include "offlab/nic/nic_profile.h"

namespace offlab::kernel {

// What sits between the NIC (or the VXLAN device on it) and the guest.
enum class HostSwitch : uint8_t {
  kRouted,  // the host's own IP stack (a local socket, or routing into vxlan0)
  kBridge,  // a Linux bridge: br_forward leaves the skb's checksum state alone
  kOvs,     // openvswitch.ko: netdev vport receive, set actions, output
};
const char* HostSwitchName(HostSwitch s);

// Where the guest or application is.
enum class HostAttach : uint8_t {
  kSocket,   // a socket of this host's stack
  kTap,      // a VM behind a TAP with IFF_VNET_HDR (vhost-net reads the same header)
  kVeth,     // a container behind a veth pair
  kForward,  // no guest: received frames leave through the NIC again
};
const char* HostAttachName(HostAttach a);

// One OVS kernel-datapath action applied to every packet the switch passes
// (OVS_ACTION_ATTR_SET_MASKED on one header, or dec_ttl), in list order.
struct HostOvsAction {
  enum class Kind : uint8_t { kSetEth, kSetIpv4, kSetIpv6, kSetTcp, kSetUdp, kDecTtl };
  Kind kind = Kind::kSetIpv4;
  OvsKeyEthernet eth, eth_mask;
  OvsKeyIpv4 ipv4, ipv4_mask;
  OvsKeyIpv6 ipv6, ipv6_mask;
  OvsKeyPorts ports, ports_mask;
};

struct KernelHost {
  KernelVersion kv = kLabKernel;

  // The physical NIC: its profile (with a `kernel:` view), the features its
  // driver registered (KernelNicFeaturesAt, or IbmvethFeatures for an
  // ibmveth; change bits for `ethtool -K`), and what validate_xmit_skb also
  // reads (gso_partial_features, how frag_list members hold data).
  NicProfile nic;
  DeviceFeatures nic_dev;
  XmitOptions nic_xmit;
  // The NIC is an ibmveth adapter: transmit ends in ibmveth_start_xmit.
  std::optional<IbmvethConfig> ibmveth;
  // What arrives with each received frame besides its bytes (ibmveth
  // descriptor flags, a virtio-net header).
  RxMeta rx_meta;
  // rx-gro on the NIC (NETIF_F_GRO in nic_dev for GRO's purposes).
  bool gro = true;
  // The NIC's embedded switch forwards the flow in hardware (TC flower
  // offload): its packets never reach the kernel, so every kernel step and
  // all kernel work are absent. What the eSwitch does to the bytes is
  // hardware this model does not describe; the outcomes count the frames.
  bool eswitch_offload = false;

  // A VXLAN device on the NIC (`ip link add ... type vxlan`, or the
  // collect_md device behind an OVS vxlan vport: then vni/remote/udp_csum
  // come per packet from ovs_tunnel and the rest from here).
  std::optional<VxlanConfig> vxlan;
  // The underlay route's addresses, IP ID and flow hash; dev_features is
  // taken from nic_dev.
  UnderlayRoute route;

  HostSwitch sw = HostSwitch::kRouted;
  std::vector<HostOvsAction> ovs_actions;
  // set(tunnel(...)) then output to the VXLAN vport, for packets from the
  // guest; without it the OVS output is the NIC's netdev vport.
  std::optional<OvsTunnelKey> ovs_tunnel;

  HostAttach attach = HostAttach::kSocket;
  TapConfig tap;
  // The TUNSETOFFLOAD flags the VMM set on the TAP (tun_f::*).
  uint32_t tap_offloads = tun_f::kCsum | tun_f::kTso4 | tun_f::kTso6 | tun_f::kTsoEcn;
  // The receiving stack (this host's, or the container's behind the veth).
  StackRxConfig stack;

  uint32_t mtu = 1500;  // the NIC's and the OVS netdev vport's MTU
  uint16_t mss = 1448;  // a local TCP socket's MSS (HostSocketSkb)
};

// A host on `nic` (a profile with a kernel view; throws offlab::Error
// otherwise, or when kernel `kv` has no driver for the NIC) for kernel `kv`:
// nic_dev and nic_xmit.gso_partial_features as that kernel's driver
// registered them (KernelNicFeaturesAt, features_version.h) or, for the
// ibmveth driver, IbmvethFeatures with a default IbmvethConfig; frag_list
// members linear when the driver copies frames (rx_buffers).
KernelHost MakeKernelHost(const NicProfile& nic, KernelVersion kv = kLabKernel);

// The skb a guest's write() to the TAP makes (tun_get_user with the host's
// TapConfig). Returns "" or the reason the kernel refuses the header.
std::string HostGuestSkb(const KernelHost& host, const Bytes& frame, const VnetHdr& hdr,
                         SkBuff* out);
std::string HostGuestSkb(const KernelHost& host, Packet frame, const VnetHdr& hdr, SkBuff* out);

// The skb a local TCP socket hands to the IP layer for the Ethernet + IPv4/
// IPv6 + TCP `frame` (whose checksum field is ignored): CHECKSUM_PARTIAL at
// the TCP header with the pseudo-header sum in the field, and a TSO skb of
// gso_size host.mss when the payload is longer. Returns "" or why the frame
// is not one (too short, not TCP).
std::string HostSocketSkb(const KernelHost& host, const Bytes& frame, SkBuff* out);
// The same for a frame already in a Packet (its bytes only; moved, not copied).
std::string HostSocketSkb(const KernelHost& host, Packet frame, SkBuff* out);

// The software work a path cost: the work meter's delta over the call
// (bytes checksummed, bytes copied into segments, segments made in
// software). Steps the hardware performs (the NIC's receive checksum and
// TSO, DeviceTransmit) are not counted.
struct HostWork {
  uint64_t csum_bytes = 0;
  uint64_t copy_bytes = 0;
  uint64_t sw_segments = 0;
};

struct TxOutcome {
  // The frames the NIC puts on the wire, in order (for an ibmveth: each
  // buffer handed to the hypervisor, one per send).
  std::vector<Bytes> wire;
  // The skbs the NIC's driver was handed (after validate_xmit_skb).
  std::vector<SkBuff> to_driver;
  // ibmveth: what ibmveth_start_xmit did with each skb.
  std::vector<IbmvethTx> ibmveth;
  // Dropped skbs by "<stage>: <reason>".
  std::map<std::string, uint64_t> drops;
  // The eSwitch forwarded the packet in hardware (eswitch_offload).
  uint64_t hw_switched = 0;
  HostWork work;
  // Every counter the operations counted (driver, device, gso_*, xmit_*),
  // and "host:switched": the skbs the switch (bridge / OVS) passed on.
  Counters counters;
};

struct RxOutcome {
  // The skbs the guest or the local stack got: for kSocket/kVeth those the
  // stack delivered (after its TCP/UDP checks), for kTap those the VMM
  // read (with tap_hdrs), for kForward those handed to the NIC's driver.
  std::vector<SkBuff> delivered;
  std::vector<VnetHdrTunnel> tap_hdrs;  // kTap: the header read() returned
  std::vector<Bytes> wire;              // kForward: frames on the wire out
  std::vector<IbmvethTx> ibmveth;       // kForward on an ibmveth
  // The NIC's NAPI GRO, and the VXLAN device's gro_cells GRO of the
  // decapsulated skbs (ran = the kernel has that pass for this path).
  GroStats nic_gro;
  GroStats cell_gro;
  bool cell_gro_ran = false;
  // Frames a checksum rule kept from merging, over both GRO passes.
  std::map<std::string, uint64_t> not_validated;
  std::map<std::string, uint64_t> drops;
  uint64_t hw_switched = 0;
  HostWork work;
  // Driver statistics, /proc/net/snmp names ("Tcp:InSegs", "Udp:InCsumErrors",
  // ...), the vxlan device's ("vxlan0:rx_packets"), the transmit ones, and
  // "host:switched" (skbs the switch passed on).
  Counters counters;
};

// A packet from the guest (or a local socket) through the host to the wire:
// [veth] -> switch (bridge / OVS actions and output) -> [vxlan device:
// validate_xmit_skb, vxlan_xmit] -> validate_xmit_skb on the NIC -> the NIC
// (DeviceTransmit) or ibmveth_start_xmit.
TxOutcome HostTransmit(KernelHost& host, SkBuff skb);

// Frames from the wire, one NAPI poll: the driver's receive per frame, NAPI
// GRO and its flush, then per skb: VXLAN receive (outer IP/UDP checks,
// vxlan_rcv) for frames to the VXLAN port, the VXLAN device's gro_cells GRO
// pass, the switch, and the attachment (the stack's receive, the TAP's
// read with its validate_xmit_skb, the veth, or the NIC's transmit).
RxOutcome HostReceive(KernelHost& host, const std::vector<Bytes>& frames);
// The same, taking the frames' buffers over instead of copying them.
RxOutcome HostReceive(KernelHost& host, std::vector<Bytes>&& frames);

}  // namespace offlab::kernel
