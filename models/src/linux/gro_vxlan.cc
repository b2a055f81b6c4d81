// The VXLAN socket's GRO hook: vxlan_gro_receive with
// vxlan_gro_prepare_receive and vxlan_gro_remcsum
// (drivers/net/vxlan/vxlan_core.c, v6.18 form as stored in the index; RCO
// from dfd8645ea1bd "vxlan: Remote checksum offload", v4.0), and the
// remote-checksum-offload helpers of include/net/gro.h
// (skb_gro_remcsum_process / skb_gro_remcsum_cleanup /
// skb_gro_flush_final_remcsum, torvalds/linux ff269e2cd5ad).
//
// Note: GRO does not check VXLAN flags beyond RCO; frames whose flags the
// device would reject (unknown bits without remcsumrx) are still merged
// when their flags are equal, and dropped later by vxlan_rcv.
#include <algorithm>

#include "offlab/linux/gro_cb.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint32_t kVxlanHfRco = 1u << 21;  // VXLAN_HF_RCO, host order of vx_flags
constexpr uint32_t kRcoMask = 0x7f;         // VXLAN_RCO_MASK: start >> 1
constexpr uint32_t kRcoUdp = 0x80;          // VXLAN_RCO_UDP: the field is UDP's

// vxlan_gro_remcsum + skb_gro_remcsum_process. Returns false when the frame
// cannot be processed (no verified running sum, or too short).
bool VxlanGroRemcsum(GroPacket& skb, size_t off_vx, uint32_t vni_field, bool nopartial,
                     GroCtx& ctx) {
  if (skb.skb.remcsum_offload) return true;
  if (!skb.cb.csum_valid) {
    // RCO needs the outer checksum's verified sum to derive the inner one.
    ctx.NotValidated("vxlan_rco_csum_invalid");
    return false;
  }
  const size_t start = size_t{vni_field & kRcoMask} << 1;
  const size_t offset = start + ((vni_field & kRcoUdp) ? hdr::kUdpCsumOfs : hdr::kTcpCsumOfs);
  const size_t inner = off_vx + hdr::kVxlanLen;
  if (!nopartial) {
    // The inner transport checksum is left for the stack / device to fill:
    // validation at that offset is skipped (skb_at_gro_remcsum_start).
    skb.cb.gro_remcsum_start = static_cast<uint16_t>(inner + start);
  } else {
    // remcsum_adjust: write the real checksum into the inner field and
    // account for the change in the running sum; undone by the cleanup.
    uint8_t* ptr = GroHeaderMut(skb, inner, std::max(offset + 2, start));
    if (!ptr) return false;
    const uint16_t from_start = CsumSub16(skb.cb.csum, csum::Fold(csum::Partial(ptr, start)));
    const uint16_t old_field = GetBe16(ptr + offset);
    const uint16_t new_field = static_cast<uint16_t>(~from_start);
    const uint16_t delta = CsumSub16(new_field, old_field);
    PutBe16(ptr + offset, new_field);
    skb.cb.csum = CsumAdd16(skb.cb.csum, delta);
    skb.cb.remcsum_field = static_cast<uint16_t>(inner + offset);
    skb.cb.remcsum_delta = delta;
  }
  skb.skb.remcsum_offload = true;
  return true;
}

// skb_gro_remcsum_cleanup: restore the inner field the nopartial path
// rewrote (remcsum_unadjust).
void RemcsumCleanup(GroPacket& skb) {
  if (!skb.cb.remcsum_delta) return;
  uint8_t* f = GroHeaderMut(skb, skb.cb.remcsum_field, 2);
  if (f) PutBe16(f, CsumSub16(GetBe16(f), skb.cb.remcsum_delta));
  skb.cb.remcsum_delta = 0;
}

}  // namespace

GroPacket* VxlanGroReceive(GroList& head, GroPacket& skb, const GroVxlanSocket& vs, GroCtx& ctx) {
  GroPacket* pp = nullptr;
  bool flush = true;
  skb.cb.remcsum_delta = 0;
  const size_t off_vx = skb.cb.data_offset;
  const uint8_t* vh = GroHeader(skb, off_vx, hdr::kVxlanLen);
  bool ok = vh != nullptr;
  if (ok) {
    GroPostpullRcsum(skb, off_vx, hdr::kVxlanLen);
    const uint32_t flags = GetBe32(vh), vni = GetBe32(vh + 4);
    if (ctx.cfg.kv.AtLeast(4, 0) && (flags & kVxlanHfRco) && vs.remcsum_rx)
      ok = VxlanGroRemcsum(skb, off_vx, vni, vs.remcsum_nopartial, ctx);
    if (ok) {
      skb.cb.data_offset = static_cast<uint16_t>(off_vx + hdr::kVxlanLen);
      for (GroPacket& p : head) {
        if (!p.cb.same_flow) continue;
        // Same flags and VNI (v3.14 compared the VNI only).
        const uint8_t* vh2 = GroHeader(p, off_vx, hdr::kVxlanLen);
        if (!vh2 || GetBe32(vh + 4) != GetBe32(vh2 + 4) ||
            (ctx.cfg.kv.AtLeast(4, 0) && GetBe32(vh) != GetBe32(vh2)))
          p.cb.same_flow = false;
      }
      if (RecursionTooDeep(skb))
        skb.cb.flush = true;
      else
        pp = EthGroReceive(head, skb, ctx);
      flush = false;
    }
  }
  // skb_gro_flush_final_remcsum: remcsum_offload only marks the frame while
  // its inner layers are parsed; it is cleared whatever the outcome.
  skb.cb.flush |= flush;
  RemcsumCleanup(skb);
  skb.skb.remcsum_offload = false;
  return pp;
}

}  // namespace offlab::kernel
