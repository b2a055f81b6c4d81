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
      // A message may quote input bytes that are not UTF-8 (a key of a
      // profile, cut text): they arrive as \x escapes, where decoding them
      // strictly would raise UnicodeDecodeError in place of the error.
      const std::string_view msg = e.what();
      py::object text = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
          msg.data(), static_cast<Py_ssize_t>(msg.size()), "backslashreplace"));
      if (text)
        PyErr_SetObject(error.ptr(), text.ptr());
      else
        py::set_error(error, "(error message could not be decoded)");
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
