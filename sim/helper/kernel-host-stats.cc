// SPDX-License-Identifier: Apache-2.0
#include "kernel-host-stats.h"

namespace ns3 {

HostStats KernelHostStats(Ptr<LinuxHost> lh, Ptr<OffloadNetDevice> nic,
                          const std::vector<Ptr<CpuModel>>& guests, double span) {
  HostStats st;
  st.kind = "kernel";
  for (uint32_t q = 0; q < lh->GetNRxQueues(); q++) {
    st.softirqs.push_back(LoadOf(lh->GetSoftirqCpu(q), span));
  }
  for (const Ptr<CpuModel>& g : guests) {
    st.guests.push_back(LoadOf(g, span));
    st.guestUtilisation.push_back(st.guests.back().utilisation);
  }
  for (uint32_t i = 0; i < lh->GetNGuests(); i++) {
    if (Ptr<CpuModel> v = lh->GetVhostCpu(i)) {
      st.vhosts.push_back(LoadOf(v, span));
    }
  }
  const LinuxHost::Stats& k = lh->GetStats();
  const double per = span > 0 ? 1 / span : 0;
  double busy = 0;
  for (const CoreLoad& l : st.softirqs) {
    busy += l.utilisation;
  }
  st.kernel["softirq_busy_pct"] = st.softirqs.empty() ? 0 : 100 * busy / st.softirqs.size();
  st.kernel["napi_polls_per_s"] = static_cast<double>(k.polls) * per;
  st.kernel["rx_frames_per_s"] = static_cast<double>(k.rxFrames) * per;
  st.kernel["gro_merges_per_s"] = static_cast<double>(k.groMerged) * per;
  st.kernel["skbs_up_per_s"] = static_cast<double>(k.skbsUp) * per;
  st.kernel["skbs_to_switch_per_s"] = static_cast<double>(k.skbsFinal) * per;
  st.kernel["frames_per_skb"] =
      k.skbsFinal ? static_cast<double>(k.rxFrames) / static_cast<double>(k.skbsFinal) : 0;
  st.kernel["sw_csum_bytes_per_s"] = static_cast<double>(k.swCsumBytes) * per;
  st.kernel["copy_bytes_per_s"] = static_cast<double>(k.copyBytes) * per;
  st.kernel["sw_segments_per_s"] = static_cast<double>(k.swSegments) * per;
  st.kernel["rx_ring_drops"] = static_cast<double>(k.ringDrops);
  st.kernel["cpu_drops"] = static_cast<double>(k.cpuDrops);
  st.kernel["hw_switched_per_s"] = static_cast<double>(k.hwSwitched) * per;
  uint64_t notValidated = 0;
  for (const auto& [why, n] : k.notValidated) {
    st.kernel["not_validated_per_s:" + why] = static_cast<double>(n) * per;
    notValidated += n;
  }
  st.kernel["not_validated_per_s"] = static_cast<double>(notValidated) * per;
  for (const auto& [name, v] : lh->GetCounters().values()) {
    if (v) {
      st.counters[name] = v;
    }
  }
  st.txFrames = nic->GetTxFrames();
  st.rxFrames = nic->GetRxFrames();
  st.trains = nic->GetTrains();
  st.txDrops = nic->GetTxDrops();
  st.groIn = k.rxFrames;
  st.groOut = k.skbsFinal;
  st.groNotValidated = notValidated;
  return st;
}

}  // namespace ns3
