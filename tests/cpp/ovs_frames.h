// Frames from Open vSwitch's tests/dpif-netdev.at (master d6a632a9b16e), as
// `ovs-ofctl compose-packet --bare` emits them; shared by several tests.
#pragma once

#include <string>

namespace offlab::testdata {

// Payload bytes 00..3f.
inline const std::string kPay =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";
inline const std::string kE = "0a8f394fe0738abf7e2f05840800";
inline const std::string kIpt = "45000068000000000006433cc0a87b02c0a87b01";
inline const std::string kTcp = "d47814510000000000000000501000006b720000";
// 192.168.123.2 > .1, TCP 54392 > 5201 ACK, TTL 0: IPv4 checksum 433c and TCP
// checksum 6b72 both correct.
inline const std::string kG = kE + kIpt + kTcp + kPay;

}  // namespace offlab::testdata
