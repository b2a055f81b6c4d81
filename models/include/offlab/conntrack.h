// Connection tracking as the OVS userspace datapath does it (lib/conntrack.c,
// lib/ipf.c) as far as checksums are concerned: validation of the IPv4 and L4
// checksums before a packet is tracked, NAT under rule M, NAT of the headers
// embedded in ICMP errors, and fragment validation/reassembly.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

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

  // Runs ct(...) on a parsed packet: sets p.md.ct_state (kTracked plus
  // new/established/related/reply, or kInvalid) and p.md.ct_zone, commits
  // the connection if asked, and applies NAT. Returns false if the packet was
  // consumed (a fragment held for reassembly).
  bool Execute(Packet& p, const CtSpec& spec, Counters* counters = nullptr);

  size_t connections() const;
  void Clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace offlab
