// offlab._core.kernel: the Linux kernel model's shared types. Python API:
//   IpSummed.NONE|UNNECESSARY|COMPLETE|PARTIAL
//   SkBuff(frame: bytes = b"") with read/write attributes: frame (bytes), ip_summed,
//     csum_level, csum, csum_from, csum_start, csum_offset, csum_valid, csum_not_inet,
//     encapsulation, remcsum_offload, gso_size, gso_segs, gso_type, nr_frags,
//     frag_list_lens (list[int]), l3_ofs, l4_ofs, inner_l2_ofs, inner_l3_ofs,
//     inner_l4_ofs (int | None); describe(), copy(), len(skb)
//   KernelVersion (major, minor, rhel7; at_least(maj, min)); parse_kernel_version(str);
//     LAB_KERNEL
//   DeviceFeatures(features=0, hw_enc_features=0, gso_max_size=65536, gso_max_segs=65535,
//     mtu=1500); feature_names(int) -> list[str]; feature_from_name(str) -> int
//   gso.* (SKB_GSO_* bits), netif.* (NETIF_F_* bits), gso_type_names(int) -> str
//   skb_complete_partial(skb) -> bool; skb_csum_unnecessary(skb) -> bool
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/skb_csum.h"
#include "offlab/linux/version.h"
#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {

namespace {

std::optional<int> KOfs(uint16_t o) {
  return o == kNoOffset ? std::nullopt : std::optional<int>(o);
}
uint16_t KToOfs(std::optional<int> o) {
  if (!o) return kNoOffset;
  if (*o < 0 || *o >= kNoOffset) throw Error("offset out of range");
  return static_cast<uint16_t>(*o);
}

#define OFFLAB_SKB_OFS(name)                                           \
  def_property(                                                        \
      #name, [](const kernel::SkBuff& s) { return KOfs(s.pkt.name); }, \
      [](kernel::SkBuff& s, std::optional<int> o) { s.pkt.name = KToOfs(o); })

}  // namespace

void BindKernel(py::module_& k) {
  using kernel::SkBuff;
  py::enum_<kernel::IpSummed>(k, "IpSummed", "skb->ip_summed (include/linux/skbuff.h).")
      .value("NONE", kernel::IpSummed::kNone)
      .value("UNNECESSARY", kernel::IpSummed::kUnnecessary)
      .value("COMPLETE", kernel::IpSummed::kComplete)
      .value("PARTIAL", kernel::IpSummed::kPartial);

  py::class_<SkBuff>(k, "SkBuff", "An sk_buff's bytes and checksum/offload state.")
      .def(py::init([](const py::bytes& b) {
             std::string s = b;
             SkBuff skb;
             skb.pkt = Packet(reinterpret_cast<const uint8_t*>(s.data()), s.size());
             return skb;
           }),
           py::arg("frame") = py::bytes())
      .def_property(
          "frame",
          [](const SkBuff& s) {
            return py::bytes(reinterpret_cast<const char*>(s.pkt.data()), s.pkt.size());
          },
          [](SkBuff& s, const py::bytes& b) {
            std::string str = b;
            Packet p(reinterpret_cast<const uint8_t*>(str.data()), str.size());
            p.l2_5_ofs = s.pkt.l2_5_ofs;
            p.l3_ofs = s.pkt.l3_ofs;
            p.l4_ofs = s.pkt.l4_ofs;
            p.inner_l2_ofs = s.pkt.inner_l2_ofs;
            p.inner_l3_ofs = s.pkt.inner_l3_ofs;
            p.inner_l4_ofs = s.pkt.inner_l4_ofs;
            s.pkt = std::move(p);
          })
      .def_readwrite("ip_summed", &SkBuff::ip_summed)
      .def_readwrite("csum_level", &SkBuff::csum_level)
      .def_readwrite("csum", &SkBuff::csum)
      .def_readwrite("csum_from", &SkBuff::csum_from)
      .def_readwrite("csum_start", &SkBuff::csum_start)
      .def_readwrite("csum_offset", &SkBuff::csum_offset)
      .def_readwrite("csum_valid", &SkBuff::csum_valid)
      .def_readwrite("csum_not_inet", &SkBuff::csum_not_inet)
      .def_readwrite("encapsulation", &SkBuff::encapsulation)
      .def_readwrite("remcsum_offload", &SkBuff::remcsum_offload)
      .def_readwrite("gso_size", &SkBuff::gso_size)
      .def_readwrite("gso_segs", &SkBuff::gso_segs)
      .def_readwrite("gso_type", &SkBuff::gso_type)
      .def_readwrite("nr_frags", &SkBuff::nr_frags)
      .def_readwrite("frag_list_lens", &SkBuff::frag_list_lens)
      .OFFLAB_SKB_OFS(l3_ofs)
      .OFFLAB_SKB_OFS(l4_ofs)
      .OFFLAB_SKB_OFS(inner_l2_ofs)
      .OFFLAB_SKB_OFS(inner_l3_ofs)
      .OFFLAB_SKB_OFS(inner_l4_ofs)
      .def("describe", [](const SkBuff& s) { return kernel::Describe(s); })
      .def("copy", [](const SkBuff& s) { return SkBuff(s); })
      .def("__len__", &SkBuff::len)
      .def("__repr__", [](const SkBuff& s) { return "<SkBuff " + kernel::Describe(s) + ">"; });

  py::class_<kernel::KernelVersion>(k, "KernelVersion", "A kernel release a rule variant is for.")
      .def(py::init<int, int, bool>(), py::arg("major"), py::arg("minor"), py::arg("rhel7") = false)
      .def_readonly("major", &kernel::KernelVersion::major)
      .def_readonly("minor", &kernel::KernelVersion::minor)
      .def_readonly("rhel7", &kernel::KernelVersion::rhel7)
      .def("at_least", &kernel::KernelVersion::AtLeast)
      .def("__eq__",
           [](const kernel::KernelVersion& a, const kernel::KernelVersion& b) { return a == b; })
      .def("__str__", &kernel::KernelVersion::ToString)
      .def("__repr__",
           [](const kernel::KernelVersion& v) { return "<KernelVersion " + v.ToString() + ">"; });
  k.def("parse_kernel_version", &kernel::ParseKernelVersion, py::arg("text"));
  k.attr("LAB_KERNEL") = kernel::kLabKernel;

  py::class_<kernel::DeviceFeatures>(k, "DeviceFeatures", "A net device's features.")
      .def(py::init([](uint64_t f, uint64_t enc, uint32_t gso_max_size, uint16_t gso_max_segs,
                       uint32_t mtu) {
             return kernel::DeviceFeatures{f, enc, gso_max_size, gso_max_segs, mtu};
           }),
           py::arg("features") = 0, py::arg("hw_enc_features") = 0, py::arg("gso_max_size") = 65536,
           py::arg("gso_max_segs") = 65535, py::arg("mtu") = 1500)
      .def_readwrite("features", &kernel::DeviceFeatures::features)
      .def_readwrite("hw_enc_features", &kernel::DeviceFeatures::hw_enc_features)
      .def_readwrite("gso_max_size", &kernel::DeviceFeatures::gso_max_size)
      .def_readwrite("gso_max_segs", &kernel::DeviceFeatures::gso_max_segs)
      .def_readwrite("mtu", &kernel::DeviceFeatures::mtu);
  k.def("feature_names", &kernel::FeatureNames, py::arg("features"));
  k.def("feature_from_name", &kernel::FeatureFromName, py::arg("name"));
  k.def("gso_type_names", &kernel::GsoTypeToString, py::arg("gso_type"));

  auto gso = k.def_submodule("gso", "SKB_GSO_* bits.");
  gso.attr("TCPV4") = kernel::gso::kTcpv4;
  gso.attr("DODGY") = kernel::gso::kDodgy;
  gso.attr("TCP_ECN") = kernel::gso::kTcpEcn;
  gso.attr("TCP_FIXEDID") = kernel::gso::kTcpFixedid;
  gso.attr("TCPV6") = kernel::gso::kTcpv6;
  gso.attr("GRE") = kernel::gso::kGre;
  gso.attr("GRE_CSUM") = kernel::gso::kGreCsum;
  gso.attr("UDP_TUNNEL") = kernel::gso::kUdpTunnel;
  gso.attr("UDP_TUNNEL_CSUM") = kernel::gso::kUdpTunnelCsum;
  gso.attr("PARTIAL") = kernel::gso::kPartial;
  gso.attr("TUNNEL_REMCSUM") = kernel::gso::kTunnelRemcsum;
  gso.attr("SCTP") = kernel::gso::kSctp;
  gso.attr("UDP") = kernel::gso::kUdp;
  gso.attr("UDP_L4") = kernel::gso::kUdpL4;
  gso.attr("FRAGLIST") = kernel::gso::kFraglist;

  auto netif = k.def_submodule("netif", "NETIF_F_* feature bits (offlab's numbering).");
  for (uint64_t bit = 1; bit && bit <= kernel::netif::kLlTx; bit <<= 1) {
    std::string name = kernel::FeatureName(bit);
    if (name == "?") continue;
    for (char& c : name) c = (c == '-') ? '_' : static_cast<char>(std::toupper(c));
    netif.attr(name.c_str()) = bit;
  }

  k.def("skb_complete_partial", &kernel::SkbCompletePartial, py::arg("skb"),
        "skb_checksum_help's completion of a PARTIAL checksum, in place.");
  k.def("skb_csum_unnecessary", &kernel::SkbCsumUnnecessary, py::arg("skb"),
        py::arg("data_ofs") = 0);
}

}  // namespace offlab
