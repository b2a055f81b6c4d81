// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * An Open vSwitch userspace datapath on one host: the offlab core's
 * Pipeline (flow table, tunnel ports, send-prepare, TSO policy, the NIC's
 * hardware steps) does every semantic step on the real bytes; this class
 * connects it to simulated NICs and guests and charges PMD threads the
 * cycles for what the core measured it did in software.
 */
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cpu-model.h"
#include "ns3/object.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/tunnel.h"
#include "offload-net-device.h"
#include "virtio-net-device.h"

namespace ns3 {

class OvsSwitch : public Object {
 public:
  static TypeId GetTypeId();
  OvsSwitch();

  /** PMD threads; an rx port is served by PMD (port index mod count). */
  void AddPmd(Ptr<CpuModel> pmd);
  void AddPhyPort(const std::string& name, Ptr<OffloadNetDevice> nic);
  void AddVhostPort(const std::string& name, Ptr<VirtioNetDevice> guest);
  /** Throws offlab::Error for a bad tunnel configuration or unknown underlay. */
  void AddTunnelPort(const std::string& name, const offlab::TunnelConfig& tunnel,
                     const std::string& underlay);
  /** ovs-ofctl syntax; throws offlab::Error naming what is wrong. */
  void AddFlow(const std::string& flow);

  const offlab::Counters& GetCounters() const;
  uint32_t GetNPmds() const;
  Ptr<CpuModel> GetPmd(uint32_t i) const;
  /** Packets dropped because a PMD thread was saturated. */
  uint64_t GetPmdDrops() const;
  /** One line per datapath drop or NIC violation (capped). */
  const std::vector<std::string>& GetEvents() const;

 protected:
  void DoDispose() override;
  void DoInitialize() override;

 private:
  struct PortBinding {
    Ptr<OffloadNetDevice> nic;
    Ptr<VirtioNetDevice> guest;
    uint32_t index = 0;
  };

  offlab::Pipeline& Datapath();
  void FromNic(const std::string& port, offlab::PacketBatch packets, uint32_t frames);
  void FromGuest(const std::string& port, offlab::Packet frame, offlab::RxMeta meta);
  void Run(const std::string& port, std::vector<offlab::Packet> packets, CpuWork work);
  using TxRecords = std::map<uint32_t, std::shared_ptr<TxRecord>>;
  void Emit(std::vector<offlab::Sent> sent, TxRecords txs);
  void TapTx(const std::string& port, const offlab::Packet& p, uint32_t tx);
  bool Offloaded(const std::string& port, const std::vector<offlab::Sent>& sent);
  /** The binding of a port by name (null if none); remembers the last one. */
  const PortBinding* Binding(const std::string& name);

  bool m_userspaceTso;
  bool m_udpTunnelCsum;
  bool m_partialGso;
  bool m_hwOffload;
  bool m_sharedPayloads;
  // Datapath flows (in_port and output ports) already offloaded to the NIC.
  std::set<std::string> m_offloadedFlows;
  std::unique_ptr<offlab::Pipeline> m_datapath;
  std::vector<Ptr<CpuModel>> m_pmds;
  std::map<std::string, PortBinding> m_ports;
  std::string m_lastName;
  const PortBinding* m_lastBinding = nullptr;
  uint64_t m_pmdDrops = 0;
  std::vector<std::string> m_events;
  // Filled by TapTx during one ReceivePacket: the netdev_send calls made and
  // the tx records kept for ports whose NIC writes a pcap.
  uint32_t m_txCalls = 0;
  std::vector<std::pair<uint32_t, std::shared_ptr<TxRecord>>> m_tapped;
};

}  // namespace ns3
