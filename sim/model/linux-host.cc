// SPDX-License-Identifier: Apache-2.0
// LinuxHost: configuration, ports and the transmit side (a guest's TAP
// write or a socket's send through the kernel model's HostTransmit).
#include "linux-host.h"

#include <cstring>

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "offlab/net/headers.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("LinuxHost");
NS_OBJECT_ENSURE_REGISTERED(LinuxHost);

namespace {
constexpr std::size_t kMaxEvents = 100;
}  // namespace

TypeId LinuxHost::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::LinuxHost")
          .SetParent<Object>()
          .SetGroupName("Offload")
          .AddConstructor<LinuxHost>()
          // NAPI_POLL_WEIGHT, the budget a driver's poll gets per round
          // (torvalds/linux v6.18 include/linux/netdevice.h).
          .AddAttribute("NapiBudget", "Most frames one NAPI poll takes.", UintegerValue(64),
                        MakeUintegerAccessor(&LinuxHost::m_budget),
                        MakeUintegerChecker<uint32_t>(1, 4096))
          // ixgbe's default ring (IXGBE_DEFAULT_RXD, drivers/net/ethernet/
          // intel/ixgbe/ixgbe.h); mlx5 and ice default to 1024 and 2048.
          .AddAttribute("RxRingSize", "Receive descriptors per queue.", UintegerValue(512),
                        MakeUintegerAccessor(&LinuxHost::m_ringSize),
                        MakeUintegerChecker<uint32_t>(1))
          .AddAttribute("IrqDelay",
                        "Interrupt moderation: from a quiet queue's first frame to its poll.",
                        TimeValue(MicroSeconds(10)), MakeTimeAccessor(&LinuxHost::m_irqDelay),
                        MakeTimeChecker())
          .AddAttribute("RssUdpPorts", "RSS hashes UDP on its ports too (else addresses only).",
                        BooleanValue(true), MakeBooleanAccessor(&LinuxHost::m_rssUdpPorts),
                        MakeBooleanChecker());
  return tid;
}

LinuxHost::LinuxHost() = default;

void LinuxHost::SetConfig(const offlab::kernel::KernelHost& host) { m_host = host; }

const offlab::kernel::KernelHost& LinuxHost::GetConfig() const { return m_host; }

void LinuxHost::SetKernelCosts(Ptr<CpuModel> costs) { m_kernelCosts = costs; }

void LinuxHost::SetNic(Ptr<OffloadNetDevice> nic) {
  m_nic = nic;
  nic->SetTrainHandler([this](Ptr<FrameTrain> t) { FromWire(t); });
}

void LinuxHost::AddRxQueue(Ptr<CpuModel> softirq) { m_queues.push_back({softirq, {}, {}}); }

void LinuxHost::AddTapGuest(Ptr<VirtioNetDevice> guest, Ptr<CpuModel> vhost) {
  Endpoint e;
  e.dev = guest;
  e.vhost = vhost;
  Mac48Address::ConvertFrom(guest->GetAddress()).CopyTo(e.mac.data());
  const uint32_t index = static_cast<uint32_t>(m_endpoints.size());
  m_endpoints.push_back(e);
  guest->SetHostHandler([this, index](offlab::Packet frame, offlab::RxMeta meta) {
    FromGuest(index, std::move(frame), meta);
  });
}

void LinuxHost::AddSocketApp(Ptr<VirtioNetDevice> app) { AddTapGuest(app, nullptr); }

LinuxHost::Endpoint* LinuxHost::FindByMac(const uint8_t* mac) {
  for (Endpoint& e : m_endpoints) {
    if (std::memcmp(e.mac.data(), mac, 6) == 0) {
      return &e;
    }
  }
  // A socket application owns the host's stack: whatever reached it is its.
  if (m_host.attach == offlab::kernel::HostAttach::kSocket && m_endpoints.size() == 1) {
    return &m_endpoints[0];
  }
  return nullptr;
}

void LinuxHost::FromGuest(uint32_t index, offlab::Packet p, offlab::RxMeta meta) {
  Endpoint& ep = m_endpoints.at(index);
  offlab::kernel::SkBuff skb;
  std::string err;
  CpuWork w;
  w.packets = 1;
  if (ep.vhost) {
    // The virtio-net header the guest wrote (virtio_net's xmit_skb): a
    // partial TCP checksum and, for a TSO packet, its MSS.
    offlab::VnetHdr h;
    if (meta.l4 == offlab::CsumStatus::kPartial && p.l4_ofs) {
      h.flags = offlab::VnetHdr::kNeedsCsum;
      h.csum_start = p.l4_ofs;
      h.csum_offset = offlab::hdr::kTcpCsumOfs;
    }
    if (meta.tso_segsz && p.l4()) {
      h.gso_type = offlab::VnetHdr::kGsoTcpv4;
      h.gso_size = meta.tso_segsz;
      h.hdr_len = static_cast<uint16_t>(p.l4_ofs + (p.l4()[12] >> 4) * 4u);
    }
    // tun_get_user copies the guest's buffer into the skb.
    w.copyBytes += static_cast<double>(p.size());
    err = offlab::kernel::HostGuestSkb(m_host, std::move(p), h, &skb);
  } else {
    err = offlab::kernel::HostSocketSkb(m_host, std::move(p), &skb);
  }
  if (!err.empty()) {
    m_stats.drops["guest: " + err]++;
    Event("guest packet refused: " + err);
    return;
  }
  // skb_get_hash: the flow dissector's hash of the inner flow, which the
  // VXLAN source port carries to the receiver's RSS (udp_flow_src_port).
  m_host.route.flow_hash = FlowHash(skb.pkt);
  offlab::kernel::TxOutcome out = offlab::kernel::HostTransmit(m_host, std::move(skb));
  w.txFrames = static_cast<double>(out.to_driver.size());
  if (m_host.vxlan && !out.to_driver.empty()) {
    // A tunnelled skb is two IP outputs (the inner one and its
    // encapsulation) and two device transmits (the VXLAN device's and the
    // NIC's), as the kernel lab counted them (docs/kernel-costs.md).
    w.packets += 1;
    w.txFrames += 1;
  }
  w.swSegments = static_cast<double>(out.work.sw_segments);
  w.csumBytes += static_cast<double>(out.work.csum_bytes);
  w.copyBytes += static_cast<double>(out.work.copy_bytes);
  m_stats.swCsumBytes += out.work.csum_bytes;
  m_stats.copyBytes += out.work.copy_bytes;
  m_stats.swSegments += out.work.sw_segments;
  m_stats.hwSwitched += out.hw_switched;
  for (const auto& [k, v] : out.counters.values()) {
    m_counters.Inc(k, v);
  }
  for (const auto& [why, n] : out.drops) {
    if (m_stats.drops[why] == 0) {
      Event("transmit drop: " + why);
    }
    m_stats.drops[why] += n;
  }
  // A TAP's transmit runs on its vhost-net worker; a socket's in the
  // sending process, on the application's core at the kernel's prices.
  Ptr<CpuModel> core = ep.vhost ? ep.vhost : ep.dev->GetCpu();
  Time done = Simulator::Now();
  if (core) {
    const bool ok = ep.vhost || !m_kernelCosts ? core->Submit(w, &done)
                                               : core->Submit(w, &done, *m_kernelCosts);
    if (!ok) {
      m_stats.cpuDrops++;
      return;
    }
  }
  auto wire = std::make_shared<std::vector<offlab::Bytes>>(std::move(out.wire));
  Simulator::Schedule(done - Simulator::Now(), [this, wire]() { ToWire(std::move(*wire)); });
}

void LinuxHost::ToWire(std::vector<offlab::Bytes> frames) {
  if (frames.empty() || !m_nic) {
    return;
  }
  std::vector<offlab::Sent> sent;
  sent.reserve(frames.size());
  for (offlab::Bytes& f : frames) {
    offlab::Sent s;
    s.port = "phy";
    s.frame = std::move(f);
    sent.push_back(std::move(s));
  }
  m_nic->SendFrames(std::move(sent));
}

uint32_t LinuxHost::GetNRxQueues() const { return static_cast<uint32_t>(m_queues.size()); }

Ptr<CpuModel> LinuxHost::GetSoftirqCpu(uint32_t i) const { return m_queues.at(i).cpu; }

uint32_t LinuxHost::GetNGuests() const { return static_cast<uint32_t>(m_endpoints.size()); }

Ptr<CpuModel> LinuxHost::GetVhostCpu(uint32_t i) const { return m_endpoints.at(i).vhost; }

const LinuxHost::Stats& LinuxHost::GetStats() const { return m_stats; }

const offlab::Counters& LinuxHost::GetCounters() const { return m_counters; }

void LinuxHost::ResetStats() {
  m_stats = {};
  m_counters.Clear();
  for (RxQueue& q : m_queues) {
    q.cpu->ResetStats();
  }
  for (Endpoint& e : m_endpoints) {
    if (e.vhost) {
      e.vhost->ResetStats();
    }
  }
}

void LinuxHost::Event(const std::string& e) {
  if (m_events.size() < kMaxEvents) {
    m_events.push_back(e);
  }
}

const std::vector<std::string>& LinuxHost::GetEvents() const { return m_events; }

void LinuxHost::DoDispose() {
  for (RxQueue& q : m_queues) {
    q.poll.Cancel();
  }
  m_queues.clear();
  m_endpoints.clear();
  if (m_nic) {
    m_nic->SetTrainHandler(nullptr);
  }
  m_nic = nullptr;
  m_kernelCosts = nullptr;
  Object::DoDispose();
}

}  // namespace ns3
