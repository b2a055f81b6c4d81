#include "offlab/ovs/faults.h"

#include "offlab/net/error.h"

namespace offlab {

namespace {
struct FaultInfo {
  Fault fault;
  const char* name;
  const char* commit;
  const char* project = "OVS";
};
constexpr FaultInfo kFaults[kNumFaults] = {
    {Fault::kRecircResetsInnerOffsets, "recirc-resets-inner-offsets", "c6538b443984"},
    {Fault::kSimpleMatchNoL4Proto, "simple-match-no-l4-proto", "e99ce7d5d"},
    {Fault::kVnetIpv6UdpWrongPseudoBase, "vnet-ipv6-udp-wrong-pseudo-base", "5603b869a"},
    {Fault::kDecapRechecksBad, "decap-rechecks-bad", "c852a8c76"},
    {Fault::kCtIcmpErrorKeepsOuterStatus, "ct-icmp-error-keeps-outer-status", "71f3dd3e9"},
    {Fault::kCtSkipsUnknownIpCheck, "ct-skips-unknown-ip-check", "4b00509ea"},
    {Fault::kIpfChecksNonFragments, "ipf-checks-non-fragments", "8a7f1292d"},
    {Fault::kComposeBadCsumNoStatus, "compose-bad-csum-no-status", "d49994634"},
    // DPDK Bugzilla 1406, fixed in DPDK by seeding in rte_net_intel_cksum_flags_prepare.
    {Fault::kIntelOuterUdpUnseeded, "intel-outer-udp-unseeded", "f876dbef0809", "DPDK"},
    // Seeded by offlab (no fixing commit): found by the conformance fuzzer only.
    {Fault::kTcpZeroCsumTakenAsAbsent, "tcp-zero-csum-taken-as-absent", "-", "seeded"},
    // Seeded for the verifier's directed witnesses: no fixing commit.
    {Fault::kUdpUpdateZeroKeepsStaleCsum, "udp-update-zero-keeps-stale-csum", "-", "seeded"},
};
}  // namespace

const char* FaultName(Fault f) { return kFaults[static_cast<int>(f)].name; }
const char* FaultCommit(Fault f) { return kFaults[static_cast<int>(f)].commit; }
const char* FaultProject(Fault f) { return kFaults[static_cast<int>(f)].project; }

Fault FaultFromName(const std::string& name) {
  std::string known;
  for (const auto& info : kFaults) {
    if (name == info.name) return info.fault;
    known += known.empty() ? "" : ", ";
    known += info.name;
  }
  throw Error("unknown fault '" + name + "' (known: " + known + ")");
}

std::vector<Fault> AllFaults() {
  std::vector<Fault> all;
  for (const auto& info : kFaults) all.push_back(info.fault);
  return all;
}

}  // namespace offlab
