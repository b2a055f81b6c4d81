// A bridge port as the pipeline keeps it: shared by the files of
// offlab::Pipeline (pipeline.cc: ports, lookup, output; pipeline_execute.cc:
// action lists).
#pragma once

#include <cstdint>
#include <optional>

#include "offlab/ovs/pipeline.h"

namespace offlab {

struct Pipeline::Port {
  PortConfig cfg;
  uint32_t ofport = 0;
  NicProfile profile;
  NicTx tx;
  bool dummy = false;
  std::optional<CsumStatus> rx_ip, rx_l4;  // dummy forced RX statuses
  uint16_t rx_tso_segsz = 0;
  uint32_t underlay = 0;
  TxLengthLimit tx_len;
};

}  // namespace offlab
