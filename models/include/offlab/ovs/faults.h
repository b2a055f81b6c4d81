// Seeded historical bugs (Open vSwitch, and one in DPDK below OVS), switchable
// at run time so tests and the verifier can show that each one is caught. All
// are off by default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace offlab {

enum class Fault : uint8_t {
  // c6538b443984: re-parse after encapsulation reset the inner offsets and let
  // the outer proto/status stand for the inner ones.
  kRecircResetsInnerOffsets,
  // e99ce7d5d: the simple-match parser did not record the L4 protocol, so
  // partial L4 checksums were never completed.
  kSimpleMatchNoL4Proto,
  // 5603b869a: the vnet header seeded an IPv6 UDP partial checksum with a
  // pseudo-header read from the L4 pointer instead of the IPv6 header.
  kVnetIpv6UdpWrongPseudoBase,
  // c852a8c76: decap re-checked NIC-bad checksums in software and accepted
  // them when the bytes verified.
  kDecapRechecksBad,
  // 71f3dd3e9: NAT of headers embedded in an ICMP error saw the outer status
  // and skipped their checksums.
  kCtIcmpErrorKeepsOuterStatus,
  // 4b00509ea: conntrack skipped the IPv4 check of packets with unknown status.
  kCtSkipsUnknownIpCheck,
  // 8a7f1292d: ipf tested the bad flag before "is this a fragment".
  kIpfChecksNonFragments,
  // d49994634: composing a packet with a bad checksum did not set the bad status.
  kComposeBadCsumNoStatus,
  // DPDK f876dbef0809 (DPDK Bugzilla 1406): before it, the Intel drivers'
  // tx_prepare did not seed the outer UDP checksum field with the pseudo-header
  // sum, so hardware that adds the segment to the field (E810) sent a wrong
  // outer UDP checksum over OVS's placeholder.
  kIntelOuterUdpUnseeded,
  // Not historical: seeded for the conformance fuzzer (docs/verification.md).
  // UDP's "a checksum of 0 means none" (RFC 768) applied to TCP, whose
  // checksum is mandatory (RFC 9293 section 3.1) and may be 0x0000: an
  // incremental update of a TCP checksum that is 0x0000 is skipped, leaving
  // it stale. Only packets whose TCP checksum happens to be 0 show it.
  kTcpZeroCsumTakenAsAbsent,
  // Not a historical bug: a value-dependent one for the verifier's directed
  // witnesses. The incremental UDP checksum update of a set-field rewrite
  // tests its result, not the old field, for "no checksum" (RFC 768 zero),
  // so when the update comes out 0x0000 (the folded sum 0xffff) the stale
  // old checksum stays. OVS (v3.1.0 lib/packets.c, packet_set_ipv4_addr)
  // tests the old field and sends a computed zero as 0xffff.
  kUdpUpdateZeroKeepsStaleCsum,
};

constexpr int kNumFaults = 11;

// Stable names used by the CLI and the verifier, e.g. "recirc-resets-inner-offsets".
const char* FaultName(Fault f);
const char* FaultCommit(Fault f);
// The project the fixing commit belongs to: "OVS" or "DPDK"; "seeded" for a
// bug of the project's own (no fixing commit).
const char* FaultProject(Fault f);
// Throws offlab::Error listing the known names for an unknown one.
Fault FaultFromName(const std::string& name);
std::vector<Fault> AllFaults();

// The process-wide set of enabled faults.
class Faults {
 public:
  static bool On(Fault f) { return (mask_ >> static_cast<int>(f)) & 1; }
  static void Enable(Fault f) { mask_ |= 1u << static_cast<int>(f); }
  static void Disable(Fault f) { mask_ &= ~(1u << static_cast<int>(f)); }
  static void Clear() { mask_ = 0; }
  static uint32_t mask() { return mask_; }
  static void set_mask(uint32_t m) { mask_ = m; }

 private:
  static inline uint32_t mask_ = 0;
};

// Enables a fault for the lifetime of the guard (tests).
class ScopedFault {
 public:
  explicit ScopedFault(Fault f) : saved_(Faults::mask()) { Faults::Enable(f); }
  ~ScopedFault() { Faults::set_mask(saved_); }
  ScopedFault(const ScopedFault&) = delete;
  ScopedFault& operator=(const ScopedFault&) = delete;

 private:
  uint32_t saved_;
};

}  // namespace offlab
