// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The per-frame pcapng comment of offlab traces: `offlab {json}` with the
 * offloads word and tso_segsz of the packet the datapath handed to the NIC.
 */
#pragma once

#include <string>

#include "offlab/pipeline.h"

namespace ns3 {

inline std::string TraceComment(const offlab::Sent& s) {
  return "offlab {\"op\": \"wire\", \"port\": \"" + s.port +
         "\", \"offloads\": " + std::to_string(s.offloads.word()) +
         ", \"tso_segsz\": " + std::to_string(s.tso_segsz) + "}";
}

}  // namespace ns3
