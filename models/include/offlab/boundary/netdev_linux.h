// The boundary between OVS's userspace datapath and the Linux kernel at a
// netdev-linux port: OVS keeps checksum state in the dp_packet offloads word
// (ovs/), the kernel in the skb (linux/), and the virtio-net header carries
// it across. Sending, OVS writes the header from the offloads word
// (lib/netdev-linux.c netdev_linux_prepend_vnet_hdr, ovs/vnet.h VnetTransmit)
// and the kernel builds the skb from it (tun_get_user for a TAP port,
// packet_snd for a system port over AF_PACKET). Receiving, the kernel writes
// the header from the skb (tun_put_user / packet_rcv_vnet) and OVS reads it
// (netdev_linux_parse_vnet_hdr, ovs/vnet.h VnetReceive). Both sides are the
// models' own rules; this layer only joins them, so an OVS-userspace host
// with a TAP or veth port uses the same skb model as a kernel host.
#pragma once

#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/net/virtio_net_hdr.h"

namespace offlab::boundary {

enum class NetdevLinuxPort {
  kTap,     // type=tap: OVS reads and writes the TAP's file descriptor
  kSystem,  // type=system (veth, NIC): an AF_PACKET socket with PACKET_VNET_HDR
};

struct NetdevLinuxSent {
  std::string error;   // the kernel's -EINVAL reason; empty when accepted
  VnetHdr hdr;         // what OVS wrote in front of the frame
  kernel::SkBuff skb;  // what the kernel made of it
};

// OVS sends `p` (parsed, offloads word set) out of the port.
// (The header rules both models implement are those of OVS 3.x / Linux 6.18.)
NetdevLinuxSent NetdevLinuxSend(Packet p, NetdevLinuxPort port, Counters* counters = nullptr);

struct NetdevLinuxReceived {
  std::string error;     // the kernel refused to describe the skb (-EINVAL); nothing read
  bool dropped = false;  // OVS dropped it (netdev_linux_invalid_l4_csum)
  VnetHdr hdr;           // what the kernel wrote
  Packet packet;         // what OVS has: bytes, parsed offsets, offloads word, tso_segsz
};

// The kernel hands `skb` to OVS through the port: for kTap the skb the
// stack transmits through the TAP device (`tap` its features), for kSystem
// an skb the device received (seen by the AF_PACKET socket).
NetdevLinuxReceived NetdevLinuxReceive(const kernel::SkBuff& skb, NetdevLinuxPort port,
                                       const kernel::DeviceFeatures& tap = {},
                                       Counters* counters = nullptr);

}  // namespace offlab::boundary
