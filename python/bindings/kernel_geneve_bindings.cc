// offlab._core.kernel: the Geneve driver and its GRO hook
// (models/include/offlab/linux/geneve.h, gro.h's GroGeneveSocket).
// Python API (all in the `kernel` submodule):
//   GeneveDf.UNSET|SET|INHERIT
//   GeneveConfig(name="geneve0", mac="00:00:00:00:00:00", vni=0, dstport=6081,
//     local="0.0.0.0", remote="0.0.0.0", ttl=0, ttl_inherit=False, tos=0,
//     df=GeneveDf.UNSET, label=0, udp_csum=None, udp6_zero_csum_tx=False,
//     udp6_zero_csum_rx=False, options=b"", oam=False, critical=False,
//     collect_metadata=False, inner_proto_inherit=False, up=True)
//     `ip link add NAME type geneve ...`: addresses as text (IPv6 when either
//     contains ':'; `ipv6` is then True); udp_csum None = the kernel default
//     (IPv4: off; an IPv6 remote always has it unless udp6_zero_csum_tx);
//     options = Geneve option bytes sent after the header (multiple of 4,
//     at most 252) with the O / C bits oam / critical; collect_metadata =
//     ip_tunnel_collect_metadata() (e.g. OVS) or `external`: critical
//     options are then not dropped on receive. Attributes read/write;
//     udp_csum_tx() -> bool.
//   GeneveConfig.port_min / port_max: srcport range (default 1..65535).
//   geneve_xmit(inner: SkBuff, cfg, route: UnderlayRoute, kv=LAB_KERNEL)
//     -> (sent: bool, reason: str, skb: SkBuff, counters: dict)
//   geneve_rcv(outer: SkBuff, cfg, kv=LAB_KERNEL)
//     -> (delivered: bool, reason: str, skb: SkBuff, pkt_type: str, counters: dict)
//   GroGeneveSocket(port=6081); GroConfig gains a read/write `geneve` list of
//     them (udp_gro_receive hands that port's frames to geneve_gro_receive).
// UnderlayRoute is the one bound with the VXLAN driver. Counter keys as
// there: "Udp:InCsumErrors", "Udp6InErrors", ..., "<cfg.name>:rx_errors".
#include <arpa/inet.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "offlab/linux/geneve.h"
#include "offlab/linux/gro.h"
#include "offlab/net/addr.h"
#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {

namespace {

// IPv4 into the first 4 bytes, or IPv6; returns whether it was IPv6.
bool GeneveAddr(const std::string& s, std::array<uint8_t, 16>* out) {
  out->fill(0);
  const bool v6 = s.find(':') != std::string::npos;
  if (inet_pton(v6 ? AF_INET6 : AF_INET, s.c_str(), out->data()) != 1)
    throw Error("address '" + s + "' is malformed");
  return v6;
}

std::string GeneveAddrText(const std::array<uint8_t, 16>& a, bool v6) {
  char b[INET6_ADDRSTRLEN];
  inet_ntop(v6 ? AF_INET6 : AF_INET, a.data(), b, sizeof b);
  return b;
}

std::vector<uint8_t> OptionBytes(const py::bytes& b) {
  const std::string s = b;
  if (s.size() % 4 || s.size() > kernel::kGeneveMaxOptLen)
    throw Error("geneve options must be a multiple of 4 bytes, at most 252");
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace

void BindKernelGeneve(py::module_& k) {
  using kernel::GeneveConfig;
  py::enum_<kernel::GeneveDf>(k, "GeneveDf", "ip link ... type geneve df unset|set|inherit.")
      .value("UNSET", kernel::GeneveDf::kUnset)
      .value("SET", kernel::GeneveDf::kSet)
      .value("INHERIT", kernel::GeneveDf::kInherit);

  py::class_<GeneveConfig>(k, "GeneveConfig", "A geneve device's options.")
      .def(py::init([](std::string name, std::string mac, uint32_t vni, uint16_t dstport,
                       std::string local, std::string remote, uint8_t ttl, bool ttl_inherit,
                       uint8_t tos, kernel::GeneveDf df, uint32_t label,
                       std::optional<bool> udp_csum, bool z6tx, bool z6rx, py::bytes options,
                       bool oam, bool critical, bool collect, bool inherit, bool up) {
             GeneveConfig c;
             c.name = std::move(name);
             c.mac = ParseMac(mac);
             if (vni >= (1u << 24)) throw Error("Geneve ID must be lower than 16777216");
             c.vni = vni;
             c.dstport = dstport;
             const bool v6l = GeneveAddr(local, &c.local);
             const bool v6r = GeneveAddr(remote, &c.remote);
             if (v6l != v6r) throw Error("geneve local and remote must be of one family");
             c.ipv6 = v6l;
             c.ttl = ttl;
             c.ttl_inherit = ttl_inherit;
             c.tos = tos;
             c.df = df;
             c.label = label & 0xfffff;
             c.udp_csum = udp_csum;
             c.udp6_zero_csum_tx = z6tx;
             c.udp6_zero_csum_rx = z6rx;
             c.options = OptionBytes(options);
             c.oam = oam;
             c.critical = critical;
             c.collect_metadata = collect;
             c.inner_proto_inherit = inherit;
             c.up = up;
             return c;
           }),
           py::arg("name") = "geneve0", py::arg("mac") = "00:00:00:00:00:00", py::arg("vni") = 0,
           py::arg("dstport") = kernel::kGeneveDefaultPort, py::arg("local") = "0.0.0.0",
           py::arg("remote") = "0.0.0.0", py::arg("ttl") = 0, py::arg("ttl_inherit") = false,
           py::arg("tos") = 0, py::arg("df") = kernel::GeneveDf::kUnset, py::arg("label") = 0,
           py::arg("udp_csum") = py::none(), py::arg("udp6_zero_csum_tx") = false,
           py::arg("udp6_zero_csum_rx") = false, py::arg("options") = py::bytes(),
           py::arg("oam") = false, py::arg("critical") = false, py::arg("collect_metadata") = false,
           py::arg("inner_proto_inherit") = false, py::arg("up") = true)
      .def_readwrite("name", &GeneveConfig::name)
      .def_property(
          "mac", [](const GeneveConfig& c) { return MacToString(c.mac); },
          [](GeneveConfig& c, const std::string& s) { c.mac = ParseMac(s); })
      .def_readwrite("vni", &GeneveConfig::vni)
      .def_readwrite("dstport", &GeneveConfig::dstport)
      .def_readwrite("port_min", &GeneveConfig::port_min)
      .def_readwrite("port_max", &GeneveConfig::port_max)
      .def_readonly("ipv6", &GeneveConfig::ipv6)
      .def_property_readonly("local",
                             [](const GeneveConfig& c) { return GeneveAddrText(c.local, c.ipv6); })
      .def_property_readonly("remote",
                             [](const GeneveConfig& c) { return GeneveAddrText(c.remote, c.ipv6); })
      .def_readwrite("ttl", &GeneveConfig::ttl)
      .def_readwrite("ttl_inherit", &GeneveConfig::ttl_inherit)
      .def_readwrite("tos", &GeneveConfig::tos)
      .def_readwrite("df", &GeneveConfig::df)
      .def_readwrite("label", &GeneveConfig::label)
      .def_readwrite("udp_csum", &GeneveConfig::udp_csum)
      .def_readwrite("udp6_zero_csum_tx", &GeneveConfig::udp6_zero_csum_tx)
      .def_readwrite("udp6_zero_csum_rx", &GeneveConfig::udp6_zero_csum_rx)
      .def_property(
          "options",
          [](const GeneveConfig& c) {
            return py::bytes(reinterpret_cast<const char*>(c.options.data()), c.options.size());
          },
          [](GeneveConfig& c, const py::bytes& b) { c.options = OptionBytes(b); })
      .def_readwrite("oam", &GeneveConfig::oam)
      .def_readwrite("critical", &GeneveConfig::critical)
      .def_readwrite("collect_metadata", &GeneveConfig::collect_metadata)
      .def_readwrite("inner_proto_inherit", &GeneveConfig::inner_proto_inherit)
      .def_readwrite("up", &GeneveConfig::up)
      .def("udp_csum_tx", &GeneveConfig::UdpCsumTx);

  k.def(
      "geneve_xmit",
      [](const kernel::SkBuff& inner, const GeneveConfig& cfg, const kernel::UnderlayRoute& rt,
         kernel::KernelVersion kv) {
        Counters c;
        auto r = kernel::GeneveXmit(inner, cfg, rt, kv, &c);
        return py::make_tuple(r.sent, r.reason, r.skb, c.values());
      },
      py::arg("inner"), py::arg("cfg"), py::arg("route"), py::arg("kv") = kernel::kLabKernel,
      "geneve_xmit; returns (sent, reason, skb as handed to the underlay, counters).");
  k.def(
      "geneve_rcv",
      [](const kernel::SkBuff& outer, const GeneveConfig& cfg, kernel::KernelVersion kv) {
        Counters c;
        auto r = kernel::GeneveRcv(outer, cfg, kv, &c);
        return py::make_tuple(r.delivered, r.reason, r.skb, kernel::PktTypeName(r.pkt_type),
                              c.values());
      },
      py::arg("outer"), py::arg("cfg"), py::arg("kv") = kernel::kLabKernel,
      "IP/UDP receive and geneve_udp_encap_recv; returns (delivered, reason, inner skb, "
      "pkt_type, counters).");

  py::class_<kernel::GroGeneveSocket>(k, "GroGeneveSocket", "A Geneve socket's port for GRO.")
      .def(py::init([](uint16_t port) { return kernel::GroGeneveSocket{port}; }),
           py::arg("port") = kernel::kGeneveDefaultPort)
      .def_readwrite("port", &kernel::GroGeneveSocket::port);
  // GroConfig is bound with GRO (kernel_gro_bindings.cc); its Geneve
  // sockets are added to that class here when it is present.
  if (py::hasattr(k, "GroConfig")) {
    auto gro_config = py::reinterpret_borrow<py::class_<kernel::GroConfig>>(k.attr("GroConfig"));
    gro_config.def_readwrite("geneve", &kernel::GroConfig::geneve);
  }
}

}  // namespace offlab
