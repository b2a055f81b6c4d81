// Netfilter connection tracking as far as checksums decide it: the L4
// validation nf_conntrack_in runs on a packet (tcp_error, udp_error,
// icmp_error, icmpv6_error and the "new connection" rules that follow), which
// calls nf_checksum -> nf_ip_checksum / nf_ip6_checksum only at PRE_ROUTING
// and only with net.netfilter.nf_conntrack_checksum set, and what that does
// to the skb's checksum state. A packet found invalid gets no conntrack
// entry (iptables/nft "ct state invalid", OVS ct_state +trk+inv) and counts
// in /proc/net/stat/nf_conntrack. The connection table itself is not
// modelled: the caller says whether the packet belongs to an existing
// connection.
//
// Kernel v6.18 (net/netfilter/nf_conntrack_core.c nf_conntrack_in,
// nf_conntrack_proto_tcp.c, nf_conntrack_proto_udp.c,
// nf_conntrack_proto_icmp.c, nf_conntrack_proto_icmpv6.c, utils.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "offlab/linux/skb.h"

namespace offlab::kernel {

// enum nf_inet_hooks.
enum class NfHook : uint8_t { kPreRouting, kLocalIn, kForward, kLocalOut, kPostRouting };

struct NfConntrackConfig {
  bool checksum = true;   // net.netfilter.nf_conntrack_checksum (default 1)
  bool tcp_loose = true;  // net.netfilter.nf_conntrack_tcp_loose (default 1)
};

// The connection the packet would be matched to (the table is the caller's).
enum class NfCtExisting : uint8_t {
  kNone,         // no entry: the packet would create one (unconfirmed, NEW)
  kEstablished,  // an entry in the original direction (IP_CT_ESTABLISHED)
  kReply,        // an entry, reply direction (IP_CT_ESTABLISHED_REPLY)
  kRelated,      // an ICMP error whose inner packet matches an entry
};

enum class NfCtInfo : uint8_t { kNone, kNew, kEstablished, kEstablishedReply, kRelated };

struct NfCtResult {
  bool tracked = false;  // skb->_nfct set; false = invalid (no entry attached)
  NfCtInfo ctinfo = NfCtInfo::kNone;
  std::string reason;             // the nf_l4proto_log_invalid message when invalid
  bool checksum_checked = false;  // nf_checksum ran (software or a COMPLETE sum)
  bool checksum_ok = true;
  // netdev_rx_csum_fault: a COMPLETE sum disagreed but software verified.
  bool rx_csum_fault = false;
  // /proc/net/stat/nf_conntrack counters this packet increments.
  uint32_t stat_invalid = 0;
  uint32_t stat_error = 0;  // shown as icmp_error
  // ct_state OVS would put in the flow key after ovs_ct_lookup
  // (net/openvswitch/conntrack.c ovs_ct_update_key / ovs_ct_get_state).
  uint8_t OvsCtState() const;
};

// nf_ip_checksum / nf_ip6_checksum (net/netfilter/utils.c): returns 0 when
// the L4 checksum verifies (or is not checked in this state), as the
// kernel's __sum16. `l3_ofs` is where skb->data points (the model moves
// csum_from there and back), `l4_ofs` the transport header (dataoff).
// protocol: the pseudo-header protocol for IPv4 TCP/UDP, otherwise none;
// IPv6 always uses it. Side effects as in the kernel: a verified COMPLETE
// becomes UNNECESSARY; a NONE (or failed COMPLETE) skb gets the full
// software sum (COMPLETE, csum_valid = result).
uint16_t NfIpChecksum(SkBuff& skb, size_t l3_ofs, size_t l4_ofs, NfHook hook, uint8_t protocol,
                      bool* rx_csum_fault = nullptr);
uint16_t NfIp6Checksum(SkBuff& skb, size_t l3_ofs, size_t l4_ofs, NfHook hook, uint8_t protocol,
                       bool* rx_csum_fault = nullptr);

// nf_conntrack_in for the IPv4/IPv6 packet whose network header is at
// `l3_ofs` (skb->data at the network header and skb->len trimmed to the IP
// length, as ip_rcv / ovs_ct_execute leave them): the verdict, the checksum
// work and the counters. Fragments (non-first) are not tracked (invalid,
// get_l4proto) since defragmentation is not modelled.
NfCtResult NfConntrackIn(SkBuff& skb, size_t l3_ofs, NfHook hook, const NfConntrackConfig& cfg,
                         NfCtExisting existing = NfCtExisting::kNone);

}  // namespace offlab::kernel
