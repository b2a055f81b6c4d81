// Which kernel a rule applies to. Several checksum and offload rules changed
// between the kernels the seed setups ran (RHEL 7's 3.10 with backports, 4.0,
// 4.11, 5.x) and the 6.18 this machine runs; each variant of such a rule names
// the commit that brought the change and is chosen from a KernelVersion.
#pragma once

#include <string>

namespace offlab::kernel {

struct KernelVersion {
  int major = 6;
  int minor = 18;
  // Red Hat Enterprise Linux 7.x kernels: a 3.10 base with networking
  // backported from later upstream releases (UDP-tunnel GRO among them).
  bool rhel7 = false;

  bool operator==(const KernelVersion&) const = default;
  // Release order; RHEL 7 counts as its 3.10 base (its backports are
  // checked by the rules that know them, through `rhel7`).
  bool AtLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
  std::string ToString() const;
};

// The version this project's lab checks against (the running kernel of the
// development machines) and the default of every kernel host.
inline constexpr KernelVersion kLabKernel{6, 18, false};

// "6.18", "4.0", "3.10", "rhel7" / "rhel7.1" (3.10 with RHEL 7 backports),
// or "" for the default; throws offlab::Error naming a malformed or
// unsupported version (below 3.10 or above the newest modelled, 6.18).
KernelVersion ParseKernelVersion(const std::string& text);

}  // namespace offlab::kernel
