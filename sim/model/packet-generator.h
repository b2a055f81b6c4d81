// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A packet generator source like Linux pktgen, TRex or testpmd txonly:
 * Ethernet/IPv4-or-IPv6/UDP frames of fixed or mixed sizes at a set rate or
 * line rate over N flows. At small frames and tens of Gbit/s one event per
 * frame is too slow to simulate, so frames leave in trains: one event hands
 * the sink a burst of frames, each with its exact departure time.
 *
 * Frame layout (pktgen's, torvalds/linux v6.18-rc1 net/core/pktgen.c:440
 * struct pktgen_hdr, stamped in pktgen_finalize_skb() at :2878): Ethernet,
 * IPv4 (TTL 32, ID incrementing per frame, no DF, as fill_packet_ipv4() at
 * :3012) or IPv6 (hop limit 32, flow label 0, fill_packet_ipv6() at :3150),
 * UDP with a correct checksum (pktgen's UDPCSUM flag; 0 sent as 0xffff, RFC
 * 768), then the 16-byte pktgen header at the start of the UDP payload:
 * magic 0xbe9be955, the stream's 32-bit sequence number, and the departure
 * time as tv_sec / tv_usec (simulated time); the rest of the payload is zero.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "offlab/net/bytes.h"

namespace ns3 {

/** What a PacketGenerator sends; Validate() checks it. */
struct GeneratorConfig {
  /** Bytes on the wire without FCS (60..9018); several make a mix. */
  std::vector<uint32_t> frame_sizes{60};
  /** Relative frequency of each size; empty means equal. */
  std::vector<double> weights;
  /** L1 rate (frame + FCS + preamble + IFG, like TRex's L1 rate); unset with rate_pps unset
   * means line rate. */
  std::optional<double> rate_gbps;
  std::optional<double> rate_pps;
  /** The port's line rate, which rate_gbps may not exceed. */
  double line_gbps = 0;
  /** Distinct UDP source ports udp_src .. udp_src + flows - 1, one per frame in turn. */
  uint32_t flows = 1;
  /** pktgen's defaults for both ports: 9, discard (pktgen.c:3858 pktgen_add_device). */
  uint32_t udp_src = 9;
  uint32_t udp_dst = 9;
  std::string src_mac = "02:00:00:00:00:01";
  std::string dst_mac = "02:00:00:00:00:02";
  /** Both IPv4 or both IPv6. */
  std::string src_ip = "10.0.0.1";
  std::string dst_ip = "10.0.0.2";
  /** Frames per train; unset: as many as leave in ~10 us at the rate, at least 1. */
  std::optional<uint32_t> burst;
  /** The first frame leaves at `start`; none leaves at or after `stop` (zero: never stops). */
  Time start = Seconds(0);
  Time stop = Seconds(0);

  /** The simple IMIX: 7:4:1 of 64/594/1518-byte frames with FCS. */
  void UseImix();
  /** Throws offlab::Error with a one-line message naming the field. */
  void Validate() const;
};

/** Bytes on the line per frame besides the frame without FCS: FCS 4, preamble+SFD 8, IFG 12. */
inline constexpr uint32_t kGeneratorWireOverhead = 24;

class PacketGenerator : public Object {
 public:
  static TypeId GetTypeId();

  /** Called once per train when its first frame leaves; later frames leave at their times. */
  using Sink = std::function<void(std::vector<offlab::Bytes> frames, std::vector<Time> departures)>;

  /** Validates (throws offlab::Error) and builds the frame templates. */
  void SetConfig(const GeneratorConfig& config);
  const GeneratorConfig& GetConfig() const;
  void SetSink(Sink sink);
  /** Schedules the first train at the configured start (or now, if later). */
  void Start();
  /** Sends nothing more. */
  void Stop();

  /** Frames per train in use. */
  uint32_t GetBurst() const;
  /** The rate in use, in frames per second (averaged over the mix). */
  double GetRatePps() const;
  uint64_t GetFrames() const;
  /** Frame bytes without FCS. */
  uint64_t GetBytes() const;
  /** Frames sent on flow `flow` (0 .. flows-1, UDP source port udp_src + flow). */
  uint64_t GetFlowFrames(uint32_t flow) const;

 protected:
  void DoDispose() override;

 private:
  struct Template {
    offlab::Bytes frame;
    std::size_t ip = 14, udp = 34;  //!< header offsets
    uint64_t ipSum = 0;             //!< IPv4 header sum with ID and checksum zero
    uint64_t udpSum = 0;            //!< pseudo-header + UDP with port, stamp, checksum zero
  };
  void BuildTemplates();
  Template BuildTemplate(uint32_t size) const;
  void SendTrain();
  /** Index into frame_sizes of frame `m_next`: smooth weighted round robin. */
  std::size_t NextSize();
  /** When frame `m_next` leaves, from the cumulative L1 bits or frame count. */
  Time Departure() const;
  offlab::Bytes Stamp(const Template& t, uint32_t flow, uint64_t seq, Time departure) const;

  GeneratorConfig m_config;
  bool m_configured = false;
  bool m_ipv6 = false;
  std::vector<Template> m_templates;
  std::vector<double> m_weights;
  std::vector<double> m_credit;
  double m_weightSum = 0;
  Sink m_sink;
  EventId m_event;
  uint32_t m_burst = 1;
  double m_pps = 0;

  // Departure of frame m_next: start + floor(m_num * ticks per second / m_den),
  // m_num counting L1 bits (rate_gbps) or thousandths of frames (rate_pps).
  uint64_t m_den = 1;
  unsigned __int128 m_num = 0;
  Time m_origin;
  uint64_t m_next = 0;

  uint64_t m_frames = 0, m_bytes = 0;
  std::vector<uint64_t> m_flowFrames;
};

}  // namespace ns3
