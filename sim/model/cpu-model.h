// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A CPU core (an OVS PMD thread or a guest vCPU) as a FIFO server whose
 * service time is the cycle cost of the work submitted to it.
 */
#pragma once

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

namespace ns3 {

/**
 * @ingroup offload
 * Counts of the work one processing step performs; CpuModel turns them into
 * cycles with its per-item costs.
 */
struct CpuWork {
  double packets = 0;     //!< passes through the datapath or a guest stack
  double rxFrames = 0;    //!< frames taken from a NIC ring or virtqueue
  double txFrames = 0;    //!< packets handed to a NIC ring or virtqueue
  double swSegments = 0;  //!< segments made by software GSO
  double csumBytes = 0;   //!< bytes run through a checksum in software
  double copyBytes = 0;   //!< bytes copied (GSO segments, vhost, user copies)
  double polls = 0;       //!< NAPI polls (a kernel host's softirq)
  double groMerges = 0;   //!< frames GRO merged into a held skb instead of passing up

  CpuWork& operator+=(const CpuWork& o);
};

/**
 * @ingroup offload
 * One core: cycles = Σ count × cost, service time = cycles / clock. Work is
 * served in order; work that would wait longer than MaxBacklog is refused,
 * which is how a saturated core caps throughput (its ring overflows).
 */
class CpuModel : public Object {
 public:
  static TypeId GetTypeId();
  CpuModel();

  double Cycles(const CpuWork& w) const;
  /**
   * Queues `w`. Returns false (and counts a drop) when the backlog is full;
   * otherwise `done` is when the work completes.
   */
  bool Submit(const CpuWork& w, Time* done);
  /**
   * As Submit, with the work priced by `costs`' per-item cycles: one core
   * running two kinds of code (a socket application's TCP and the kernel's
   * transmit path under it).
   */
  bool Submit(const CpuWork& w, Time* done, const CpuModel& costs);
  /** Busy fraction since the last ResetStats(), in [0, 1]. */
  double GetUtilisation() const;
  void ResetStats();
  uint64_t GetDrops() const;
  double GetClockHz() const;
  /** When the work accepted so far will be done. */
  Time GetBusyUntil() const;
  /** The work counted since the last ResetStats(). */
  const CpuWork& GetWork() const;

 private:
  double m_clockHz;
  double m_cyclesPerPacket;
  double m_cyclesPerRxFrame;
  double m_cyclesPerTxFrame;
  double m_cyclesPerSegment;
  double m_cyclesPerCsumByte;
  double m_cyclesPerCopyByte;
  double m_cyclesPerPoll;
  double m_cyclesPerGroMerge;
  Time m_maxBacklog;

  Time m_busyUntil;
  Time m_statsStart;
  Time m_busy;
  uint64_t m_drops = 0;
  CpuWork m_work;
  TracedCallback<double> m_cyclesTrace;
};

}  // namespace ns3
