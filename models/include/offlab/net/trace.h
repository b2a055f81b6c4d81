/* SPDX-License-Identifier: Apache-2.0 */

/*
 * Reading offlab traces (docs/trace-format.md): pcapng whose packet comments
 * `offlab {json}` carry the offload metadata of a packet handed to a NIC (tx
 * records) or a frame predicted on the wire (wire records). Shared by
 * hw-replay and the simulator's trace replay.
 */

#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/offloads.h"

namespace offlab::trace {

enum class Role { kTx, kWire, kStep };

/* What a receiving NIC is expected to report for a frame (trace `rx`). */
struct RxReport {
  CsumStatus ip = CsumStatus::kUnknown;
  CsumStatus l4 = CsumStatus::kUnknown;
  CsumStatus inner_ip = CsumStatus::kUnknown;
  CsumStatus inner_l4 = CsumStatus::kUnknown;
};

struct Record {
  Bytes frame;
  Role role = Role::kStep;
  std::string op;
  uint32_t offloads = 0;
  uint16_t tso_segsz = 0;
  /* l3, l4, inner_l2, inner_l3, inner_l4 offsets; kNoOffset when unset. */
  std::array<uint16_t, 5> ofs{kNoOffset, kNoOffset, kNoOffset, kNoOffset, kNoOffset};
  int of = -1;         /* wire: index of its tx record */
  std::string profile; /* wire: the profile it was predicted for */
  std::map<std::string, RxReport> rx;

  /* The record as a core packet (bytes, offsets, offloads, tso_segsz). */
  Packet ToPacket() const;
};

/*
 * Reads and validates a trace. Throws offlab::Error with a one-line message
 * naming the file, the packet (1-based) and the problem.
 */
std::vector<Record> ReadTrace(const std::string &path);
/* The same for a trace in memory; `name` starts every error message. */
std::vector<Record> ParseTrace(const Bytes &data, const std::string &name);

/* Parses "unknown" | "bad" | "good" | "partial"; throws offlab::Error. */
CsumStatus StatusFromName(const std::string &name);

}  // namespace offlab::trace
