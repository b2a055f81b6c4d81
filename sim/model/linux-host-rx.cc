// SPDX-License-Identifier: Apache-2.0
// LinuxHost's receive side: RSS over RX queues, NAPI polls on each queue's
// softirq core, and handing what the kernel model delivered to guests,
// sockets or the wire.
#include <algorithm>
#include <tuple>

#include "linux-host.h"
#include "ns3/simulator.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace ns3 {

namespace {

uint32_t Mix(uint32_t h, uint32_t v) {
  // FNV-1a over 32-bit words: any well-spread hash will do; what matters is
  // which fields go in (a NIC's Toeplitz hash spreads flows just as well).
  for (int i = 0; i < 4; i++) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 16777619u;
  }
  return h;
}

void Add(offlab::kernel::GroStats& a, const offlab::kernel::GroStats& b) {
  a.received += b.received;
  a.merged += b.merged;
  a.held += b.held;
  a.normal += b.normal;
  a.flushed += b.flushed;
  a.evicted += b.evicted;
  a.delivered += b.delivered;
  a.csum_bytes += b.csum_bytes;
  for (const auto& [k, v] : b.not_validated) a.not_validated[k] += v;
  for (const auto& [k, v] : b.normal_reasons) a.normal_reasons[k] += v;
}

// Two passes of one poll as one outcome.
void Merge(offlab::kernel::RxOutcome& a, offlab::kernel::RxOutcome b) {
  for (auto& x : b.delivered) a.delivered.push_back(std::move(x));
  for (auto& x : b.tap_hdrs) a.tap_hdrs.push_back(x);
  for (auto& x : b.wire) a.wire.push_back(std::move(x));
  for (auto& x : b.ibmveth) a.ibmveth.push_back(x);
  Add(a.nic_gro, b.nic_gro);
  Add(a.cell_gro, b.cell_gro);
  a.cell_gro_ran = a.cell_gro_ran || b.cell_gro_ran;
  for (const auto& [k, v] : b.not_validated) a.not_validated[k] += v;
  for (const auto& [k, v] : b.drops) a.drops[k] += v;
  a.hw_switched += b.hw_switched;
  a.work.csum_bytes += b.work.csum_bytes;
  a.work.copy_bytes += b.work.copy_bytes;
  a.work.sw_segments += b.work.sw_segments;
  for (const auto& [k, v] : b.counters.values()) a.counters.Inc(k, v);
}

}  // namespace

uint32_t LinuxHost::RssQueue(const offlab::Bytes& f) const {
  if (m_queues.size() <= 1) {
    return 0;
  }
  return FlowHashOf(f.data(), f.size(), m_rssUdpPorts) % m_queues.size();
}

uint32_t LinuxHost::FlowHash(const offlab::Bytes& f) {
  return FlowHashOf(f.data(), f.size(), true);
}

uint32_t LinuxHost::FlowHash(const offlab::Packet& p) {
  // Ethernet, an IPv4 header with options or IPv6, and the ports.
  constexpr std::size_t kHeaders = offlab::hdr::kEthLen + 60 + 4;
  const std::size_t n = std::min(p.size(), kHeaders);
  return FlowHashOf(p.Linear(n), n, true);
}

uint32_t LinuxHost::FlowHashOf(const uint8_t* d, std::size_t size, bool udpPorts) {
  if (size < offlab::hdr::kEthLen + offlab::hdr::kIpv4MinLen) {
    return 0;
  }
  const uint16_t type = offlab::GetBe16(d + 12);
  uint32_t h = 2166136261u;
  std::size_t l4 = 0;
  uint8_t proto = 0;
  if (type == offlab::hdr::kEthTypeIpv4) {
    const uint8_t* ip = d + offlab::hdr::kEthLen;
    h = Mix(h, offlab::GetBe32(ip + 12));
    h = Mix(h, offlab::GetBe32(ip + 16));
    proto = ip[offlab::hdr::kIpv4ProtoOfs];
    // A fragment hashes on addresses only (its ports are not there).
    if (!(offlab::GetBe16(ip + offlab::hdr::kIpv4FragOfs) & 0x3fff)) {
      l4 = offlab::hdr::kEthLen + (ip[0] & 0x0f) * 4u;
    }
  } else if (type == offlab::hdr::kEthTypeIpv6 &&
             size >= offlab::hdr::kEthLen + offlab::hdr::kIpv6Len) {
    const uint8_t* ip = d + offlab::hdr::kEthLen;
    for (int i = 0; i < 8; i++) {
      h = Mix(h, offlab::GetBe32(ip + 8 + 4 * i));
    }
    proto = ip[offlab::hdr::kIpv6NextOfs];
    l4 = offlab::hdr::kEthLen + offlab::hdr::kIpv6Len;
  }
  // RSS hashes TCP on the 4-tuple; UDP on its ports only where the driver
  // enables it (ixgbe leaves UDP 4-tuple hashing off by default, so all
  // VXLAN between two hosts lands on one queue: `ethtool -N rx-flow-hash`).
  const bool ports =
      proto == offlab::hdr::kProtoTcp || (proto == offlab::hdr::kProtoUdp && udpPorts);
  if (l4 && ports && size >= l4 + 4) {
    h = Mix(h, offlab::GetBe32(d + l4));
  }
  // FNV's low bits depend only on the inputs' low bits (ports differing in
  // their high bits would share a queue): finish with murmur3's fmix32.
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

void LinuxHost::FromWire(Ptr<FrameTrain> train) {
  std::vector<bool> touched(m_queues.size(), false);
  std::vector<offlab::Bytes> switched;
  Time last;
  for (std::size_t i = 0; i < train->frames.size(); i++) {
    if (m_host.eswitch_offload && !m_swFlows.insert(FlowHash(train->frames[i])).second) {
      // TC flower offload: after a flow's first packet (the upcall that
      // installs the datapath flow and its tc rule), the eSwitch forwards
      // it and the kernel never sees it.
      m_stats.hwSwitched++;
      switched.push_back(std::move(train->frames[i]));
      last = train->arrivals[i];
      continue;
    }
    const uint32_t q = RssQueue(train->frames[i]);
    m_queues[q].ring.push_back({std::move(train->frames[i]), train->arrivals[i]});
    touched[q] = true;
  }
  if (!switched.empty()) {
    auto frames = std::make_shared<std::vector<offlab::Bytes>>(std::move(switched));
    Simulator::Schedule(std::max(Time(0), last - Simulator::Now()),
                        [this, frames]() { ToWire(std::move(*frames)); });
  }
  for (uint32_t q = 0; q < m_queues.size(); q++) {
    if (touched[q] && !m_queues[q].poll.IsRunning()) {
      SchedulePoll(q, false);
    }
  }
}

void LinuxHost::SchedulePoll(uint32_t q, bool repoll) {
  RxQueue& rq = m_queues[q];
  if (rq.ring.empty()) {
    return;
  }
  // The interrupt fires after the moderation delay from the first frame
  // (unless NAPI is still polling: a poll that used its whole budget is
  // rescheduled at once, net_rx_action/napi_poll), and the poll runs when
  // the softirq core is free.
  Time at = rq.ring.front().arrival + (repoll ? Time(0) : m_irqDelay);
  at = std::max(at, rq.cpu->GetBusyUntil());
  at = std::max(at, Simulator::Now());
  rq.poll = Simulator::Schedule(at - Simulator::Now(), &LinuxHost::Poll, this, q);
}

void LinuxHost::Poll(uint32_t q) {
  RxQueue& rq = m_queues[q];
  const Time now = Simulator::Now();
  // Frames on the ring by now; past the ring's size, later arrivals found
  // it full and were dropped by the NIC (rx_missed / rx_dropped).
  std::size_t arrived = 0;
  while (arrived < rq.ring.size() && rq.ring[arrived].arrival <= now) {
    arrived++;
  }
  if (arrived > m_ringSize) {
    const std::size_t lost = arrived - m_ringSize;
    rq.ring.erase(rq.ring.begin() + m_ringSize, rq.ring.begin() + arrived);
    m_stats.ringDrops += lost;
    arrived = m_ringSize;
  }
  const std::size_t take = std::min<std::size_t>(arrived, m_budget);
  std::vector<offlab::Bytes> frames;
  frames.reserve(take);
  for (std::size_t i = 0; i < take; i++) {
    frames.push_back(std::move(rq.ring.front().frame));
    rq.ring.pop_front();
  }
  Time done = now;
  if (!frames.empty()) {
    const std::size_t n = frames.size();
    offlab::kernel::RxOutcome out = Receive(std::move(frames));
    CpuWork w;
    w.polls = 1;
    w.rxFrames = static_cast<double>(n);
    w.groMerges = static_cast<double>(out.nic_gro.merged + out.cell_gro.merged);
    w.packets = static_cast<double>(out.nic_gro.delivered + InnerSkbs(out));
    w.txFrames = static_cast<double>(
        m_host.attach == offlab::kernel::HostAttach::kSocket ? 0 : out.delivered.size());
    w.swSegments = static_cast<double>(out.work.sw_segments);
    w.csumBytes = static_cast<double>(out.work.csum_bytes);
    w.copyBytes = static_cast<double>(out.work.copy_bytes);
    Account(out, n);
    if (!rq.cpu->Submit(w, &done)) {
      m_stats.cpuDrops += n;
      done = now;
    } else {
      auto shared = std::make_shared<offlab::kernel::RxOutcome>(std::move(out));
      Simulator::Schedule(done - now, [this, shared]() { Deliver(std::move(*shared)); });
    }
  }
  SchedulePoll(q, take == m_budget);
}

uint64_t LinuxHost::InnerSkbs(const offlab::kernel::RxOutcome& out) const {
  // A decapsulated packet crosses netif_receive_skb and the switch a second
  // time: after the tunnel device's GRO pass where the kernel has one, else
  // each one vxlan_rcv handed up (netif_rx before 4.8).
  if (out.cell_gro_ran) {
    return out.cell_gro.delivered;
  }
  return m_host.vxlan ? out.counters.Get(m_host.vxlan->name + ":rx_packets") : 0;
}

offlab::kernel::RxOutcome LinuxHost::Receive(std::vector<offlab::Bytes> frames) {
  // Frames that reach the kernel of an eSwitch-offloaded host are flows'
  // first packets: the software path.
  const bool eswitch = m_host.eswitch_offload;
  m_host.eswitch_offload = false;
  offlab::kernel::RxOutcome out;
  if (!m_host.ibmveth) {
    out = offlab::kernel::HostReceive(m_host, std::move(frames));
  } else {
    // ibmveth: the hypervisor passes a partner's largesend buffer whole, its
    // descriptor flagged IBMVETH_RXQ_LRG_PKT with the MSS (ibmveth_poll);
    // such frames are longer than the MTU. They take their own pass.
    std::vector<offlab::Bytes> small, large;
    for (offlab::Bytes& f : frames) {
      (f.size() > m_host.mtu + offlab::hdr::kEthLen ? large : small).push_back(std::move(f));
    }
    out = offlab::kernel::HostReceive(m_host, std::move(small));
    if (!large.empty()) {
      offlab::kernel::KernelHost lh = m_host;
      lh.rx_meta.ibmveth_large_packet = true;
      lh.rx_meta.ibmveth_mss = m_host.mss;
      Merge(out, offlab::kernel::HostReceive(lh, std::move(large)));
    }
  }
  m_host.eswitch_offload = eswitch;
  return out;
}

void LinuxHost::Account(const offlab::kernel::RxOutcome& out, uint64_t frames) {
  m_stats.polls++;
  m_stats.rxFrames += frames;
  m_stats.groMerged += out.nic_gro.merged + out.cell_gro.merged;
  m_stats.skbsUp += out.nic_gro.delivered + InnerSkbs(out);
  // The skbs that reach the switch: the tunnel device's GRO output when it
  // ran, the NIC's otherwise.
  m_stats.skbsFinal += out.cell_gro_ran ? out.cell_gro.delivered : out.nic_gro.delivered;
  m_stats.hwSwitched += out.hw_switched;
  m_stats.swCsumBytes += out.work.csum_bytes;
  m_stats.copyBytes += out.work.copy_bytes;
  m_stats.swSegments += out.work.sw_segments;
  for (const auto& [why, n] : out.not_validated) {
    m_stats.notValidated[why] += n;
  }
  for (const auto& [why, n] : out.drops) {
    if (m_stats.drops[why] == 0) {
      Event("receive drop: " + why);
    }
    m_stats.drops[why] += n;
  }
  for (const auto& [k, v] : out.counters.values()) {
    m_counters.Inc(k, v);
  }
}

void LinuxHost::Deliver(offlab::kernel::RxOutcome out) {
  using offlab::kernel::HostAttach;
  if (m_host.attach == HostAttach::kForward) {
    ToWire(std::move(out.wire));
    return;
  }
  for (std::size_t i = 0; i < out.delivered.size(); i++) {
    offlab::kernel::SkBuff& skb = out.delivered[i];
    if (skb.len() < offlab::hdr::kEthLen) {
      continue;
    }
    Endpoint* ep = FindByMac(skb.pkt.data());
    if (!ep) {
      Event("no guest or socket for a delivered packet");
      continue;
    }
    offlab::Sent s;
    // The headers as the frame, the payload passed on as the skb's buffer
    // (vhost-net copies it once, into the guest: DeliverFromHost).
    constexpr std::size_t kHeaders = 128;
    std::tie(s.frame, s.tail) = std::move(skb.pkt).TakeHeadShared(kHeaders);
    s.offloads.set_ip(offlab::CsumStatus::kGood);
    if (ep->vhost && i < out.tap_hdrs.size()) {
      // What tun_put_user's virtio-net header tells the guest: NEEDS_CSUM
      // and DATA_VALID both vouch for the TCP checksum (virtio_net's
      // receive), anything else leaves it to the guest.
      const offlab::VnetHdr& h = out.tap_hdrs[i].hdr;
      s.offloads.set_l4(h.flags & offlab::VnetHdr::kNeedsCsum   ? offlab::CsumStatus::kPartial
                        : h.flags & offlab::VnetHdr::kDataValid ? offlab::CsumStatus::kGood
                                                                : offlab::CsumStatus::kUnknown);
      s.tso_segsz = h.gso_size;
      // vhost-net's handle_rx copies the packet into the guest's buffers.
      CpuWork w;
      w.txFrames = 1;
      w.copyBytes = static_cast<double>(s.size());
      Time done;
      if (!ep->vhost->Submit(w, &done)) {
        m_stats.cpuDrops++;
        continue;
      }
      Ptr<VirtioNetDevice> dev = ep->dev;
      auto shared = std::make_shared<offlab::Sent>(std::move(s));
      Simulator::Schedule(done - Simulator::Now(),
                          [dev, shared]() { dev->DeliverFromHost(std::move(*shared)); });
    } else {
      // The local stack checked the TCP checksum (or it was vouched for).
      s.offloads.set_l4(offlab::CsumStatus::kGood);
      ep->dev->DeliverFromHost(std::move(s));
    }
  }
}

}  // namespace ns3
