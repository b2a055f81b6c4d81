// The pieces HostTransmit and HostReceive share (host_path.cc): the switch
// between the NIC side and the guest side, a device's dev_queue_xmit
// (validate_xmit_skb with its features), and the uplink (the VXLAN device,
// then the NIC). Internal to the host layer; callers use host.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/host.h"

namespace offlab::kernel::host_path {

// What a path step needs besides the skb: the host, where counters and
// drops go.
struct PathCtx {
  KernelHost& host;
  Counters& counters;
  std::map<std::string, uint64_t>& drops;
  void Drop(const std::string& stage, const std::string& why) {
    drops[why.empty() ? stage : stage + ": " + why]++;
  }
};

// Where the uplink's output goes: the frames on the wire, the skbs the
// NIC's driver got, and an ibmveth's transmit results.
struct UplinkSink {
  std::vector<Bytes>& wire;
  std::vector<SkBuff>& to_driver;
  std::vector<IbmvethTx>& ibmveth;
};

// The switch's output: the skb as handed to the next device, and the VXLAN
// device's configuration when that device is a VXLAN one.
struct SwitchOut {
  SkBuff skb;
  std::optional<VxlanConfig> vxlan;
};

// The switch for one skb, `from_guest` giving the direction (guest -> NIC
// or NIC -> guest). nullopt = dropped (recorded in ctx).
std::optional<SwitchOut> Switch(PathCtx& ctx, SkBuff skb, bool from_guest);

// dev_queue_xmit's validate_xmit_skb for a device with `dev` (and `opt`);
// an empty result is recorded as a drop at `stage`.
std::vector<SkBuff> DevXmit(PathCtx& ctx, SkBuff skb, const DeviceFeatures& dev,
                            const XmitOptions& opt, const std::string& stage);

// The switch's output towards the wire: through the VXLAN device when
// `out.vxlan` is set, then the NIC.
void UplinkTransmit(PathCtx& ctx, SwitchOut out, UplinkSink& sink);

// dev_queue_xmit on the NIC: validate_xmit_skb with nic_dev / nic_xmit,
// then the hardware (DeviceTransmit) or ibmveth_start_xmit.
void NicTransmit(PathCtx& ctx, SkBuff skb, UplinkSink& sink);

// The work meter's delta since `before`.
HostWork WorkSince(const Work& before);

}  // namespace offlab::kernel::host_path
