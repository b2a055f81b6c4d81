// Whether a segment's IP header(s) let it join a held packet of the same
// flow: TTL/TOS/DF (IPv6: traffic class and hop limit) must match at every
// level, and the IPv4 ID must follow the held packet's, by a rule that
// changed four times:
//  - v3.10: every IPv4 header's ID must be the held one's + count
//    (inet_gro_receive, torvalds/linux v3.10).
//  - v3.13 .. v4.6 and RHEL 7: only the innermost header's ID is checked
//    (flush_id; bf5a755f5e91 "net-gre-gro: Add GRE support to the GRO
//    stack"), since tunnel GSO did not always increment outer IDs.
//  - v4.7 .. v6.9: a flow whose innermost headers carry DF may instead keep
//    one fixed ID (is_atomic; 1530545ed64b "GRO: Add support for TCP with
//    fixed IP ID field"), decided at the second segment; an outer header
//    without DF also has to increment.
//  - v6.10 .. v6.17: checked at L4 for the outer and inner header
//    (gro_receive_network_flush / inet_gro_flush; 4b0ebbca3e16 "net: gro:
//    move L3 flush checks to tcp_gro_receive and udp_gro_receive_segment");
//    an outer header with DF is exempt, fixed IDs need DF.
//  - v6.18: every level must increment or stay fixed on its own
//    (ip_fixedid bit per level), DF no longer matters ("net: gro: only
//    merge packets with incrementing or fixed outer ids" and "net: gro:
//    remove unnecessary df checks", Richard Gobert, v6.18; the lab kernel's
//    BTF shows napi_gro_cb.ip_fixedid:2 and SKB_GSO_TCP_FIXEDID_INNER, and
//    torvalds/linux 006c8b834aed inet_gso_segment restores IDs per level).
#include "offlab/linux/gro_cb.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kIpDf = 0x4000;

// State carried across the levels of one comparison (pre-6.10 flush_id).
struct IdState {
  bool skb_atomic = true;  // NAPI_GRO_CB(skb)->is_atomic before this level
};

int Ipv4LevelFlush(GroPacket& p, const uint8_t* iph, const uint8_t* iph2, int level, bool innermost,
                   IdState& st, const KernelVersion& kv) {
  // iph: the new segment's header; iph2: the held packet's (first) header.
  const uint16_t id = GetBe16(iph + hdr::kIpv4IdOfs), id2 = GetBe16(iph2 + hdr::kIpv4IdOfs);
  const bool df = GetBe16(iph + hdr::kIpv4FragOfs) & kIpDf;
  const bool df2 = GetBe16(iph2 + hdr::kIpv4FragOfs) & kIpDf;
  const uint16_t count = p.cb.count;
  const uint16_t ipid_offset = static_cast<uint16_t>(id - id2);
  // All fields must match except length, ID and checksum.
  if (iph[hdr::kIpv4TtlOfs] != iph2[hdr::kIpv4TtlOfs] ||
      iph[hdr::kIpv4TosOfs] != iph2[hdr::kIpv4TosOfs] || df != df2)
    return 1;
  if (kv.AtLeast(6, 18)) {
    const uint8_t bit = static_cast<uint8_t>(1u << level);
    if (count == 1 && ipid_offset == 0) p.cb.ip_fixedid |= bit;
    const uint16_t want = (p.cb.ip_fixedid & bit) ? 0 : count;
    return ipid_offset != want;
  }
  if (kv.AtLeast(6, 10)) {
    const bool outer = level == 0 && p.cb.encap_mark;
    if (outer && df) return 0;
    if (count == 1 && df && ipid_offset == 0) p.cb.ip_fixedid = 1;
    const uint16_t want = p.cb.ip_fixedid ? 0 : count;
    return ipid_offset != want;
  }
  if (kv.AtLeast(4, 7)) {
    // inet_gro_receive's flush_id; the L4 test is in the caller.
    uint16_t fid = ipid_offset;
    if (!p.cb.is_atomic || !df) fid = (fid ^ count) ? 0xffff : 0;
    if (st.skb_atomic)
      p.cb.flush_id = fid;
    else
      p.cb.flush_id |= fid;
    st.skb_atomic = df;
    return 0;
  }
  const bool bad = static_cast<uint16_t>(id2 + count) != id;
  if (kv.rhel7 || kv.AtLeast(3, 13)) {
    p.cb.flush_id = bad ? 1 : 0;  // the innermost IPv4 level's value stands
    return 0;
  }
  (void)innermost;
  return bad ? 1 : 0;
}

int Ipv6LevelFlush(const uint8_t* iph, const uint8_t* iph2) {
  // ipv6_gro_flush: traffic class and hop limit must match.
  const uint32_t w = GetBe32(iph) ^ GetBe32(iph2);
  return ((w & 0x0FF00000u) != 0 || iph[hdr::kIpv6HlimOfs] != iph2[hdr::kIpv6HlimOfs]) ? 1 : 0;
}

}  // namespace

int GroNetworkFlush(GroPacket& p, const GroPacket& skb, size_t th, const KernelVersion& kv) {
  const int levels = p.cb.encap_mark ? 2 : 1;
  int flush = 0;
  IdState st;
  if (!kv.AtLeast(6, 10)) p.cb.flush_id = 0;
  for (int level = 0; level < levels; level++) {
    // The segment's header sits as far before its transport header as the
    // held packet's does (same header lengths are a precondition of
    // same_flow at every level).
    const size_t nh2 = p.cb.network_offsets[level];
    if (p.cb.transport < nh2 || th < p.cb.transport - nh2) return 1;
    const size_t nh = th - (p.cb.transport - nh2);
    const uint8_t* iph2 = GroHeader(p, nh2, 1);
    if (!iph2) return 1;
    if ((iph2[0] >> 4) == 6) {
      const uint8_t* a = GroHeader(skb, nh, hdr::kIpv6Len);
      const uint8_t* b = GroHeader(p, nh2, hdr::kIpv6Len);
      if (!a || !b) return 1;
      flush |= Ipv6LevelFlush(a, b);
    } else {
      const uint8_t* a = GroHeader(skb, nh, hdr::kIpv4MinLen);
      const uint8_t* b = GroHeader(p, nh2, hdr::kIpv4MinLen);
      if (!a || !b) return 1;
      flush |= Ipv4LevelFlush(p, a, b, level, level == levels - 1, st, kv);
    }
  }
  if (kv.AtLeast(6, 10)) return flush;
  if (kv.AtLeast(4, 7)) {
    // tcp_gro_receive (v4.7 .. v6.9): at the second segment an atomic flow
    // whose ID moved by one turns into an incrementing one.
    if (p.cb.flush_id != 1 || p.cb.count != 1 || !p.cb.is_atomic)
      flush |= p.cb.flush_id != 0;
    else
      p.cb.is_atomic = false;
    return flush;
  }
  return flush | (p.cb.flush_id != 0);
}

}  // namespace offlab::kernel
