// offlab._core.kernel: driver receive, virtio-net headers and virtual devices
// (linux/rx.h, linux/virtio_net.h, linux/devices.h). Python API:
//   VnetHdr (the _core class, extended): VnetHdr(flags=0, gso_type=0, hdr_len=0,
//     gso_size=0, csum_start=0, csum_offset=0); read/write flags, gso_type,
//     hdr_len, gso_size, csum_start, csum_offset; ==, repr
//   VnetHdrTunnel(hdr=VnetHdr(), outer_th_offset=0, inner_nh_offset=0)
//   vnet.* constants: NEEDS_CSUM, DATA_VALID, RSC_INFO, UDP_TUNNEL_CSUM,
//     GSO_NONE/TCPV4/UDP/TCPV6/UDP_L4/UDP_TUNNEL_IPV4/UDP_TUNNEL_IPV6/ECN,
//     HDR_LEN (10), HDR_V1_LEN (12), HDR_TUNNEL_LEN (24)
//   virtio_net_hdr_to_skb(skb, hdr, protocol=0, network_header_set=False) -> str
//   virtio_net_hdr_tnl_to_skb(skb, tnl_hdr, tnl, tnl_csum, protocol=0,
//     network_header_set=False) -> str          ("" = accepted, else the -EINVAL reason)
//   virtio_net_hdr_from_skb(skb, has_data_valid, vlan_hlen=0) -> (str, VnetHdr)
//   virtio_net_hdr_tnl_from_skb(skb, tnl, has_data_valid, vlan_hlen=0) -> (str, VnetHdrTunnel)
//   TapConfig(vnet_hdr=True, vnet_hdr_sz=10, mtu=1500)
//   tap_write(frame: bytes, hdr: VnetHdrTunnel | VnetHdr | None, cfg=TapConfig())
//     -> (str, SkBuff, counters: dict)                       tun_get_user
//   tap_read(skb, tap: DeviceFeatures, cfg=TapConfig()) -> (str, VnetHdrTunnel)
//   PacketSocketConfig(sock_dgram=False, mtu=1500, protocol=0)
//   packet_snd(frame: bytes, hdr: VnetHdr | None, cfg=PacketSocketConfig()) -> (str, SkBuff)
//   packet_rcv_vnet(skb, sock_dgram=False) -> (str, VnetHdr)
//   packet_csum_status(skb, outgoing=False) -> int; tp_status.CSUMNOTREADY/CSUM_VALID/GSO_TCP
//   flow_dissect_basic(skb, proto, nhoff) -> (ip_proto, thoff) | None
//   VirtualDevice (kind, dev: DeviceFeatures, unmodelled_on: list[str])
//   veth_device(kv=LAB_KERNEL), vxlan_device(kv), bridge_device(kv), tap_device(kv),
//     all_virtual_devices(kv) -> list[VirtualDevice]
//   tun_f.CSUM/TSO4/TSO6/TSO_ECN/UFO/USO4/USO6/UDP_TUNNEL_GSO/UDP_TUNNEL_GSO_CSUM
//   tap_features(tun_f: int, kv=LAB_KERNEL) -> DeviceFeatures  (OfflabError for EINVAL)
//   veth_xmit(skb, peer: DeviceFeatures, kv=LAB_KERNEL) -> None (mutates skb)
//   veth_uses_napi(tx: DeviceFeatures, peer: DeviceFeatures, peer_xdp=False,
//     from_local_socket=False) -> bool   (the peer's NAPI/GRO path, or netif_rx)
//   KernelNicView (driver, features, hw_enc_features, rx_csum: str, tunnel_csum_level,
//     tunnels, rx_page_frags, csum_err_stat, outer_ip_err_stat, quirks: dict, sources, notes)
//   kernel_view(profile: str | NicProfile) -> KernelNicView (OfflabError for pcap/dummy)
//   kernel_device_features(profile) -> DeviceFeatures
//   RxMeta(vnet=VnetHdrTunnel(), vnet_tnl=False, vnet_tnl_csum=False, tap=TapConfig(),
//     ibmveth_csum_good=True, ibmveth_large_packet=False, ibmveth_mss=0, mtu=1500)
//   RxResult (dropped, drop_reason, skb)
//   driver_receive(frame: bytes, profile: str | NicProfile, kv=LAB_KERNEL, meta=None,
//     features: DeviceFeatures | None = None) -> (RxResult, counters: dict)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <variant>

#include "offlab/linux/devices.h"
#include "offlab/linux/rx.h"
#include "offlab/linux/virtio_net.h"
#include "offlab/nic/nic_profile.h"

namespace py = pybind11;

namespace offlab {

namespace {

using kernel::SkBuff;

Bytes ToBytes(const py::bytes& b) {
  const std::string s = b;
  return Bytes(s.begin(), s.end());
}

NicProfile ProfileOf(const std::variant<std::string, NicProfile>& p) {
  if (const auto* name = std::get_if<std::string>(&p)) return BuiltinProfile(*name);
  return std::get<NicProfile>(p);
}

py::dict CountersDict(const Counters& c) {
  py::dict d;
  for (const auto& [k, v] : c.values()) d[py::str(k)] = v;
  return d;
}

std::string VnetRepr(const VnetHdr& h) {
  return "VnetHdr(flags=" + std::to_string(h.flags) + ", gso_type=" + std::to_string(h.gso_type) +
         ", hdr_len=" + std::to_string(h.hdr_len) + ", gso_size=" + std::to_string(h.gso_size) +
         ", csum_start=" + std::to_string(h.csum_start) +
         ", csum_offset=" + std::to_string(h.csum_offset) + ")";
}

void BindVnetHdr(py::module_& k) {
  // _core.VnetHdr is bound read-only by the pipeline bindings; the kernel
  // model needs to build headers, so the same class is extended here (or
  // bound, if this module is ever loaded without it).
  py::class_<VnetHdr> cls =
      py::detail::get_type_info(typeid(VnetHdr))
          ? py::reinterpret_borrow<py::class_<VnetHdr>>(py::type::of<VnetHdr>())
          : py::class_<VnetHdr>(k, "VnetHdr", "A virtio-net header.");
  cls.def(py::init([](uint8_t flags, uint8_t gso_type, uint16_t hdr_len, uint16_t gso_size,
                      uint16_t csum_start, uint16_t csum_offset) {
            VnetHdr h;
            h.flags = flags, h.gso_type = gso_type, h.hdr_len = hdr_len;
            h.gso_size = gso_size, h.csum_start = csum_start, h.csum_offset = csum_offset;
            return h;
          }),
          py::arg("flags") = 0, py::arg("gso_type") = 0, py::arg("hdr_len") = 0,
          py::arg("gso_size") = 0, py::arg("csum_start") = 0, py::arg("csum_offset") = 0)
      .def_readwrite("flags", &VnetHdr::flags)
      .def_readwrite("gso_type", &VnetHdr::gso_type)
      .def_readwrite("hdr_len", &VnetHdr::hdr_len)
      .def_readwrite("gso_size", &VnetHdr::gso_size)
      .def_readwrite("csum_start", &VnetHdr::csum_start)
      .def_readwrite("csum_offset", &VnetHdr::csum_offset)
      .def("__eq__",
           [](const VnetHdr& a, const VnetHdr& b) {
             return a.flags == b.flags && a.gso_type == b.gso_type && a.hdr_len == b.hdr_len &&
                    a.gso_size == b.gso_size && a.csum_start == b.csum_start &&
                    a.csum_offset == b.csum_offset;
           })
      .def("__repr__", &VnetRepr);
  if (!py::hasattr(k, "VnetHdr")) k.attr("VnetHdr") = cls;

  py::class_<kernel::VnetHdrTunnel>(k, "VnetHdrTunnel",
                                    "virtio_net_hdr_v1_hash_tunnel's offload fields.")
      .def(py::init([](const VnetHdr& h, uint16_t outer_th, uint16_t inner_nh) {
             return kernel::VnetHdrTunnel{h, outer_th, inner_nh};
           }),
           py::arg("hdr") = VnetHdr{}, py::arg("outer_th_offset") = 0,
           py::arg("inner_nh_offset") = 0)
      .def_readwrite("hdr", &kernel::VnetHdrTunnel::hdr)
      .def_readwrite("outer_th_offset", &kernel::VnetHdrTunnel::outer_th_offset)
      .def_readwrite("inner_nh_offset", &kernel::VnetHdrTunnel::inner_nh_offset)
      .def("__repr__", [](const kernel::VnetHdrTunnel& t) {
        return "VnetHdrTunnel(" + VnetRepr(t.hdr) +
               ", outer_th_offset=" + std::to_string(t.outer_th_offset) +
               ", inner_nh_offset=" + std::to_string(t.inner_nh_offset) + ")";
      });

  py::module_ v = k.def_submodule("vnet", "virtio-net header constants.");
  v.attr("NEEDS_CSUM") = VnetHdr::kNeedsCsum;
  v.attr("DATA_VALID") = VnetHdr::kDataValid;
  v.attr("RSC_INFO") = kernel::vnet::kFlagRscInfo;
  v.attr("UDP_TUNNEL_CSUM") = kernel::vnet::kFlagUdpTunnelCsum;
  v.attr("GSO_NONE") = VnetHdr::kGsoNone;
  v.attr("GSO_TCPV4") = VnetHdr::kGsoTcpv4;
  v.attr("GSO_UDP") = VnetHdr::kGsoUdp;
  v.attr("GSO_TCPV6") = VnetHdr::kGsoTcpv6;
  v.attr("GSO_UDP_L4") = kernel::vnet::kGsoUdpL4;
  v.attr("GSO_UDP_TUNNEL_IPV4") = kernel::vnet::kGsoUdpTunnelIpv4;
  v.attr("GSO_UDP_TUNNEL_IPV6") = kernel::vnet::kGsoUdpTunnelIpv6;
  v.attr("GSO_ECN") = VnetHdr::kGsoEcn;
  v.attr("HDR_LEN") = kernel::vnet::kHdrLen;
  v.attr("HDR_V1_LEN") = kernel::vnet::kHdrV1Len;
  v.attr("HDR_TUNNEL_LEN") = kernel::vnet::kHdrTunnelLen;
}

void BindVirtio(py::module_& k) {
  using namespace kernel;  // NOLINT: the bound names are the kernel model's
  k.def(
      "virtio_net_hdr_to_skb",
      [](SkBuff& skb, const VnetHdr& h, uint16_t protocol, bool nh_set) {
        return VirtioNetHdrToSkb(skb, h, VnetSkbContext{protocol, nh_set});
      },
      py::arg("skb"), py::arg("hdr"), py::arg("protocol") = 0,
      py::arg("network_header_set") = false);
  k.def(
      "virtio_net_hdr_tnl_to_skb",
      [](SkBuff& skb, const VnetHdrTunnel& h, bool tnl, bool tnl_csum, uint16_t protocol,
         bool nh_set) {
        return VirtioNetHdrTnlToSkb(skb, h, tnl, tnl_csum, VnetSkbContext{protocol, nh_set});
      },
      py::arg("skb"), py::arg("tnl_hdr"), py::arg("tnl"), py::arg("tnl_csum"),
      py::arg("protocol") = 0, py::arg("network_header_set") = false);
  k.def(
      "virtio_net_hdr_from_skb",
      [](const SkBuff& skb, bool dv, int vlan) {
        VnetHdr h;
        std::string e = VirtioNetHdrFromSkb(skb, dv, &h, vlan);
        return py::make_tuple(e, h);
      },
      py::arg("skb"), py::arg("has_data_valid"), py::arg("vlan_hlen") = 0);
  k.def(
      "virtio_net_hdr_tnl_from_skb",
      [](const SkBuff& skb, bool tnl, bool dv, int vlan) {
        VnetHdrTunnel h;
        std::string e = VirtioNetHdrTnlFromSkb(skb, tnl, dv, &h, vlan);
        return py::make_tuple(e, h);
      },
      py::arg("skb"), py::arg("tnl"), py::arg("has_data_valid"), py::arg("vlan_hlen") = 0);

  py::class_<TapConfig>(k, "TapConfig", "A TAP opened with IFF_TAP|IFF_NO_PI[|IFF_VNET_HDR].")
      .def(py::init([](bool vnet_hdr, int sz, uint32_t mtu) {
             return TapConfig{vnet_hdr, sz, mtu};
           }),
           py::arg("vnet_hdr") = true, py::arg("vnet_hdr_sz") = vnet::kHdrLen,
           py::arg("mtu") = 1500)
      .def_readwrite("vnet_hdr", &TapConfig::vnet_hdr)
      .def_readwrite("vnet_hdr_sz", &TapConfig::vnet_hdr_sz)
      .def_readwrite("mtu", &TapConfig::mtu);
  k.def(
      "tap_write",
      [](const py::bytes& frame, const py::object& hdr, const TapConfig& cfg) {
        VnetHdrTunnel t;
        if (py::isinstance<VnetHdrTunnel>(hdr))
          t = hdr.cast<VnetHdrTunnel>();
        else if (!hdr.is_none())
          t.hdr = hdr.cast<VnetHdr>();
        SkBuff skb;
        Counters c;
        std::string e = TapWrite(ToBytes(frame), t, cfg, &skb, &c);
        return py::make_tuple(e, skb, CountersDict(c));
      },
      py::arg("frame"), py::arg("hdr") = py::none(), py::arg("cfg") = TapConfig{});
  k.def(
      "tap_read",
      [](const SkBuff& skb, const DeviceFeatures& tap, const TapConfig& cfg) {
        VnetHdrTunnel t;
        std::string e = TapRead(skb, tap, cfg, &t);
        return py::make_tuple(e, t);
      },
      py::arg("skb"), py::arg("tap"), py::arg("cfg") = TapConfig{});

  py::class_<PacketSocketConfig>(k, "PacketSocketConfig", "An AF_PACKET socket.")
      .def(py::init([](bool dgram, uint32_t mtu, uint16_t proto) {
             return PacketSocketConfig{dgram, mtu, proto};
           }),
           py::arg("sock_dgram") = false, py::arg("mtu") = 1500, py::arg("protocol") = 0)
      .def_readwrite("sock_dgram", &PacketSocketConfig::sock_dgram)
      .def_readwrite("mtu", &PacketSocketConfig::mtu)
      .def_readwrite("protocol", &PacketSocketConfig::protocol);
  k.def(
      "packet_snd",
      [](const py::bytes& frame, const std::optional<VnetHdr>& hdr, const PacketSocketConfig& cfg) {
        SkBuff skb;
        std::string e = PacketSnd(ToBytes(frame), hdr, cfg, &skb);
        return py::make_tuple(e, skb);
      },
      py::arg("frame"), py::arg("hdr") = py::none(), py::arg("cfg") = PacketSocketConfig{});
  k.def(
      "packet_rcv_vnet",
      [](const SkBuff& skb, bool dgram) {
        VnetHdr h;
        std::string e = PacketRcvVnet(skb, dgram, &h);
        return py::make_tuple(e, h);
      },
      py::arg("skb"), py::arg("sock_dgram") = false);
  k.def("packet_csum_status", &PacketCsumStatus, py::arg("skb"), py::arg("outgoing") = false);
  py::module_ tp = k.def_submodule("tp_status", "TP_STATUS_* checksum bits.");
  tp.attr("CSUMNOTREADY") = tp_status::kCsumNotReady;
  tp.attr("CSUM_VALID") = tp_status::kCsumValid;
  tp.attr("GSO_TCP") = tp_status::kGsoTcp;
  k.def(
      "flow_dissect_basic",
      [](const SkBuff& skb, uint16_t proto, size_t nhoff) -> py::object {
        uint8_t ip_proto = 0;
        uint16_t thoff = 0;
        if (!FlowDissectBasic(skb, proto, nhoff, &ip_proto, &thoff)) return py::none();
        return py::make_tuple(ip_proto, thoff);
      },
      py::arg("skb"), py::arg("proto"), py::arg("nhoff"));
}

void BindDevices(py::module_& k) {
  using namespace kernel;  // NOLINT
  py::class_<VirtualDevice>(k, "VirtualDevice", "A virtual device as `ip link add` makes it.")
      .def_readonly("kind", &VirtualDevice::kind)
      .def_readonly("dev", &VirtualDevice::dev)
      .def_readonly("unmodelled_on", &VirtualDevice::unmodelled_on)
      .def("__repr__", [](const VirtualDevice& d) { return "<VirtualDevice " + d.kind + ">"; });
  k.def("veth_device", &VethDevice, py::arg("kv") = kLabKernel);
  k.def("vxlan_device", &VxlanDevice, py::arg("kv") = kLabKernel);
  k.def("bridge_device", &BridgeDevice, py::arg("kv") = kLabKernel);
  k.def("tap_device", &TapDevice, py::arg("kv") = kLabKernel);
  k.def("all_virtual_devices", &AllVirtualDevices, py::arg("kv") = kLabKernel);
  k.def("tap_features", &TapFeatures, py::arg("tun_f"), py::arg("kv") = kLabKernel,
        "set_offload: the TAP's features after TUNSETOFFLOAD (OfflabError for EINVAL).");
  k.def("veth_xmit", &VethXmit, py::arg("skb"), py::arg("peer"), py::arg("kv") = kLabKernel);
  k.def("veth_uses_napi", &VethUsesNapi, py::arg("tx"), py::arg("peer"),
        py::arg("peer_xdp") = false, py::arg("from_local_socket") = false);
  py::module_ t = k.def_submodule("tun_f", "TUNSETOFFLOAD flags.");
  t.attr("CSUM") = tun_f::kCsum;
  t.attr("TSO4") = tun_f::kTso4;
  t.attr("TSO6") = tun_f::kTso6;
  t.attr("TSO_ECN") = tun_f::kTsoEcn;
  t.attr("UFO") = tun_f::kUfo;
  t.attr("USO4") = tun_f::kUso4;
  t.attr("USO6") = tun_f::kUso6;
  t.attr("UDP_TUNNEL_GSO") = tun_f::kUdpTunnelGso;
  t.attr("UDP_TUNNEL_GSO_CSUM") = tun_f::kUdpTunnelGsoCsum;
}

void BindRx(py::module_& k) {
  using namespace kernel;  // NOLINT
  py::class_<KernelNicView>(k, "KernelNicView", "A NIC as Linux sees it through its driver.")
      .def_readonly("driver", &KernelNicView::driver)
      .def_readonly("features", &KernelNicView::features)
      .def_readonly("hw_enc_features", &KernelNicView::hw_enc_features)
      .def_property_readonly(
          "rx_csum", [](const KernelNicView& v) { return std::string(RxCsumName(v.rx_csum)); })
      .def_readonly("tunnel_csum_level", &KernelNicView::tunnel_csum_level)
      .def_readonly("tunnels", &KernelNicView::tunnels)
      .def_readonly("rx_page_frags", &KernelNicView::rx_page_frags)
      .def_readonly("csum_err_stat", &KernelNicView::csum_err_stat)
      .def_readonly("outer_ip_err_stat", &KernelNicView::outer_ip_err_stat)
      .def_property_readonly("quirks",
                             [](const KernelNicView& v) {
                               py::dict d;
                               d["udp_zero_csum_erratum"] = v.udp_zero_csum_erratum;
                               d["icmp_unverified"] = v.icmp_unverified;
                               d["csum_good_unverified"] = v.csum_good_unverified;
                               d["null_tcp_csum_partial"] = v.null_tcp_csum_partial;
                               d["active_trunk"] = v.active_trunk;
                               d["tunnel_outer_udp_unverified"] = v.tunnel_outer_udp_unverified;
                               return d;
                             })
      .def_readonly("sources", &KernelNicView::sources)
      .def_readonly("notes", &KernelNicView::notes);
  k.def(
      "kernel_view",
      [](const std::variant<std::string, NicProfile>& p) { return KernelView(ProfileOf(p)); },
      py::arg("profile"));
  k.def(
      "kernel_device_features",
      [](const std::variant<std::string, NicProfile>& p) {
        return KernelDeviceFeatures(ProfileOf(p));
      },
      py::arg("profile"));

  py::class_<RxMeta>(k, "RxMeta", "What arrives with a frame besides its bytes.")
      .def(py::init([](const VnetHdrTunnel& vnet, bool tnl, bool tnl_csum, const TapConfig& tap,
                       bool good, bool large, uint16_t mss, uint32_t mtu) {
             RxMeta m;
             m.vnet = vnet, m.vnet_tnl = tnl, m.vnet_tnl_csum = tnl_csum, m.tap = tap;
             m.ibmveth_csum_good = good, m.ibmveth_large_packet = large, m.ibmveth_mss = mss;
             m.mtu = mtu;
             return m;
           }),
           py::arg("vnet") = VnetHdrTunnel{}, py::arg("vnet_tnl") = false,
           py::arg("vnet_tnl_csum") = false, py::arg("tap") = TapConfig{},
           py::arg("ibmveth_csum_good") = true, py::arg("ibmveth_large_packet") = false,
           py::arg("ibmveth_mss") = 0, py::arg("mtu") = 1500)
      .def_readwrite("vnet", &RxMeta::vnet)
      .def_readwrite("vnet_tnl", &RxMeta::vnet_tnl)
      .def_readwrite("vnet_tnl_csum", &RxMeta::vnet_tnl_csum)
      .def_readwrite("tap", &RxMeta::tap)
      .def_readwrite("ibmveth_csum_good", &RxMeta::ibmveth_csum_good)
      .def_readwrite("ibmveth_large_packet", &RxMeta::ibmveth_large_packet)
      .def_readwrite("ibmveth_mss", &RxMeta::ibmveth_mss)
      .def_readwrite("mtu", &RxMeta::mtu);
  py::class_<RxResult>(k, "RxResult", "A driver's receive: the skb, or why it was dropped.")
      .def_readonly("dropped", &RxResult::dropped)
      .def_readonly("drop_reason", &RxResult::drop_reason)
      .def_readonly("skb", &RxResult::skb);
  k.def(
      "driver_receive",
      [](const py::bytes& frame, const std::variant<std::string, NicProfile>& profile,
         const KernelVersion& kv, const std::optional<RxMeta>& meta,
         const std::optional<DeviceFeatures>& features) {
        const NicProfile p = ProfileOf(profile);
        Counters c;
        const DeviceFeatures dev = features ? *features : KernelDeviceFeatures(p);
        RxResult r = DriverReceiveWith(ToBytes(frame), p, dev, kv, &c, meta.value_or(RxMeta{}));
        return py::make_tuple(r, CountersDict(c));
      },
      py::arg("frame"), py::arg("profile"), py::arg("kv") = kLabKernel,
      py::arg("meta") = py::none(), py::arg("features") = py::none(),
      "What the profile's Linux driver hands to the stack; returns (RxResult, counters).");
}

}  // namespace

void BindKernelRx(py::module_& k) {
  BindVnetHdr(k);
  BindVirtio(k);
  BindDevices(k);
  BindRx(k);
}

}  // namespace offlab
