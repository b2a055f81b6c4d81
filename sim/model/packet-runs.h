// SPDX-License-Identifier: Apache-2.0
// The wire frames a datapath run emits, cut back into the packets they came
// from: consecutive frames of one port with the same nic_packet are one
// packet handed to that port's NIC, which queues or drops it whole.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "offlab/ovs/pipeline.h"

namespace ns3 {

// [first, last) index ranges into `sent`, in order.
std::vector<std::pair<std::size_t, std::size_t>> PacketRuns(const std::vector<offlab::Sent>& sent);

}  // namespace ns3
