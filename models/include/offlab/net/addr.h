// Link and network addresses as text ("aa:bb:cc:dd:ee:ff", "10.0.0.1",
// "2001:db8::1") and as bytes; shared by the OVS and Linux models and their
// bindings.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace offlab {

using MacAddr = std::array<uint8_t, 6>;
using IpAddr = std::array<uint8_t, 16>;  // IPv4 in the first 4 bytes

// Throws offlab::Error naming the text that is not an address.
IpAddr ParseIp(const std::string& s, bool* ipv6);
MacAddr ParseMac(const std::string& s);
std::string MacToString(const MacAddr& m);

}  // namespace offlab
