// offlab._core.kernel: transmit — validate_xmit_skb, software GSO and what a
// NIC puts on the wire (models/include/offlab/linux/{xmit,xmit_features,
// gso_segment,device_tx}.h). Python API (all in the `kernel` submodule):
//   XmitOptions(gso_partial_features=0, frag_list_linear=True,
//     frag_list_head_frag=False): dev->gso_partial_features and how frag_list
//     members hold their data (read/write attributes).
//   validate_xmit_skb(skb, dev, kv=LAB_KERNEL, options=None)
//     -> (skbs: list[SkBuff], counters: dict, work: dict)
//     skbs = what the driver's ndo_start_xmit receives ([] = dropped);
//     work = {"csum_bytes", "copy_bytes", "sw_segments"} done in software.
//   skb_gso_segment(skb, features, dev, kv=LAB_KERNEL, options=None)
//     -> (err: int, unsegmented: bool, segs: list[SkBuff], counters: dict, work: dict)
//     err is 0 or -errno (-22 EINVAL, -93 EPROTONOSUPPORT, -1000 = kernel BUG()).
//   netif_skb_features(skb, dev, kv=LAB_KERNEL, options=None) -> int (netif.* bits)
//   netif_needs_gso(skb, features) -> bool; skb_gso_ok(skb, features) -> bool;
//   net_gso_ok(features, gso_type) -> bool; skb_needs_linearize(skb, features) -> bool;
//   can_checksum_protocol(features, ethertype) -> bool
//   skb_checksum_help(skb) -> int; skb_csum_hwoffload_help(skb, features,
//     kv=LAB_KERNEL) -> int  (both change `skb` in place; 0 or -errno)
//   device_transmit(skb, dev) -> (frames: list[bytes], counters: dict)
//   IbmvethConfig(illan_options=True, large_send=True, old_large_send=False,
//     fw_large_send=True, active_trunk=True) (read/write attributes)
//   ibmveth_features(cfg, kv=LAB_KERNEL) -> DeviceFeatures
//   ibmveth_start_xmit(skb, cfg, kv=LAB_KERNEL)
//     -> (sent: bool, drop: str, skb: SkBuff, largesend: bool, mss: int,
//         linearized_bytes: int, counters: dict)
//   GSO_TCP_ACCECN, GSO_TCP_FIXEDID_618, GSO_TCP_FIXEDID_INNER_618: the v6.18
//     gso_type bits gso.* lacks (bits 19, 30, 31).
// Counter names are listed in xmit.h, gso_segment.h and device_tx.h.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "offlab/linux/device_tx.h"
#include "offlab/linux/device_tx_ibmveth.h"
#include "offlab/linux/gso_segment.h"
#include "offlab/linux/xmit.h"
#include "offlab/linux/xmit_features.h"
#include "offlab/net/work.h"

namespace py = pybind11;

namespace offlab {

namespace {

py::dict WorkDict(const Work& w) {
  py::dict d;
  d["csum_bytes"] = w.csum_bytes;
  d["copy_bytes"] = w.copy_bytes;
  d["sw_segments"] = w.sw_segments;
  return d;
}

kernel::XmitOptions Opt(const std::optional<kernel::XmitOptions>& o) {
  return o ? *o : kernel::XmitOptions{};
}

}  // namespace

void BindKernelXmit(py::module_& k) {
  using kernel::DeviceFeatures;
  using kernel::KernelVersion;
  using kernel::SkBuff;
  using kernel::XmitOptions;

  py::class_<XmitOptions>(k, "XmitOptions",
                          "Device and skb properties the transmit path reads beyond "
                          "DeviceFeatures/SkBuff.")
      .def(py::init([](uint64_t partial, bool linear, bool head_frag) {
             return XmitOptions{partial, linear, head_frag};
           }),
           py::arg("gso_partial_features") = 0, py::arg("frag_list_linear") = true,
           py::arg("frag_list_head_frag") = false)
      .def_readwrite("gso_partial_features", &XmitOptions::gso_partial_features)
      .def_readwrite("frag_list_linear", &XmitOptions::frag_list_linear)
      .def_readwrite("frag_list_head_frag", &XmitOptions::frag_list_head_frag);

  k.def(
      "validate_xmit_skb",
      [](const SkBuff& skb, const DeviceFeatures& dev, const KernelVersion& kv,
         const std::optional<XmitOptions>& opt) {
        Counters c;
        work::Take();
        std::vector<SkBuff> out = kernel::ValidateXmitSkb(skb, dev, Opt(opt), kv, &c);
        const Work w = work::Take();
        return py::make_tuple(std::move(out), c.values(), WorkDict(w));
      },
      py::arg("skb"), py::arg("dev"), py::arg("kv") = kernel::kLabKernel,
      py::arg("options") = py::none(),
      "validate_xmit_skb; returns (skbs, counters, work). skbs == [] means dropped.");
  k.def(
      "skb_gso_segment",
      [](const SkBuff& skb, uint64_t features, const DeviceFeatures& dev, const KernelVersion& kv,
         const std::optional<XmitOptions>& opt) {
        Counters c;
        work::Take();
        kernel::GsoResult r = kernel::SkbGsoSegment(skb, features, dev, Opt(opt), kv, &c);
        const Work w = work::Take();
        return py::make_tuple(r.err, r.unsegmented, std::move(r.segs), c.values(), WorkDict(w));
      },
      py::arg("skb"), py::arg("features"), py::arg("dev"), py::arg("kv") = kernel::kLabKernel,
      py::arg("options") = py::none(),
      "skb_gso_segment (tx path); returns (err, unsegmented, segs, counters, work).");
  k.def(
      "netif_skb_features",
      [](const SkBuff& skb, const DeviceFeatures& dev, const KernelVersion& kv,
         const std::optional<XmitOptions>& opt) {
        return kernel::NetifSkbFeatures(skb, dev, Opt(opt), kv);
      },
      py::arg("skb"), py::arg("dev"), py::arg("kv") = kernel::kLabKernel,
      py::arg("options") = py::none());
  k.def("netif_needs_gso", &kernel::NetifNeedsGso, py::arg("skb"), py::arg("features"));
  k.def("skb_gso_ok", &kernel::SkbGsoOk, py::arg("skb"), py::arg("features"));
  k.def("net_gso_ok", &kernel::NetGsoOk, py::arg("features"), py::arg("gso_type"));
  k.def("skb_needs_linearize", &kernel::SkbNeedsLinearize, py::arg("skb"), py::arg("features"));
  k.def("can_checksum_protocol", &kernel::CanChecksumProtocol, py::arg("features"),
        py::arg("ethertype"));
  k.def(
      "skb_checksum_help", [](SkBuff& skb) { return kernel::SkbChecksumHelp(skb); }, py::arg("skb"),
      "skb_checksum_help in place; 0 or -errno.");
  k.def(
      "skb_csum_hwoffload_help",
      [](SkBuff& skb, uint64_t features, const KernelVersion& kv) {
        return kernel::SkbCsumHwoffloadHelp(skb, features, kv);
      },
      py::arg("skb"), py::arg("features"), py::arg("kv") = kernel::kLabKernel,
      "skb_csum_hwoffload_help in place; 0 or -errno.");
  k.def(
      "device_transmit",
      [](const SkBuff& skb, const DeviceFeatures& dev) {
        Counters c;
        std::vector<Bytes> frames = kernel::DeviceTransmit(skb, dev, &c);
        py::list out;
        for (const Bytes& f : frames)
          out.append(py::bytes(reinterpret_cast<const char*>(f.data()), f.size()));
        return py::make_tuple(out, c.values());
      },
      py::arg("skb"), py::arg("dev"), "The frames a NIC sends for the skb; (frames, counters).");
  py::class_<kernel::IbmvethConfig>(k, "IbmvethConfig", "An ibmveth adapter's firmware options.")
      .def(py::init([](bool illan, bool ls, bool old_ls, bool fw_ls, bool trunk) {
             return kernel::IbmvethConfig{illan, ls, old_ls, fw_ls, trunk};
           }),
           py::arg("illan_options") = true, py::arg("large_send") = true,
           py::arg("old_large_send") = false, py::arg("fw_large_send") = true,
           py::arg("active_trunk") = true)
      .def_readwrite("illan_options", &kernel::IbmvethConfig::illan_options)
      .def_readwrite("large_send", &kernel::IbmvethConfig::large_send)
      .def_readwrite("old_large_send", &kernel::IbmvethConfig::old_large_send)
      .def_readwrite("fw_large_send", &kernel::IbmvethConfig::fw_large_send)
      .def_readwrite("active_trunk", &kernel::IbmvethConfig::active_trunk);
  k.def("ibmveth_features", &kernel::IbmvethFeatures, py::arg("cfg"),
        py::arg("kv") = kernel::kLabKernel);
  k.def(
      "ibmveth_start_xmit",
      [](const SkBuff& skb, const kernel::IbmvethConfig& cfg, const KernelVersion& kv) {
        Counters c;
        kernel::IbmvethTx t = kernel::IbmvethStartXmit(skb, cfg, kv, &c);
        return py::make_tuple(t.sent, t.drop, std::move(t.skb), t.largesend, t.mss,
                              t.linearized_bytes, c.values());
      },
      py::arg("skb"), py::arg("cfg"), py::arg("kv") = kernel::kLabKernel,
      "ibmveth_start_xmit; (sent, drop, skb, largesend, mss, linearized_bytes, counters).");
  k.attr("GSO_TCP_ACCECN") = kernel::gso618::kTcpAccecn;
  k.attr("GSO_TCP_FIXEDID_618") = kernel::gso618::kTcpFixedid;
  k.attr("GSO_TCP_FIXEDID_INNER_618") = kernel::gso618::kTcpFixedidInner;
}

}  // namespace offlab
