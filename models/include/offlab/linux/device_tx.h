// What network hardware puts on the wire for an skb the kernel handed its
// driver (after validate_xmit_skb): TSO of TCPV4/TCPV6 GSO skbs (and of
// UDP_TUNNEL[_CSUM] ones when the device has tunnel TSO; GSO_PARTIAL skbs
// whose outer headers the stack already made per-segment), and completion of
// a CHECKSUM_PARTIAL checksum. This is the common behaviour of NICs, not one
// driver's: per segment the TCP sequence advances, FIN/PSH stay on the last
// segment and CWR on the first, IPv4 IDs increment (also for
// SKB_GSO_TCP_FIXEDID: the NICs modelled ignore MANGLEID), every IPv4 header
// checksum and the TCP checksum are computed from scratch, and an outer UDP
// checksum is computed for UDP_TUNNEL_CSUM (left 0 otherwise). A UDP
// checksum that comes out 0 is sent as 0xffff (RFC 768). An offload the
// device lacks is not performed: the frame goes out as the skb holds it
// (counted). Work done here is hardware work (not metered).
#pragma once

#include <vector>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/net/bytes.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

// The frames on the wire, in order. Counters: "device_tso_segments",
// "device_csum", "device_tx_unsupported_gso", "device_tx_unsupported_csum",
// "device_tx_malformed" (offsets that do not fit: sent as is).
std::vector<Bytes> DeviceTransmit(SkBuff skb, const DeviceFeatures& dev,
                                  Counters* counters = nullptr);

// The same for an skb the caller keeps (the host path records what it handed
// the driver): a GSO skb, which the hardware only reads, is not copied.
std::vector<Bytes> DeviceTransmitKeep(const SkBuff& skb, const DeviceFeatures& dev,
                                      Counters* counters = nullptr);

}  // namespace offlab::kernel
