// Connection tracking as the OVS userspace datapath does it (lib/conntrack.c,
// lib/ipf.c) as far as checksums are concerned: validation of the IPv4 and L4
// checksums before a packet is tracked, NAT under rule M, NAT of the headers
// embedded in ICMP errors, and fragment validation/reassembly.
//
// Connections are keyed by zone and 5-tuple (ICMP queries by id and type) in
// both directions. Only ct(commit) creates one. States follow OVS: the first
// packets are new, a reply is est+rpl and makes later original-direction
// packets est; TCP is tracked by flags only (SYN, FIN, RST), without windows.
// NAT happens when the ct action carries nat: at commit the nat(src=|dst=)
// address (and port) is chosen, and every later ct(nat...) on a packet of the
// connection translates it, in reverse for replies.
#pragma once

#include <cstdint>
#include <memory>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"
#include "offlab/ovs/flow.h"
#include "offlab/ovs/ipf.h"

namespace offlab {

class Conntrack {
 public:
  explicit Conntrack(IpfConfig ipf = {});
  ~Conntrack();
  Conntrack(const Conntrack&) = delete;
  Conntrack& operator=(const Conntrack&) = delete;

  // Runs ct(...) on a batch of parsed packets, as conntrack_execute does:
  // each gets p.md.ct_state (kTracked plus new/established/related/reply and
  // NAT bits, or kInvalid) and p.md.ct_zone; connections are committed and
  // NAT applied as asked. IPv4 fragments are held until their datagram is
  // complete; the reassembly goes through conntrack and the original
  // fragments are released in its place, in offset order, with its state,
  // its addresses and (first fragment) its L4 header. Returns the packets to
  // continue with: the input minus held fragments plus released ones.
  PacketBatch Execute(PacketBatch batch, const CtSpec& spec, Counters* counters = nullptr);

  // The batch form on {p}. Returns false if the packet was consumed (a held
  // fragment); otherwise p is the packet to continue with. A fragment that
  // completes a datagram releases several packets, which this form cannot
  // return: it throws offlab::Error then (the fragments are lost), so callers
  // that may see fragments use the batch form.
  bool Execute(Packet& p, const CtSpec& spec, Counters* counters = nullptr);

  size_t connections() const;
  size_t held_fragments() const;
  void Clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace offlab
