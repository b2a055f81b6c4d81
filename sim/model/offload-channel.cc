// SPDX-License-Identifier: Apache-2.0
#include "offload-channel.h"

#include <algorithm>
#include <stdexcept>

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "offload-net-device.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("OffloadChannel");
NS_OBJECT_ENSURE_REGISTERED(OffloadChannel);

TypeId OffloadChannel::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::OffloadChannel")
          .SetParent<Channel>()
          .SetGroupName("Offload")
          .AddConstructor<OffloadChannel>()
          .AddAttribute("Delay", "Propagation delay of the cable.", TimeValue(MicroSeconds(1)),
                        MakeTimeAccessor(&OffloadChannel::m_delay), MakeTimeChecker());
  return tid;
}

void OffloadChannel::Attach(Ptr<OffloadNetDevice> device) {
  for (auto& end : m_ends) {
    if (!end) {
      end = device;
      return;
    }
  }
  throw std::logic_error("OffloadChannel: both ends already attached");
}

std::size_t OffloadChannel::GetNDevices() const {
  return (m_ends[0] ? 1 : 0) + (m_ends[1] ? 1 : 0);
}

Ptr<NetDevice> OffloadChannel::GetDevice(std::size_t i) const {
  return i < 2 ? Ptr<NetDevice>(m_ends[i]) : nullptr;
}

Time OffloadChannel::GetDelay() const { return m_delay; }

void OffloadChannel::Transmit(Ptr<OffloadNetDevice> from, Ptr<FrameTrain> train, bool perFrame) {
  Ptr<OffloadNetDevice> to = from == m_ends[0] ? m_ends[1] : m_ends[0];
  if (!to || train->frames.empty()) {
    return;
  }
  const uint32_t ctx = to->GetNode()->GetId();
  const Time now = Simulator::Now();
  // Train mode: one event per receive burst, so the host sees frames no
  // earlier than they arrive and no later than a poll would take them.
  if (to->TakesWholeTrains()) {
    // The receiver polls by arrival time itself (a kernel host's NAPI): the
    // train is handed over when its first frame arrives; in per-frame mode
    // each frame still comes as its own event.
    if (!perFrame) {
      Simulator::ScheduleWithContext(ctx, train->arrivals.front() - now,
                                     &OffloadNetDevice::ReceiveTrain, to, train);
      return;
    }
  }
  const std::size_t burst = perFrame ? 1 : std::max<uint32_t>(1, to->GetRxBurst());
  const std::size_t n = train->frames.size();
  if (n <= burst) {
    Simulator::ScheduleWithContext(ctx, train->arrivals.back() - now,
                                   &OffloadNetDevice::ReceiveTrain, to, train);
    return;
  }
  const bool tails = !train->tails.empty();
  for (std::size_t i = 0; i < n; i += burst) {
    const std::size_t end = std::min(n, i + burst);
    Ptr<FrameTrain> part = Create<FrameTrain>();
    part->frames.reserve(end - i);
    for (std::size_t j = i; j < end; j++) {
      part->frames.push_back(std::move(train->frames[j]));
      part->arrivals.push_back(train->arrivals[j]);
      if (tails) {
        part->tails.push_back(std::move(train->tails[j]));
      }
    }
    Simulator::ScheduleWithContext(ctx, part->arrivals.back() - now,
                                   &OffloadNetDevice::ReceiveTrain, to, part);
  }
}

void OffloadChannel::DoDispose() {
  m_ends[0] = nullptr;
  m_ends[1] = nullptr;
  Channel::DoDispose();
}

}  // namespace ns3
