// offlab._core: the compiled core. Private; the offlab package re-exports a
// curated API.
#include <pybind11/pybind11.h>

#include "offlab/net/error.h"

namespace py = pybind11;

namespace offlab {
void BindCore(py::module_& m);
void BindPipeline(py::module_& m);
void BindNicRx(py::module_& m);
void BindKernel(py::module_& k);
// The kernel model's parts, each binding itself into the `kernel` submodule.
void BindKernelRx(py::module_& k);
void BindKernelGro(py::module_& k);
void BindKernelVxlan(py::module_& k);
void BindKernelXmit(py::module_& k);
void BindKernelOvs(py::module_& k);
void BindKernelHost(py::module_& k);
void BindKernelGeneve(py::module_& k);
}  // namespace offlab

PYBIND11_MODULE(_core, m) {
  m.doc() = "offlab's compiled semantics core (private; use the offlab package).";
  static py::exception<offlab::Error> error(m, "OfflabError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const offlab::Error& e) {
      py::set_error(error, e.what());
    }
  });
  offlab::BindCore(m);
  offlab::BindPipeline(m);
  offlab::BindNicRx(m);
  auto kernel = m.def_submodule("kernel", "The Linux kernel path model (skb checksum state).");
  offlab::BindKernel(kernel);
  for (auto* bind : {offlab::BindKernelRx, offlab::BindKernelGro, offlab::BindKernelVxlan,
                     offlab::BindKernelGeneve, offlab::BindKernelXmit, offlab::BindKernelOvs,
                     offlab::BindKernelHost})
    bind(kernel);
}
