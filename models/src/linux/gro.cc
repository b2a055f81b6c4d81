// The NAPI side of GRO: dev_gro_receive (flow buckets, NAPI_GRO_CB setup
// from the driver's checksum state, held / merged / normal), the completion
// of held packets (napi_gro_complete / gro_complete, gro_flush_oldest,
// __gro_flush) and skb_gro_receive / skb_gro_receive_list, which append a
// segment as page frags or on frag_list. Source: torvalds/linux
// 0b1605e45c36 net/core/gro.c (same logic as v6.18's, where struct gro_node
// replaced napi->gro_hash) and include/net/gro.h.
#include "offlab/linux/gro.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "offlab/linux/gro_cb.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr size_t kGroHashBuckets = 8;  // GRO_HASH_BUCKETS
constexpr size_t kMaxGroSkbs = 8;      // MAX_GRO_SKBS per bucket
constexpr uint16_t kMaxSkbFrags = 17;  // MAX_SKB_FRAGS (CONFIG_MAX_SKB_FRAGS default)
constexpr size_t kGroLegacyMaxSize = 65536;

// The driver's CHECKSUM_COMPLETE sum re-based to start at the network
// header, where GRO starts (eth_type_trans has pulled the MAC header).
uint16_t CompleteFromNetworkHeader(const SkBuff& skb, size_t nh) {
  const uint16_t c = csum::Fold(skb.csum);
  const size_t from = std::min<size_t>(skb.csum_from, skb.len());
  if (from == nh) return c;
  if (from < nh) return CsumSub16(c, csum::Fold(csum::Partial(skb.pkt.data() + from, nh - from)));
  return CsumAdd16(c, csum::Fold(csum::Partial(skb.pkt.data() + nh, from - nh)));
}

}  // namespace

const char* GroResultName(GroResult r) {
  switch (r) {
    case GroResult::kMerged:
      return "MERGED";
    case GroResult::kMergedFree:
      return "MERGED_FREE";
    case GroResult::kHeld:
      return "HELD";
    case GroResult::kNormal:
      return "NORMAL";
    case GroResult::kConsumed:
      return "CONSUMED";
  }
  return "?";
}

int SkbGroReceive(GroPacket& p, GroPacket& skb, const GroCtx& ctx) {
  // skb_gro_receive: lengths count from the network header (skb->len).
  const size_t len = GroLen(skb);
  const size_t p_len = p.skb.len() - p.cb.mac_len;
  const size_t limit = std::min<size_t>(ctx.cfg.gro_max_size, kGroLegacyMaxSize);
  if (p_len + len >= limit || skb.cb.flush) return 1;  // -E2BIG
  const bool lp_is_p = !p.skb.has_frag_list();
  const uint16_t lp_frags = lp_is_p ? p.skb.nr_frags : p.last_nr_frags;
  uint16_t added = 0;
  bool frags = false;
  if (skb.skb.nr_frags > 0) {
    // Payload in page frags (headers alone in the linear area): the frags
    // move to the last skb of p.
    if (lp_frags + skb.skb.nr_frags <= kMaxSkbFrags) {
      added = skb.skb.nr_frags;
      frags = true;
      skb.cb.free = 1;  // NAPI_GRO_FREE
    }
  } else if (ctx.cfg.head_frag) {
    // A page-backed linear area becomes one more frag (the head is stolen).
    if (lp_frags + 1u <= kMaxSkbFrags) {
      added = 1;
      frags = true;
      skb.cb.free = 2;  // NAPI_GRO_FREE_STOLEN_HEAD
    }
  }
  if (frags) {
    if (lp_is_p)
      p.skb.nr_frags = static_cast<uint16_t>(p.skb.nr_frags + added);
    else
      p.last_nr_frags = static_cast<uint16_t>(p.last_nr_frags + added);
    if (!lp_is_p) p.skb.frag_list_lens.back() += static_cast<uint32_t>(len);
  } else {
    // merge: the skb itself, headers pulled, goes on p's frag_list.
    p.skb.frag_list_lens.push_back(static_cast<uint32_t>(len));
    p.last_nr_frags = skb.skb.nr_frags;
  }
  p.cb.count = static_cast<uint16_t>(p.cb.count + skb.cb.count);
  // The first merge makes room for what the limit lets p grow to, so later
  // merges append without moving what p already holds.
  if (p.cb.count == 2) p.skb.pkt.Reserve(p.cb.mac_len + limit);
  p.skb.pkt.Put(skb.skb.pkt.data() + skb.cb.data_offset, len);
  skb.cb.same_flow = true;
  return 0;
}

int SkbGroReceiveList(GroPacket& p, GroPacket& skb) {
  // skb_gro_receive_list (fraglist GRO; net/core/gro.c since 8928756d53d5,
  // before that net/ipv4/udp_offload.c): the member is chained after
  // skb_pull to the GRO offset, its headers kept in its headroom, where
  // skb_segment_list pushes them back. The model keeps them in the bytes
  // (from the member's network header), so the head's IP length, which
  // inet_gro_complete / ipv6_gro_complete set from the length, counts them.
  // Deviation: the kernel's 64 KB limit is on p->len, which counts only
  // the members' payloads; the model's is on the bytes, headers included,
  // so the IP length still fits: a chain of full-size segments ends a
  // member or two earlier than the kernel's (44 packets of 1448 bytes
  // instead of 45). Keeping the members' headers outside the bytes, as the
  // kernel does, would remove it.
  const size_t p_len = p.skb.len() - p.cb.mac_len;
  const size_t whole = skb.skb.len() - skb.cb.mac_len;
  if (p_len + whole >= kGroLegacyMaxSize) return 1;
  const size_t pulled = skb.cb.data_offset - skb.cb.mac_len;
  p.skb.frag_list_lens.push_back(static_cast<uint32_t>(whole));
  p.flist_hdr_bytes += static_cast<uint32_t>(pulled);
  p.last_nr_frags = skb.skb.nr_frags;
  p.cb.count++;
  p.skb.pkt.Put(skb.skb.pkt.data() + skb.cb.mac_len, whole);
  skb.cb.same_flow = true;
  return 0;
}

GroCell::GroCell(GroConfig cfg) : cfg_(std::move(cfg)), buckets_(kGroHashBuckets) {}
GroCell::~GroCell() = default;

size_t GroCell::held() const {
  size_t n = 0;
  for (const auto& b : buckets_) n += b.size();
  return n;
}

void GroCell::Deliver(SkBuff&& skb) {
  // gro_normal_one: queued on rx_list in order; handed up in batches, which
  // keeps the order.
  stats_.delivered++;
  rx_list_.push_back(std::move(skb));
}

void GroCell::Complete(GroPacket& p) {
  // napi_gro_complete / gro_complete: a lone packet only loses the gso_size
  // it was given while held; a merged one runs the gro_complete chain.
  stats_.flushed++;
  const uint8_t* nh = GroHeader(p, p.cb.mac_len, 1);
  if (nh) {
    const size_t ihl = (nh[0] >> 4) == 6 ? hdr::kIpv6Len : hdr::kIpv4MinLen;
    p.skb.pkt.l3_ofs = p.cb.mac_len;
    p.skb.pkt.l4_ofs = static_cast<uint16_t>(p.cb.mac_len + ihl);
  }
  if (p.cb.count == 1) {
    p.skb.gso_size = 0;
    Deliver(std::move(p.skb));
    return;
  }
  GroCtx ctx{cfg_, stats_, {}};
  const bool ok = nh && ((nh[0] >> 4) == 6 ? Ipv6GroComplete(p, p.cb.mac_len, ctx)
                                           : InetGroComplete(p, p.cb.mac_len, ctx));
  // A failing gro_complete makes the kernel WARN and free the skb.
  if (ok) Deliver(std::move(p.skb));
}

GroResult GroCell::Receive(SkBuff in, uint32_t hash) {
  stats_.received++;
  last_reason_.clear();
  GroPacket skb;
  skb.skb = std::move(in);
  skb.hash = hash;
  const uint16_t mac_len = skb.skb.pkt.l3_ofs == kNoOffset ? hdr::kEthLen : skb.skb.pkt.l3_ofs;
  GroCtx ctx{cfg_, stats_, {}};
  auto normal = [&](const char* why) {
    ctx.Why(why);
    last_reason_ = ctx.reason;
    stats_.normal++;
    stats_.normal_reasons[last_reason_]++;
    skb.skb.remcsum_offload = false;
    Deliver(std::move(skb.skb));
    return GroResult::kNormal;
  };
  // netif_elide_gro: GRO off (or an XDP program) means no GRO work at all.
  if (!(cfg_.features & netif::kGro) || cfg_.xdp_prog) return normal("gro_off");
  if (mac_len != hdr::kEthLen || skb.skb.len() < hdr::kEthLen) return normal("not_ethernet_ip");
  std::list<GroPacket>& list = buckets_[hash & (kGroHashBuckets - 1)];
  // gro_list_prepare: same hash and an identical MAC header, or another flow.
  for (GroPacket& p : list) {
    p.cb.flush = false;
    p.cb.same_flow =
        p.hash == hash && std::memcmp(p.skb.pkt.data(), skb.skb.pkt.data(), hdr::kEthLen) == 0;
  }
  const uint16_t type = GetBe16(skb.skb.pkt.data() + 12);
  if (type != hdr::kEthTypeIpv4 && type != hdr::kEthTypeIpv6) return normal("not_ethernet_ip");

  // NAPI_GRO_CB setup (dev_gro_receive).
  GroCb& cb = skb.cb;
  cb.data_offset = mac_len;
  cb.mac_len = mac_len;
  cb.flush = skb.skb.has_frag_list();
  cb.count = 1;
  if (skb.skb.is_gso()) {
    // An already-aggregated (GRO_HW / LRO / forwarded GSO) TCP skb joins as
    // gso_segs segments in newer kernels (torvalds/linux 0b1605e45c36; the
    // v6.1-era form, as in sunlightlinux's tree, flushed every GSO skb).
    const bool tcp = skb.skb.gso_type & (gso::kTcpv4 | gso::kTcpv6);
    if (cfg_.kv.AtLeast(6, 4)) {
      cb.count = skb.skb.gso_segs;
      if (!tcp || (skb.skb.gso_type & gso::kDodgy)) cb.flush = true;
    } else {
      cb.flush = true;
    }
  }
  if (skb.skb.ip_summed == IpSummed::kComplete) {
    cb.csum = CompleteFromNetworkHeader(skb.skb, mac_len);
    // The kernels before 3.16 checked skb->csum directly (LegacyGroChecksum).
    cb.csum_valid = !UseLegacyChecksums(cfg_.kv);
  } else if (skb.skb.ip_summed == IpSummed::kUnnecessary && !UseLegacyChecksums(cfg_.kv)) {
    cb.csum_cnt = static_cast<uint8_t>(skb.skb.csum_level + 1);
  }

  GroPacket* pp =
      type == hdr::kEthTypeIpv4 ? InetGroReceive(list, skb, ctx) : Ipv6GroReceive(list, skb, ctx);
  const bool same_flow = cb.same_flow;
  const GroResult ret = cb.free ? GroResult::kMergedFree : GroResult::kMerged;
  if (pp) {
    Complete(*pp);
    list.remove_if([pp](const GroPacket& g) { return &g == pp; });
  }
  if (same_flow) {
    stats_.merged++;
    return ret;
  }
  if (cb.flush) return normal("flush");
  if (list.size() >= kMaxGroSkbs) {
    // gro_flush_oldest: the bucket's oldest packet makes room.
    stats_.evicted++;
    Complete(list.back());
    list.pop_back();
  }
  skb.age = age_++;
  if (!skb.skb.is_gso()) skb.skb.gso_size = static_cast<uint16_t>(GroLen(skb));
  skb.skb.remcsum_offload = false;
  last_reason_ = ctx.reason;
  stats_.held++;
  list.push_front(std::move(skb));
  return GroResult::kHeld;
}

std::vector<SkBuff> GroCell::Flush() {
  // __gro_flush(gro, false): buckets in index order, each from its oldest
  // packet; then gro_normal_list hands rx_list up.
  for (auto& list : buckets_) {
    while (!list.empty()) {
      Complete(list.back());
      list.pop_back();
    }
  }
  std::vector<SkBuff> out;
  out.swap(rx_list_);
  return out;
}

}  // namespace offlab::kernel
