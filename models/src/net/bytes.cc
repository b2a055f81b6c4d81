#include "offlab/net/bytes.h"

#include <cctype>

#include "offlab/net/error.h"

namespace offlab {

Bytes FromHex(const std::string& hex) {
  Bytes out;
  int hi = -1;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (v < 0) throw Error(std::string("hex: invalid character '") + c + "'");
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>(hi << 4 | v));
      hi = -1;
    }
  }
  if (hi >= 0) throw Error("hex: odd number of digits");
  return out;
}

std::string ToHex(const uint8_t* data, size_t len) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(len * 2);
  for (size_t i = 0; i < len; i++) {
    s.push_back(d[data[i] >> 4]);
    s.push_back(d[data[i] & 15]);
  }
  return s;
}

}  // namespace offlab
