#include "offlab/net/addr.h"

#include <arpa/inet.h>

#include <cstdio>

#include "offlab/net/error.h"

namespace offlab {

IpAddr ParseIp(const std::string& s, bool* ipv6) {
  IpAddr a{};
  if (inet_pton(AF_INET, s.c_str(), a.data()) == 1) {
    *ipv6 = false;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.data()) == 1) {
    *ipv6 = true;
    return a;
  }
  throw Error("'" + s + "' is not an IP address");
}

MacAddr ParseMac(const std::string& s) {
  MacAddr m{};
  unsigned v[6];
  char extra;
  if (std::sscanf(s.c_str(), "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &extra) != 6) {
    throw Error("'" + s + "' is not a MAC address");
  }
  for (int i = 0; i < 6; i++) {
    if (v[i] > 255) throw Error("'" + s + "' is not a MAC address");
    m[i] = static_cast<uint8_t>(v[i]);
  }
  return m;
}

std::string MacToString(const MacAddr& m) {
  char b[18];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

}  // namespace offlab
