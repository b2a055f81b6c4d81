// HostReceive (wire -> guest): one NAPI poll of the NIC, the VXLAN receive
// with the tunnel device's own GRO pass, the switch and the attachment.
#include <utility>

#include "offlab/linux/host.h"
#include "offlab/linux/host_path.h"
#include "offlab/net/bytes.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

using host_path::PathCtx;

namespace {

// Whether the (outer) frame is a UDP datagram to the VXLAN device's port in
// its address family, so the UDP tunnel socket's encap_rcv (vxlan_rcv)
// gets it; `vni` is the VXLAN header's VNI when that header is there.
bool ToVxlanPort(const SkBuff& skb, const VxlanConfig& cfg, uint32_t* vni) {
  const uint8_t* d = skb.pkt.data();
  const size_t len = skb.len();
  if (len < hdr::kEthLen) return false;
  const uint16_t type = GetBe16(d + 12);
  size_t l4 = 0;
  uint8_t proto = 0;
  bool v6 = false;
  if (type == hdr::kEthTypeIpv4 && len >= hdr::kEthLen + hdr::kIpv4MinLen) {
    const uint8_t* ip = d + hdr::kEthLen;
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    // A fragment is reassembled before UDP sees it (not modelled here).
    if (ihl < hdr::kIpv4MinLen || GetBe16(ip + hdr::kIpv4FragOfs) & 0x3fff) return false;
    proto = ip[hdr::kIpv4ProtoOfs];
    l4 = hdr::kEthLen + ihl;
  } else if (type == hdr::kEthTypeIpv6 && len >= hdr::kEthLen + hdr::kIpv6Len) {
    proto = d[hdr::kEthLen + hdr::kIpv6NextOfs];
    l4 = hdr::kEthLen + hdr::kIpv6Len;
    v6 = true;
  } else {
    return false;
  }
  if (proto != hdr::kProtoUdp || v6 != cfg.ipv6 || len < l4 + 4) return false;
  if (GetBe16(d + l4 + 2) != cfg.dstport) return false;
  *vni = 0;
  if (len >= l4 + hdr::kUdpLen + hdr::kVxlanLen) *vni = GetBe32(d + l4 + hdr::kUdpLen + 4) >> 8;
  return true;
}

// The NIC's NAPI GRO: the device's features with rx-gro as configured, and
// the VXLAN device's UDP tunnel socket (its gro_receive) on its port.
GroConfig NicGroConfig(const KernelHost& h) {
  GroConfig g;
  g.kv = h.kv;
  g.features = h.gro ? (h.nic_dev.features | netif::kGro) : (h.nic_dev.features & ~netif::kGro);
  if (h.vxlan) {
    GroVxlanSocket s;
    s.port = h.vxlan->dstport;
    s.remcsum_rx = h.vxlan->remcsum_rx;
    s.remcsum_nopartial = h.vxlan->remcsum_nopartial;
    g.vxlan.push_back(s);
  }
  return g;
}

// What vxlan_rcv's gro_cells_receive does with the decapsulated skbs.
std::vector<SkBuff> GroCellsPass(const KernelHost& h, std::vector<SkBuff> inner, RxOutcome& out) {
  // vxlan_rcv hands the inner skb to gro_cells_receive since torvalds/linux
  // 58ce31cca1ff ("vxlan: GRO support at tunnel layer", v4.8); before it,
  // netif_rx, with no GRO of the inner packets. RHEL 7.1 (3.10, 2015)
  // predates it.
  if (inner.empty() || !h.kv.AtLeast(4, 8) || h.kv.rhel7) return inner;
  // gro_cells_receive (torvalds/linux 0b77b9706662 net/core/gro_cells.c:22)
  // takes netif_rx for a device that elides GRO or a cloned skb (a packet
  // tap's clone; this host has none), else queues to the cell, whose poll
  // runs napi_gro_receive per skb (:60) and napi_complete_done's flush.
  GroConfig g;
  g.kv = h.kv;
  g.features = VxlanDevice(h.kv).dev.features;
  out.cell_gro_ran = true;
  GroCell cell(g);
  for (SkBuff& s : inner) cell.Receive(std::move(s));
  std::vector<SkBuff> up = cell.Flush();
  out.cell_gro = cell.stats();
  return up;
}

void StackIn(PathCtx& ctx, SkBuff skb, RxOutcome& out) {
  StackRxResult r = StackRcv(skb, ctx.host.stack, ctx.host.kv, &ctx.counters);
  if (r.verdict.delivered)
    out.delivered.push_back(std::move(skb));
  else
    ctx.Drop("stack", r.verdict.reason);
}

// An skb the host's receive path hands up (from the NIC, or from the VXLAN
// device): the switch, then the attachment.
void Deliver(PathCtx& ctx, SkBuff skb, RxOutcome& out) {
  const KernelHost& h = ctx.host;
  if (h.sw == HostSwitch::kRouted && h.attach != HostAttach::kSocket) {
    ctx.Drop("host", "routing to a guest is not modelled (use a bridge or OVS)");
    return;
  }
  std::optional<host_path::SwitchOut> sw = host_path::Switch(ctx, std::move(skb), false);
  if (!sw) return;
  switch (h.attach) {
    case HostAttach::kSocket:
      // The local stack (an OVS internal port or the bridge device hands it
      // over with netif_rx, the skb unchanged).
      StackIn(ctx, std::move(sw->skb), out);
      return;
    case HostAttach::kVeth: {
      // dev_queue_xmit on the host's veth end, veth_xmit to the container's
      // end (GRO off there: veth's default), the container's stack.
      const DeviceFeatures veth = VethDevice(h.kv).dev;
      for (SkBuff& s : host_path::DevXmit(ctx, std::move(sw->skb), veth, XmitOptions{}, "veth")) {
        VethXmit(s, veth, h.kv);
        StackIn(ctx, std::move(s), out);
      }
      return;
    }
    case HostAttach::kTap: {
      // dev_queue_xmit on the TAP with the offloads the VMM set
      // (TUNSETOFFLOAD), tun_net_xmit queues it, the VMM's read() gets the
      // virtio-net header tun_put_user writes.
      const DeviceFeatures tap = TapFeatures(h.tap_offloads, h.kv);
      for (SkBuff& s : host_path::DevXmit(ctx, std::move(sw->skb), tap, XmitOptions{}, "tap")) {
        VnetHdrTunnel vh;
        const std::string err = TapRead(s, tap, h.tap, &vh);
        if (!err.empty()) {
          ctx.Drop("tap read", err);
          continue;
        }
        out.tap_hdrs.push_back(vh);
        out.delivered.push_back(std::move(s));
      }
      return;
    }
    case HostAttach::kForward: {
      host_path::UplinkSink sink{out.wire, out.delivered, out.ibmveth};
      host_path::NicTransmit(ctx, std::move(sw->skb), sink);
      return;
    }
  }
}

}  // namespace

RxOutcome HostReceive(KernelHost& host, const std::vector<Bytes>& frames) {
  return HostReceive(host, std::vector<Bytes>(frames));
}

RxOutcome HostReceive(KernelHost& host, std::vector<Bytes>&& frames) {
  RxOutcome out;
  const Work before = work::meter;
  PathCtx ctx{host, out.counters, out.drops};
  if (host.eswitch_offload) {
    // The eSwitch matches the offloaded flow and forwards in hardware: the
    // frames never reach the driver.
    out.hw_switched = frames.size();
    return out;
  }
  // One NAPI poll: the driver's receive of each frame into napi_gro_receive,
  // then napi_complete_done's flush hands everything up in order.
  GroCell nic_gro(NicGroConfig(host));
  for (Bytes& f : frames) {
    RxResult r;
    {
      // What the NIC verified or summed is the hardware's work.
      HardwareScope hw;
      r = DriverReceiveWith(std::move(f), host.nic, host.nic_dev, host.kv, &out.counters,
                            host.rx_meta);
    }
    if (r.dropped) {
      ctx.Drop("driver", r.drop_reason);
      continue;
    }
    nic_gro.Receive(std::move(r.skb));
  }
  std::vector<SkBuff> up = nic_gro.Flush();
  out.nic_gro = nic_gro.stats();

  // netif_receive_skb of each: frames to the VXLAN port go through the outer
  // IP/UDP receive to vxlan_rcv; the others up the switch directly.
  std::vector<SkBuff> inner;
  for (SkBuff& skb : up) {
    uint32_t vni = 0;
    if (host.vxlan && ToVxlanPort(skb, *host.vxlan, &vni)) {
      VxlanConfig cfg = *host.vxlan;
      // OVS's vxlan vport is a collect_md device: every VNI is its own.
      if (host.sw == HostSwitch::kOvs) cfg.vni = vni;
      VxlanRcvResult r = VxlanRcv(std::move(skb), cfg, host.kv, &out.counters);
      if (!r.delivered) {
        ctx.Drop("vxlan_rcv", r.reason);
        continue;
      }
      inner.push_back(std::move(r.skb));
      continue;
    }
    Deliver(ctx, std::move(skb), out);
  }
  for (SkBuff& skb : GroCellsPass(host, std::move(inner), out)) Deliver(ctx, std::move(skb), out);

  for (const auto& [why, n] : out.nic_gro.not_validated) out.not_validated[why] += n;
  for (const auto& [why, n] : out.cell_gro.not_validated) out.not_validated[why] += n;
  out.work = host_path::WorkSince(before);
  return out;
}

}  // namespace offlab::kernel
