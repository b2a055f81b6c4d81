#include "offlab/ovs/offloads.h"

#include <sstream>

namespace offlab {

const char* ToString(CsumStatus s) {
  switch (s) {
    case CsumStatus::kUnknown:
      return "unknown";
    case CsumStatus::kBad:
      return "bad";
    case CsumStatus::kGood:
      return "good";
    case CsumStatus::kPartial:
      return "partial";
  }
  return "?";
}

const char* ToString(L4Proto p) {
  switch (p) {
    case L4Proto::kNone:
      return "none";
    case L4Proto::kTcp:
      return "tcp";
    case L4Proto::kUdp:
      return "udp";
    case L4Proto::kSctp:
      return "sctp";
  }
  return "?";
}

const char* ToString(TunnelType t) {
  switch (t) {
    case TunnelType::kNone:
      return "none";
    case TunnelType::kGeneve:
      return "geneve";
    case TunnelType::kVxlan:
      return "vxlan";
    case TunnelType::kGre:
      return "gre";
  }
  return "?";
}

std::string Offloads::Describe() const {
  std::ostringstream out;
  out << "ip=" << ToString(ip()) << " l4=" << ToString(l4()) << " proto=" << ToString(l4_proto());
  if (tunnelled() || (word_ >> ol::kShift) != 0) {
    out << " | inner ip=" << ToString(ip(Level::kInner)) << " l4=" << ToString(l4(Level::kInner))
        << " proto=" << ToString(l4_proto(Level::kInner));
  }
  if (tunnelled()) out << " tunnel=" << ToString(tunnel());
  return out.str();
}

}  // namespace offlab
