// OVS kernel datapath push_vlan / pop_vlan (torvalds/linux 008f05a72d32
// net/openvswitch/actions.c:230 push_vlan, :216 pop_vlan) through
// skb_vlan_push / skb_vlan_pop (net/core/skbuff.c): a pushed tag goes to the
// hardware-accelerated slot; a tag already there is first written into the
// frame (__vlan_insert_tag) and its 4 bytes added to a COMPLETE sum
// (skb_postpush_rcsum on skb->data + 12). A pop clears the accelerated tag
// or, without one, takes the first in-band tag out of the frame
// (__skb_vlan_pop: skb_postpull_rcsum of its 4 bytes), then moves the next
// in-band tag, if any, to the accelerated slot the same way.
//
// Kernel versions: the checksum handling is the same back to the 3.10 era
// (OVS's own push_vlan did the csum_add before skb_vlan_push existed, 3.19);
// before v5.0 the accelerated tag's CFI/DEI bit doubled as the "present"
// flag (VLAN_TAG_PRESENT), so a DEI bit never reached the frame.
// MPLS push/pop are not modelled.
#pragma once

#include <cstdint>

#include "offlab/linux/ovs_dp.h"
#include "offlab/linux/version.h"

namespace offlab::kernel {

// push_vlan with the action's tpid and tci (OVS userspace sets the CFI bit
// to mark the tag present; the kernel clears it: ntohs(tci) & ~VLAN_CFI_MASK).
int OvsPushVlan(OvsSkb& s, uint16_t tpid, uint16_t tci, const KernelVersion& kv = kLabKernel);

int OvsPopVlan(OvsSkb& s);

}  // namespace offlab::kernel
