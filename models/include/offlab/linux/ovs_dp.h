// The Open vSwitch kernel datapath (net/openvswitch, openvswitch.ko) as far
// as checksums and offloads go: what netdev_port_receive hands the datapath,
// the skb state the actions see (the hardware-accelerated VLAN tag, the
// tunnel metadata a set(tunnel) attaches, conntrack state), and output to a
// netdev vport (the skb as given to dev_queue_xmit) or to a VXLAN vport (the
// request the VXLAN driver receives). The actions themselves are in
// ovs_actions.h and ovs_actions_vlan.h, ct() in ovs_dp_ct.h.
//
// Model convention: SkBuff::csum_from is where skb->data points. OVS keeps
// skb->data at the MAC header while it runs actions, so after
// OvsVportReceive csum_from is 0 and a CHECKSUM_COMPLETE sum covers the whole
// frame.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// skb->vlan_proto / skb->vlan_tci: the tag held out of band ("hardware
// accelerated"), as __netif_receive_skb_core's skb_vlan_untag leaves it.
struct VlanTag {
  bool present = false;
  uint16_t tpid = 0;  // 0x8100 or 0x88a8
  uint16_t tci = 0;   // PCP/DEI/VID
};

// struct ip_tunnel_key as OVS_ACTION_ATTR_SET(OVS_KEY_ATTR_TUNNEL_INFO)
// attaches it (net/openvswitch/flow_netlink.c ip_tun_from_nlattr).
struct OvsTunnelKey {
  bool ipv6 = false;
  std::array<uint8_t, 16> src{};  // IPv4 uses the first 4 bytes
  std::array<uint8_t, 16> dst{};
  uint64_t tun_id = 0;  // OVS_TUNNEL_KEY_ATTR_ID (the VNI for VXLAN)
  uint8_t tos = 0, ttl = 64;
  uint16_t tp_dst = 0;  // OVS_TUNNEL_KEY_ATTR_TP_DST, 0 = the vport's port
  bool csum = false;    // OVS_TUNNEL_KEY_ATTR_CSUM -> TUNNEL_CSUM
  bool dont_fragment = false;
};

// OVS_CS_F_* (include/uapi/linux/openvswitch.h), the ct_state bits.
namespace ovs_cs {
constexpr uint8_t kNew = 0x01;
constexpr uint8_t kEstablished = 0x02;
constexpr uint8_t kRelated = 0x04;
constexpr uint8_t kReplyDir = 0x08;
constexpr uint8_t kInvalid = 0x10;
constexpr uint8_t kTracked = 0x20;
constexpr uint8_t kSrcNat = 0x40;
constexpr uint8_t kDstNat = 0x80;
}  // namespace ovs_cs

// The parts of struct sw_flow_key the checksum rules read.
struct OvsFlowKey {
  uint16_t eth_type = 0;  // after VLAN tags
  uint8_t ip_proto = 0;   // IPv6: after extension headers; 44 for a later fragment
  enum class Frag : uint8_t { kNone, kFirst, kLater } frag = Frag::kNone;
  bool valid = true;  // !SW_FLOW_KEY_INVALID (cleared by push/pop vlan with a tag left)
};

struct OvsSkb {
  SkBuff skb;
  VlanTag vlan;
  std::optional<OvsTunnelKey> tunnel;  // skb_tunnel_info(skb) for output
  OvsFlowKey key;
  uint8_t ct_state = 0;  // key->ct_state
  uint16_t ct_zone = 0;
  bool nfct_attached = false;  // skb->_nfct (ovs_ct_clear drops it)
  uint32_t recirc_id = 0;
  uint32_t cutlen = 0;      // OVS_CB(skb)->cutlen (trunc action)
  bool hash_valid = false;  // skb_clear_hash clears it
};

struct OvsVportReceiveOptions {
  // __netif_receive_skb_core moves an in-band outer 802.1Q/802.1ad tag to
  // the accelerated tag (skb_vlan_untag) before the rx_handler runs.
  bool core_vlan_untag = true;
};

// netdev_frame_hook -> netdev_port_receive -> ovs_vport_receive for a frame
// arriving on an Ethernet netdev vport: `skb` is as the driver/stack left it
// (csum_from at the network header, 14, when eth_type_trans pulled the MAC
// header; 0 if the caller models it at the MAC header). Moves an in-band
// outer tag out of band, pushes the MAC header back adding it to a
// COMPLETE sum (torvalds/linux 04087d9a89be
// net/openvswitch/vport-netdev.c:42 netdev_port_receive, :62
// skb_postpush_rcsum), and extracts the flow key offsets.
OvsSkb OvsVportReceive(SkBuff skb, const OvsVportReceiveOptions& opts = {});

// key_extract (net/openvswitch/flow.c) for the offsets and the key fields
// above: l2_5 (first in-band tag), l3, l4 from the frame. Used after
// receive, recirculation and VLAN changes.
void OvsFlowKeyExtract(OvsSkb& s);

struct OvsVport {
  enum class Type : uint8_t { kNetdev, kInternal, kVxlan } type = Type::kNetdev;
  uint32_t mtu = 1500;
  uint16_t hard_header_len = 14;   // dev->hard_header_len (ETH_HLEN)
  uint16_t vxlan_dst_port = 4789;  // OVS_TUNNEL_ATTR_DST_PORT of a vxlan vport
  // OVS creates its vxlan devices with mtu IP_MAX_MTU (vport-vxlan.c
  // vxlan_tnl_create) so the datapath never drops for size on them.
  static OvsVport Vxlan(uint16_t dst_port = 4789) {
    OvsVport v;
    v.type = Type::kVxlan;
    v.mtu = 65535;
    v.vxlan_dst_port = dst_port;
    return v;
  }
};

// What the VXLAN driver (collect_md device, drivers/net/vxlan/vxlan_core.c
// vxlan_xmit_one) is asked to do with the skb: the helper that models the
// driver computes the outer headers from it.
struct VxlanXmitRequest {
  bool ipv6 = false;
  std::array<uint8_t, 16> src{}, dst{};
  uint32_t vni = 0;
  uint8_t tos = 0, ttl = 0;
  bool dont_fragment = false;
  uint16_t dst_port = 0;  // key.tp_dst ?: vxlan->cfg.dst_port
  // udp_sum = TUNNEL_CSUM in key.tun_flags (IP_TUNNEL_CSUM_BIT since v6.10):
  // IPv4 outer UDP checksum computed, IPv6 outer UDP checksum zero if false.
  bool udp_csum = false;
};

struct OvsOutput {
  bool handed_to_dev = false;             // dev_queue_xmit(skb) called
  std::string drop_reason;                // when not handed
  bool tx_error = false;                  // dev->stats.tx_errors++ (over-MTU drop)
  OvsSkb skb;                             // as handed to the device
  std::optional<VxlanXmitRequest> vxlan;  // for a VXLAN vport with tunnel info
};

// do_output (torvalds/linux 008f05a72d32 net/openvswitch/actions.c:911) then
// ovs_vport_send (net/openvswitch/vport.c, with packet_length just above it:
// ~l.520-570 in v6.11 per the patch against 8732f6e51ae5): the trunc cut,
// the MTU check against packet_length (which does not count one in-band
// VLAN tag when no tag is accelerated), and the handoff. A VXLAN vport without tunnel info is
// handed over but the driver drops it (vxlan_xmit: no TX tunnel info): reported in drop_reason with
// handed_to_dev true and no request.
OvsOutput OvsDoOutput(OvsSkb skb, const OvsVport& vport);

// execute_set_action (actions.c:1084): OVS_KEY_ATTR_TUNNEL_INFO attaches the
// metadata dst used by the next tunnel output; nothing in the packet changes.
void OvsSetTunnel(OvsSkb& s, const OvsTunnelKey& key);

// execute_recirc (actions.c:1179) / clone_execute: the packet goes back to
// the flow table with recirc_id; the key is re-extracted when it was
// invalidated; the skb, checksum state included, is carried unchanged.
void OvsRecirc(OvsSkb& s, uint32_t recirc_id);

}  // namespace offlab::kernel
