// SPDX-License-Identifier: Apache-2.0
#include "frame-sink.h"

#include <algorithm>

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "offlab/net/checksum.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("FrameSink");
NS_OBJECT_ENSURE_REGISTERED(FrameSink);

namespace {

constexpr uint32_t kPktgenMagic = 0xbe9be955;  // as packet-generator.cc
constexpr uint32_t kPktgenHdr = 16;
// Shorter frames are padded to 60 bytes on the line; FCS 4, preamble+SFD 8
// and inter-frame gap 12 make the rest of the line's share (IEEE 802.3).
constexpr std::size_t kMinFrame = 60;
constexpr double kFcs = 4, kL1Overhead = 24;

// Where the UDP header of a generator frame starts, and its IP header; 0 if
// the frame is not IPv4/IPv6 + UDP (after at most two VLAN tags).
struct Layout {
  std::size_t ip = 0, udp = 0;
  bool v6 = false;
};

Layout Parse(const offlab::Bytes& f) {
  Layout l;
  std::size_t off = 12;
  if (f.size() < 14) {
    return l;
  }
  uint16_t type = offlab::GetBe16(&f[off]);
  for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88a8); tags++) {
    off += 4;
    if (f.size() < off + 2) {
      return l;
    }
    type = offlab::GetBe16(&f[off]);
  }
  const std::size_t ip = off + 2;
  if (type == 0x0800) {
    if (f.size() < ip + 20 || (f[ip] >> 4) != 4 || f[ip + 9] != 17) {
      return l;
    }
    // A fragment's payload is not a whole datagram: not ours to count.
    if ((offlab::GetBe16(&f[ip + 6]) & 0x3fff) != 0) {
      return l;
    }
    l.ip = ip;
    l.udp = ip + (f[ip] & 0x0f) * 4u;
  } else if (type == 0x86dd) {
    if (f.size() < ip + 40 || (f[ip] >> 4) != 6 || f[ip + 6] != 17) {
      return l;
    }
    l.ip = ip;
    l.udp = ip + 40;
    l.v6 = true;
  } else {
    return l;
  }
  if (f.size() < l.udp + 8 + kPktgenHdr || offlab::GetBe32(&f[l.udp + 8]) != kPktgenMagic) {
    l.udp = 0;
  }
  return l;
}

bool ChecksumsGood(const offlab::Bytes& f, const Layout& l) {
  namespace csum = offlab::csum;
  const uint8_t* ip = &f[l.ip];
  const uint8_t* udp = &f[l.udp];
  const std::size_t ulen = offlab::GetBe16(udp + 4);
  if (ulen < 8 || l.udp + ulen > f.size()) {
    return false;
  }
  const uint16_t check = offlab::GetBe16(udp + 6);
  if (l.v6) {
    // RFC 8200 8.1: a zero UDP checksum is not allowed over IPv6.
    return check != 0 &&
           csum::Verify(udp, ulen,
                        csum::PseudoIpv6(ip + 8, ip + 24, 17, static_cast<uint32_t>(ulen)));
  }
  if (!csum::Verify(ip, l.udp - l.ip)) {
    return false;
  }
  // RFC 768: zero means the sender computed none.
  return check == 0 ||
         csum::Verify(udp, ulen,
                      csum::PseudoIpv4(ip + 12, ip + 16, 17, static_cast<uint16_t>(ulen)));
}

}  // namespace

TypeId FrameSink::GetTypeId() {
  static TypeId tid = TypeId("ns3::FrameSink")
                          .SetParent<Object>()
                          .SetGroupName("Offload")
                          .AddConstructor<FrameSink>();
  return tid;
}

double FrameSink::Stats::Seconds() const { return (end - start).GetSeconds(); }

double FrameSink::Stats::Pps() const { return Seconds() > 0 ? frames / Seconds() : 0; }

double FrameSink::Stats::L2Gbps() const {
  return Seconds() > 0 ? (bytes + kFcs * frames) * 8 / Seconds() / 1e9 : 0;
}

double FrameSink::Stats::L1Gbps() const {
  return Seconds() > 0 ? (bytes + kL1Overhead * frames) * 8 / Seconds() / 1e9 : 0;
}

void FrameSink::Receive(const std::vector<offlab::Bytes>& frames,
                        const std::vector<Time>& arrivals) {
  const Time now = Simulator::Now();
  while (!m_future.empty() && m_future.front().arrival <= now) {
    m_future.pop_front();
  }
  const std::size_t n = std::min(frames.size(), arrivals.size());
  for (std::size_t i = 0; i < n; i++) {
    Count(frames[i], arrivals[i]);
  }
}

void FrameSink::ReceiveTrain(Ptr<FrameTrain> train) { Receive(train->frames, train->arrivals); }

void FrameSink::SetVerifyChecksums(bool verify) { m_verify = verify; }

void FrameSink::Count(const offlab::Bytes& frame, Time arrival) {
  if (arrival < m_stats.start) {
    return;
  }
  m_lastArrival = std::max(m_lastArrival, arrival);
  const Layout l = Parse(frame);
  if (l.udp == 0) {
    m_stats.foreign++;
    return;
  }
  if (m_verify && !ChecksumsGood(frame, l)) {
    m_stats.badChecksums++;
  }
  const uint64_t bytes = std::max(frame.size(), kMinFrame);
  const uint16_t port = offlab::GetBe16(&frame[l.udp]);
  m_stats.frames++;
  m_stats.bytes += bytes;
  m_flowFrames[port]++;
  if (arrival > Simulator::Now()) {
    m_future.push_back({arrival, bytes, port});
  }

  // The 32-bit sequence number, extended by serial arithmetic (RFC 1982)
  // around the highest seen: the stream may run past 2^32 frames.
  const uint32_t seq32 = offlab::GetBe32(&frame[l.udp + 12]);
  const int64_t seq =
      m_haveSeq ? m_highest + static_cast<int32_t>(seq32 - static_cast<uint32_t>(m_highest))
                : int64_t{seq32};
  if (!m_haveSeq) {
    m_haveSeq = true;
    m_highest = seq;
  } else if (seq > m_highest) {
    m_stats.lost += static_cast<uint64_t>(seq - m_highest - 1);
    m_highest = seq;
  } else {
    // Behind the highest: it fills a gap counted as lost (duplicates are
    // not told apart from late frames).
    m_stats.late++;
    if (m_stats.lost > 0) {
      m_stats.lost--;
    }
  }
  if (m_flowSeen[port] && seq < m_flowLast[port]) {
    m_stats.flowReorders++;
  } else {
    m_flowLast[port] = seq;
    m_flowSeen[port] = 1;
  }
}

void FrameSink::ResetStats() {
  // The sequence state carries over, so a gap across the reset is not lost
  // twice and the first frame of the window is not a gap.
  m_stats = Stats{};
  m_stats.start = Simulator::Now();
  m_lastArrival = m_stats.start;
  std::fill(m_flowFrames.begin(), m_flowFrames.end(), 0);
  for (const Future& f : m_future) {
    if (f.arrival >= m_stats.start) {
      m_stats.frames++;
      m_stats.bytes += f.bytes;
      m_flowFrames[f.port]++;
      m_lastArrival = std::max(m_lastArrival, f.arrival);
    }
  }
}

FrameSink::Stats FrameSink::GetStats() const {
  Stats s = m_stats;
  s.end = std::max(Simulator::Now(), m_lastArrival);
  return s;
}

uint64_t FrameSink::GetFlowFrames(uint16_t srcPort) const { return m_flowFrames[srcPort]; }

}  // namespace ns3
