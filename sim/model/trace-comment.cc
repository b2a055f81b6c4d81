// SPDX-License-Identifier: Apache-2.0
#include "trace-comment.h"

#include <algorithm>

#include "offlab/net/dissect.h"
#include "offlab/net/headers.h"
#include "offlab/ovs/offloads.h"

namespace ns3 {

namespace {

constexpr uint16_t kUnset = offlab::kNoOffset;

std::string Ofs(uint16_t o) { return o == kUnset ? "null" : std::to_string(o); }

uint32_t Diff(uint16_t a, uint16_t b) { return a == kUnset || b == kUnset ? 0 : b - a; }

// The L4 header length DPDK's l4_len wants: TCP data offset, UDP 8, SCTP 12.
uint32_t L4HeaderLen(const offlab::Packet& p, uint16_t l3, uint16_t l4) {
  if (l3 == kUnset || l4 == kUnset || l4 >= p.size()) {
    return 0;
  }
  // Headers only (up to the TCP data offset): a shared payload stays shared.
  const uint8_t* d = p.Linear(std::max<std::size_t>(l4 + 13u, l3 + 40u));
  uint8_t proto;
  if ((d[l3] >> 4) == 4) {
    proto = d[l3 + 9];
  } else if ((d[l3] >> 4) == 6) {
    proto = d[l3 + 6];
    std::size_t at = l3 + 40u;
    while (at < l4 && (proto == 0 || proto == 43 || proto == 60) && at + 2 <= p.size()) {
      const uint8_t next = d[at];
      at += (d[at + 1] + 1u) * 8u;
      proto = next;
    }
  } else {
    return 0;
  }
  if (proto == offlab::hdr::kProtoTcp && l4 + 13u <= p.size()) {
    return (d[l4 + 12] >> 4) * 4u;
  }
  return proto == offlab::hdr::kProtoUdp ? 8 : proto == 132 ? 12 : 0;
}

}  // namespace

std::string TxComment(const offlab::Packet& p) {
  const bool tunnel = p.offloads.tunnel() != offlab::TunnelType::kNone;
  uint32_t outerL2 = 0, outerL3 = 0, l2, l3, l4;
  if (tunnel) {
    outerL2 = p.l3_ofs == kUnset ? 0 : p.l3_ofs;
    outerL3 = Diff(p.l3_ofs, p.l4_ofs);
    l2 = Diff(p.l4_ofs, p.inner_l3_ofs);
    l3 = Diff(p.inner_l3_ofs, p.inner_l4_ofs);
    l4 = L4HeaderLen(p, p.inner_l3_ofs, p.inner_l4_ofs);
  } else {
    l2 = p.l3_ofs == kUnset ? 0 : p.l3_ofs;
    l3 = Diff(p.l3_ofs, p.l4_ofs);
    l4 = L4HeaderLen(p, p.l3_ofs, p.l4_ofs);
  }
  return "offlab {\"role\": \"tx\", \"op\": \"send\", \"offloads\": " +
         std::to_string(p.offloads.word()) + ", \"tso_segsz\": " + std::to_string(p.tso_segsz) +
         ", \"ofs\": {\"l3\": " + Ofs(p.l3_ofs) + ", \"l4\": " + Ofs(p.l4_ofs) +
         ", \"inner_l2\": " + Ofs(p.inner_l2_ofs) + ", \"inner_l3\": " + Ofs(p.inner_l3_ofs) +
         ", \"inner_l4\": " + Ofs(p.inner_l4_ofs) +
         "}, \"mbuf\": {\"outer_l2_len\": " + std::to_string(outerL2) +
         ", \"outer_l3_len\": " + std::to_string(outerL3) + ", \"l2_len\": " + std::to_string(l2) +
         ", \"l3_len\": " + std::to_string(l3) + ", \"l4_len\": " + std::to_string(l4) + "}}";
}

std::string WireComment(const offlab::Sent& s, int64_t of, const std::string& profile) {
  std::string csum;
  for (const offlab::ChecksumField& c : offlab::Dissect(s.frame).checksums) {
    std::string key(c.layer);
    if (c.depth != 0) key += "@" + std::to_string(c.depth);
    csum += (csum.empty() ? "\"" : ", \"") + key + "\": \"" + offlab::ToString(c.verdict) + "\"";
  }
  std::string out = "offlab {\"role\": \"wire\", \"op\": \"wire\", ";
  if (of >= 0) {
    out += "\"of\": " + std::to_string(of) + ", ";
  }
  return out + "\"profile\": \"" + profile + "\", \"port\": \"" + s.port +
         "\", \"offloads\": " + std::to_string(s.offloads.word()) +
         ", \"tso_segsz\": " + std::to_string(s.tso_segsz) + ", \"csum\": {" + csum + "}}";
}

}  // namespace ns3
