#include "offlab/linux/version.h"

#include <cstdio>

#include "offlab/net/error.h"

namespace offlab::kernel {

std::string KernelVersion::ToString() const {
  if (rhel7) return "rhel7 (3.10)";
  return std::to_string(major) + "." + std::to_string(minor);
}

KernelVersion ParseKernelVersion(const std::string& text) {
  if (text.empty()) return kLabKernel;
  if (text == "rhel7" || text.rfind("rhel7.", 0) == 0) return KernelVersion{3, 10, true};
  int maj = 0, min = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d.%d%c", &maj, &min, &tail) != 2)
    throw Error("kernel version '" + text + "': expected MAJOR.MINOR (e.g. 6.18) or rhel7");
  KernelVersion v{maj, min, false};
  if (!v.AtLeast(3, 10) || v.AtLeast(6, 19))
    throw Error("kernel version '" + text + "': modelled kernels are 3.10 to 6.18");
  return v;
}

}  // namespace offlab::kernel
