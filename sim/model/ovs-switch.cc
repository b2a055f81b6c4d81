// SPDX-License-Identifier: Apache-2.0
#include "ovs-switch.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "offlab/net/error.h"
#include "offlab/net/work.h"
#include "packet-runs.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("OvsSwitch");
NS_OBJECT_ENSURE_REGISTERED(OvsSwitch);

namespace {
constexpr std::size_t kMaxEvents = 100;
}  // namespace

TypeId OvsSwitch::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::OvsSwitch")
          .SetParent<Object>()
          .SetGroupName("Offload")
          .AddConstructor<OvsSwitch>()
          .AddAttribute("UserspaceTso", "other_config:userspace-tso-enable.", BooleanValue(true),
                        MakeBooleanAccessor(&OvsSwitch::m_userspaceTso), MakeBooleanChecker())
          .AddAttribute("UdpTunnelCsum",
                        "The payload-independent outer UDP checksum (OVS 4.0); false: "
                        "inner and outer checksums in software over the bytes.",
                        BooleanValue(true), MakeBooleanAccessor(&OvsSwitch::m_udpTunnelCsum),
                        MakeBooleanChecker())
          .AddAttribute("PartialGso",
                        "Partial software segmentation so that hardware TSO can keep the "
                        "outer UDP checksum (OVS 4.0); false: full software GSO instead.",
                        BooleanValue(true), MakeBooleanAccessor(&OvsSwitch::m_partialGso),
                        MakeBooleanChecker())
          .AddAttribute("HwOffload",
                        "other_config:hw-offload with a NIC eSwitch (VF representors): after "
                        "its first packet, a datapath flow runs in the NIC and costs the PMD "
                        "nothing; counted as offlab_hw_offloaded.",
                        BooleanValue(false), MakeBooleanAccessor(&OvsSwitch::m_hwOffload),
                        MakeBooleanChecker())
          .AddAttribute("SharedPayloads",
                        "The frames cut from a guest's TSO packet share its payload instead of "
                        "each carrying a copy (the same bytes and verdicts; faster). False: "
                        "every frame is its own bytes throughout.",
                        BooleanValue(true), MakeBooleanAccessor(&OvsSwitch::m_sharedPayloads),
                        MakeBooleanChecker());
  return tid;
}

OvsSwitch::OvsSwitch() = default;

const OvsSwitch::PortBinding* OvsSwitch::Binding(const std::string& name) {
  // Packets mostly go to the port the previous one went to: compare with its
  // name before searching the map.
  if (m_lastBinding && name == m_lastName) {
    return m_lastBinding;
  }
  const auto it = m_ports.find(name);
  if (it == m_ports.end()) {
    return nullptr;
  }
  m_lastName = name;
  m_lastBinding = &it->second;
  return m_lastBinding;
}

offlab::Pipeline& OvsSwitch::Datapath() {
  if (!m_datapath) {
    offlab::PipelineConfig cfg;
    cfg.userspace_tso = m_userspaceTso;
    cfg.egress.udp_tunnel_csum = m_udpTunnelCsum;
    cfg.egress.partial_gso = m_partialGso;
    cfg.shared_payloads = m_sharedPayloads;
    m_datapath = std::make_unique<offlab::Pipeline>(cfg);
    m_datapath->SetTxTap([this](const std::string& port, const offlab::Packet& p, uint32_t tx) {
      TapTx(port, p, tx);
    });
  }
  return *m_datapath;
}

void OvsSwitch::DoInitialize() {
  Datapath();
  Object::DoInitialize();
}

void OvsSwitch::AddPmd(Ptr<CpuModel> pmd) { m_pmds.push_back(pmd); }

void OvsSwitch::AddPhyPort(const std::string& name, Ptr<OffloadNetDevice> nic) {
  offlab::PortConfig pc;
  pc.name = name;
  pc.profile = nic->GetProfile().name;
  pc.mtu = nic->GetMtu();
  Datapath().AddPort(pc);
  m_ports[name] = {nic, nullptr, static_cast<uint32_t>(m_ports.size())};
  nic->SetPacketHandler([this, name](offlab::PacketBatch packets, uint32_t frames) {
    FromNic(name, std::move(packets), frames);
  });
}

void OvsSwitch::AddVhostPort(const std::string& name, Ptr<VirtioNetDevice> guest) {
  offlab::PortConfig pc;
  pc.name = name;
  pc.profile = "virtio";
  pc.mtu = guest->GetMtu();
  Datapath().AddPort(pc);
  m_ports[name] = {nullptr, guest, static_cast<uint32_t>(m_ports.size())};
  guest->SetSharedPayload(m_sharedPayloads);
  guest->SetHostHandler([this, name](offlab::Packet frame, offlab::RxMeta meta) {
    FromGuest(name, std::move(frame), meta);
  });
}

void OvsSwitch::AddTunnelPort(const std::string& name, const offlab::TunnelConfig& tunnel,
                              const std::string& underlay) {
  offlab::PortConfig pc;
  pc.name = name;
  pc.tunnel = tunnel;
  pc.underlay = underlay;
  Datapath().AddPort(pc);
}

void OvsSwitch::AddFlow(const std::string& flow) { Datapath().AddFlow(flow); }

void OvsSwitch::TapTx(const std::string& port, const offlab::Packet& p, uint32_t tx) {
  m_txCalls = std::max(m_txCalls, tx + 1);
  const PortBinding* b = Binding(port);
  if (b && b->nic && b->nic->IsRecording()) {
    m_tapped.emplace_back(tx, std::make_shared<TxRecord>(TxRecord{p.bytes(), TxComment(p), -1}));
  }
}

void OvsSwitch::FromNic(const std::string& port, offlab::PacketBatch packets, uint32_t frames) {
  CpuWork w;
  w.rxFrames = frames;
  Run(port, std::move(packets), w);
}

void OvsSwitch::FromGuest(const std::string& port, offlab::Packet p, offlab::RxMeta meta) {
  // As netdev-dpdk's vhost receive: the frame arrives unparsed, with only
  // the virtio-net header's metadata.
  p.ResetOffsets();
  p.offloads.Reset();
  p.md = {};
  p.tso_segsz = 0;
  if (meta.ip) {
    p.offloads.set_ip(*meta.ip);
  }
  if (meta.l4) {
    p.offloads.set_l4(*meta.l4);
  }
  p.tso_segsz = meta.tso_segsz;
  CpuWork w;
  w.rxFrames = 1;
  // vhost dequeue copies the guest's buffer into an mbuf.
  w.copyBytes = static_cast<double>(p.size());
  std::vector<offlab::Packet> one;
  one.push_back(std::move(p));
  Run(port, std::move(one), w);
}

void OvsSwitch::Run(const std::string& port, std::vector<offlab::Packet> packets, CpuWork work) {
  offlab::Pipeline& dp = Datapath();
  offlab::work::Take();
  std::vector<offlab::Sent> out;
  TxRecords txs;
  uint32_t txBase = 0;
  std::vector<offlab::Sent> hardware;
  offlab::Work done;
  for (offlab::Packet& p : packets) {
    m_txCalls = 0;
    m_tapped.clear();
    const offlab::Counters before = m_hwOffload ? dp.counters() : offlab::Counters();
    std::vector<offlab::Sent> sent = dp.ReceivePacket(port, std::move(p));
    const offlab::Work w = offlab::work::Take();
    if (m_hwOffload && !sent.empty() && Offloaded(port, sent)) {
      // The NIC runs the same actions on the same bytes: no software work,
      // no software counters, no PMD time.
      dp.counters() = before;
      dp.counters().Inc("offlab_hw_offloaded");
      const uint32_t base = hardware.empty() ? 0 : hardware.back().nic_packet + 1;
      for (offlab::Sent& s : sent) {
        s.nic_packet += base;
        hardware.push_back(std::move(s));
      }
      continue;
    }
    done.sw_segments += w.sw_segments;
    done.csum_bytes += w.csum_bytes;
    done.copy_bytes += w.copy_bytes;
    for (auto& [tx, record] : m_tapped) {
      txs[txBase + tx] = std::move(record);
    }
    for (const std::string& e : dp.events()) {
      if (m_events.size() < kMaxEvents) {
        m_events.push_back(e);
      }
    }
    // Packets handed to ports: the frames of one packet are consecutive (as
    // Emit groups them), so count where (port, nic_packet) changes.
    std::size_t handed = 0;
    for (std::size_t i = 0; i < sent.size(); i++) {
      const offlab::Sent& s = sent[i];
      handed += i == 0 || s.nic_packet != sent[i - 1].nic_packet || s.port != sent[i - 1].port;
      const PortBinding* b = Binding(s.port);
      if (b && b->guest) {
        work.copyBytes += static_cast<double>(s.size());  // vhost enqueue copy
      }
    }
    work.txFrames += static_cast<double>(handed);
    work.packets += 1;
    if (out.empty()) {
      // The first packet's frames need no renumbering: take them whole
      // (a TSO packet's are many), with room for one frame per later packet.
      for (offlab::Sent& s : sent) {
        s.tx += txBase;
      }
      out = std::move(sent);
      out.reserve(out.size() + packets.size());
    } else {
      const uint32_t base = out.back().nic_packet + 1;
      for (offlab::Sent& s : sent) {
        s.nic_packet += base;
        s.tx += txBase;
        out.push_back(std::move(s));
      }
    }
    txBase += m_txCalls;
  }
  work.swSegments += static_cast<double>(done.sw_segments);
  work.csumBytes += static_cast<double>(done.csum_bytes);
  work.copyBytes += static_cast<double>(done.copy_bytes);

  if (!hardware.empty()) {
    Emit(std::move(hardware), TxRecords());
  }
  if (out.empty() && work.packets == 0) {
    return;
  }
  if (m_pmds.empty()) {
    Emit(std::move(out), std::move(txs));
    return;
  }
  const auto it = m_ports.find(port);
  const uint32_t index = it == m_ports.end() ? 0 : it->second.index;
  Ptr<CpuModel> pmd = m_pmds[index % m_pmds.size()];
  Time finish;
  if (!pmd->Submit(work, &finish)) {
    m_pmdDrops += packets.size();
    return;
  }
  // Shared, not copied: ns-3 passes a member event's arguments by value.
  auto pending = std::make_shared<std::pair<std::vector<offlab::Sent>, TxRecords>>(std::move(out),
                                                                                   std::move(txs));
  Simulator::Schedule(finish - Simulator::Now(), [this, pending]() {
    Emit(std::move(pending->first), std::move(pending->second));
  });
}

bool OvsSwitch::Offloaded(const std::string& port, const std::vector<offlab::Sent>& sent) {
  // A datapath flow here is an input port and its output ports (the
  // megaflow's match and actions in these topologies); only its first packet
  // takes the software path: the upcall and the flow install.
  std::set<std::string> outs;
  for (const offlab::Sent& s : sent) {
    outs.insert(s.port);
  }
  std::string flow = port;
  for (const std::string& o : outs) {
    flow += ">" + o;
  }
  return !m_offloadedFlows.insert(flow).second;
}

void OvsSwitch::Emit(std::vector<offlab::Sent> sent, TxRecords txs) {
  // A run's frames all go to one port: look it up once per port change.
  std::string name;
  PortBinding* port = nullptr;
  for (const auto& [first, last] : PacketRuns(sent)) {
    if (port == nullptr || sent[first].port != name) {
      name = sent[first].port;
      auto it = m_ports.find(name);
      port = it == m_ports.end() ? nullptr : &it->second;
    }
    if (port == nullptr) {
      continue;
    }
    if (port->nic) {
      std::vector<offlab::Sent> packet(std::make_move_iterator(sent.begin() + first),
                                       std::make_move_iterator(sent.begin() + last));
      const auto tx = txs.find(packet.front().tx);
      port->nic->SendFrames(std::move(packet), tx == txs.end() ? nullptr : tx->second);
    } else if (port->guest) {
      for (std::size_t k = first; k < last; k++) {
        port->guest->DeliverFromHost(std::move(sent[k]));
      }
    }
  }
}

const offlab::Counters& OvsSwitch::GetCounters() const {
  static const offlab::Counters kEmpty;
  return m_datapath ? m_datapath->counters() : kEmpty;
}

uint32_t OvsSwitch::GetNPmds() const { return static_cast<uint32_t>(m_pmds.size()); }

Ptr<CpuModel> OvsSwitch::GetPmd(uint32_t i) const { return m_pmds.at(i); }

uint64_t OvsSwitch::GetPmdDrops() const { return m_pmdDrops; }

const std::vector<std::string>& OvsSwitch::GetEvents() const { return m_events; }

void OvsSwitch::DoDispose() {
  m_pmds.clear();
  m_ports.clear();
  m_lastBinding = nullptr;
  Object::DoDispose();
}

}  // namespace ns3
