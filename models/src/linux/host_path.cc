// The host's path pieces: the switch (bridge or OVS kernel datapath), a
// device's dev_queue_xmit, and the uplink through the VXLAN device to the
// NIC. Only the order of the steps is decided here; every step is one of
// the kernel model's operations, which carry their own citations.
// "v6.18.19" = 6952350/linux-6.18.y f3fce0151d48 (Linux v6.18 networking).
#include "offlab/linux/host_path.h"

#include <string>
#include <utility>

#include "offlab/linux/device_tx.h"
#include "offlab/linux/xmit.h"
#include "offlab/net/headers.h"

namespace offlab::kernel::host_path {

namespace {

// One OVS action on the packet; returns the kernel's errno (0 = done).
int ApplyOvsAction(OvsSkb& s, const HostOvsAction& a, const KernelVersion& kv) {
  using Kind = HostOvsAction::Kind;
  switch (a.kind) {
    case Kind::kSetEth:
      return OvsSetEthAddr(s, a.eth, a.eth_mask);
    case Kind::kSetIpv4:
      return OvsSetIpv4(s, a.ipv4, a.ipv4_mask);
    case Kind::kSetIpv6:
      return OvsSetIpv6(s, a.ipv6, a.ipv6_mask, kv);
    case Kind::kSetTcp:
      return OvsSetTcp(s, a.ports, a.ports_mask);
    case Kind::kSetUdp:
      return OvsSetUdp(s, a.ports, a.ports_mask);
    case Kind::kDecTtl:
      return OvsDecTtl(s);
  }
  return ovs_err::kInval;
}

// The collect_md VXLAN device behind an OVS vxlan vport transmits with the
// tunnel metadata the set(tunnel) action attached (vxlan_xmit_one reads
// info->key: addresses, VNI, TOS, TTL, DF, TUNNEL_CSUM); the device's own
// options (source port range, RCO, name) come from host.vxlan.
VxlanConfig OvsVxlanConfig(const KernelHost& h, const VxlanXmitRequest& r) {
  VxlanConfig cfg = h.vxlan ? *h.vxlan : VxlanConfig{};
  cfg.vni = r.vni;
  cfg.ipv6 = r.ipv6;
  cfg.local = r.src;
  cfg.remote = r.dst;
  cfg.tos = r.tos;
  cfg.ttl = r.ttl;
  cfg.df = r.dont_fragment ? VxlanDf::kSet : VxlanDf::kUnset;
  cfg.dstport = r.dst_port;
  cfg.udp_csum = r.udp_csum;
  cfg.udp6_zero_csum_tx = r.ipv6 && !r.udp_csum;
  return cfg;
}

}  // namespace

std::optional<SwitchOut> Switch(PathCtx& ctx, SkBuff skb, bool from_guest) {
  const KernelHost& h = ctx.host;
  SwitchOut out;
  if (h.sw != HostSwitch::kOvs) {
    // A bridge port's frame is forwarded by br_dev_queue_push_xmit (v6.18.19
    // net/bridge/br_forward.c:33-60), which pushes the Ethernet header back
    // and calls dev_queue_xmit with the checksum state untouched; the routed
    // case hands the skb to the next device the same way. Towards the wire,
    // that device is vxlan0 when the host has one.
    out.skb = std::move(skb);
    if (from_guest && h.vxlan) out.vxlan = *h.vxlan;
    ctx.counters.Inc("host:switched");
    return out;
  }
  // openvswitch.ko: netdev_frame_hook -> ovs_vport_receive, the flow's
  // actions in order, then do_output (ovs_dp.h / ovs_actions.h).
  OvsSkb s = OvsVportReceive(std::move(skb));
  for (const HostOvsAction& a : h.ovs_actions) {
    if (const int err = ApplyOvsAction(s, a, h.kv)) {
      ctx.Drop("ovs action", "errno " + std::to_string(err));
      return std::nullopt;
    }
  }
  OvsVport port;
  port.mtu = h.mtu;
  const bool tunnel = from_guest && h.ovs_tunnel.has_value();
  if (tunnel) {
    OvsSetTunnel(s, *h.ovs_tunnel);
    port = OvsVport::Vxlan(h.vxlan ? h.vxlan->dstport : hdr::kVxlanPort);
  }
  OvsOutput o = OvsDoOutput(std::move(s), port);
  if (!o.handed_to_dev || (tunnel && !o.vxlan)) {
    ctx.Drop("ovs output", o.drop_reason);
    return std::nullopt;
  }
  if (o.skb.vlan.present) {
    // A tag held out of band would be inserted by the device or by
    // validate_xmit_vlan, which this layer does not model.
    ctx.Drop("ovs output", "accelerated VLAN tag (not modelled by the host layer)");
    return std::nullopt;
  }
  out.skb = std::move(o.skb.skb);
  // The vxlan vport's send is dev_queue_xmit on its collect_md device
  // (torvalds/linux 037dd1308c6d net/openvswitch/vport-vxlan.c
  // ovs_vxlan_netdev_vport_ops .send).
  if (o.vxlan) out.vxlan = OvsVxlanConfig(h, *o.vxlan);
  ctx.counters.Inc("host:switched");
  return out;
}

std::vector<SkBuff> DevXmit(PathCtx& ctx, SkBuff skb, const DeviceFeatures& dev,
                            const XmitOptions& opt, const std::string& stage) {
  std::vector<SkBuff> segs = ValidateXmitSkb(std::move(skb), dev, opt, ctx.host.kv, &ctx.counters);
  if (segs.empty()) ctx.Drop(stage, "validate_xmit_skb");
  return segs;
}

void NicTransmit(PathCtx& ctx, SkBuff skb, UplinkSink& sink) {
  const KernelHost& h = ctx.host;
  for (SkBuff& seg : DevXmit(ctx, std::move(skb), h.nic_dev, h.nic_xmit, "nic")) {
    if (h.ibmveth) {
      sink.to_driver.push_back(seg);
      IbmvethTx t = IbmvethStartXmit(std::move(seg), *h.ibmveth, h.kv, &ctx.counters);
      if (t.sent)
        sink.wire.push_back(t.skb.pkt.bytes());
      else
        ctx.Drop("ibmveth", t.drop);
      sink.ibmveth.push_back(std::move(t));
      continue;
    }
    // The hardware only reads a TSO skb: the recorded one is its input.
    sink.to_driver.push_back(std::move(seg));
    for (Bytes& f : DeviceTransmitKeep(sink.to_driver.back(), h.nic_dev, &ctx.counters))
      sink.wire.push_back(std::move(f));
  }
}

void UplinkTransmit(PathCtx& ctx, SwitchOut out, UplinkSink& sink) {
  const KernelHost& h = ctx.host;
  if (!out.vxlan) {
    NicTransmit(ctx, std::move(out.skb), sink);
    return;
  }
  // dev_queue_xmit on the vxlan device (its features pass TSO and PARTIAL
  // skbs through), vxlan_xmit, then ip_local_out to the NIC.
  UnderlayRoute rt = h.route;
  rt.dev_features = h.nic_dev.features;
  const DeviceFeatures vx = VxlanDevice(h.kv).dev;
  for (SkBuff& seg : DevXmit(ctx, std::move(out.skb), vx, XmitOptions{}, "vxlan dev")) {
    VxlanXmitResult r = VxlanXmit(std::move(seg), *out.vxlan, rt, h.kv, &ctx.counters);
    if (!r.sent) {
      ctx.Drop("vxlan_xmit", r.reason);
      continue;
    }
    NicTransmit(ctx, std::move(r.skb), sink);
  }
}

HostWork WorkSince(const Work& before) {
  const Work& now = work::meter;
  HostWork w;
  w.csum_bytes = now.csum_bytes - before.csum_bytes;
  w.copy_bytes = now.copy_bytes - before.copy_bytes;
  w.sw_segments = now.sw_segments - before.sw_segments;
  return w;
}

}  // namespace offlab::kernel::host_path
