/* SPDX-License-Identifier: Apache-2.0 */

/*
 * hw-replay: a packet's offload requests as DPDK mbuf metadata (ol_flags,
 * l2/l3/l4/outer lengths, tso_segsz), and the port capabilities they may use.
 */

#include "mbuf_meta.h"

#include <rte_ethdev.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "offlab/net/error.h"
#include "offlab/nic/caps.h"

using offlab::Bytes;
using offlab::CsumStatus;
using offlab::Error;
using offlab::Level;
using offlab::Packet;
using offlab::TunnelType;

namespace hwreplay {

namespace {
constexpr uint32_t kTunnelCaps = offlab::cap::kVxlanTnlTso | offlab::cap::kGeneveTnlTso |
                                 offlab::cap::kGreTnlTso | offlab::cap::kOuterIpCksum |
                                 offlab::cap::kOuterUdpCksum;
}  // namespace

/*
 * Port capabilities. DPDK's tx_offload_capa bits mapped to offlab's cap::
 * bits (the values of OVS lib/netdev-provider.h `enum netdev_ol_flags`, as
 * OVS lib/netdev-dpdk.c derives them from the same DPDK bits).
 */
namespace {
struct CapMap {
  uint64_t dpdk;
  uint32_t offlab;
};
constexpr CapMap kCapMap[] = {
    {RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, offlab::cap::kIpv4Cksum},
    {RTE_ETH_TX_OFFLOAD_TCP_CKSUM, offlab::cap::kTcpCksum},
    {RTE_ETH_TX_OFFLOAD_UDP_CKSUM, offlab::cap::kUdpCksum},
    {RTE_ETH_TX_OFFLOAD_SCTP_CKSUM, offlab::cap::kSctpCksum},
    {RTE_ETH_TX_OFFLOAD_TCP_TSO, offlab::cap::kTcpTso},
    {RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO, offlab::cap::kVxlanTnlTso},
    {RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO, offlab::cap::kGeneveTnlTso},
    {RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO, offlab::cap::kGreTnlTso},
    {RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM, offlab::cap::kOuterIpCksum},
    {RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM, offlab::cap::kOuterUdpCksum},
};

}  // namespace

uint32_t OfflabCaps(uint64_t tx_offload_capa) {
  uint32_t caps = 0;
  for (const CapMap& m : kCapMap) {
    if (tx_offload_capa & m.dpdk) caps |= m.offlab;
  }
  return caps;
}

uint64_t DpdkTxOffloads(uint32_t caps) {
  uint64_t o = 0;
  for (const CapMap& m : kCapMap) {
    if (caps & m.offlab) o |= m.dpdk;
  }
  return o;
}

namespace {

/* Layer length of the L4 header at `l4` (TCP data offset, UDP 8, SCTP 12). */
uint16_t L4HeaderLen(const Packet& p, uint16_t l4, offlab::L4Proto proto) {
  if (l4 == offlab::kNoOffset || p.SizeFrom(l4) < 20) {
    return proto == offlab::L4Proto::kUdp ? 8 : proto == offlab::L4Proto::kSctp ? 12 : 0;
  }
  switch (proto) {
    case offlab::L4Proto::kTcp:
      return static_cast<uint16_t>((p.data()[l4 + 12] >> 4) * 4);
    case offlab::L4Proto::kUdp:
      return 8;
    case offlab::L4Proto::kSctp:
      return 12;
    case offlab::L4Proto::kNone:
      return 0;
  }
  return 0;
}

bool Ipv4At(const Packet& p, uint16_t l3) {
  return l3 != offlab::kNoOffset && p.SizeFrom(l3) > 0 && (p.data()[l3] >> 4) == 4;
}

}  // namespace

/*
 * The mbuf metadata of a packet after software completion: every status
 * still partial is a request for the NIC (the DPDK conventions of
 * lib/mbuf/rte_mbuf_core.h; what OVS lib/netdev-dpdk.c requests for the same
 * offloads word). Lengths follow docs/trace-format.md.
 */
TxMeta MbufMeta(const Packet& p, uint32_t port_caps) {
  const offlab::Offloads& o = p.offloads;
  TxMeta m;
  auto diff = [](uint16_t a, uint16_t b) -> uint16_t {
    return a == offlab::kNoOffset || b == offlab::kNoOffset || b < a ? 0 : b - a;
  };
  /* A port that advertises no tunnel offload is given a tunnelled packet as
   * a plain one whose L2 header reaches to the inner L3 one, with no tunnel
   * or outer flags: DPDK v22.11.11 doc/guides/prog_guide/mbuf_lib.rst:153-175
   * ("calculate checksum of in_ip and in_tcp"), the form every NIC with
   * IPV4/TCP/UDP_CKSUM supports. The tunnel flags would be ignored by such a
   * driver, which then computes at l2_len from the frame's start (the TAP PMD,
   * drivers/net/tap/rte_eth_tap.c:664-673 at v22.11.11). NetdevSend leaves no
   * outer request for such a port, so nothing is lost. */
  const bool tunnel = o.tunnelled() && (port_caps & kTunnelCaps);
  const Level in = o.tunnelled() ? Level::kInner : Level::kOuter;
  const uint16_t l3 = o.tunnelled() ? p.inner_l3_ofs : p.l3_ofs;
  const uint16_t l4 = o.tunnelled() ? p.inner_l4_ofs : p.l4_ofs;
  uint64_t f = 0;
  if (o.ip(in) == CsumStatus::kPartial && Ipv4At(p, l3)) f |= RTE_MBUF_F_TX_IP_CKSUM;
  if (o.l4(in) == CsumStatus::kPartial || p.tso_segsz) {
    switch (o.l4_proto(in)) {
      case offlab::L4Proto::kTcp:
        f |= RTE_MBUF_F_TX_TCP_CKSUM;
        break;
      case offlab::L4Proto::kUdp:
        f |= RTE_MBUF_F_TX_UDP_CKSUM;
        break;
      case offlab::L4Proto::kSctp:
        f |= RTE_MBUF_F_TX_SCTP_CKSUM;
        break;
      case offlab::L4Proto::kNone:
        break;
    }
  }
  if (p.tso_segsz) {
    /* TSO of IPv4 also asks for the IP checksum of every segment
     * (rte_mbuf_core.h, RTE_MBUF_F_TX_TCP_SEG). */
    f |= RTE_MBUF_F_TX_TCP_SEG | (Ipv4At(p, l3) ? RTE_MBUF_F_TX_IP_CKSUM : 0);
    m.tso_segsz = p.tso_segsz;
  }
  if (tunnel) {
    if (o.ip() == CsumStatus::kPartial && Ipv4At(p, p.l3_ofs)) f |= RTE_MBUF_F_TX_OUTER_IP_CKSUM;
    if (o.l4() == CsumStatus::kPartial && o.tunnel() != TunnelType::kGre) {
      f |= RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
    }
  }
  if (f) {
    /* Any request needs the IP version of the header it concerns. */
    f |= Ipv4At(p, l3) ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6;
    if (tunnel) {
      f |= Ipv4At(p, p.l3_ofs) ? RTE_MBUF_F_TX_OUTER_IPV4 : RTE_MBUF_F_TX_OUTER_IPV6;
      switch (o.tunnel()) {
        case TunnelType::kVxlan:
          f |= RTE_MBUF_F_TX_TUNNEL_VXLAN;
          break;
        case TunnelType::kGeneve:
          f |= RTE_MBUF_F_TX_TUNNEL_GENEVE;
          break;
        case TunnelType::kGre:
          f |= RTE_MBUF_F_TX_TUNNEL_GRE;
          break;
        case TunnelType::kNone:
          break;
      }
    }
  }
  m.ol_flags = f;
  if (tunnel) {
    m.outer_l2_len = p.l3_ofs == offlab::kNoOffset ? 0 : p.l3_ofs;
    m.outer_l3_len = diff(p.l3_ofs, p.l4_ofs);
    m.l2_len = diff(p.l4_ofs, p.inner_l3_ofs);
  } else {
    m.l2_len = l3 == offlab::kNoOffset ? 0 : l3;
  }
  m.l3_len = diff(l3, l4);
  m.l4_len = L4HeaderLen(p, l4, o.l4_proto(in));
  return m;
}

/*
 * Copies a frame into a new mbuf, chaining segments when it does not fit one
 * (only if the port takes multi-segment packets).
 */
rte_mbuf* BuildMbuf(rte_mempool* pool, const Bytes& frame, const TxMeta& m, bool multi_seg,
                    const std::string& what) {
  rte_mbuf* head = rte_pktmbuf_alloc(pool);
  if (!head) throw Error("mbuf pool exhausted");
  const size_t room = rte_pktmbuf_tailroom(head);
  if (frame.size() > room && !multi_seg) {
    rte_pktmbuf_free(head);
    throw Error(what + ": a " + std::to_string(frame.size()) +
                "-byte frame needs chained mbufs and the port has no multi-segment TX");
  }
  size_t done = 0;
  rte_mbuf* seg = head;
  while (true) {
    const size_t n = std::min(frame.size() - done, static_cast<size_t>(rte_pktmbuf_tailroom(seg)));
    std::memcpy(rte_pktmbuf_mtod(seg, uint8_t*), frame.data() + done, n);
    seg->data_len = static_cast<uint16_t>(n);
    done += n;
    if (done == frame.size()) break;
    rte_mbuf* next = rte_pktmbuf_alloc(pool);
    if (!next) {
      rte_pktmbuf_free(head);
      throw Error("mbuf pool exhausted");
    }
    seg->next = next;
    head->nb_segs++;
    seg = next;
  }
  head->pkt_len = static_cast<uint32_t>(frame.size());
  head->ol_flags = m.ol_flags;
  head->outer_l2_len = m.outer_l2_len;
  head->outer_l3_len = m.outer_l3_len;
  head->l2_len = m.l2_len;
  head->l3_len = m.l3_len;
  head->l4_len = m.l4_len;
  head->tso_segsz = m.tso_segsz;
  return head;
}

}  // namespace hwreplay
