// SPDX-License-Identifier: Apache-2.0
#include "offload-net-device.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "offlab/net/error.h"
#include "offlab/net/work.h"
#include "offload-channel.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("OffloadNetDevice");
NS_OBJECT_ENSURE_REGISTERED(OffloadNetDevice);

namespace {
// Preamble + start delimiter (8), FCS (4) and inter-frame gap (12) occupy the
// line besides the frame; frames shorter than 60 bytes are padded.
constexpr std::size_t kWireOverhead = 24;
constexpr std::size_t kMinFrame = 60;
// Frames ahead whose headers a receive loop prefetches.
constexpr std::size_t kPrefetch = 4;
}  // namespace

TypeId OffloadNetDevice::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::OffloadNetDevice")
          .SetParent<OffloadDeviceBase>()
          .SetGroupName("Offload")
          .AddConstructor<OffloadNetDevice>()
          .AddAttribute("Profile",
                        "Built-in offlab NIC profile name (e.g. connectx6dx, x710, e810).",
                        StringValue("connectx6dx"),
                        MakeStringAccessor(&OffloadNetDevice::SetProfile), MakeStringChecker())
          .AddAttribute("DataRate", "Line rate; 0 takes the profile's link speed.",
                        DataRateValue(DataRate(0)), MakeDataRateAccessor(&OffloadNetDevice::m_rate),
                        MakeDataRateChecker())
          .AddAttribute("TrainMode",
                        "Carry the frames of one packet as one event (false: one per frame).",
                        BooleanValue(true), MakeBooleanAccessor(&OffloadNetDevice::m_trainMode),
                        MakeBooleanChecker())
          .AddAttribute("Gro", "Coalesce received TCP segments (kernel GRO or hardware LRO).",
                        BooleanValue(false), MakeBooleanAccessor(&OffloadNetDevice::m_gro),
                        MakeBooleanChecker())
          .AddAttribute("GroMaxBytes", "Largest coalesced packet.", UintegerValue(65535),
                        MakeUintegerAccessor(&OffloadNetDevice::m_groMaxBytes),
                        MakeUintegerChecker<uint32_t>(1500))
          .AddAttribute("TxQueueLimit",
                        "Frames the transmit ring holds; a packet that does not fit is dropped.",
                        UintegerValue(8192),
                        MakeUintegerAccessor(&OffloadNetDevice::m_txQueueLimit),
                        MakeUintegerChecker<uint32_t>(1))
          .AddAttribute(
              "PcapMaxRecords", "Records a pcap holds at most; later packets are left out whole.",
              UintegerValue(50000), MakeUintegerAccessor(&OffloadNetDevice::m_pcapMaxRecords),
              MakeUintegerChecker<uint64_t>(1))
          .AddAttribute("RxBurst",
                        "Most frames one poll of the receive ring takes (OVS NETDEV_MAX_BURST); "
                        "a train reaches the host in bursts of this size, each when its last "
                        "frame has arrived.",
                        UintegerValue(32), MakeUintegerAccessor(&OffloadNetDevice::m_rxBurst),
                        MakeUintegerChecker<uint32_t>(1))
          .AddTraceSource("Train", "Frames in each train put on the wire.",
                          MakeTraceSourceAccessor(&OffloadNetDevice::m_trainTrace),
                          "ns3::TracedValueCallback::Uint32");
  return tid;
}

OffloadNetDevice::OffloadNetDevice() { m_address = Mac48Address::Allocate(); }

void OffloadNetDevice::SetProfile(const std::string& name) {
  m_profile = offlab::BuiltinProfile(name);
  m_profileName = name;
}

const offlab::NicProfile& OffloadNetDevice::GetProfile() const { return m_profile; }

void OffloadNetDevice::Attach(Ptr<OffloadChannel> channel) {
  m_channel = channel;
  channel->Attach(this);
}

void OffloadNetDevice::SetPacketHandler(PacketHandler handler) { m_handler = std::move(handler); }

void OffloadNetDevice::SetTrainHandler(TrainHandler handler) {
  m_trainHandler = std::move(handler);
}

bool OffloadNetDevice::TakesWholeTrains() const { return static_cast<bool>(m_trainHandler); }

void OffloadNetDevice::EnablePcap(const std::string& path) {
  m_pcap = std::make_unique<PcapNgWriter>();
  m_pcap->Open(path);
}

void OffloadNetDevice::ClosePcap() {
  if (m_pcap) {
    m_pcap->Close();
    m_pcap.reset();
  }
}

DataRate OffloadNetDevice::GetDataRate() const {
  if (m_rate.GetBitRate()) {
    return m_rate;
  }
  return DataRate(static_cast<uint64_t>(m_profile.link_gbps * 1e9));
}

Time OffloadNetDevice::FrameTime(std::size_t bytes) const {
  // A train's frames are mostly one size, and the rate divides in 128-bit
  // arithmetic: remember the last answer.
  const DataRate rate = GetDataRate();
  if (bytes != m_frameTimeBytes || rate != m_frameTimeRate) {
    m_frameTimeBytes = bytes;
    m_frameTimeRate = rate;
    m_frameTime = rate.CalculateBytesTxTime(std::max(bytes, kMinFrame) + kWireOverhead);
  }
  return m_frameTime;
}

bool OffloadNetDevice::IsRecording() const { return m_pcap != nullptr; }

bool OffloadNetDevice::SendFrames(std::vector<offlab::Sent> frames, std::shared_ptr<TxRecord> tx) {
  if (frames.empty()) {
    return true;
  }
  if (m_txQueuedFrames + frames.size() > m_txQueueLimit) {
    m_txDrops++;
    return false;
  }
  m_txQueuedFrames += frames.size();
  m_txQueue.push_back({std::move(frames), std::move(tx)});
  if (!m_busy) {
    StartTransmit();
  }
  return true;
}

void OffloadNetDevice::StartTransmit() {
  if (m_txQueue.empty()) {
    m_busy = false;
    return;
  }
  m_busy = true;
  // A train is everything waiting on the ring (a TSO burst, a GSO batch);
  // in per-frame mode the channel still delivers its frames one by one.
  std::vector<Queued> groups;
  groups.push_back(std::move(m_txQueue.front()));
  m_txQueue.pop_front();
  while (m_trainMode && !m_txQueue.empty()) {
    groups.push_back(std::move(m_txQueue.front()));
    m_txQueue.pop_front();
  }

  Ptr<FrameTrain> train = Create<FrameTrain>();
  std::size_t count = 0;
  for (const Queued& g : groups) {
    count += g.frames.size();
  }
  train->frames.reserve(count);
  train->arrivals.reserve(count);
  train->tails.reserve(count);
  bool shared = false;
  Time t = Simulator::Now();
  const Time delay = m_channel ? m_channel->GetDelay() : Time(0);
  for (Queued& g : groups) {
    m_txQueuedFrames -= g.frames.size();
    // Past the record limit, packets not yet in the trace stay out of it
    // whole: a tx record is never cut off from its wire frames.
    const bool started = g.tx && g.tx->index >= 0;
    const bool record = m_pcap && (started || m_pcap->GetRecords() < m_pcapMaxRecords);
    if (record && g.tx && !started) {
      g.tx->index =
          static_cast<int64_t>(m_pcap->Write(t.GetNanoSeconds(), g.tx->frame, g.tx->comment));
    }
    for (offlab::Sent& s : g.frames) {
      if (record) {
        // The pcap gets the frame's real bytes; the train keeps its payload shared.
        offlab::Sent whole = s;
        whole.frame = s.Joined();
        whole.tail.Clear();
        m_pcap->Write(t.GetNanoSeconds(), whole.frame,
                      WireComment(whole, g.tx ? g.tx->index : -1, m_profileName));
      }
      t += FrameTime(s.size());
      train->arrivals.push_back(t + delay);
      train->frames.push_back(std::move(s.frame));
      shared |= !s.tail.empty();
      train->tails.push_back(std::move(s.tail));
    }
  }
  if (!shared) {
    train->tails.clear();
  }
  m_txFrames += train->frames.size();
  m_trains++;
  m_trainTrace(static_cast<uint32_t>(train->frames.size()));
  if (m_channel) {
    m_channel->Transmit(this, train, !m_trainMode);
  }
  Simulator::Schedule(t - Simulator::Now(), &OffloadNetDevice::TransmitComplete, this);
}

void OffloadNetDevice::TransmitComplete() { StartTransmit(); }

void OffloadNetDevice::ReceiveTrain(Ptr<FrameTrain> train) {
  if (m_trainHandler) {
    // Its host reads the frames' bytes directly.
    train->Join();
    m_rxFrames += train->frames.size();
    m_trainHandler(train);
    return;
  }
  std::vector<std::pair<offlab::Packet, offlab::RxStatus>> frames;
  frames.reserve(train->frames.size());
  {
    offlab::HardwareScope hw;
    // The train is this device's now: its frames become the received packets,
    // a shared payload staying shared.
    for (std::size_t i = 0; i < train->frames.size(); i++) {
      // Frames were written when their train was queued, often thousands of
      // frames ago: fetch the headers of the ones after this one meanwhile.
      if (i + kPrefetch < train->frames.size()) {
        __builtin_prefetch(train->frames[i + kPrefetch].data());
        __builtin_prefetch(train->frames[i + kPrefetch].data() + 64);
      }
      offlab::Packet f = offlab::Packet::Adopt(std::move(train->frames[i]));
      if (i < train->tails.size()) {
        f.AppendTail(train->tails[i]);
      }
      offlab::RxStatus st;
      offlab::Packet p = offlab::NicReceive(std::move(f), m_profile, &st);
      frames.emplace_back(std::move(p), st);
    }
  }
  m_rxFrames += frames.size();
  if (!m_gro) {
    Deliver(std::move(frames));
    return;
  }
  for (auto& f : frames) {
    m_groPending.push_back(std::move(f));
  }
  if (m_trainMode) {
    FlushGro();
    return;
  }
  // A NAPI poll takes at most 64 frames and runs shortly after the first.
  if (m_groPending.size() >= 64) {
    m_groFlush.Cancel();
    FlushGro();
  } else if (!m_groFlush.IsRunning()) {
    m_groFlush = Simulator::Schedule(MicroSeconds(3), &OffloadNetDevice::FlushGro, this);
  }
}

void OffloadNetDevice::FlushGro() {
  if (m_groPending.empty()) {
    return;
  }
  std::vector<std::pair<offlab::Packet, offlab::RxStatus>> pending;
  pending.swap(m_groPending);
  const uint32_t n = static_cast<uint32_t>(pending.size());
  offlab::PacketBatch merged = offlab::Coalesce(std::move(pending), m_groMaxBytes, &m_groStats);
  if (m_handler) {
    m_handler(std::move(merged), n);
  }
}

void OffloadNetDevice::Deliver(std::vector<std::pair<offlab::Packet, offlab::RxStatus>> frames) {
  const uint32_t n = static_cast<uint32_t>(frames.size());
  offlab::PacketBatch batch;
  batch.reserve(frames.size());
  for (auto& f : frames) {
    batch.push_back(std::move(f.first));
  }
  if (m_handler) {
    m_handler(std::move(batch), n);
  }
}

uint32_t OffloadNetDevice::GetRxBurst() const { return m_rxBurst; }

uint64_t OffloadNetDevice::GetTxFrames() const { return m_txFrames; }

uint64_t OffloadNetDevice::GetRxFrames() const { return m_rxFrames; }

uint64_t OffloadNetDevice::GetTrains() const { return m_trains; }

uint64_t OffloadNetDevice::GetTxDrops() const { return m_txDrops; }

offlab::CoalesceStats OffloadNetDevice::GetGroStats() const { return m_groStats; }

Ptr<Channel> OffloadNetDevice::GetChannel() const { return m_channel; }

bool OffloadNetDevice::Send(Ptr<Packet>, const Address&, uint16_t) {
  // The device is driven by its switch (SendFrames), not by an IP stack.
  return false;
}

void OffloadNetDevice::DoDispose() {
  m_channel = nullptr;
  m_handler = nullptr;
  m_trainHandler = nullptr;
  m_groFlush.Cancel();
  OffloadDeviceBase::DoDispose();
}

}  // namespace ns3
