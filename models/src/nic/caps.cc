#include "offlab/nic/caps.h"

#include <array>
#include <cstdio>
#include <string_view>

#include "offlab/net/error.h"

namespace offlab {
namespace {

struct CapName {
  uint32_t bit;
  std::string_view name;
};

// Bit order, so that CapsToString output is stable and matches OVS's own
// listing of netdev_ol_flags.
constexpr std::array<CapName, 10> kCapNames = {{
    {cap::kIpv4Cksum, "ipv4_cksum"},
    {cap::kTcpCksum, "tcp_cksum"},
    {cap::kUdpCksum, "udp_cksum"},
    {cap::kSctpCksum, "sctp_cksum"},
    {cap::kTcpTso, "tcp_tso"},
    {cap::kVxlanTnlTso, "vxlan_tnl_tso"},
    {cap::kGeneveTnlTso, "geneve_tnl_tso"},
    {cap::kOuterIpCksum, "outer_ip_cksum"},
    {cap::kOuterUdpCksum, "outer_udp_cksum"},
    {cap::kGreTnlTso, "gre_tnl_tso"},
}};

std::string KnownNames() {
  std::string out;
  for (const CapName& c : kCapNames) {
    if (!out.empty()) out += ", ";
    out += c.name;
  }
  return out;
}

}  // namespace

std::string CapsToString(uint32_t caps) {
  if (caps == 0) return "none";
  std::string out;
  for (const CapName& c : kCapNames) {
    if (caps & c.bit) {
      if (!out.empty()) out += '|';
      out += c.name;
    }
  }
  // Bits outside the known set are shown rather than dropped: silently
  // losing them would hide a corrupted or newer flag word.
  if (uint32_t rest = caps & ~cap::kAll) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", static_cast<unsigned>(rest));
    if (!out.empty()) out += '|';
    out += buf;
  }
  return out;
}

uint32_t CapFromName(const std::string& name) {
  for (const CapName& c : kCapNames) {
    if (c.name == name) return c.bit;
  }
  // Control characters are blanked so that the message stays on one line.
  std::string shown = name;
  for (char& ch : shown) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
  }
  throw Error("unknown capability '" + shown + "' (known: " + KnownNames() + ")");
}

}  // namespace offlab
