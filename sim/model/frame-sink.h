// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The receiving side of a PacketGenerator, like TRex's rx stats or pktgen's
 * receiver: counts the generator's frames (pktgen header, see
 * packet-generator.h) as they arrive, per flow (UDP source port), with lost
 * frames from gaps in the stream's sequence numbers and frames that arrive
 * after a later one, and reports rates over a window.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "frame-train.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "offlab/net/bytes.h"

namespace ns3 {

class FrameSink : public Object {
 public:
  static TypeId GetTypeId();

  struct Stats {
    uint64_t frames = 0;  //!< the generator's frames counted in the window
    uint64_t bytes = 0;   //!< their bytes without FCS
    /** Sequence numbers skipped and not (yet) filled by a late frame. */
    uint64_t lost = 0;
    /** Frames behind a higher sequence number already seen (any flow). */
    uint64_t late = 0;
    /** Frames behind a higher sequence number already seen on their own flow. */
    uint64_t flowReorders = 0;
    uint64_t foreign = 0;       //!< frames without the pktgen header (not counted above)
    uint64_t badChecksums = 0;  //!< when checking: IPv4 header or UDP checksum wrong
    Time start;                 //!< the window: from ResetStats()
    Time end;                   //!< to now or the last arrival, whichever is later
    double Seconds() const;
    double Pps() const;
    /** Frame + FCS bits per second. */
    double L2Gbps() const;
    /** Frame + FCS + preamble + IFG bits per second (what the line carries). */
    double L1Gbps() const;
  };

  /** Frames off the wire with their arrival times (same length). */
  void Receive(const std::vector<offlab::Bytes>& frames, const std::vector<Time>& arrivals);
  /** For OffloadNetDevice::SetTrainHandler. */
  void ReceiveTrain(Ptr<FrameTrain> train);
  /** Also verify the IPv4 header and UDP checksums of each frame (off by default). */
  void SetVerifyChecksums(bool verify);
  /** Starts a new window now: frames arriving before now no longer count; frames handed over
   * earlier that arrive from now on do. */
  void ResetStats();
  Stats GetStats() const;
  /** Frames of the window with this UDP source port. */
  uint64_t GetFlowFrames(uint16_t srcPort) const;

 private:
  void Count(const offlab::Bytes& frame, Time arrival);

  // Frames handed over before they arrive (a whole train at its first
  // frame): kept until their arrival so a window started in between counts them.
  struct Future {
    Time arrival;
    uint64_t bytes;
    uint16_t port;
  };
  std::deque<Future> m_future;
  bool m_verify = false;
  Stats m_stats;
  Time m_lastArrival;
  bool m_haveSeq = false;
  int64_t m_highest = 0;  //!< highest sequence number seen, extended to 64 bits
  std::vector<uint64_t> m_flowFrames = std::vector<uint64_t>(65536, 0);
  std::vector<int64_t> m_flowLast = std::vector<int64_t>(65536, 0);
  std::vector<uint8_t> m_flowSeen = std::vector<uint8_t>(65536, 0);
};

}  // namespace ns3
