// The OVS kernel datapath's set actions (OVS_ACTION_ATTR_SET_MASKED on
// Ethernet, IPv4, IPv6, TCP, UDP, SCTP) and dec_ttl, on an OvsSkb's real
// bytes: each rewrites the fields and keeps the IPv4 header checksum, the
// L4 checksum and skb->csum as the kernel does for the skb's ip_summed
// (torvalds/linux 008f05a72d32 net/openvswitch/actions.c; the functions
// cited by line are unchanged in v6.18 as far as checksums go).
//
// Keys and masks follow OVS_MASKED(old, key, mask) = key | (old & ~mask)
// (the key is pre-masked, as the flow's actions carry it). Addresses are
// byte arrays; 16/32-bit fields are host values of the big-endian fields.
// Return 0 or the kernel's negative errno.
#pragma once

#include <array>
#include <cstdint>

#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

namespace ovs_err {
constexpr int kNoMem = -12;         // skb_ensure_writable failed (header not in the skb)
constexpr int kInval = -22;         // no such header for this action
constexpr int kHostUnreach = -113;  // dec_ttl on TTL/hop limit <= 1
}  // namespace ovs_err

struct OvsKeyEthernet {
  std::array<uint8_t, 6> src{}, dst{};
};

struct OvsKeyIpv4 {
  std::array<uint8_t, 4> src{}, dst{};
  uint8_t tos = 0, ttl = 0;
};

struct OvsKeyIpv6 {
  std::array<uint8_t, 16> src{}, dst{};
  uint32_t label = 0;  // 20 bits
  uint8_t tclass = 0, hlimit = 0;
};

struct OvsKeyPorts {
  uint16_t src = 0, dst = 0;
};

// set_eth_addr (actions.c:255): the 12 address bytes leave a COMPLETE sum
// (skb_postpull_rcsum :265) and come back rewritten (skb_postpush_rcsum
// :272).
int OvsSetEthAddr(OvsSkb& s, const OvsKeyEthernet& key, const OvsKeyEthernet& mask);

// set_ipv4 (actions.c:476): per changed address, set_ip_addr (:370) updates
// the L4 checksum first (update_ip_l4_checksum :344: not for non-first
// fragments; TCP always, UDP only when its checksum is non-zero or the skb
// is PARTIAL, a zero result becoming CSUM_MANGLED_0 :364) with
// inet_proto_csum_replace4(pseudohdr=true), then the header checksum with
// csum_replace4 (:374). tos via ipv4_change_dsfield (:512), ttl via
// csum_replace2 (set_ip_ttl :467); neither touches skb->csum, since the
// header checksum absorbs the change inside the covered bytes.
int OvsSetIpv4(OvsSkb& s, const OvsKeyIpv4& key, const OvsKeyIpv4& mask);

// set_ipv6 (actions.c:528): addresses via update_ipv6_checksum (:380) with
// inet_proto_csum_replace16 for TCP, UDP (non-zero or PARTIAL, mangled 0)
// and ICMPv6 (the L4 protocol from the flow key, after extension headers);
// a destination change is not folded into the L4 checksum when a routing
// header with segments left is present (:562-570, the checksum covers the
// final destination). Traffic class, flow label and hop limit update a
// COMPLETE skb->csum with csum_replace (:428, :441, :457). `kv` selects the
// inet_proto_csum_replace16 COMPLETE rule.
int OvsSetIpv6(OvsSkb& s, const OvsKeyIpv6& key, const OvsKeyIpv6& mask,
               const KernelVersion& kv = kLabKernel);

// set_tcp (actions.c:713): each changed port via set_tp_port (:662),
// inet_proto_csum_replace2(pseudohdr=false): nothing to do for PARTIAL.
int OvsSetTcp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask);

// set_udp (actions.c:670): ports through the checksum only when it is
// non-zero and the skb is not PARTIAL (:688), mangling a 0 result (:699);
// otherwise written plainly, which also leaves a COMPLETE skb->csum stale
// when the UDP checksum is zero (as the kernel does).
int OvsSetUdp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask);

// set_sctp (actions.c:742): the CRC32c is recomputed and the old error
// carried over: new = old ^ crc(old bytes) ^ crc(new bytes).
int OvsSetSctp(OvsSkb& s, const OvsKeyPorts& key, const OvsKeyPorts& mask);

// execute_dec_ttl (actions.c:1237) on skb->protocol (the frame's outer
// type: a frame with an in-band VLAN tag is left alone): IPv4 TTL - 1 with
// csum_replace2 (:1269); IPv6 hop limit - 1 with no skb->csum update (a
// COMPLETE sum goes stale, as in the kernel). -EHOSTUNREACH at <= 1.
int OvsDecTtl(OvsSkb& s);

// ovs_ct_clear(skb, NULL) as set_ip_addr / set_tp_port call it: the
// conntrack reference is dropped; the flow key's ct_state stays.
void OvsCtClearSkb(OvsSkb& s);

}  // namespace offlab::kernel
