// SPDX-License-Identifier: Apache-2.0
#include "ns3/topology.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/kernel-tunnel-helper.h"
#include "ns3/loopback-helper.h"
#include "ns3/offload-channel.h"
#include "ns3/vm-tunnel-helper.h"
#include "offlab/net/error.h"

namespace ns3 {

Ptr<CpuModel> MakeCpu(const CoreCosts& c) {
  Ptr<CpuModel> cpu = CreateObject<CpuModel>();
  cpu->SetAttribute("ClockHz", DoubleValue(c.clockHz));
  cpu->SetAttribute("CyclesPerPacket", DoubleValue(c.perPacket));
  cpu->SetAttribute("CyclesPerRxFrame", DoubleValue(c.perRxFrame));
  cpu->SetAttribute("CyclesPerTxFrame", DoubleValue(c.perTxFrame));
  cpu->SetAttribute("CyclesPerSegment", DoubleValue(c.perSegment));
  cpu->SetAttribute("CyclesPerCsumByte", DoubleValue(c.perCsumByte));
  cpu->SetAttribute("CyclesPerCopyByte", DoubleValue(c.perCopyByte));
  cpu->SetAttribute("CyclesPerPoll", DoubleValue(c.perPoll));
  cpu->SetAttribute("CyclesPerGroMerge", DoubleValue(c.perGroMerge));
  return cpu;
}

Ptr<OffloadChannel> MakeWire(const TunnelScenario& s) {
  Ptr<OffloadChannel> wire = CreateObject<OffloadChannel>();
  wire->SetAttribute("Delay", TimeValue(MicroSeconds(s.delayUs)));
  return wire;
}

Ptr<OffloadNetDevice> MakeWiredNic(const TunnelScenario& s, Ptr<OffloadChannel> wire) {
  Ptr<Node> node = CreateObject<Node>();
  Ptr<OffloadNetDevice> nic = CreateObject<OffloadNetDevice>();
  nic->SetProfile(s.nic);
  if (s.linkGbps > 0) {
    nic->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(s.linkGbps * 1e9))));
  }
  nic->SetAttribute("TrainMode", BooleanValue(s.trainMode));
  node->AddDevice(nic);
  nic->Attach(wire);
  return nic;
}

CoreLoad LoadOf(Ptr<CpuModel> cpu, double span) {
  CoreLoad l;
  l.utilisation = cpu->GetUtilisation();
  l.drops = cpu->GetDrops();
  if (span > 0) {
    const CpuWork& w = cpu->GetWork();
    l.workPerS.packets = w.packets / span;
    l.workPerS.rxFrames = w.rxFrames / span;
    l.workPerS.txFrames = w.txFrames / span;
    l.workPerS.swSegments = w.swSegments / span;
    l.workPerS.csumBytes = w.csumBytes / span;
    l.workPerS.copyBytes = w.copyBytes / span;
    l.workPerS.polls = w.polls / span;
    l.workPerS.groMerges = w.groMerges / span;
    l.cyclesPerS = cpu->Cycles(l.workPerS);
  }
  return l;
}

std::unique_ptr<Topology> MakeTopology(const TunnelScenario& s) {
  if (s.topology == "loopback") {
    return std::make_unique<LoopbackHelper>(s);
  }
  if (s.topology != "vm-pairs") {
    throw offlab::Error("unknown topology '" + s.topology + "' (known: vm-pairs, loopback)");
  }
  if (s.generator.enabled) {
    throw offlab::Error("a generator needs topology loopback");
  }
  if (s.hostKind == "ovs-dpdk") {
    return std::make_unique<VmTunnelHelper>(s);
  }
  if (s.hostKind == "kernel") {
    return std::make_unique<KernelTunnelHelper>(s);
  }
  throw offlab::Error("unknown host kind '" + s.hostKind + "' (known: ovs-dpdk, kernel)");
}

}  // namespace ns3
