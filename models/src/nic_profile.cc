#include "offlab/nic_profile.h"

#include "offlab/error.h"

namespace offlab {

const RxValidation& NicProfile::rx_for(TunnelType t) const {
  switch (t) {
    case TunnelType::kVxlan: return rx_vxlan;
    case TunnelType::kGeneve: return rx_geneve;
    case TunnelType::kGre: return rx_gre;
    case TunnelType::kNone: break;
  }
  return rx_plain;
}

NicProfile BuiltinProfile(const std::string& name) {
  if (name == "dummy" || name == "pcap") {
    NicProfile p;
    p.name = name;
    return p;
  }
  throw Error("unknown NIC profile '" + name + "'");
}

}  // namespace offlab
