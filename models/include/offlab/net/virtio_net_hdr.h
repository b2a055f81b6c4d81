// The virtio-net header (include/uapi/linux/virtio_net.h, struct
// virtio_net_hdr): the per-packet offload request or report exchanged with a
// TAP device (IFF_VNET_HDR), an AF_PACKET socket (PACKET_VNET_HDR), vhost and
// a virtio NIC. A wire format shared by the OVS and the Linux models.
#pragma once

#include <cstdint>

namespace offlab {

struct VnetHdr {
  static constexpr uint8_t kNeedsCsum = 1;  // VIRTIO_NET_HDR_F_NEEDS_CSUM
  static constexpr uint8_t kDataValid = 2;  // VIRTIO_NET_HDR_F_DATA_VALID
  static constexpr uint8_t kGsoNone = 0, kGsoTcpv4 = 1, kGsoUdp = 3, kGsoTcpv6 = 4;
  static constexpr uint8_t kGsoEcn = 0x80;  // VIRTIO_NET_HDR_GSO_ECN
  uint8_t flags = 0;
  uint8_t gso_type = kGsoNone;
  uint16_t hdr_len = 0, gso_size = 0, csum_start = 0, csum_offset = 0;
};

}  // namespace offlab
