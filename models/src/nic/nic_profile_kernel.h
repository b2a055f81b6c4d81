// The parser of a profile's optional `kernel:` section (nic_profile.cc calls
// it; kept apart so each file stays one job).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>

#include "offlab/nic/nic_profile.h"

namespace offlab::profile_detail {

// Reports a problem at a node; never returns (throws offlab::Error).
using FailAt = std::function<void(const YAML::Node&, const std::string&)>;

// Parses `node` (the value of `kernel:`) with the same strictness as the
// rest of a profile: unknown or duplicate keys, missing values or sources,
// wrong types and unknown enumerators are errors. Sources are recorded in
// the view's own `sources` by key (quirks as "quirks.<name>"), apart from
// the profile's, whose keys describe the OVS view.
KernelNicView ParseKernelSection(const YAML::Node& node, const FailAt& fail);

}  // namespace offlab::profile_detail
