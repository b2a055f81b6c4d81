// Errors crossing the core's API. Parsers never throw (they return a
// ParseError value); operations whose preconditions a caller violated, and
// malformed configuration, throw offlab::Error with a one-line message.
#pragma once

#include <stdexcept>
#include <string>

namespace offlab {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace offlab
