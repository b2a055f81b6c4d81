// The host's configuration helpers, the skbs a guest or a local socket
// hands the host, and HostTransmit (guest -> wire).
#include <utility>

#include "offlab/linux/features_version.h"
#include "offlab/linux/host.h"
#include "offlab/linux/host_path.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"

namespace offlab::kernel {

using host_path::PathCtx;
using host_path::UplinkSink;

const char* HostSwitchName(HostSwitch s) {
  switch (s) {
    case HostSwitch::kRouted:
      return "routed";
    case HostSwitch::kBridge:
      return "bridge";
    case HostSwitch::kOvs:
      return "ovs";
  }
  return "?";
}

const char* HostAttachName(HostAttach a) {
  switch (a) {
    case HostAttach::kSocket:
      return "socket";
    case HostAttach::kTap:
      return "tap";
    case HostAttach::kVeth:
      return "veth";
    case HostAttach::kForward:
      return "forward";
  }
  return "?";
}

KernelHost MakeKernelHost(const NicProfile& nic, KernelVersion kv) {
  const KernelNicView& view = KernelView(nic);
  KernelHost h;
  h.kv = kv;
  h.nic = nic;
  if (view.driver == "ibmveth") {
    // The ibmveth driver's features depend on the firmware and the kernel
    // (device_tx_ibmveth.h); the profile's list is the 6.18 default.
    IbmvethConfig cfg;
    cfg.active_trunk = view.active_trunk;
    h.ibmveth = cfg;
    h.nic_dev = IbmvethFeatures(cfg, kv);
  } else {
    // What this kernel's driver registered (features_version.h: the
    // profile's v6.18 set less what the core or the driver lacked then), and
    // the tunnel GSO types it does only as GSO_PARTIAL.
    const NicFeatures f = KernelNicFeaturesAt(nic, kv);
    h.nic_dev = f.dev;
    h.nic_xmit.gso_partial_features = f.gso_partial_features;
  }
  h.nic_dev.mtu = h.mtu;
  // Frames a copying driver received sit in linear skbs, which GRO chains
  // on frag_list (XmitOptions' default describes exactly those members).
  h.nic_xmit.frag_list_linear = !view.rx_page_frags;
  h.rx_meta.mtu = h.mtu;
  return h;
}

std::string HostGuestSkb(const KernelHost& host, Packet frame, const VnetHdr& hdr, SkBuff* out) {
  VnetHdrTunnel vh;
  vh.hdr = hdr;
  return TapWrite(std::move(frame), vh, host.tap, out);
}

std::string HostGuestSkb(const KernelHost& host, const Bytes& frame, const VnetHdr& hdr,
                         SkBuff* out) {
  return HostGuestSkb(host, Packet(frame), hdr, out);
}

std::string HostSocketSkb(const KernelHost& host, const Bytes& frame, SkBuff* out) {
  return HostSocketSkb(host, Packet(frame), out);
}

std::string HostSocketSkb(const KernelHost& host, Packet frame, SkBuff* out) {
  const size_t size = frame.size();
  if (size < hdr::kEthLen + hdr::kIpv4MinLen) return "frame too short";
  // The headers are all that is checked here: the payload is not read.
  constexpr size_t kMaxHeaders = hdr::kEthLen + 60 + 60;  // IPv4 and TCP with options
  const uint8_t* f = frame.Linear(std::min(size, kMaxHeaders));
  const uint16_t type = GetBe16(f + 12);
  const uint8_t* ip = f + hdr::kEthLen;
  size_t l4 = 0;
  bool v6 = false;
  if (type == hdr::kEthTypeIpv4 && (ip[0] >> 4) == 4) {
    const size_t ihl = (ip[0] & 0x0f) * 4u;
    if (ihl < hdr::kIpv4MinLen || ip[hdr::kIpv4ProtoOfs] != hdr::kProtoTcp) return "not IPv4/TCP";
    l4 = hdr::kEthLen + ihl;
  } else if (type == hdr::kEthTypeIpv6 && size >= hdr::kEthLen + hdr::kIpv6Len &&
             ip[hdr::kIpv6NextOfs] == hdr::kProtoTcp) {
    l4 = hdr::kEthLen + hdr::kIpv6Len;
    v6 = true;
  } else {
    return "not IPv4/TCP or IPv6/TCP";
  }
  if (size < l4 + hdr::kTcpMinLen) return "frame too short";
  if (!v6 && size - hdr::kEthLen > 0xffff) return "IPv4 packet longer than 65535 bytes";
  const size_t thlen = (f[l4 + hdr::kTcpOffFlagsOfs] >> 4) * 4u;
  if (thlen < hdr::kTcpMinLen || size < l4 + thlen) return "bad TCP header length";

  SkBuff skb;
  skb.pkt = std::move(frame).WithBytesOnly();
  skb.pkt.l3_ofs = hdr::kEthLen;
  skb.pkt.l4_ofs = static_cast<uint16_t>(l4);
  uint8_t* d = skb.pkt.data();
  if (!v6) {
    // ip_send_check (torvalds/linux 7d0a66e4bb90 net/ipv4/ip_output.c,
    // from __ip_local_out): the IPv4 header checksum is always software's.
    PutBe16(d + hdr::kEthLen + hdr::kIpv4CsumOfs, 0);
    PutBe16(d + hdr::kEthLen + hdr::kIpv4CsumOfs,
            csum::Compute(d + hdr::kEthLen, l4 - hdr::kEthLen));
  }
  // __tcp_v4_send_check / __tcp_v6_send_check (torvalds/linux 7d0a66e4bb90
  // net/ipv4/tcp_ipv4.c, net/ipv6/tcp_ipv6.c): CHECKSUM_PARTIAL from the TCP
  // header with the checksum at offset 16 and the folded pseudo-header sum
  // (over the whole TCP length) in the field.
  const uint32_t tcp_len = static_cast<uint32_t>(size - l4);
  const uint64_t pseudo = PseudoHeaderSum(skb, hdr::kEthLen, hdr::kProtoTcp, tcp_len);
  PutBe16(d + l4 + hdr::kTcpCsumOfs, csum::Fold(pseudo));
  skb.ip_summed = IpSummed::kPartial;
  skb.csum_start = static_cast<uint16_t>(l4);
  skb.csum_offset = hdr::kTcpCsumOfs;
  // tcp_set_skb_tso_segs (net/ipv4/tcp_output.c): a payload above the MSS
  // is one TSO skb of gso_size mss and DIV_ROUND_UP(len, mss) segments;
  // gso_type is the socket's sk_gso_type (SKB_GSO_TCPV4 / TCPV6, set by
  // tcp_v4_connect / tcp_v6_connect and copied in tcp_transmit_skb).
  const size_t payload = size - l4 - thlen;
  // tcp_sendmsg_locked (torvalds/linux 7d0a66e4bb90 net/ipv4/tcp.c) copies
  // the user's data into page frags (skb_copy_to_page_nocache) on a route
  // with scatter-gather, which every device here has: only headers are linear.
  skb.nr_frags = payload ? 1 : 0;
  if (host.mss && payload > host.mss) {
    skb.gso_size = host.mss;
    skb.gso_segs = static_cast<uint16_t>((payload + host.mss - 1) / host.mss);
    skb.gso_type = v6 ? gso::kTcpv6 : gso::kTcpv4;
  }
  *out = std::move(skb);
  return "";
}

TxOutcome HostTransmit(KernelHost& host, SkBuff skb) {
  TxOutcome out;
  const Work before = work::meter;
  PathCtx ctx{host, out.counters, out.drops};
  UplinkSink sink{out.wire, out.to_driver, out.ibmveth};
  if (host.eswitch_offload) {
    // The guest's VF sends into the eSwitch, which applies the offloaded
    // flow: nothing of this runs in the host kernel.
    out.hw_switched = 1;
    return out;
  }
  if (host.sw == HostSwitch::kRouted && host.attach != HostAttach::kSocket) {
    // ip_forward between a guest's device and the NIC (TTL, its checksum
    // update) is not among the model's operations.
    ctx.Drop("host", "routing a guest's packets is not modelled (use a bridge or OVS)");
    return out;
  }
  std::vector<SkBuff> in;
  if (host.attach == HostAttach::kVeth) {
    // The container's dev_queue_xmit on its veth end, then veth_xmit hands
    // the skb to the host's end (devices.h VethXmit).
    const DeviceFeatures veth = VethDevice(host.kv).dev;
    for (SkBuff& s : host_path::DevXmit(ctx, std::move(skb), veth, XmitOptions{}, "veth")) {
      VethXmit(s, veth, host.kv);
      in.push_back(std::move(s));
    }
  } else {
    // A TAP's skb (tun_get_user) and a local socket's (through an OVS
    // internal port or the bridge device, whose features pass every skb
    // through) reach the switch as they are.
    in.push_back(std::move(skb));
  }
  for (SkBuff& s : in) {
    std::optional<host_path::SwitchOut> sw = host_path::Switch(ctx, std::move(s), true);
    if (sw) host_path::UplinkTransmit(ctx, std::move(*sw), sink);
  }
  out.work = host_path::WorkSince(before);
  return out;
}

}  // namespace offlab::kernel
