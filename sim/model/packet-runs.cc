// SPDX-License-Identifier: Apache-2.0
#include "packet-runs.h"

namespace ns3 {

std::vector<std::pair<std::size_t, std::size_t>> PacketRuns(const std::vector<offlab::Sent>& sent) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::size_t i = 0;
  while (i < sent.size()) {
    std::size_t j = i + 1;
    while (j < sent.size() && sent[j].nic_packet == sent[i].nic_packet &&
           sent[j].port == sent[i].port) {
      j++;
    }
    runs.emplace_back(i, j);
    i = j;
  }
  return runs;
}

}  // namespace ns3
