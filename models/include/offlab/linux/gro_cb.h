// The GRO model's internals: struct napi_gro_cb beside the skb, and the
// per-layer receive / complete steps that gro.cc chains. Offsets here are
// absolute (from the MAC header, as SkBuff's are), where the kernel counts
// from skb->data (the outer network header after eth_type_trans).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>

#include "offlab/linux/gro.h"

namespace offlab::kernel {

// include/net/gro.h struct napi_gro_cb (torvalds/linux v6.18; field set
// checked against the lab kernel's BTF). is_atomic / flush_id are the
// pre-6.10 IP ID bookkeeping.
struct GroCb {
  uint16_t data_offset = 0;  // skb_gro_offset, absolute
  uint16_t mac_len = 0;      // bytes before skb->data (the outer network header)
  bool flush = false;
  uint16_t count = 1;
  uint8_t proto = 0;
  // The zeroed group.
  uint16_t gro_remcsum_start = 0;  // absolute; 0 = none
  bool same_flow = false;
  bool encap_mark = false;
  bool csum_valid = false;
  uint8_t csum_cnt = 0;
  uint8_t free = 0;  // NAPI_GRO_FREE (1) / NAPI_GRO_FREE_STOLEN_HEAD (2)
  uint8_t ip_fixedid = 0;
  uint8_t recursion = 0;
  bool is_flist = false;
  // Not zeroed.
  bool is_atomic = true;
  uint16_t flush_id = 0;
  uint32_t csum = 0;  // a folded 16-bit one's-complement sum
  uint16_t network_offsets[2] = {0, 0};
  uint16_t transport = 0;  // skb_transport_header, absolute
  // skb_gro_remcsum_cleanup state (gro_remcsum: offset, delta).
  uint16_t remcsum_field = 0;
  uint16_t remcsum_delta = 0;
};

// One skb on a GRO list (or the one being received): its bytes and state,
// its cb, and what skb_gro_receive needs to place more data.
struct GroPacket {
  SkBuff skb;
  GroCb cb;
  uint32_t hash = 0;
  uint64_t age = 0;
  // skb_shinfo(lp)->nr_frags of the last skb on frag_list (lp); p's own
  // count is skb.nr_frags.
  uint16_t last_nr_frags = 0;
  // Fraglist GRO: the chained members' own headers. The kernel pulls them
  // (skb_gro_receive_list) but they stay in each member's headroom, where
  // skb_segment_list pushes them back; the model keeps them in the bytes,
  // and skb_gro_len(p) (the TCP sequence check) does not count them.
  uint32_t flist_hdr_bytes = 0;
};

using GroList = std::list<GroPacket>;

// Everything a layer needs besides the packets: the configuration, the stats
// it records into, and the reason a frame was kept from merging.
struct GroCtx {
  const GroConfig& cfg;
  GroStats& stats;
  std::string reason;
  void NotValidated(const char* why) {
    stats.not_validated[why]++;
    if (reason.empty()) reason = why;
  }
  void Why(const char* why) {
    if (reason.empty()) reason = why;
  }
};

// A pointer to `len` bytes at absolute `off`, or null past the end
// (skb_gro_header failing).
const uint8_t* GroHeader(const GroPacket& skb, size_t off, size_t len);
uint8_t* GroHeaderMut(GroPacket& skb, size_t off, size_t len);
// skb_gro_len: skb->len - skb_gro_offset, where a fraglist-GRO head's len
// does not count its members' headers (GroPacket::flist_hdr_bytes).
inline size_t GroLen(const GroPacket& skb) {
  const size_t end = skb.skb.len() - skb.flist_hdr_bytes;
  return end > skb.cb.data_offset ? end - skb.cb.data_offset : 0;
}
inline bool RecursionTooDeep(GroPacket& skb) {
  // gro_recursion_inc_test: GRO_RECURSION_LIMIT 15.
  return ++skb.cb.recursion == 15;
}

// --- checksum bookkeeping (gro_csum.cc) ---
// One's-complement helpers on folded 16-bit values.
uint16_t CsumAdd16(uint32_t a, uint32_t b);
uint16_t CsumSub16(uint32_t a, uint32_t b);
// skb_gro_postpull_rcsum over [start, start + len).
void GroPostpullRcsum(GroPacket& skb, size_t start, size_t len);
// __skb_gro_checksum_validate(_zero_check): true when the checksum is good
// or need not be checked (the kernel's __ret == 0).
bool GroChecksumValidate(GroPacket& skb, bool zero_okay, uint16_t check, uint64_t pseudo,
                         GroCtx& ctx);
// skb_gro_checksum_try_convert.
void GroChecksumTryConvert(GroPacket& skb, uint64_t pseudo);
// inet_gro_compute_pseudo / ip6_gro_compute_pseudo for the network header at
// `nh` and skb_gro_len bytes of transport.
uint64_t GroPseudo(const GroPacket& skb, size_t nh, uint8_t proto);
// The kernels before skb_gro_checksum_* (3.16) and without RHEL 7's
// backport: CHECKSUM_NONE summed in software, COMPLETE checked against
// skb->csum, UNNECESSARY trusted; a good sum makes the skb UNNECESSARY.
bool LegacyGroChecksum(GroPacket& skb, uint64_t pseudo, GroCtx& ctx);
bool UseLegacyChecksums(const KernelVersion& kv);

// --- layers (gro_inet.cc, gro_tcp.cc, gro_udp.cc, gro_vxlan.cc) ---
// Each returns the held packet to complete and hand up (pp), or null.
GroPacket* InetGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* Ipv6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* EthGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* Tcp4GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* Tcp6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* Udp4GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* Udp6GroReceive(GroList& head, GroPacket& skb, GroCtx& ctx);
GroPacket* VxlanGroReceive(GroList& head, GroPacket& skb, const GroVxlanSocket& vs, GroCtx& ctx);
// The IP-level flush of gro_receive_network_flush (and its predecessors)
// between held `p` and the new skb whose transport header is at `th`.
int GroNetworkFlush(GroPacket& p, const GroPacket& skb, size_t th, const KernelVersion& kv);
// skb_gro_receive / skb_gro_receive_list: nonzero when not merged.
int SkbGroReceive(GroPacket& p, GroPacket& skb, const GroCtx& ctx);
int SkbGroReceiveList(GroPacket& p, GroPacket& skb);

// gro_complete callbacks, `nhoff` absolute; false when malformed.
bool InetGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx);
bool Ipv6GroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx);
bool EthGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx);
bool Tcp4GroComplete(GroPacket& skb, size_t thoff, const GroCtx& ctx);
bool Tcp6GroComplete(GroPacket& skb, size_t thoff, const GroCtx& ctx);
bool Udp4GroComplete(GroPacket& skb, size_t uhoff, const GroCtx& ctx);
bool Udp6GroComplete(GroPacket& skb, size_t uhoff, const GroCtx& ctx);

// The configured VXLAN / plain UDP socket for a destination port, or null.
const GroVxlanSocket* FindVxlanSocket(const GroConfig& cfg, uint16_t port);
const GroUdpSocket* FindUdpSocket(const GroConfig& cfg, uint16_t port);

}  // namespace offlab::kernel
