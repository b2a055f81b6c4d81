// The Geneve socket's GRO hooks.
//
// Sources: torvalds/linux 002bba562dd3 drivers/net/geneve.c (6.3-era stored
// version) geneve_gro_receive(): the 8-byte base header must be there;
// version != 0 or the O (OAM) bit -> flush (the C bit is not looked at);
// gh_len = 8 + opt_len * 4 must be there too; a held packet stays in the
// flow only if its opt_len and all gh_len header bytes (flags, protocol,
// VNI, options) are equal; skb_gro_pull + skb_gro_postpull_rcsum of the
// header; ETH_P_TEB -> eth_gro_receive, any other protocol through
// gro_find_receive_by_type (IPv4/IPv6 here), else flush.
// geneve_gro_complete(): eth_gro_complete (or the protocol's complete) at
// nhoff + gh_len, and the inner MAC header set there.
// torvalds/linux eccc73a6b2cb (5.x-era) has the same rules, the TEB case
// going through gro_find_receive_by_type (eth's ETH_P_TEB packet_offload).
// The hook came with Geneve GRO in v4.0 (net/ipv4/geneve.c); RHEL 7's
// backported driver is taken to have it.
#include <algorithm>

#include "offlab/linux/geneve.h"
#include "offlab/linux/geneve_gro.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

const GroGeneveSocket* FindGeneveSocket(const GroConfig& cfg, uint16_t port) {
  if (!cfg.kv.rhel7 && !cfg.kv.AtLeast(4, 0)) return nullptr;
  for (const GroGeneveSocket& s : cfg.geneve)
    if (s.port == port) return &s;
  return nullptr;
}

GroPacket* GeneveGroReceive(GroList& head, GroPacket& skb, GroCtx& ctx) {
  GroPacket* pp = nullptr;
  bool flush = true;
  const size_t off = skb.cb.data_offset;
  const uint8_t* gh = GroHeader(skb, off, kGeneveHdrLen);
  if (!gh) {
    ctx.Why("geneve_short");
  } else if ((gh[0] >> 6) != 0 || (gh[1] & kGeneveOamBit)) {
    ctx.Why("geneve_oam_or_version");
  } else {
    const size_t gh_len = kGeneveHdrLen + size_t{gh[0] & 0x3fu} * 4;
    gh = GroHeader(skb, off, gh_len);
    if (!gh) {
      ctx.Why("geneve_short");
    } else {
      for (GroPacket& p : head) {
        if (!p.cb.same_flow) continue;
        // Equal opt_len and equal header bytes, options included.
        const uint8_t* gh2 = GroHeader(p, off, gh_len);
        if (!gh2 || (gh2[0] & 0x3f) != (gh[0] & 0x3f) || !std::equal(gh, gh + gh_len, gh2))
          p.cb.same_flow = false;
      }
      const uint16_t type = GetBe16(gh + 2);
      skb.cb.data_offset = static_cast<uint16_t>(off + gh_len);
      GroPostpullRcsum(skb, off, gh_len);
      if (type == kEthPTeb || type == hdr::kEthTypeIpv4 || type == hdr::kEthTypeIpv6) {
        flush = false;
        // call_gro_receive: the recursion limit flushes instead.
        if (RecursionTooDeep(skb))
          skb.cb.flush = true;
        else if (type == kEthPTeb)
          pp = EthGroReceive(head, skb, ctx);
        else if (type == hdr::kEthTypeIpv4)
          pp = InetGroReceive(head, skb, ctx);
        else
          pp = Ipv6GroReceive(head, skb, ctx);
      } else {
        ctx.Why("geneve_proto");
      }
    }
  }
  skb.cb.flush |= flush;
  return pp;
}

bool GeneveGroComplete(GroPacket& skb, size_t nhoff, const GroCtx& ctx) {
  const uint8_t* gh = GroHeader(skb, nhoff, kGeneveHdrLen);
  if (!gh) return false;
  const size_t inner = nhoff + kGeneveHdrLen + size_t{gh[0] & 0x3fu} * 4;
  const uint16_t type = GetBe16(gh + 2);
  if (inner > skb.skb.len()) return false;
  if (type == kEthPTeb) return EthGroComplete(skb, inner, ctx);
  bool ok = false;
  if (type == hdr::kEthTypeIpv4) ok = InetGroComplete(skb, inner, ctx);
  if (type == hdr::kEthTypeIpv6) ok = Ipv6GroComplete(skb, inner, ctx);
  skb.skb.pkt.inner_l2_ofs = static_cast<uint16_t>(inner);
  return ok;
}

}  // namespace offlab::kernel
