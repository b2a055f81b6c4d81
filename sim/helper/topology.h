// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * What every offload topology shares: the scenario's description of two
 * hosts (an OVS-DPDK datapath or a Linux kernel host), the CPU cost model,
 * the statistics a run reports, and the interface the scenario runner
 * drives (install, open the measurement window, read the results).
 */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ns3/cpu-model.h"
#include "ns3/nstime.h"
#include "ns3/offload-net-device.h"
#include "ns3/ptr.h"

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
  double perPoll = 0;      //!< kernel: one NAPI poll
  double perGroMerge = 0;  //!< kernel: a frame GRO merges into a held skb
};

struct CostModel {
  CoreCosts pmd;     //!< an OVS PMD thread
  CoreCosts guest;   //!< a guest vCPU running the TCP endpoint
  CoreCosts kernel;  //!< a host core running kernel networking (softirq, vhost-net)
};

/** A kernel host's settings (TunnelScenario::hostKind == "kernel"). */
struct KernelHostOptions {
  std::string version = "6.18";  //!< offlab::kernel::ParseKernelVersion ("rhel7", "4.19", ...)
  std::string datapath = "ovs";  //!< ovs (openvswitch.ko), bridge, routed
  std::string attach = "tap";    //!< tap (VMs over vhost-net), socket (the host's own TCP)
  uint32_t rxQueues = 1;         //!< RSS queues, each with its softirq core
  bool rssUdpPorts = true;       //!< RSS hashes UDP ports (ixgbe: off by default)
  uint32_t ringSize = 0;         //!< 0: LinuxHost's default
  double irqDelayUs = -1;        //!< <0: LinuxHost's default
  bool remcsumTx = false;        //!< vxlan remcsumtx
  bool remcsumRx = false;        //!< vxlan remcsumrx
  std::vector<std::string> ethtoolOff;  //!< NIC features turned off (ethtool -K NAME off)
  bool eswitchOffload = false;          //!< TC flower: flows run in the NIC's eSwitch
};

/** A packet generator (pktgen, TRex, testpmd txonly) on the tester. */
struct GeneratorOptions {
  bool enabled = false;
  std::vector<uint32_t> frameSizes;  //!< bytes without FCS, taken in turn
  bool imix = false;                 //!< the simple IMIX instead of frameSizes
  double rateGbps = 0;               //!< L1 rate; 0 with ratePps 0: line rate
  double ratePps = 0;
  uint32_t flows = 1;  //!< distinct UDP source ports
  uint32_t burst = 0;  //!< frames per train; 0: the generator's default
};

struct TunnelScenario {
  /** vm-pairs: VMs on host 0 send to VMs on host 1. loopback: host 0 is a
   * tester (a generator, or TCP sockets) whose traffic host 1, the device
   * under test, forwards back to it. */
  std::string topology = "vm-pairs";
  std::vector<std::string> testerEthtoolOff;  //!< loopback: the tester NIC's ethtool -K
  uint32_t testerRxQueues = 4;                //!< loopback: the tester's RSS queues
  GeneratorOptions generator;
  std::string nic = "connectx6dx";
  std::string hostKind = "ovs-dpdk";  //!< ovs-dpdk or kernel
  KernelHostOptions kernel;
  std::string tunnel = "vxlan";  //!< vxlan, geneve, gre or none
  bool ipv6Underlay = false;
  bool outerCsum = false;     //!< options:csum on the tunnel port / vxlan udpcsum
  bool udpTunnelCsum = true;  //!< OVS payload-independent outer UDP checksum
  bool partialGso = true;     //!< OVS partial segmentation
  bool hwOffload = false;     //!< OVS hw-offload: datapath flows run in the NIC's eSwitch
  bool userspaceTso = true;   //!< other_config:userspace-tso-enable
  bool guestTso = true;
  bool guestCsum = true;
  bool gro = false;         //!< receive-side coalescing on the hosts' NICs
  uint32_t vms = 1;         //!< VM pairs
  uint32_t streams = 1;     //!< TCP flows per VM pair
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
  std::string kind = "ovs-dpdk";
  std::vector<double> pmdUtilisation;
  std::vector<double> guestUtilisation;
  std::vector<CoreLoad> pmds;
  std::vector<CoreLoad> guests;
  std::vector<CoreLoad> softirqs;  //!< kernel host: one per RX queue
  std::vector<CoreLoad> vhosts;    //!< kernel host: each VM's vhost-net worker
  /** Kernel host: what the kernel did, per second or in total (names in docs). */
  std::map<std::string, double> kernel;
  /** OVS-style coverage counters: totals since the window opened. */
  std::map<std::string, uint64_t> counters;
  uint64_t txFrames = 0, rxFrames = 0, trains = 0, txDrops = 0, pmdDrops = 0;
  uint64_t groIn = 0, groOut = 0, groNotValidated = 0;
};

class OffloadChannel;

/** The wire between the two hosts, with the scenario's delay. */
Ptr<OffloadChannel> MakeWire(const TunnelScenario& s);
/** A host node with the scenario's NIC (profile, link speed, train mode) on `wire`. */
Ptr<OffloadNetDevice> MakeWiredNic(const TunnelScenario& s, Ptr<OffloadChannel> wire);

/** The load a core carried since its window opened (`span` seconds). */
CoreLoad LoadOf(Ptr<CpuModel> cpu, double span);
Ptr<CpuModel> MakeCpu(const CoreCosts& c);

/** Two hosts on one wire, as the scenario runner drives them. */
class Topology {
 public:
  virtual ~Topology() = default;
  /** Creates nodes, devices, switches, flows and applications. */
  virtual void Install(Time start, Time stop) = 0;
  /** Starts the measurement window (CPU and goodput counters). */
  virtual void ResetStats() = 0;
  /** Goodput in bit/s of all flows since ResetStats(). */
  virtual double GetGoodput() const = 0;
  virtual HostStats GetHostStats(uint32_t host) const = 0;
  virtual Ptr<OffloadNetDevice> GetNic(uint32_t host) const = 0;
  virtual std::vector<std::string> GetEvents() const = 0;
};

/** The topology for `s` (throws offlab::Error for a bad scenario). */
std::unique_ptr<Topology> MakeTopology(const TunnelScenario& s);

}  // namespace ns3
