// Text from input files must be UTF-8 before it reaches the Python side
// (pybind11 decodes every std::string it hands over as UTF-8).
#pragma once

#include <string_view>

namespace offlab {

// Whether `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace offlab
