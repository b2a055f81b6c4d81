// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * Builds the standard offload topology: two hosts, each an OvsSwitch with
 * one physical NIC (OffloadNetDevice) and N VMs (VirtioNetDevice + ns-3
 * TCP/IP), the NICs joined by an OffloadChannel, VM i on host A sending a
 * bulk TCP flow to VM i on host B over a VXLAN/Geneve/GRE overlay (or none).
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ns3/application-container.h"
#include "ns3/cpu-model.h"
#include "ns3/node-container.h"
#include "ns3/offload-net-device.h"
#include "ns3/ovs-switch.h"
#include "ns3/virtio-net-device.h"

namespace ns3 {

/** Per-item cycle costs of one kind of core (see CpuModel). */
struct CoreCosts {
  double clockHz = 2.6e9;
  double perPacket = 0;
  double perRxFrame = 0;
  double perTxFrame = 0;
  double perSegment = 0;
  double perCsumByte = 0;
  double perCopyByte = 0;
};

struct CostModel {
  CoreCosts pmd;    //!< an OVS PMD thread
  CoreCosts guest;  //!< a guest vCPU running the TCP endpoint
};

struct TunnelScenario {
  std::string nic = "connectx6dx";
  std::string tunnel = "vxlan";  //!< vxlan, geneve, gre or none
  bool ipv6Underlay = false;
  bool outerCsum = false;     //!< options:csum on the tunnel port
  bool udpTunnelCsum = true;  //!< OVS payload-independent outer UDP checksum
  bool partialGso = true;     //!< OVS partial segmentation
  bool hwOffload = false;
  bool userspaceTso = true;  //!< other_config:userspace-tso-enable     //!< OVS hw-offload:
                             //!< datapath flows run in the NIC's eSwitch
  bool guestTso = true;
  bool guestCsum = true;
  bool gro = false;         //!< receive-side coalescing on the hosts' NICs
  uint32_t vms = 1;         //!< VM pairs, one TCP flow each
  uint32_t packetSize = 0;  //!< TCP payload per guest packet; 0: 64 KB TSO bulk
  uint32_t pmdThreads = 1;
  double linkGbps = 0;  //!< 0: the profile's link speed
  uint32_t mtu = 1500;  //!< underlay MTU; the guests' MTU leaves room for the encapsulation
  double delayUs = 5;
  bool trainMode = true;
  CostModel cost;
};

/** What one core did in the measurement window, per second of simulated time. */
struct CoreLoad {
  double utilisation = 0;  //!< busy fraction, [0, 1]
  CpuWork workPerS;        //!< items of work per second
  double cyclesPerS = 0;   //!< what that work costs, before saturation caps it
  uint64_t drops = 0;      //!< work refused because the core's backlog was full
};

struct HostStats {
  std::vector<double> pmdUtilisation;
  std::vector<double> guestUtilisation;
  std::vector<CoreLoad> pmds;
  std::vector<CoreLoad> guests;
  /** OVS-style coverage counters: totals since the window opened. */
  std::map<std::string, uint64_t> counters;
  uint64_t txFrames = 0, rxFrames = 0, trains = 0, txDrops = 0, pmdDrops = 0;
  uint64_t groIn = 0, groOut = 0, groNotValidated = 0;
};

class VmTunnelHelper {
 public:
  /** Throws offlab::Error for an unknown NIC, tunnel type or a bad value. */
  explicit VmTunnelHelper(const TunnelScenario& s);
  /** Creates nodes, devices, switches, flows and applications. */
  void Install(Time start, Time stop);
  /** Starts the measurement window (CPU and goodput counters). */
  void ResetStats();
  /** Goodput in bit/s of all flows since ResetStats(). */
  double GetGoodput() const;
  HostStats GetHostStats(uint32_t host) const;
  Ptr<OffloadNetDevice> GetNic(uint32_t host) const;
  Ptr<OvsSwitch> GetSwitch(uint32_t host) const;
  std::vector<std::string> GetEvents() const;

 private:
  Ptr<CpuModel> MakeCpu(const CoreCosts& c) const;

  TunnelScenario m_s;
  Ptr<OvsSwitch> m_switch[2];
  Ptr<OffloadNetDevice> m_nic[2];
  std::vector<Ptr<VirtioNetDevice>> m_guests[2];
  ApplicationContainer m_sinks;
  std::vector<uint64_t> m_sinkBase;
  std::map<std::string, uint64_t> m_counterBase[2];
  Time m_statsStart;
};

}  // namespace ns3
