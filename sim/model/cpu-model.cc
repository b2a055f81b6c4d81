// SPDX-License-Identifier: Apache-2.0
#include "cpu-model.h"

#include <algorithm>

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("OffloadCpuModel");
NS_OBJECT_ENSURE_REGISTERED(CpuModel);

CpuWork& CpuWork::operator+=(const CpuWork& o) {
  packets += o.packets;
  rxFrames += o.rxFrames;
  txFrames += o.txFrames;
  swSegments += o.swSegments;
  csumBytes += o.csumBytes;
  copyBytes += o.copyBytes;
  polls += o.polls;
  groMerges += o.groMerges;
  return *this;
}

TypeId CpuModel::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::CpuModel")
          .SetParent<Object>()
          .SetGroupName("Offload")
          .AddConstructor<CpuModel>()
          .AddAttribute("ClockHz", "Core clock in Hz.", DoubleValue(2.6e9),
                        MakeDoubleAccessor(&CpuModel::m_clockHz), MakeDoubleChecker<double>(1e6))
          .AddAttribute("CyclesPerPacket", "Cycles per datapath or stack pass of one packet.",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerPacket),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerRxFrame", "Cycles per frame taken from a ring or virtqueue.",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerRxFrame),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerTxFrame", "Cycles per packet handed to a ring or virtqueue.",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerTxFrame),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerSegment",
                        "Cycles per segment made by software GSO (besides its copy).",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerSegment),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerCsumByte", "Cycles per byte checksummed in software.",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerCsumByte),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerCopyByte", "Cycles per byte copied.", DoubleValue(0),
                        MakeDoubleAccessor(&CpuModel::m_cyclesPerCopyByte),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerPoll", "Cycles per NAPI poll (softirq entry, poll loop).",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerPoll),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("CyclesPerGroMerge", "Cycles per frame GRO merges into a held skb.",
                        DoubleValue(0), MakeDoubleAccessor(&CpuModel::m_cyclesPerGroMerge),
                        MakeDoubleChecker<double>(0))
          .AddAttribute("MaxBacklog", "Work waiting longer than this is refused (ring overflow).",
                        TimeValue(MilliSeconds(50)), MakeTimeAccessor(&CpuModel::m_maxBacklog),
                        MakeTimeChecker())
          .AddTraceSource("Cycles", "Cycles of each accepted piece of work.",
                          MakeTraceSourceAccessor(&CpuModel::m_cyclesTrace),
                          "ns3::TracedValueCallback::Double");
  return tid;
}

CpuModel::CpuModel() = default;

double CpuModel::Cycles(const CpuWork& w) const {
  return w.packets * m_cyclesPerPacket + w.rxFrames * m_cyclesPerRxFrame +
         w.txFrames * m_cyclesPerTxFrame + w.swSegments * m_cyclesPerSegment +
         w.csumBytes * m_cyclesPerCsumByte + w.copyBytes * m_cyclesPerCopyByte +
         w.polls * m_cyclesPerPoll + w.groMerges * m_cyclesPerGroMerge;
}

bool CpuModel::Submit(const CpuWork& w, Time* done) { return Submit(w, done, *this); }

bool CpuModel::Submit(const CpuWork& w, Time* done, const CpuModel& costs) {
  const Time now = Simulator::Now();
  const Time start = std::max(now, m_busyUntil);
  if (start - now > m_maxBacklog) {
    m_drops++;
    return false;
  }
  const double cycles = costs.Cycles(w);
  const Time service = Seconds(cycles / m_clockHz);
  m_busyUntil = start + service;
  m_busy += service;
  m_work += w;
  m_cyclesTrace(cycles);
  *done = m_busyUntil;
  return true;
}

double CpuModel::GetUtilisation() const {
  const Time span = Simulator::Now() - m_statsStart;
  if (span.IsZero()) {
    return 0;
  }
  // Work accepted near the end may run past now; count only what fits.
  const Time pending = std::max(Time(0), m_busyUntil - Simulator::Now());
  return std::clamp((m_busy - pending).GetSeconds() / span.GetSeconds(), 0.0, 1.0);
}

void CpuModel::ResetStats() {
  m_statsStart = Simulator::Now();
  // Work already queued belongs to the new window from now on.
  m_busy = std::max(Time(0), m_busyUntil - Simulator::Now());
  m_drops = 0;
  m_work = {};
}

uint64_t CpuModel::GetDrops() const { return m_drops; }

double CpuModel::GetClockHz() const { return m_clockHz; }

const CpuWork& CpuModel::GetWork() const { return m_work; }

}  // namespace ns3

namespace ns3 {
Time CpuModel::GetBusyUntil() const { return m_busyUntil; }
}  // namespace ns3
