// offlab._core.kernel: the VXLAN driver, UDP tunnel transmit and the local
// stack's receive checks (models/include/offlab/linux/{vxlan,udp_tunnel,
// stack_rx}.h). Python API (all in the `kernel` submodule):
//   VxlanDf.UNSET|SET|INHERIT
//   VxlanConfig(name="vxlan0", mac="00:00:00:00:00:00", vni=0, dstport=8472,
//     port_min=0, port_max=0, local="0.0.0.0", remote="0.0.0.0", ttl=0,
//     ttl_inherit=False, tos=0, df=VxlanDf.UNSET, flowlabel=0, udp_csum=None,
//     udp6_zero_csum_tx=False, udp6_zero_csum_rx=False, remcsum_tx=False,
//     remcsum_rx=False, remcsum_nopartial=False, up=True)
//     `ip link add NAME type vxlan ...`: addresses as text (IPv6 when either
//     contains ':'; `ipv6` is then True), MACs "aa:bb:..", srcport MIN MAX as
//     port_min/port_max (MAX exclusive), udp_csum None = the kernel default
//     (on since 4.6); udp_csum_tx(kv) -> bool. Attributes read/write.
//   UnderlayRoute(src_mac, dst_mac, ip_id=0, flow_hash=0, hop_limit=64,
//     port_low=32768, port_high=60999, dev_features=0)
//   vxlan_xmit(inner: SkBuff, cfg, route, kv=LAB_KERNEL)
//     -> (sent: bool, reason: str, skb: SkBuff, counters: dict)
//     skb = the outer frame and state as handed to the underlay device.
//   vxlan_rcv(outer: SkBuff, cfg, kv=LAB_KERNEL)
//     -> (delivered: bool, reason: str, skb: SkBuff, pkt_type: str, counters: dict)
//     skb = the inner frame and state the inner stack sees (or the dropped skb).
//   vxlan_source_port(hash, port_min, port_max, route) -> int
//   vxlan_compute_rco(start, csum_offset) -> int (the VNI word's low byte)
//   stack_rcv(skb: SkBuff, dev_mac: str|None = None, udp_ports: list[int] = [],
//     udp_no_check6_rx=False, kv=LAB_KERNEL)
//     -> (delivered: bool, reason: str, skb: SkBuff, info: dict, counters: dict)
//     info = {ipv6, proto, tos, l3_ofs, l4_ofs, l4_len, fragment, pkt_type}.
// Counter keys are the proc names: "Udp:InCsumErrors", "IpExt:InCsumErrors",
// "Udp6InErrors", "Tcp:InErrs", ... and "<cfg.name>:rx_frame_errors" etc.
// for the vxlan device (`ip -s -s link`). Drop reasons are the kernel's
// skb_drop_reason names without the SKB_DROP_REASON_ prefix.
#include <arpa/inet.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/stack_rx.h"
#include "offlab/linux/vxlan.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {

namespace {

std::string MacText(const std::array<uint8_t, 6>& m) { return MacToString(m); }

// IPv4 into the first 4 bytes, or IPv6; returns whether it was IPv6.
bool ParseAddr(const std::string& s, std::array<uint8_t, 16>* out) {
  out->fill(0);
  if (s.find(':') != std::string::npos) {
    if (inet_pton(AF_INET6, s.c_str(), out->data()) != 1)
      throw Error("IPv6 address '" + s + "' is malformed");
    return true;
  }
  if (inet_pton(AF_INET, s.c_str(), out->data()) != 1)
    throw Error("IPv4 address '" + s + "' is malformed");
  return false;
}

std::string AddrText(const std::array<uint8_t, 16>& a, bool v6) {
  char b[INET6_ADDRSTRLEN];
  inet_ntop(v6 ? AF_INET6 : AF_INET, a.data(), b, sizeof b);
  return b;
}

#define OFFLAB_MAC_PROP(cls, field)                          \
  def_property(                                              \
      #field, [](const cls& c) { return MacText(c.field); }, \
      [](cls& c, const std::string& s) { c.field = ParseMac(s); })

}  // namespace

void BindKernelVxlan(py::module_& k) {
  using kernel::VxlanConfig;
  py::enum_<kernel::VxlanDf>(k, "VxlanDf", "ip link ... type vxlan df unset|set|inherit.")
      .value("UNSET", kernel::VxlanDf::kUnset)
      .value("SET", kernel::VxlanDf::kSet)
      .value("INHERIT", kernel::VxlanDf::kInherit);

  py::class_<VxlanConfig>(k, "VxlanConfig", "A vxlan device's options.")
      .def(py::init([](std::string name, std::string mac, uint32_t vni, uint16_t dstport,
                       uint16_t port_min, uint16_t port_max, std::string local, std::string remote,
                       uint8_t ttl, bool ttl_inherit, uint8_t tos, kernel::VxlanDf df,
                       uint32_t flowlabel, std::optional<bool> udp_csum, bool z6tx, bool z6rx,
                       bool rtx, bool rrx, bool nopartial, bool up) {
             VxlanConfig c;
             c.name = std::move(name);
             c.mac = ParseMac(mac);
             c.vni = vni;
             c.dstport = dstport;
             c.port_min = port_min;
             c.port_max = port_max;
             const bool v6l = ParseAddr(local, &c.local);
             const bool v6r = ParseAddr(remote, &c.remote);
             if (v6l != v6r) throw Error("vxlan local and remote must be of one family");
             c.ipv6 = v6l;
             c.ttl = ttl;
             c.ttl_inherit = ttl_inherit;
             c.tos = tos;
             c.df = df;
             c.flowlabel = flowlabel;
             c.udp_csum = udp_csum;
             c.udp6_zero_csum_tx = z6tx;
             c.udp6_zero_csum_rx = z6rx;
             c.remcsum_tx = rtx;
             c.remcsum_rx = rrx;
             c.remcsum_nopartial = nopartial;
             c.up = up;
             return c;
           }),
           py::arg("name") = "vxlan0", py::arg("mac") = "00:00:00:00:00:00", py::arg("vni") = 0,
           py::arg("dstport") = kernel::kVxlanDefaultPort, py::arg("port_min") = 0,
           py::arg("port_max") = 0, py::arg("local") = "0.0.0.0", py::arg("remote") = "0.0.0.0",
           py::arg("ttl") = 0, py::arg("ttl_inherit") = false, py::arg("tos") = 0,
           py::arg("df") = kernel::VxlanDf::kUnset, py::arg("flowlabel") = 0,
           py::arg("udp_csum") = py::none(), py::arg("udp6_zero_csum_tx") = false,
           py::arg("udp6_zero_csum_rx") = false, py::arg("remcsum_tx") = false,
           py::arg("remcsum_rx") = false, py::arg("remcsum_nopartial") = false,
           py::arg("up") = true)
      .def_readwrite("name", &VxlanConfig::name)
      .OFFLAB_MAC_PROP(VxlanConfig, mac)
      .def_readwrite("vni", &VxlanConfig::vni)
      .def_readwrite("dstport", &VxlanConfig::dstport)
      .def_readwrite("port_min", &VxlanConfig::port_min)
      .def_readwrite("port_max", &VxlanConfig::port_max)
      .def_readonly("ipv6", &VxlanConfig::ipv6)
      .def_property_readonly("local",
                             [](const VxlanConfig& c) { return AddrText(c.local, c.ipv6); })
      .def_property_readonly("remote",
                             [](const VxlanConfig& c) { return AddrText(c.remote, c.ipv6); })
      .def_readwrite("ttl", &VxlanConfig::ttl)
      .def_readwrite("ttl_inherit", &VxlanConfig::ttl_inherit)
      .def_readwrite("tos", &VxlanConfig::tos)
      .def_readwrite("df", &VxlanConfig::df)
      .def_readwrite("flowlabel", &VxlanConfig::flowlabel)
      .def_readwrite("udp_csum", &VxlanConfig::udp_csum)
      .def_readwrite("udp6_zero_csum_tx", &VxlanConfig::udp6_zero_csum_tx)
      .def_readwrite("udp6_zero_csum_rx", &VxlanConfig::udp6_zero_csum_rx)
      .def_readwrite("remcsum_tx", &VxlanConfig::remcsum_tx)
      .def_readwrite("remcsum_rx", &VxlanConfig::remcsum_rx)
      .def_readwrite("remcsum_nopartial", &VxlanConfig::remcsum_nopartial)
      .def_readwrite("up", &VxlanConfig::up)
      .def("udp_csum_tx", &VxlanConfig::UdpCsumTx, py::arg("kv") = kernel::kLabKernel);

  using kernel::UnderlayRoute;
  py::class_<UnderlayRoute>(k, "UnderlayRoute", "What the route to the remote gives transmit.")
      .def(py::init([](const std::string& src, const std::string& dst, uint16_t id, uint32_t hash,
                       uint8_t hop, uint16_t lo, uint16_t hi, uint64_t feat) {
             UnderlayRoute r;
             r.src_mac = ParseMac(src);
             r.dst_mac = ParseMac(dst);
             r.ip_id = id;
             r.flow_hash = hash;
             r.hop_limit = hop;
             r.port_low = lo;
             r.port_high = hi;
             r.dev_features = feat;
             return r;
           }),
           py::arg("src_mac") = "00:00:00:00:00:00", py::arg("dst_mac") = "00:00:00:00:00:00",
           py::arg("ip_id") = 0, py::arg("flow_hash") = 0, py::arg("hop_limit") = 64,
           py::arg("port_low") = 32768, py::arg("port_high") = 60999, py::arg("dev_features") = 0)
      .OFFLAB_MAC_PROP(UnderlayRoute, src_mac)
      .OFFLAB_MAC_PROP(UnderlayRoute, dst_mac)
      .def_readwrite("ip_id", &UnderlayRoute::ip_id)
      .def_readwrite("flow_hash", &UnderlayRoute::flow_hash)
      .def_readwrite("hop_limit", &UnderlayRoute::hop_limit)
      .def_readwrite("port_low", &UnderlayRoute::port_low)
      .def_readwrite("port_high", &UnderlayRoute::port_high)
      .def_readwrite("dev_features", &UnderlayRoute::dev_features);

  k.def(
      "vxlan_xmit",
      [](const kernel::SkBuff& inner, const VxlanConfig& cfg, const UnderlayRoute& rt,
         kernel::KernelVersion kv) {
        Counters c;
        auto r = kernel::VxlanXmit(inner, cfg, rt, kv, &c);
        return py::make_tuple(r.sent, r.reason, r.skb, c.values());
      },
      py::arg("inner"), py::arg("cfg"), py::arg("route"), py::arg("kv") = kernel::kLabKernel,
      "vxlan_xmit_one; returns (sent, reason, skb as handed to the underlay, counters).");
  k.def(
      "vxlan_rcv",
      [](const kernel::SkBuff& outer, const VxlanConfig& cfg, kernel::KernelVersion kv) {
        Counters c;
        auto r = kernel::VxlanRcv(outer, cfg, kv, &c);
        return py::make_tuple(r.delivered, r.reason, r.skb, kernel::PktTypeName(r.pkt_type),
                              c.values());
      },
      py::arg("outer"), py::arg("cfg"), py::arg("kv") = kernel::kLabKernel,
      "IP/UDP receive and vxlan_rcv; returns (delivered, reason, inner skb, pkt_type, counters).");
  k.def("vxlan_source_port", &kernel::VxlanSourcePort, py::arg("hash"), py::arg("port_min"),
        py::arg("port_max"), py::arg("route"));
  k.def("vxlan_compute_rco", &kernel::VxlanComputeRco, py::arg("start"), py::arg("csum_offset"));

  k.def(
      "stack_rcv",
      [](const kernel::SkBuff& skb, std::optional<std::string> dev_mac,
         std::vector<uint16_t> udp_ports, bool no_check6_rx, kernel::KernelVersion kv) {
        kernel::StackRxConfig cfg;
        if (dev_mac) cfg.dev_mac = ParseMac(*dev_mac);
        cfg.udp_ports = std::move(udp_ports);
        cfg.udp_no_check6_rx = no_check6_rx;
        kernel::SkBuff s = skb;
        Counters c;
        auto r = kernel::StackRcv(s, cfg, kv, &c);
        py::dict info;
        info["ipv6"] = r.ip.ipv6;
        info["proto"] = r.ip.proto;
        info["tos"] = r.ip.tos;
        info["l3_ofs"] = r.ip.l3_ofs;
        info["l4_ofs"] = r.ip.l4_ofs;
        info["l4_len"] = r.ip.l4_len;
        info["fragment"] = r.ip.fragment;
        info["pkt_type"] = kernel::PktTypeName(r.pkt_type);
        return py::make_tuple(r.verdict.delivered, r.verdict.reason, s, info, c.values());
      },
      py::arg("skb"), py::arg("dev_mac") = py::none(),
      py::arg("udp_ports") = std::vector<uint16_t>{}, py::arg("udp_no_check6_rx") = false,
      py::arg("kv") = kernel::kLabKernel,
      "Local receive of a frame; returns (delivered, reason, skb, info, counters).");
}

}  // namespace offlab
