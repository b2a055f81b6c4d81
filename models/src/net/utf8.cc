#include "offlab/net/utf8.h"

#include <cstddef>
#include <cstdint>

namespace offlab {

bool IsValidUtf8(std::string_view s) {
  // RFC 3629 section 4, the UTF8-octets grammar.
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = p[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
    if (b >= 0xc2 && b <= 0xdf) {
      len = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b == 0xe0) lo = 0xa0;  // overlong
      if (b == 0xed) hi = 0x9f;  // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b == 0xf0) lo = 0x90;  // overlong
      if (b == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
      return false;
    }
    if (n - i < len || p[i + 1] < lo || p[i + 1] > hi) return false;
    for (size_t k = 2; k < len; k++)
      if (p[i + k] < 0x80 || p[i + k] > 0xbf) return false;
    i += len;
  }
  return true;
}

}  // namespace offlab
