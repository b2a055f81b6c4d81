// Pieces the flow-dissector and virtio/TAP endpoint tests build frames from:
// a TCP header (1234 > 80, doff 5), a UDP header (1234 > 53), an ARP
// request body, a bare skb over a frame, and VLAN tags put after the MACs.
#pragma once

#include <string>

#include "kernel_test_skb.h"
#include "offlab/linux/skb.h"

namespace offlab::kernel::dissect_frames {

inline const std::string kTcp = "04d2005000000001000000005010ffff00000000";  // 20 bytes, doff 5
inline const std::string kUdp = "04d200350008 0000";                         // 8 bytes
inline const std::string kArp = "0001 0800 06 04 0001 0a8f394fe073 0a000001 000000000000 0a000002";

inline SkBuff Skb(const Bytes& b) {
  SkBuff s;
  s.pkt = Packet(b);
  return s;
}

// `f` with 802.1Q/802.1ad tags (type + TCI, hex) inserted after the MACs.
inline Bytes Tagged(Bytes f, const std::string& tags) {
  const Bytes t = FromHex(testing::H(tags));
  f.insert(f.begin() + 12, t.begin(), t.end());
  return f;
}

}  // namespace offlab::kernel::dissect_frames
