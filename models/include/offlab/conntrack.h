// Connection tracking as the OVS userspace datapath does it (lib/conntrack.c,
// lib/ipf.c) as far as checksums are concerned: validation of the IPv4 and L4
// checksums before a packet is tracked, NAT under rule M, NAT of the headers
// embedded in ICMP errors, and fragment validation and reassembly.
#pragma once

#include <cstdint>
#include <memory>

#include "offlab/counters.h"
#include "offlab/flow.h"
#include "offlab/packet.h"

namespace offlab {

class Conntrack {
 public:
  Conntrack();
  ~Conntrack();
  Conntrack(const Conntrack&) = delete;
  Conntrack& operator=(const Conntrack&) = delete;

  // Runs ct(...) on a parsed packet and returns the packets that continue:
  // usually the packet itself with md.ct_state set (kTracked plus
  // new/established/related/reply/NAT bits, or kInvalid); none while an IPv4
  // fragment waits for the rest; all fragments of a datagram once it is
  // complete (conntrack ran on the reassembled datagram, whose L4 header,
  // finished by send_prepare(p, 0), is copied back into fragment 0).
  PacketBatch Execute(Packet p, const CtSpec& spec, Counters* counters = nullptr);

  size_t connections() const;
  size_t pending_fragments() const;
  void Clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace offlab
