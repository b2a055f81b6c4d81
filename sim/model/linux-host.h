// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A Linux host whose networking runs in the kernel: the offlab core's kernel
 * model (offlab/linux/host.h: driver receive, GRO, VXLAN, the bridge or
 * openvswitch.ko, validate_xmit_skb, software GSO, the TAP's virtio-net
 * header) does every semantic step on the real bytes; this class adds time.
 * Received frames are spread over RX queues by an RSS hash, each queue's
 * softirq core runs NAPI polls (at most a budget of frames, after interrupt
 * moderation or at once when the last poll used its whole budget), and a
 * guest's vhost-net worker core carries its TAP's transmit path and copies
 * received packets into the guest. Cores are charged the work the kernel
 * model counted (per poll, frame, GRO merge, skb, segment, checksummed and
 * copied byte) at the kernel cost model's prices.
 */
#pragma once

#include <array>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cpu-model.h"
#include "frame-train.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "offlab/linux/host.h"
#include "offload-net-device.h"
#include "virtio-net-device.h"

namespace ns3 {

class LinuxHost : public Object {
 public:
  static TypeId GetTypeId();
  LinuxHost();

  /** The kernel host's configuration (offlab::kernel::MakeKernelHost and the scenario's changes).
   */
  void SetConfig(const offlab::kernel::KernelHost& host);
  const offlab::kernel::KernelHost& GetConfig() const;
  /** The prices of kernel work, for cores that also run other code (a socket's application). */
  void SetKernelCosts(Ptr<CpuModel> costs);

  void SetNic(Ptr<OffloadNetDevice> nic);
  /** One RX queue and the core its interrupt and softirq run on. */
  void AddRxQueue(Ptr<CpuModel> softirq);
  /** A VM behind a TAP; `vhost` is its vhost-net worker's core. */
  void AddTapGuest(Ptr<VirtioNetDevice> guest, Ptr<CpuModel> vhost);
  /** A socket application on this host (its core is the device's CPU). */
  void AddSocketApp(Ptr<VirtioNetDevice> app);

  uint32_t GetNRxQueues() const;
  Ptr<CpuModel> GetSoftirqCpu(uint32_t i) const;
  uint32_t GetNGuests() const;
  /** The vhost core of guest i (null for a socket application). */
  Ptr<CpuModel> GetVhostCpu(uint32_t i) const;

  /** What the kernel did since the last ResetStats(). */
  struct Stats {
    uint64_t polls = 0, rxFrames = 0, groMerged = 0;
    uint64_t skbsUp = 0;     //!< stack passes: the NIC GRO's skbs and the tunnel GRO's
    uint64_t skbsFinal = 0;  //!< skbs that reach the switch (after both GRO passes)
    uint64_t ringDrops = 0, cpuDrops = 0, hwSwitched = 0;
    uint64_t swCsumBytes = 0, copyBytes = 0, swSegments = 0;
    std::map<std::string, uint64_t> notValidated;  //!< frames GRO could not validate, by rule
    std::map<std::string, uint64_t> drops;         //!< "<stage>: <reason>"
  };
  const Stats& GetStats() const;
  /** Every counter the kernel model counted (driver, snmp, vxlan, gso, ...). */
  const offlab::Counters& GetCounters() const;
  void ResetStats();
  const std::vector<std::string>& GetEvents() const;

 protected:
  void DoDispose() override;

 private:
  struct Pending {
    offlab::Bytes frame;
    Time arrival;
  };
  struct RxQueue {
    Ptr<CpuModel> cpu;
    std::deque<Pending> ring;
    EventId poll;
  };
  struct Endpoint {
    Ptr<VirtioNetDevice> dev;
    Ptr<CpuModel> vhost;  // null: a socket application
    std::array<uint8_t, 6> mac{};
    std::array<uint8_t, 4> ip{};
  };

  void FromWire(Ptr<FrameTrain> train);
  uint32_t RssQueue(const offlab::Bytes& frame) const;
  /** A hash of the frame's addresses and (for TCP, and UDP if `udpPorts`) ports. */
  static uint32_t FlowHashOf(const uint8_t* frame, std::size_t len, bool udpPorts);
  static uint32_t FlowHash(const offlab::Bytes& frame);
  /** The same from a packet's headers alone (its payload is not read). */
  static uint32_t FlowHash(const offlab::Packet& p);
  void SchedulePoll(uint32_t q, bool repoll);
  void Poll(uint32_t q);
  void Deliver(offlab::kernel::RxOutcome out);
  void FromGuest(uint32_t index, offlab::Packet frame, offlab::RxMeta meta);
  void ToWire(std::vector<offlab::Bytes> frames);
  offlab::kernel::RxOutcome Receive(std::vector<offlab::Bytes> frames);
  /** Decapsulated skbs that went up the stack again in this poll. */
  uint64_t InnerSkbs(const offlab::kernel::RxOutcome& out) const;
  void Account(const offlab::kernel::RxOutcome& out, uint64_t frames);
  void Event(const std::string& e);
  Endpoint* FindByMac(const uint8_t* mac);

  offlab::kernel::KernelHost m_host;
  Ptr<CpuModel> m_kernelCosts;
  Ptr<OffloadNetDevice> m_nic;
  std::vector<RxQueue> m_queues;
  std::vector<Endpoint> m_endpoints;
  uint32_t m_budget;
  uint32_t m_ringSize;
  Time m_irqDelay;
  bool m_rssUdpPorts;
  std::set<uint32_t> m_swFlows;  // flows the eSwitch has a rule for
  Stats m_stats;
  offlab::Counters m_counters;
  std::vector<std::string> m_events;
};

}  // namespace ns3
