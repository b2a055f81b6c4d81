// offlab._core.kernel: the GRO model (offlab/linux/gro.h). Python API:
//   GroResult.MERGED | MERGED_FREE | HELD | NORMAL | CONSUMED
//   GroVxlanSocket(port=4789, remcsum_rx=False, remcsum_nopartial=False)
//   GroUdpSocket(port, gro_enabled=False)            # a plain UDP socket (UDP_GRO)
//   GroConfig(kv=LAB_KERNEL, features=netif.GRO, xdp_prog=False, gro_max_size=65536,
//             head_frag=False, tcp_local_socket=True, vxlan=[], udp_sockets=[])
//     read/write attributes of the same names (vxlan / udp_sockets are lists)
//   GroCell(config=GroConfig())
//     .receive(skb: SkBuff, hash: int = 0) -> GroResult   # napi_gro_receive
//     .flush() -> list[SkBuff]      # napi_complete_done: everything handed up, in order
//     .held -> int, .last_reason -> str, .config -> GroConfig
//     .stats -> GroStats: received, merged, held, normal, flushed, evicted, delivered,
//               csum_bytes (ints), not_validated / normal_reasons (dict[str, int])
//   gro_gso.TCP_ACCECN, gro_gso.TCP_FIXEDID_618, gro_gso.TCP_FIXEDID_INNER_618
//     (SKB_GSO bits of newer kernels that gso.* lacks)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "offlab/linux/features.h"
#include "offlab/linux/gro.h"

namespace py = pybind11;

namespace offlab {

void BindKernelGro(py::module_& k) {
  using kernel::GroCell;
  using kernel::GroConfig;
  py::enum_<kernel::GroResult>(k, "GroResult", "enum gro_result (napi_gro_receive).")
      .value("MERGED", kernel::GroResult::kMerged)
      .value("MERGED_FREE", kernel::GroResult::kMergedFree)
      .value("HELD", kernel::GroResult::kHeld)
      .value("NORMAL", kernel::GroResult::kNormal)
      .value("CONSUMED", kernel::GroResult::kConsumed);

  py::class_<kernel::GroVxlanSocket>(k, "GroVxlanSocket", "A VXLAN socket's port and RCO flags.")
      .def(py::init([](uint16_t port, bool rx, bool nopartial) {
             return kernel::GroVxlanSocket{port, rx, nopartial};
           }),
           py::arg("port") = 4789, py::arg("remcsum_rx") = false,
           py::arg("remcsum_nopartial") = false)
      .def_readwrite("port", &kernel::GroVxlanSocket::port)
      .def_readwrite("remcsum_rx", &kernel::GroVxlanSocket::remcsum_rx)
      .def_readwrite("remcsum_nopartial", &kernel::GroVxlanSocket::remcsum_nopartial);

  py::class_<kernel::GroUdpSocket>(k, "GroUdpSocket", "A plain UDP socket (UDP_GRO or not).")
      .def(py::init([](uint16_t port, bool gro) {
             return kernel::GroUdpSocket{port, gro};
           }),
           py::arg("port"), py::arg("gro_enabled") = false)
      .def_readwrite("port", &kernel::GroUdpSocket::port)
      .def_readwrite("gro_enabled", &kernel::GroUdpSocket::gro_enabled);

  py::class_<GroConfig>(k, "GroConfig", "The receiving device and sockets GRO depends on.")
      .def(py::init([](const kernel::KernelVersion& kv, uint64_t features, bool xdp,
                       uint32_t gro_max_size, bool head_frag, bool tcp_local_socket,
                       std::vector<kernel::GroVxlanSocket> vxlan,
                       std::vector<kernel::GroUdpSocket> udp) {
             GroConfig c;
             c.kv = kv;
             c.features = features;
             c.xdp_prog = xdp;
             c.gro_max_size = gro_max_size;
             c.head_frag = head_frag;
             c.tcp_local_socket = tcp_local_socket;
             c.vxlan = std::move(vxlan);
             c.udp_sockets = std::move(udp);
             return c;
           }),
           py::arg("kv") = kernel::kLabKernel, py::arg("features") = kernel::netif::kGro,
           py::arg("xdp_prog") = false, py::arg("gro_max_size") = 65536,
           py::arg("head_frag") = false, py::arg("tcp_local_socket") = true,
           py::arg("vxlan") = std::vector<kernel::GroVxlanSocket>{},
           py::arg("udp_sockets") = std::vector<kernel::GroUdpSocket>{})
      .def_readwrite("kv", &GroConfig::kv)
      .def_readwrite("features", &GroConfig::features)
      .def_readwrite("xdp_prog", &GroConfig::xdp_prog)
      .def_readwrite("gro_max_size", &GroConfig::gro_max_size)
      .def_readwrite("head_frag", &GroConfig::head_frag)
      .def_readwrite("tcp_local_socket", &GroConfig::tcp_local_socket)
      .def_readwrite("vxlan", &GroConfig::vxlan)
      .def_readwrite("udp_sockets", &GroConfig::udp_sockets);

  py::class_<kernel::GroStats>(k, "GroStats", "What a GroCell did.")
      .def_readonly("received", &kernel::GroStats::received)
      .def_readonly("merged", &kernel::GroStats::merged)
      .def_readonly("held", &kernel::GroStats::held)
      .def_readonly("normal", &kernel::GroStats::normal)
      .def_readonly("flushed", &kernel::GroStats::flushed)
      .def_readonly("evicted", &kernel::GroStats::evicted)
      .def_readonly("delivered", &kernel::GroStats::delivered)
      .def_readonly("not_validated", &kernel::GroStats::not_validated)
      .def_readonly("normal_reasons", &kernel::GroStats::normal_reasons)
      .def_readonly("csum_bytes", &kernel::GroStats::csum_bytes);

  py::class_<GroCell>(k, "GroCell", "One NAPI context's GRO (napi_gro_receive / flush).")
      .def(py::init<GroConfig>(), py::arg("config") = GroConfig{})
      .def("receive", &GroCell::Receive, py::arg("skb"), py::arg("hash") = 0)
      .def("flush", &GroCell::Flush)
      .def_property_readonly("held", &GroCell::held)
      .def_property_readonly("last_reason", &GroCell::last_reason)
      .def_property_readonly("config", &GroCell::config)
      .def_property_readonly("stats", &GroCell::stats);

  auto g = k.def_submodule("gro_gso", "SKB_GSO bits of newer kernels.");
  g.attr("TCP_ACCECN") = kernel::gro_gso::kTcpAccecn;
  g.attr("TCP_FIXEDID_618") = kernel::gro_gso::kTcpFixedid618;
  g.attr("TCP_FIXEDID_INNER_618") = kernel::gro_gso::kTcpFixedidInner618;
}

}  // namespace offlab
