// What the local stack does with a frame delivered to it, for the verdicts
// and the /proc/net/snmp, /proc/net/netstat and /proc/net/snmp6 counters a
// lab can observe: eth_type_trans, ip_rcv_core / ip6_rcv_core, then UDP
// (__udp4_lib_rcv / __udp6_lib_rcv and the socket's receive) or TCP
// (tcp_v4_rcv / tcp_v6_rcv checksum handling). Rules from torvalds/linux
// (lab kernel 6.18); variants by KernelVersion where they changed.
//
// Counter names are exactly those of the proc files: "Table:Field" for
// /proc/net/snmp and /proc/net/netstat (e.g. "Udp:InCsumErrors",
// "IpExt:InCsumErrors", "Ip:InHdrErrors", "Tcp:InErrs"), and the snmp6 key
// for IPv6 (e.g. "Udp6InCsumErrors", "Ip6InHdrErrors"). TCP's MIB is shared
// by both families, so IPv6 TCP errors are "Tcp:..." too.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// delivered, or dropped with the kernel's drop reason name
// (enum skb_drop_reason without its SKB_DROP_REASON_ prefix, e.g.
// "UDP_CSUM", "IP_CSUM", "PKT_TOO_SMALL", "NO_SOCKET").
struct RxVerdict {
  bool delivered = false;
  std::string reason;
  static RxVerdict Deliver() { return {true, ""}; }
  static RxVerdict Drop(std::string why) { return {false, std::move(why)}; }
};

// skb->pkt_type as eth_type_trans sets it (include/uapi/linux/if_packet.h).
enum class PktType : uint8_t { kHost = 0, kBroadcast = 1, kMulticast = 2, kOtherHost = 3 };
const char* PktTypeName(PktType t);

// eth_type_trans (net/ethernet/eth.c): the packet type from the
// destination MAC against the receiving device's address.
PktType EthPktType(const SkBuff& skb, const std::array<uint8_t, 6>& dev_mac);

// What the IP layer found: the transport header and its length after the
// frame was trimmed to the IP length.
struct IpRcvInfo {
  bool ipv6 = false;
  uint8_t proto = 0;
  uint8_t tos = 0;  // IPv4 TOS / IPv6 traffic class
  uint16_t l3_ofs = 0;
  uint16_t l4_ofs = 0;
  uint32_t l4_len = 0;
  bool fragment = false;  // IPv4 MF or offset set: reassembly is not modelled
};

// ip_rcv_core (net/ipv4/ip_input.c) or ip6_rcv_core (net/ipv6/ip6_input.c)
// for the IP header at `l3_ofs`, chosen by its version nibble. Counts
// InReceives/InOctets and the ECN class, then the header errors; trims
// link-layer padding with pskb_trim_rcsum; sets skb.pkt.l3_ofs/l4_ofs.
RxVerdict IpRcvCore(SkBuff& skb, uint16_t l3_ofs, KernelVersion kv, Counters* c, IpRcvInfo* info);

// The receiving UDP socket, as far as checksums go.
struct UdpSocketOpts {
  // UDP_NO_CHECK6_RX (udp6zerocsumrx for a tunnel): accept a zero IPv6 checksum.
  bool no_check6_rx = false;
  // inet->convert_csum, set by setup_udp_tunnel_sock.
  bool convert_csum = false;
  // An encapsulation socket (encap_rcv set): the checksum is verified before
  // the tunnel sees the packet, and the datagram is counted there.
  bool encap = false;
};

// __udp4_lib_rcv / __udp6_lib_rcv from the UDP header (skb.pkt.l4_ofs) up
// to the socket: header and length checks, udp4_csum_init / udp6_csum_init,
// the IPv6 zero-checksum rule, checksum conversion, and either the encap
// path's udp_lib_checksum_complete or a plain socket's check at recvmsg.
// `sock` null = no socket on the port (checksum first, then Udp:NoPorts).
// Delivered means handed to the socket (or its encap_rcv) with `skb` in the
// checksum state it then has.
RxVerdict UdpRcv(SkBuff& skb, const IpRcvInfo& ip, const UdpSocketOpts* sock, KernelVersion kv,
                 Counters* c);

// tcp_v4_rcv / tcp_v6_rcv as far as the header and checksum: Tcp:InSegs,
// doff check, skb_checksum_init and the tcp_checksum_complete that follows.
RxVerdict TcpRcv(SkBuff& skb, const IpRcvInfo& ip, KernelVersion kv, Counters* c);

// The host the frame arrives at.
struct StackRxConfig {
  // The receiving device's MAC; unset = every frame is PACKET_HOST.
  std::optional<std::array<uint8_t, 6>> dev_mac;
  // UDP ports with a bound socket (plain sockets).
  std::vector<uint16_t> udp_ports;
  bool udp_no_check6_rx = false;
};

struct StackRxResult {
  RxVerdict verdict;
  IpRcvInfo ip;
  PktType pkt_type = PktType::kHost;
};

// A frame (from its MAC header) received by a device of this host:
// eth_type_trans, IP receive, local delivery (Ip:InDelivers) and UDP/TCP.
// Other transport protocols are delivered unchecked.
StackRxResult StackRcv(SkBuff& skb, const StackRxConfig& cfg, KernelVersion kv = kLabKernel,
                       Counters* c = nullptr);

// "Udp:InErrors" for IPv4, "Udp6InErrors" for IPv6 (the proc key of the
// UDP MIB field `field`).
std::string UdpMibName(bool ipv6, const char* field);

}  // namespace offlab::kernel
