// SPDX-License-Identifier: Apache-2.0
#include "packet-generator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "offlab/net/addr.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("PacketGenerator");
NS_OBJECT_ENSURE_REGISTERED(PacketGenerator);

// pktgen.c below: torvalds/linux v6.18-rc1 net/core/pktgen.c.
namespace {

constexpr uint32_t kMinFrame = 60;    // 64-byte minimum Ethernet frame less its FCS
constexpr uint32_t kMaxFrame = 9018;  // a 9000-byte MTU jumbo frame's bound, as the task sets
constexpr uint32_t kPktgenHdr = 16;   // struct pktgen_hdr: magic, seq, tv_sec, tv_usec
constexpr uint32_t kPktgenMagic = 0xbe9be955;  // pktgen.c:239 PKTGEN_MAGIC
constexpr uint8_t kTtl = 32;                   // pktgen.c:3012 iph->ttl, :3150 hop_limit
// pktgen grows a frame smaller than its headers plus the pktgen header
// (pktgen.c:3002 fill_packet_ipv4, :3132 fill_packet_ipv6); here it is refused.
constexpr uint32_t kMinIpv6Frame = 14 + 40 + 8 + kPktgenHdr;
// Default train: the frames that leave in this long (a NAPI-poll-sized slice
// of the stream, and short beside the millisecond windows rates are read over).
constexpr double kTrainSeconds = 10e-6;

std::string Num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

[[noreturn]] void Fail(const std::string& msg) { throw offlab::Error(msg); }

double AvgWireBits(const GeneratorConfig& c) {
  double bits = 0, sum = 0;
  for (std::size_t i = 0; i < c.frame_sizes.size(); i++) {
    const double w = c.weights.empty() ? 1.0 : c.weights[i];
    bits += w * (c.frame_sizes[i] + kGeneratorWireOverhead) * 8.0;
    sum += w;
  }
  return bits / sum;
}

}  // namespace

void GeneratorConfig::UseImix() {
  // Simple IMIX, 7:4:1 of 64, 594 and 1518-byte Ethernet frames (FCS
  // included): https://ostinato.org/blog/imix ("Standard IMIX ... 7:4:1")
  // and Wikipedia "Internet Mix" (Simple IMIX). TRex's scripts/stl/imix.py
  // (cisco-system-traffic-generator/trex-core) uses the same sizes without
  // FCS, 60/590/1514. Sizes here are without FCS.
  frame_sizes = {60, 590, 1514};
  weights = {7, 4, 1};
}

void GeneratorConfig::Validate() const {
  bool srcV6 = false, dstV6 = false;
  try {
    offlab::ParseMac(src_mac);
  } catch (const offlab::Error& e) {
    Fail(std::string("src_mac: ") + e.what());
  }
  try {
    offlab::ParseMac(dst_mac);
  } catch (const offlab::Error& e) {
    Fail(std::string("dst_mac: ") + e.what());
  }
  try {
    offlab::ParseIp(src_ip, &srcV6);
  } catch (const offlab::Error& e) {
    Fail(std::string("src_ip: ") + e.what());
  }
  try {
    offlab::ParseIp(dst_ip, &dstV6);
  } catch (const offlab::Error& e) {
    Fail(std::string("dst_ip: ") + e.what());
  }
  if (srcV6 != dstV6) {
    Fail("src_ip " + src_ip + " and dst_ip " + dst_ip + " are not the same address family");
  }
  if (frame_sizes.empty()) {
    Fail("frame_sizes is empty");
  }
  for (uint32_t s : frame_sizes) {
    if (s < kMinFrame || s > kMaxFrame) {
      Fail("frame_sizes: " + std::to_string(s) + " is outside " + std::to_string(kMinFrame) + ".." +
           std::to_string(kMaxFrame) + " (bytes without FCS)");
    }
    if (srcV6 && s < kMinIpv6Frame) {
      Fail("frame_sizes: " + std::to_string(s) + " is below " + std::to_string(kMinIpv6Frame) +
           ", the smallest IPv6/UDP frame with the 16-byte pktgen header");
    }
  }
  if (!weights.empty() && weights.size() != frame_sizes.size()) {
    Fail("weights: " + std::to_string(weights.size()) + " given for " +
         std::to_string(frame_sizes.size()) + " frame sizes");
  }
  for (double w : weights) {
    if (!std::isfinite(w) || w <= 0) {
      Fail("weights: " + Num(w) + " is not a positive number");
    }
  }
  if (!std::isfinite(line_gbps) || line_gbps <= 0) {
    Fail("line_gbps " + Num(line_gbps) + " is not a positive rate");
  }
  if (rate_gbps && rate_pps) {
    Fail("rate_gbps and rate_pps are both set: give one");
  }
  if (rate_gbps) {
    if (!std::isfinite(*rate_gbps) || *rate_gbps * 1e9 < 1) {
      Fail("rate_gbps " + Num(*rate_gbps) + " is not a rate of at least 1 bit/s");
    }
    if (*rate_gbps > line_gbps * (1 + 1e-12)) {
      Fail("rate_gbps " + Num(*rate_gbps) + " is above the line rate " + Num(line_gbps));
    }
  }
  if (rate_pps) {
    if (!std::isfinite(*rate_pps) || *rate_pps < 1e-6) {
      Fail("rate_pps " + Num(*rate_pps) + " is not a rate of at least 1e-06 frames/s");
    }
    const double gbps = *rate_pps * AvgWireBits(*this) / 1e9;
    if (gbps > line_gbps * (1 + 1e-12)) {
      Fail("rate_pps " + Num(*rate_pps) + " needs " + Num(gbps) +
           " Gbit/s at these frame sizes, above the line rate " + Num(line_gbps));
    }
  }
  if (flows == 0) {
    Fail("flows 0: at least one flow is needed");
  }
  if (udp_src > 65535) {
    Fail("udp_src " + std::to_string(udp_src) + " is not a port (0..65535)");
  }
  if (udp_dst > 65535) {
    Fail("udp_dst " + std::to_string(udp_dst) + " is not a port (0..65535)");
  }
  if (uint64_t{udp_src} + flows - 1 > 65535) {
    Fail("flows " + std::to_string(flows) + " from udp_src " + std::to_string(udp_src) +
         " run past port 65535");
  }
  if (burst && *burst == 0) {
    Fail("burst 0: a train carries at least one frame");
  }
  if (start.IsStrictlyNegative()) {
    Fail("start " + Num(start.GetSeconds()) + " s is negative");
  }
  if (!stop.IsZero() && stop <= start) {
    Fail("stop " + Num(stop.GetSeconds()) + " s is not after start " + Num(start.GetSeconds()) +
         " s");
  }
}

TypeId PacketGenerator::GetTypeId() {
  static TypeId tid = TypeId("ns3::PacketGenerator")
                          .SetParent<Object>()
                          .SetGroupName("Offload")
                          .AddConstructor<PacketGenerator>();
  return tid;
}

void PacketGenerator::SetConfig(const GeneratorConfig& config) {
  config.Validate();
  m_config = config;
  m_configured = true;
  m_weights =
      config.weights.empty() ? std::vector<double>(config.frame_sizes.size(), 1.0) : config.weights;
  m_weightSum = 0;
  for (double w : m_weights) {
    m_weightSum += w;
  }
  const double wireBits = AvgWireBits(config);
  if (config.rate_pps) {
    m_pps = *config.rate_pps;
    m_den = static_cast<uint64_t>(std::llround(*config.rate_pps * 1e6));
  } else {
    const double gbps = config.rate_gbps.value_or(config.line_gbps);
    m_pps = gbps * 1e9 / wireBits;
    m_den = static_cast<uint64_t>(std::llround(gbps * 1e9));
  }
  m_burst = config.burst.value_or(
      static_cast<uint32_t>(std::clamp(std::floor(m_pps * kTrainSeconds), 1.0, 1e6)));
  m_flowFrames.assign(config.flows, 0);
  BuildTemplates();
}

const GeneratorConfig& PacketGenerator::GetConfig() const { return m_config; }

void PacketGenerator::SetSink(Sink sink) { m_sink = std::move(sink); }

void PacketGenerator::BuildTemplates() {
  bool v6 = false;
  offlab::ParseIp(m_config.src_ip, &v6);
  m_ipv6 = v6;
  m_templates.clear();
  for (uint32_t size : m_config.frame_sizes) {
    m_templates.push_back(BuildTemplate(size));
  }
}

PacketGenerator::Template PacketGenerator::BuildTemplate(uint32_t size) const {
  namespace csum = offlab::csum;
  Template t;
  t.frame.assign(size, 0);
  uint8_t* p = t.frame.data();
  const offlab::MacAddr dmac = offlab::ParseMac(m_config.dst_mac);
  const offlab::MacAddr smac = offlab::ParseMac(m_config.src_mac);
  bool v6 = false;
  const offlab::IpAddr sip = offlab::ParseIp(m_config.src_ip, &v6);
  const offlab::IpAddr dip = offlab::ParseIp(m_config.dst_ip, &v6);
  std::copy(dmac.begin(), dmac.end(), p);
  std::copy(smac.begin(), smac.end(), p + 6);
  offlab::PutBe16(p + 12, m_ipv6 ? 0x86dd : 0x0800);
  uint8_t* ip = p + t.ip;
  if (m_ipv6) {
    t.udp = t.ip + 40;
    ip[0] = 0x60;  // version 6, traffic class and flow label 0 (pktgen.c:3143)
    offlab::PutBe16(ip + 4, static_cast<uint16_t>(size - t.udp));
    ip[6] = 17;
    ip[7] = kTtl;
    std::copy(sip.begin(), sip.end(), ip + 8);
    std::copy(dip.begin(), dip.end(), ip + 24);
  } else {
    t.udp = t.ip + 20;
    ip[0] = 0x45;
    offlab::PutBe16(ip + 2, static_cast<uint16_t>(size - t.ip));
    // ID stamped per frame, fragment offset and flags 0 (pktgen.c:3017-3019).
    ip[8] = kTtl;
    ip[9] = 17;
    std::copy(sip.begin(), sip.begin() + 4, ip + 12);
    std::copy(dip.begin(), dip.begin() + 4, ip + 16);
    t.ipSum = csum::Partial(ip, 20);
  }
  uint8_t* udp = p + t.udp;
  const uint32_t udpLen = size - static_cast<uint32_t>(t.udp);
  offlab::PutBe16(udp + 2, static_cast<uint16_t>(m_config.udp_dst));
  offlab::PutBe16(udp + 4, static_cast<uint16_t>(udpLen));
  offlab::PutBe32(udp + 8, kPktgenMagic);
  // The source port and the stamp are left zero here and added to this sum
  // per frame: they sit on 16-bit boundaries of the UDP datagram.
  const uint64_t pseudo =
      m_ipv6 ? csum::PseudoIpv6(sip.data(), dip.data(), 17, udpLen)
             : csum::PseudoIpv4(sip.data(), dip.data(), 17, static_cast<uint16_t>(udpLen));
  t.udpSum = csum::Add(pseudo, csum::Partial(udp, udpLen));
  return t;
}

void PacketGenerator::Start() {
  if (!m_configured) {
    Fail("packet generator: Start() before SetConfig()");
  }
  m_event.Cancel();
  m_origin = std::max(m_config.start, Simulator::Now());
  m_next = 0;
  m_num = 0;
  m_credit.assign(m_weights.size(), 0.0);
  if (!m_config.stop.IsZero() && m_origin >= m_config.stop) {
    return;
  }
  m_event = Simulator::Schedule(m_origin - Simulator::Now(), &PacketGenerator::SendTrain, this);
}

void PacketGenerator::Stop() { m_event.Cancel(); }

std::size_t PacketGenerator::NextSize() {
  if (m_weights.size() == 1) {
    return 0;
  }
  // Smooth weighted round robin: deterministic, and over every cycle of
  // integer weights (12 frames for IMIX) the mix is exact, not sampled.
  std::size_t best = 0;
  for (std::size_t i = 0; i < m_weights.size(); i++) {
    m_credit[i] += m_weights[i];
    if (m_credit[i] > m_credit[best]) {
      best = i;
    }
  }
  m_credit[best] -= m_weightSum;
  return best;
}

Time PacketGenerator::Departure() const {
  // Exact in integers: no rounding error accumulates over the stream, each
  // departure is floor()ed once to the simulator's time step.
  static const unsigned __int128 ticksPerSecond =
      static_cast<unsigned __int128>(Seconds(1).GetTimeStep());
  const unsigned __int128 ticks = m_num * ticksPerSecond / m_den;
  return m_origin + Time(static_cast<int64_t>(ticks));
}

offlab::Bytes PacketGenerator::Stamp(const Template& t, uint32_t flow, uint64_t seq,
                                     Time departure) const {
  namespace csum = offlab::csum;
  offlab::Bytes f(t.frame);
  uint8_t* p = f.data();
  const uint16_t port = static_cast<uint16_t>(m_config.udp_src + flow);
  const uint32_t seq32 = static_cast<uint32_t>(seq);  // pktgen's seq_num is 32 bits
  const int64_t ns = departure.GetNanoSeconds();
  const uint32_t sec = static_cast<uint32_t>(ns / 1000000000);
  const uint32_t usec = static_cast<uint32_t>(ns % 1000000000 / 1000);
  uint8_t* udp = p + t.udp;
  offlab::PutBe16(udp, port);
  offlab::PutBe32(udp + 12, seq32);
  offlab::PutBe32(udp + 16, sec);
  offlab::PutBe32(udp + 20, usec);
  const uint64_t sum = t.udpSum + port + (seq32 >> 16) + (seq32 & 0xffff) + (sec >> 16) +
                       (sec & 0xffff) + (usec >> 16) + (usec & 0xffff);
  uint16_t c = csum::Finish(sum);
  // RFC 768: a computed 0 is sent as all ones (pktgen.c:3042 CSUM_MANGLED_0).
  offlab::PutBe16(udp + 6, c == 0 ? 0xffff : c);
  if (!m_ipv6) {
    const uint16_t id = static_cast<uint16_t>(seq);  // pktgen.c:3017 ip_id++ per frame
    uint8_t* ip = p + t.ip;
    offlab::PutBe16(ip + 4, id);
    offlab::PutBe16(ip + 10, csum::Finish(t.ipSum + id));
  }
  return f;
}

void PacketGenerator::SendTrain() {
  std::vector<offlab::Bytes> frames;
  std::vector<Time> departures;
  frames.reserve(m_burst);
  departures.reserve(m_burst);
  const bool stops = !m_config.stop.IsZero();
  bool done = false;
  for (uint32_t k = 0; k < m_burst; k++) {
    const Time t = Departure();
    if (stops && t >= m_config.stop) {
      done = true;
      break;
    }
    const std::size_t s = NextSize();
    const uint32_t size = m_config.frame_sizes[s];
    // pktgen.c:2542 mod_cur_headers(): the source port steps through
    // udp_src_min..udp_src_max one frame at a time, wrapping.
    const uint32_t flow = static_cast<uint32_t>(m_next % m_config.flows);
    frames.push_back(Stamp(m_templates[s], flow, m_next, t));
    departures.push_back(t);
    m_num += m_config.rate_pps ? 1000000u : (size + kGeneratorWireOverhead) * 8u;
    m_next++;
    m_frames++;
    m_bytes += size;
    m_flowFrames[flow]++;
  }
  if (!frames.empty() && m_sink) {
    m_sink(std::move(frames), std::move(departures));
  }
  if (!done) {
    const Time next = Departure();
    if (stops && next >= m_config.stop) {
      return;
    }
    m_event = Simulator::Schedule(next - Simulator::Now(), &PacketGenerator::SendTrain, this);
  }
}

uint32_t PacketGenerator::GetBurst() const { return m_burst; }

double PacketGenerator::GetRatePps() const { return m_pps; }

uint64_t PacketGenerator::GetFrames() const { return m_frames; }

uint64_t PacketGenerator::GetBytes() const { return m_bytes; }

uint64_t PacketGenerator::GetFlowFrames(uint32_t flow) const {
  return flow < m_flowFrames.size() ? m_flowFrames[flow] : 0;
}

void PacketGenerator::DoDispose() {
  m_event.Cancel();
  m_sink = nullptr;
  Object::DoDispose();
}

}  // namespace ns3
