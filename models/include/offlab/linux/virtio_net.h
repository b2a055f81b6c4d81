// The virtio-net header <-> sk_buff conversions of Linux
// (include/linux/virtio_net.h) and the endpoints that use them: a TAP
// device's write (tun_get_user) and read (tun_put_user), an AF_PACKET
// socket's send (packet_snd) and receive (packet_rcv_vnet). The rules are
// those of Linux 6.18: cited as "v6.18.19 <path>:<line>", the stable tree
// 6952350/linux-6.18.y at f3fce0151d48, whose networking files are v6.18's.
//
// Offsets in a VnetHdr are relative to the first byte handed over: the MAC
// header for TAP and SOCK_RAW packet sockets, the network header for a
// SOCK_DGRAM packet socket's receive. Every function returns "" when the
// kernel accepts the header, or the reason it returns -EINVAL otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"
#include "offlab/net/virtio_net_hdr.h"

namespace offlab::kernel {

// Header values beyond the basic ones in net/virtio_net_hdr.h
// (include/uapi/linux/virtio_net.h, v6.18.19 lines 153-167).
namespace vnet {
constexpr uint8_t kFlagRscInfo = 4;        // VIRTIO_NET_HDR_F_RSC_INFO
constexpr uint8_t kFlagUdpTunnelCsum = 8;  // VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM
constexpr uint8_t kGsoUdpL4 = 5;           // VIRTIO_NET_HDR_GSO_UDP_L4 (USO)
constexpr uint8_t kGsoUdpTunnelIpv4 = 0x20;
constexpr uint8_t kGsoUdpTunnelIpv6 = 0x40;
constexpr uint8_t kGsoUdpTunnel = kGsoUdpTunnelIpv4 | kGsoUdpTunnelIpv6;
// sizeof(struct virtio_net_hdr), _v1 (with num_buffers) and
// _v1_hash_tunnel (hash report + outer_th_offset + inner_nh_offset).
constexpr int kHdrLen = 10;
constexpr int kHdrV1Len = 12;
constexpr int kHdrTunnelLen = 24;
}  // namespace vnet

// struct virtio_net_hdr_v1_hash_tunnel as far as offloads go: the basic
// header and the two tunnel offsets (little-endian on the wire, plain here).
struct VnetHdrTunnel {
  VnetHdr hdr;
  uint16_t outer_th_offset = 0;
  uint16_t inner_nh_offset = 0;
};

// UDP_MAX_SEGMENTS (include/linux/udp.h) and GSO_BY_FRAGS
// (include/linux/skbuff.h), both checked by virtio_net_hdr_to_skb.
constexpr uint32_t kUdpMaxSegments = 128;
constexpr uint16_t kGsoByFrags = 0xffff;

// What the kernel knows of the skb when it applies the header: its
// skb->protocol (0 = not yet set) and whether skb->network_header was set
// (pkt.l3_ofs), which decides whether GSO without NEEDS_CSUM is dissected.
struct VnetSkbContext {
  uint16_t protocol = 0;
  bool network_header_set = false;
};

// __virtio_net_hdr_to_skb / virtio_net_hdr_to_skb: checks the header against
// the bytes and sets ip_summed PARTIAL (+ csum_start/offset and the
// transport header) and the GSO fields (with SKB_GSO_DODGY, gso_segs 0).
// `gso_type_override` is the gso_type the tunnel variant passes (the
// header's own without the tunnel bits); nullopt = the header's.
std::string VirtioNetHdrToSkb(SkBuff& skb, const VnetHdr& hdr, const VnetSkbContext& ctx = {},
                              std::optional<uint8_t> gso_type_override = std::nullopt);

// virtio_net_hdr_tnl_to_skb: UDP-tunnel GSO headers (6.17+), otherwise as
// VirtioNetHdrToSkb. `tnl` / `tnl_csum`: the tunnel features negotiated.
std::string VirtioNetHdrTnlToSkb(SkBuff& skb, const VnetHdrTunnel& vhdr, bool tnl, bool tnl_csum,
                                 const VnetSkbContext& ctx = {});

// virtio_net_hdr_from_skb: PARTIAL -> NEEDS_CSUM with csum_start (+vlan_hlen)
// and csum_offset; UNNECESSARY -> DATA_VALID when `has_data_valid`; GSO
// TCPv4/TCPv6/UDP_L4 (+ECN) with gso_size and hdr_len = skb_headlen. Any
// other GSO type is -EINVAL.
std::string VirtioNetHdrFromSkb(const SkBuff& skb, bool has_data_valid, VnetHdr* out,
                                int vlan_hlen = 0);

// virtio_net_hdr_tnl_from_skb: an skb with SKB_GSO_UDP_TUNNEL(_CSUM) needs
// `tnl` (else -EINVAL) and is described with the tunnel header (inner GSO
// type | UDP_TUNNEL_IPV4/6, UDP_TUNNEL_CSUM flag, the two offsets; never
// DATA_VALID); others as VirtioNetHdrFromSkb.
std::string VirtioNetHdrTnlFromSkb(const SkBuff& skb, bool tnl, bool has_data_valid,
                                   VnetHdrTunnel* out, int vlan_hlen = 0);

// skb_headlen as this model sees it: the whole frame when the skb has no
// frags, else the headers up to the end of the (inner) transport header.
size_t SkbHeadlenModel(const SkBuff& skb);

// --- Endpoints ---------------------------------------------------------

// A TAP device opened with IFF_TAP | IFF_NO_PI [| IFF_VNET_HDR].
struct TapConfig {
  bool vnet_hdr = true;             // IFF_VNET_HDR
  int vnet_hdr_sz = vnet::kHdrLen;  // TUNSETVNETHDRSZ (10, 12, 20, 24)
  uint32_t mtu = 1500;
};

// A write() to the TAP (tun_get_user): the frame with its header, as the
// kernel receives it from the device (after eth_type_trans: network header
// at the byte after the Ethernet header, transport header probed). Without
// IFF_VNET_HDR the skb is CHECKSUM_NONE. A rejected header counts
// "rx_frame_errors" when the skb had been built (the header checks before
// it return -EINVAL without counting).
std::string TapWrite(const Bytes& frame, const VnetHdrTunnel& hdr, const TapConfig& cfg,
                     SkBuff* out, Counters* counters = nullptr);
// The same for a frame already in a Packet (its bytes only; moved, not copied).
std::string TapWrite(Packet frame, const VnetHdrTunnel& hdr, const TapConfig& cfg, SkBuff* out,
                     Counters* counters = nullptr);

// A read() from the TAP (tun_put_user): the header the kernel writes in
// front of an skb the stack transmits through the TAP device (has_data_valid
// true; tunnel form when `tap` has NETIF_F_GSO_UDP_TUNNEL). -EINVAL for an
// skb the header cannot describe; "EFAULT" when vnet_hdr_sz is smaller than
// the header the device's offloads need.
std::string TapRead(const SkBuff& skb, const DeviceFeatures& tap, const TapConfig& cfg,
                    VnetHdrTunnel* out);

// An AF_PACKET send (packet_snd) of `frame` (SOCK_RAW: from the MAC header)
// with PACKET_VNET_HDR when `hdr` is set; without it the skb is
// CHECKSUM_NONE. Also -EMSGSIZE for a non-GSO frame above the MTU.
struct PacketSocketConfig {
  bool sock_dgram = false;  // SOCK_DGRAM: the frame starts at the network header
  uint32_t mtu = 1500;
  uint16_t protocol = 0;  // the socket's/sll_protocol in host order; 0 or ETH_P_ALL = parse
};
std::string PacketSnd(const Bytes& frame, const std::optional<VnetHdr>& hdr,
                      const PacketSocketConfig& cfg, SkBuff* out);

// An AF_PACKET receive with PACKET_VNET_HDR (packet_rcv_vnet, also
// tpacket_rcv): has_data_valid true, no VLAN adjustment. For SOCK_DGRAM the
// offsets are from the network header.
std::string PacketRcvVnet(const SkBuff& skb, bool sock_dgram, VnetHdr* out);

// The tp_status / auxdata checksum bits of packet_rcv / tpacket_rcv:
// TP_STATUS_CSUMNOTREADY for PARTIAL, TP_STATUS_CSUM_VALID when
// skb_csum_unnecessary on a packet not sent by this host, TP_STATUS_GSO_TCP.
namespace tp_status {
constexpr uint32_t kCsumNotReady = 1u << 3;
constexpr uint32_t kCsumValid = 1u << 7;
constexpr uint32_t kGsoTcp = 1u << 8;
}  // namespace tp_status
uint32_t PacketCsumStatus(const SkBuff& skb, bool outgoing);

// The basic flow dissection the header code relies on
// (skb_flow_dissect_flow_keys_basic with no flags): from `nhoff` with
// ethertype `proto`, through VLAN tags, IPv4 / IPv6 (extension headers,
// fragments) and IP-in-IP, to the transport offset and protocol. False when
// the headers are cut short or malformed.
bool FlowDissectBasic(const SkBuff& skb, uint16_t proto, size_t nhoff, uint8_t* ip_proto,
                      uint16_t* thoff);

// eth_type_trans + skb_reset_network_header + skb_probe_transport_header,
// as a device hands a received frame to the stack: network header after the
// Ethernet header, transport header from the dissection unless set.
void EthReceiveOffsets(SkBuff& skb);

}  // namespace offlab::kernel
