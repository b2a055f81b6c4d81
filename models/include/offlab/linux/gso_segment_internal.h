// Shared internals of the software GSO model (gso_segment*.cc): a segment
// with its SKB_GSO_CB, the walk's context, and the per-layer handlers.
// Offsets are from the outermost MAC header: a segment is a whole frame,
// as skb_segment copies every header in front of the data it splits.
#pragma once

#include <cstdint>
#include <vector>

#include "offlab/linux/gso_segment.h"

namespace offlab::kernel::gso_internal {

// One segment and its struct skb_gso_cb (include/net/gso.h): `cb_csum` is
// the unfolded sum of [cb_csum_start, end) (or the stand-in value
// gso_reset_checksum stores), `data_offset` the payload start for
// GSO_PARTIAL length fields.
struct Seg {
  SkBuff skb;
  uint64_t cb_csum = 0;
  uint16_t cb_csum_start = 0;
  uint16_t data_offset = 0;
};

struct SegResult {
  int err = 0;
  bool unsegmented = false;  // NULL segs: the caller keeps the skb
  std::vector<Seg> segs;
};

struct Ctx {
  const DeviceFeatures& dev;
  const XmitOptions& opt;
  KernelVersion kv;
  Counters* counters;
  int encap_level = 0;  // SKB_GSO_CB(skb)->encap_level: > 0 inside a tunnel
};

inline SegResult Error(int err) { return SegResult{err, false, {}}; }

// skb_mac_gso_segment at `mac_ofs`: dispatch on the network protocol.
SegResult MacGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint64_t features);
// inet_gso_segment / ipv6_gso_segment for the IP header at `l3`; `mac_ofs`
// is the current MAC header (the inner one inside a tunnel).
SegResult InetGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint64_t features);
SegResult Ipv6GsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint64_t features);
// tcp4_gso_segment / tcp6_gso_segment for the TCP header at `th`.
SegResult TcpGsoSegment(Ctx& ctx, SkBuff& skb, uint16_t mac_ofs, uint16_t l3, uint16_t th,
                        bool ipv6, uint64_t features);
// skb_udp_tunnel_segment for the UDP header at `uh`.
SegResult UdpTunnelSegment(Ctx& ctx, SkBuff& skb, uint16_t l3, uint16_t uh, bool ipv6,
                           uint64_t features);
// skb_segment: split the data after `doffset` at gso_size. `proto` is the
// EtherType skb_network_protocol reports at the current MAC header.
SegResult SkbSegment(Ctx& ctx, const SkBuff& head, uint16_t doffset, uint16_t proto,
                     uint64_t features);
// skb_segment_list: the frag_list members become the segments again.
SegResult SkbSegmentList(Ctx& ctx, const SkBuff& head, uint64_t features);

// gso_reset_checksum (include/net/gso.h :47): remember `res` as the sum of
// [csum_start, end) (skipped under remote checksum offload).
void GsoResetChecksum(Seg& seg, uint16_t res);
// gso_make_checksum (include/net/gso.h :65): the folded, complemented sum of
// [transport, cb_csum_start) plus cb_csum; then cb = {res, transport}.
uint16_t GsoMakeChecksum(Seg& seg, uint16_t transport, uint16_t res);

// csum_unfold(field) + a 32-bit big-endian value, and minus one (one's
// complement of both 16-bit halves): __wsum arithmetic on htonl() values.
uint64_t AddBe32(uint64_t sum, uint32_t v);
uint64_t SubBe32(uint64_t sum, uint32_t v);

// skb_checksum on the model's bytes (clipped to the skb), metered once:
// csum::Partial meters the bytes it sums (kernel::SkbChecksum would count
// them a second time).
uint64_t SwChecksum(const SkBuff& skb, size_t offset, size_t len, uint64_t sum = 0);

// ip_send_check: the IPv4 header checksum of the header at `l3`, computed in
// software (metered).
void IpSendCheck(SkBuff& skb, uint16_t l3);

}  // namespace offlab::kernel::gso_internal
