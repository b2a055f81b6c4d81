// What NIC hardware does with the bytes: on transmit, the checksums and
// segmentation the datapath requested (a partial status is a request); on
// receive, the checksum statuses it reports and the coalescing it performs.
#pragma once

#include <string>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/nic/nic_profile.h"

namespace offlab {

struct NicTx {
  uint32_t caps = 0;      // advertised (cap:: bits)
  uint32_t disabled = 0;  // advertised but not performed: a failing NIC (dummy *_disabled)
  // Hardware adds the segment to the outer UDP checksum field; NicTransmit
  // models the driver's tx_prepare seeding it with the pseudo-header sum.
  bool outer_udp_needs_pseudo_seed = false;
  bool outer_udp_left_as_is = false;
  // False for netdev-dummy, which writes a TSO packet to its pcap as one frame.
  bool segments_tso = true;
  // Segments only IPv4 TSO packets; an IPv6 one leaves as one frame with its
  // checksums completed (DPDK's TAP PMD, NicProfile::tso_ipv4_only).
  bool tso_ipv4_only = false;

  static NicTx FromProfile(const NicProfile& p);
};

// The frames a NIC puts on the wire for one packet from the driver. A request
// outside the advertised capabilities is not performed and is reported in
// `violations` (one line each).
PacketBatch NicTransmit(Packet p, const NicTx& nic, std::vector<std::string>* violations = nullptr);

// Whether NicTransmit puts `p` on the wire as one frame (nothing to segment).
bool NicSendsWhole(const Packet& p, const NicTx& nic);
// NicTransmit of such a packet, in place: the frame is `p` itself.
void NicTransmitWhole(Packet& p, const NicTx& nic, std::vector<std::string>* violations = nullptr);

// Statuses a receiving NIC reports for one frame (OVS keeps only the outer
// pair; the inner pair is what a kernel sees as csum_level and what GRO uses).
struct RxStatus {
  CsumStatus ip = CsumStatus::kUnknown, l4 = CsumStatus::kUnknown;
  CsumStatus inner_ip = CsumStatus::kUnknown, inner_l4 = CsumStatus::kUnknown;
  TunnelType tunnel = TunnelType::kNone;
};

// Hardware receive validation per the profile, from the actual bytes. Returns
// a packet whose offloads word holds what netdev-dpdk would store (outer
// statuses only) and, in `status`, the full report.
Packet NicReceive(Bytes frame, const NicProfile& profile, RxStatus* status = nullptr);
// The same for a frame that may end in a shared tail (offlab/net/payload.h):
// headers are read in its head, checksums over the payload use its slices'
// sums, and the tail stays shared.
Packet NicReceive(Packet frame, const NicProfile& profile, RxStatus* status = nullptr);

// Receive coalescing (GRO in the kernel/driver, or hardware LRO). In-order
// TCP segments of one flow (same addresses, ports, tunnel endpoints and key,
// header length and ACK; only ACK/PSH flags; every segment but the last of
// equal size) are merged while the result stays within max_bytes and their
// (inner) TCP checksum was validated: by the NIC, or, for a UDP tunnel without
// inner validation, through a non-zero outer UDP checksum the NIC validated
// (Linux converts it to CHECKSUM_COMPLETE). A merged packet is a TSO packet:
// tso_segsz = the segment size, IP and L4 statuses partial.
struct CoalesceStats {
  uint64_t frames_in = 0, packets_out = 0, merged = 0, not_validated = 0;
};
PacketBatch Coalesce(std::vector<std::pair<Packet, RxStatus>> frames, size_t max_bytes,
                     CoalesceStats* stats = nullptr);

}  // namespace offlab
