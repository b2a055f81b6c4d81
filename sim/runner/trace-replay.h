// SPDX-License-Identifier: Apache-2.0
// Replaying an offlab trace (docs/trace-format.md) in the simulator: every
// `tx` record is handed to a simulated NIC's netdev_send as recorded, the NIC
// puts the frames on a simulated cable, and a second NIC receives and
// validates them. What reaches the wire and what the receiver reports is the
// result; the sending NIC's pcap is itself a trace.
#pragma once

#include <string>
#include <vector>

namespace offlab::sim {

struct ReplayOptions {
  std::string trace;
  std::string nic;                  //!< empty: the profile the trace's wire records name
  std::string rxNic;                //!< empty: the same as nic
  std::vector<std::string> inject;  //!< seeded faults to turn on (offlab faults)
  bool gro = false;                 //!< the receiver coalesces (GRO/LRO) what it gets
  std::string pcapPath;             //!< empty: no pcap
};

struct ReplayChecksum {
  std::string layer;    //!< "udp", "tcp@1" (depth after '@')
  std::string verdict;  //!< "correct", "incorrect", "absent", "not checked"
};

struct ReplayFrame {
  std::size_t bytes = 0;
  std::vector<ReplayChecksum> checksums;  //!< recomputed from the wire bytes
  bool wrong = false;                     //!< some checksum is incorrect
  double arrivalUs = 0;
};

struct ReplayRecord {
  std::size_t number = 0;  //!< 1-based packet number in the trace, as Wireshark counts
  std::string op;
  std::string handed;               //!< offloads word of the packet handed to the NIC, described
  std::vector<std::string> errors;  //!< netdev_send refusals (packet dropped)
  std::vector<std::string> violations;  //!< requests outside the NIC's capabilities
  std::vector<ReplayFrame> frames;
};

struct ReplayResult {
  std::string trace, nic, rxNic;
  std::vector<std::string> inject;
  std::vector<ReplayRecord> records;
  std::vector<std::string> received;  //!< per packet the receiver delivered: its status word
  std::size_t wireFrames = 0, wrongFrames = 0, droppedPackets = 0;
  double simUs = 0;
};

/** Throws offlab::Error naming the problem (bad trace, unknown profile or fault). */
ReplayResult ReplayTrace(const ReplayOptions& options);
std::string ToJson(const ReplayResult& r);
/** A table for the terminal: one line per wire frame. */
std::string ToTable(const ReplayResult& r);

}  // namespace offlab::sim
