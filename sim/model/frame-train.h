// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * Frames that cross the wire back to back as one simulator event: a TSO
 * burst, a software-GSO batch, or a single frame in per-frame mode. Each
 * frame keeps its own exact arrival time.
 */
#pragma once

#include <vector>

#include "ns3/nstime.h"
#include "ns3/simple-ref-count.h"
#include "offlab/net/bytes.h"

namespace ns3 {

struct FrameTrain : public SimpleRefCount<FrameTrain> {
  std::vector<offlab::Bytes> frames;
  std::vector<Time> arrivals;  //!< when the last bit of each frame reaches the peer
};

}  // namespace ns3
