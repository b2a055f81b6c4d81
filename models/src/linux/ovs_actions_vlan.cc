#include "offlab/linux/ovs_actions_vlan.h"

#include <cstring>

#include "offlab/linux/ovs_actions.h"
#include "offlab/linux/ovs_actions_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

namespace {

constexpr uint16_t kVlanCfiMask = 0x1000;

bool IsVlanType(uint16_t t) { return t == hdr::kEthTypeVlan || t == hdr::kEthTypeQinQ; }

// skb->protocol as the VLAN helpers keep it: the frame's type at offset 12
// (the outer in-band tag's TPID, or the payload type).
uint16_t Protocol(const SkBuff& skb) {
  return skb.len() >= hdr::kEthLen ? GetBe16(skb.pkt.data() + 12) : 0;
}

// __vlan_insert_tag: 4 bytes pushed in front, the MAC addresses moved back
// to the front, the tag written at offset 12. A PARTIAL csum_start (an
// offset from skb->head in the kernel) keeps pointing at the same byte.
void InsertTag(SkBuff& skb, uint16_t tpid, uint16_t tci) {
  uint8_t* d = skb.pkt.Push(hdr::kVlanLen);
  std::memmove(d, d + hdr::kVlanLen, 12);
  PutBe16(d + 12, tpid);
  PutBe16(d + 14, tci);
  if (skb.ip_summed == IpSummed::kPartial)
    skb.csum_start = static_cast<uint16_t>(skb.csum_start + hdr::kVlanLen);
}

// __skb_vlan_pop: the first in-band tag out of the frame, its bytes out of
// a COMPLETE sum. Returns the TCI, or -1 (-ENOMEM) without a full tag.
int RemoveTag(SkBuff& skb) {
  if (skb.len() < hdr::kEthLen + hdr::kVlanLen) return -1;  // skb_ensure_writable(VLAN_ETH_HLEN)
  RcsumPull(skb, 12, hdr::kVlanLen);  // skb_postpull_rcsum(skb->data + 12, VLAN_HLEN)
  uint8_t* d = skb.pkt.data();
  const uint16_t tci = GetBe16(d + 14);
  std::memmove(d + hdr::kVlanLen, d, 12);
  skb.pkt.Pull(hdr::kVlanLen);
  if (skb.ip_summed == IpSummed::kPartial && skb.csum_start >= 16)
    skb.csum_start = static_cast<uint16_t>(skb.csum_start - hdr::kVlanLen);
  return tci;
}

}  // namespace

int OvsPushVlan(OvsSkb& s, uint16_t tpid, uint16_t tci, const KernelVersion& kv) {
  SkBuff& skb = s.skb;
  if (skb.len() < hdr::kEthLen) return ovs_err::kInval;
  const bool had_tag = s.vlan.present;
  if (had_tag) {
    // skb_vlan_push: the current accelerated tag goes into the frame first.
    uint16_t inband = s.vlan.tci;
    // Until the VLAN_TAG_PRESENT removal (v5.0) the CFI/DEI bit of the
    // accelerated TCI was the "present" flag and skb_vlan_tag_get masked it.
    if (!kv.AtLeast(5, 0)) inband &= static_cast<uint16_t>(~kVlanCfiMask);
    InsertTag(skb, s.vlan.tpid, inband);
    RcsumPush(skb, 12, hdr::kVlanLen);  // skb_postpush_rcsum(skb->data + 2 * ETH_ALEN)
  }
  s.vlan = {true, tpid, static_cast<uint16_t>(tci & ~kVlanCfiMask)};
  OvsFlowKeyExtract(s);
  // push_vlan invalidates the flow key when a tag was already present.
  s.key.valid = !had_tag;
  return 0;
}

int OvsPopVlan(OvsSkb& s) {
  SkBuff& skb = s.skb;
  int err = 0;
  if (s.vlan.present) {
    s.vlan = VlanTag{};  // __vlan_hwaccel_clear_tag
  } else if (IsVlanType(Protocol(skb))) {
    if (RemoveTag(skb) < 0) err = ovs_err::kNoMem;
  }
  // Move the next in-band tag to the accelerated slot.
  if (!err && IsVlanType(Protocol(skb))) {
    const uint16_t proto = Protocol(skb);
    const int tci = RemoveTag(skb);
    if (tci < 0)
      err = ovs_err::kNoMem;
    else
      s.vlan = {true, proto, static_cast<uint16_t>(tci)};
  }
  OvsFlowKeyExtract(s);
  // pop_vlan: the key is invalidated when a tag remains accelerated.
  s.key.valid = !s.vlan.present;
  return err;
}

}  // namespace offlab::kernel
