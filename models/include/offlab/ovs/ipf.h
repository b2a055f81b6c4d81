// IPv4 and IPv6 fragment handling in front of connection tracking (OVS
// lib/ipf.c): validation of each fragment (an IPv4 fragment's header
// checksum), holding fragments until a datagram is complete, reassembly for
// conntrack, and the release of the original fragments with what conntrack
// decided (state, NAT, L4 header).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "offlab/net/counters.h"
#include "offlab/net/packet.h"

namespace offlab {

struct IpfConfig {
  // A fragment other than the last whose L3 size is below this is invalid
  // (OVS min_v4_frag_size, default 1200, settable down to 400).
  uint16_t min_v4_frag_size = 1200;
  // The same for IPv6 (OVS min_v6_frag_size, default 1280, settable down to 400).
  uint16_t min_v6_frag_size = 1280;
  // Fragments held at once over all datagrams (OVS nfrag_max).
  size_t max_fragments = 1000;
};

class Ipf {
 public:
  explicit Ipf(IpfConfig cfg = {});

  enum class Verdict : uint8_t {
    kNotFragment,  // not for ipf: conntrack proper handles it
    kInvalid,      // conntrack must mark it invalid without looking at it
    kFragment,     // a well-formed fragment (IPv4: with a verified header)
  };
  // ipf_is_valid_v4_frag / ipf_is_valid_v6_frag on a parsed IP packet. An
  // unknown IPv4 header status is checked in software (ipf_l3csum_checked)
  // and becomes good or bad; a bad one makes the fragment invalid
  // (ipf_l3csum_err).
  Verdict Validate(Packet& p, Counters* counters) const;

  enum class Outcome : uint8_t {
    kHeld,       // the fragment was taken; nothing to process now
    kNotHeld,    // not taken (limits, a finished list): `packet` is it, unchanged
    kInvalid,    // overlaps or duplicates a held fragment: `packet` is it
    kCompleted,  // this fragment completed a datagram: `packet` is the reassembly
  };
  struct AddResult {
    Outcome outcome = Outcome::kHeld;
    Packet packet;
    uint64_t datagram = 0;  // kCompleted: the handle for Release()
  };
  // Takes a fragment that Validate() accepted. The reassembled datagram is a
  // copy of the first fragment grown by the others' data, parsed again: IPv4
  // with total length and fragment field fixed under rule M; IPv6 with its
  // payload length fixed and the fragment header taken out (OVS leaves it in
  // with offset and M cleared and points the L4 offset past it; conntrack sees
  // the same addresses, protocol, L4 bytes and pseudo-header length either way,
  // and the reassembly never leaves ipf).
  AddResult Add(Packet p, uint16_t zone);

  // After conntrack ran on a completed datagram's reassembly: finishes every
  // partial checksum of `reassembled` in software, copies its L4 bytes into
  // the first fragment, gives every fragment its conntrack metadata and
  // (possibly translated) addresses under rule M, and returns the fragments
  // in offset order. Throws offlab::Error if a partial checksum of the
  // reassembly cannot be finished (OVS asserts there); its fragments are
  // dropped then.
  PacketBatch Release(uint64_t datagram, Packet& reassembled);

  size_t held_fragments() const { return held_; }
  void Clear();

 private:
  struct ListKey {
    bool v6 = false;
    std::array<uint8_t, 16> src{}, dst{};
    uint32_t id = 0;
    uint8_t proto = 0;  // IPv4 only, as in OVS
    uint16_t zone = 0;
    uint32_t recirc_id = 0;
    auto operator<=>(const ListKey&) const = default;
  };
  struct Frag {
    Packet packet;
    size_t start = 0, end = 0;  // first and last data byte in the datagram
  };
  struct List {
    std::vector<Frag> frags;
    bool first_seen = false, last_seen = false;
    uint64_t id = 0;
  };

  // Builds the reassembly of a complete, sorted list; false if too large.
  static bool Reassemble(const List& list, Packet* out);
  static bool ReassembleV6(const List& list, Packet* out);
  Verdict ValidateV6(const Packet& p) const;
  // Release() for IPv6: the first fragment's L4 bytes and every fragment's
  // addresses from the (finished) reassembly.
  static PacketBatch ReleaseV6(List& list, const Packet& reassembled);

  IpfConfig cfg_;
  size_t max_list_size_;
  std::map<ListKey, List> lists_;
  std::map<uint64_t, ListKey> completed_;
  uint64_t next_id_ = 1;
  size_t held_ = 0;
};

}  // namespace offlab
