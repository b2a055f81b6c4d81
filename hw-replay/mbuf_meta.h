/* SPDX-License-Identifier: Apache-2.0 */

/*
 * hw-replay: a packet's offload requests as DPDK mbuf metadata, and DPDK's
 * tx_offload_capa as offlab capability bits.
 */
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <string>

#include "offlab/net/packet.h"

namespace hwreplay {

/* DPDK tx_offload_capa bits as offlab cap:: bits (the OVS netdev_ol_flags),
 * and back. */
uint32_t OfflabCaps(uint64_t tx_offload_capa);
uint64_t DpdkTxOffloads(uint32_t caps);

struct TxMeta {
  uint64_t ol_flags = 0;
  uint16_t outer_l2_len = 0, outer_l3_len = 0, l2_len = 0, l3_len = 0, l4_len = 0;
  uint16_t tso_segsz = 0;
};

/* The mbuf metadata for a packet after software completion, for a port with
 * `port_caps` (offlab cap:: bits). */
TxMeta MbufMeta(const offlab::Packet& p, uint32_t port_caps);

/* A new mbuf (chain, if the port takes multi-segment packets) holding `frame`
 * with metadata `m`; throws offlab::Error naming `what`. */
rte_mbuf* BuildMbuf(rte_mempool* pool, const offlab::Bytes& frame, const TxMeta& m, bool multi_seg,
                    const std::string& what);

}  // namespace hwreplay
