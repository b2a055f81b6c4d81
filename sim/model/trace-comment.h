// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The pcapng comments of offlab trace format v1 (docs/trace-format.md):
 * a `tx` record for each packet the datapath hands to a NIC's netdev_send,
 * before send-prepare, and a `wire` record for each frame the NIC put on the
 * wire for it, so the simulator's pcaps replay through hw-replay.
 */
#pragma once

#include <cstdint>
#include <string>

#include "offlab/net/bytes.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/pipeline.h"

namespace ns3 {

/** A packet as handed to netdev_send, and where its record landed in the trace. */
struct TxRecord {
  offlab::Bytes frame;
  std::string comment;
  int64_t index = -1;  //!< record number in the pcap once written
};

/** `offlab {"role": "tx", ...}`: offloads word, tso_segsz, layer offsets, mbuf lengths. */
std::string TxComment(const offlab::Packet& p);

/** `offlab {"role": "wire", ...}` for a frame predicted from record `of` on a NIC of `profile`. */
std::string WireComment(const offlab::Sent& s, int64_t of, const std::string& profile);

}  // namespace ns3
