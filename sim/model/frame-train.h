// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * Frames that cross the wire back to back as one simulator event: a TSO
 * burst, a software-GSO batch, or a single frame in per-frame mode. Each
 * frame keeps its own exact arrival time.
 *
 * A frame cut from a TSO packet may carry its payload as a shared tail
 * (offlab/net/payload.h) instead of a copy: its bytes are then frames[i]
 * followed by tails[i]. `tails` is empty when no frame has one. A host that
 * reads `frames` directly (OffloadNetDevice::SetTrainHandler: a kernel host,
 * a frame sink) gets the train joined, so for it `frames` are whole.
 */
#pragma once

#include <vector>

#include "ns3/nstime.h"
#include "ns3/simple-ref-count.h"
#include "offlab/net/bytes.h"
#include "offlab/net/payload.h"

namespace ns3 {

struct FrameTrain : public SimpleRefCount<FrameTrain> {
  std::vector<offlab::Bytes> frames;
  std::vector<Time> arrivals;       //!< when the last bit of each frame reaches the peer
  std::vector<offlab::Rope> tails;  //!< empty, or one per frame: the rest of its bytes

  /** Copies every tail into its frame, so `frames` hold the whole bytes. */
  void Join() {
    for (std::size_t i = 0; i < tails.size() && i < frames.size(); i++) {
      if (tails[i].empty()) {
        continue;
      }
      const std::size_t head = frames[i].size();
      frames[i].resize(head + tails[i].size());
      tails[i].CopyTo(frames[i].data() + head);
    }
    tails.clear();
  }
};

}  // namespace ns3
