#include "offlab/caps.h"

#include "offlab/error.h"

namespace offlab {

namespace {
constexpr const char* kNames[] = {
    "ipv4_cksum",    "tcp_cksum",      "udp_cksum",      "sctp_cksum",      "tcp_tso",
    "vxlan_tnl_tso", "geneve_tnl_tso", "outer_ip_cksum", "outer_udp_cksum", "gre_tnl_tso"};
}

std::string CapsToString(uint32_t caps) {
  std::string s;
  for (int i = 0; i < 10; i++) {
    if (caps & (1u << i)) s += (s.empty() ? "" : "|") + std::string(kNames[i]);
  }
  return s.empty() ? "none" : s;
}

uint32_t CapFromName(const std::string& name) {
  for (int i = 0; i < 10; i++) {
    if (name == kNames[i]) return 1u << i;
  }
  throw Error("unknown capability '" + name + "'");
}

}  // namespace offlab
