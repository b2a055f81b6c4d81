// Wire constants and field offsets of the protocols the core parses and
// builds. Fields are read and written with GetBe16/PutBe16 etc. on offsets,
// never through packed structs, so alignment never matters.
#pragma once

#include <cstddef>
#include <cstdint>

namespace offlab::hdr {

// Ethernet / 802.1Q
constexpr size_t kEthLen = 14;
constexpr size_t kVlanLen = 4;
constexpr uint16_t kEthTypeIpv4 = 0x0800;
constexpr uint16_t kEthTypeIpv6 = 0x86dd;
constexpr uint16_t kEthTypeArp = 0x0806;
constexpr uint16_t kEthTypeVlan = 0x8100;
constexpr uint16_t kEthTypeQinQ = 0x88a8;
constexpr uint16_t kEthTypeTeb = 0x6558;  // transparent Ethernet bridging (GRE, Geneve)

// IP protocol numbers
constexpr uint8_t kProtoIcmp = 1;
constexpr uint8_t kProtoTcp = 6;
constexpr uint8_t kProtoUdp = 17;
constexpr uint8_t kProtoGre = 47;
constexpr uint8_t kProtoIcmpv6 = 58;
constexpr uint8_t kProtoSctp = 132;
// IPv6 extension headers
constexpr uint8_t kProtoHopByHop = 0;
constexpr uint8_t kProtoRouting = 43;
constexpr uint8_t kProtoFragment = 44;
constexpr uint8_t kProtoDestOpts = 60;
constexpr uint8_t kProtoNoNext = 59;

// IPv4 (RFC 791)
constexpr size_t kIpv4MinLen = 20;
constexpr size_t kIpv4TosOfs = 1;
constexpr size_t kIpv4TotLenOfs = 2;
constexpr size_t kIpv4IdOfs = 4;
constexpr size_t kIpv4FragOfs = 6;
constexpr size_t kIpv4TtlOfs = 8;
constexpr size_t kIpv4ProtoOfs = 9;
constexpr size_t kIpv4CsumOfs = 10;
constexpr size_t kIpv4SrcOfs = 12;
constexpr size_t kIpv4DstOfs = 16;
constexpr uint16_t kIpv4DontFragment = 0x4000;
constexpr uint16_t kIpv4MoreFragments = 0x2000;
constexpr uint16_t kIpv4FragOffsetMask = 0x1fff;

// IPv6 (RFC 8200)
constexpr size_t kIpv6Len = 40;
constexpr size_t kIpv6PlenOfs = 4;
constexpr size_t kIpv6NextOfs = 6;
constexpr size_t kIpv6HlimOfs = 7;
constexpr size_t kIpv6SrcOfs = 8;
constexpr size_t kIpv6DstOfs = 24;
constexpr size_t kIpv6FragHdrLen = 8;

// TCP (RFC 9293)
constexpr size_t kTcpMinLen = 20;
constexpr size_t kTcpSrcOfs = 0;
constexpr size_t kTcpDstOfs = 2;
constexpr size_t kTcpSeqOfs = 4;
constexpr size_t kTcpAckOfs = 8;
constexpr size_t kTcpOffFlagsOfs = 12;
constexpr size_t kTcpCsumOfs = 16;
constexpr uint16_t kTcpFin = 0x001, kTcpSyn = 0x002, kTcpRst = 0x004, kTcpPsh = 0x008,
                   kTcpAck = 0x010, kTcpUrg = 0x020;

// UDP (RFC 768)
constexpr size_t kUdpLen = 8;
constexpr size_t kUdpLenOfs = 4;
constexpr size_t kUdpCsumOfs = 6;

// SCTP (RFC 9260): common header with a CRC32c at offset 8.
constexpr size_t kSctpLen = 12;
constexpr size_t kSctpCsumOfs = 8;

// ICMP / ICMPv6
constexpr size_t kIcmpLen = 8;
constexpr size_t kIcmpCsumOfs = 2;

// Tunnels
constexpr uint16_t kVxlanPort = 4789;
constexpr uint16_t kGenevePort = 6081;
constexpr size_t kVxlanLen = 8;
constexpr uint8_t kVxlanFlagVni = 0x08;
constexpr size_t kGeneveBaseLen = 8;  // + options, opt_len is in 4-byte units
constexpr size_t kGreBaseLen = 4;
constexpr uint16_t kGreFlagC = 0x8000;
constexpr uint16_t kGreFlagK = 0x2000;
constexpr uint16_t kGreFlagS = 0x1000;

}  // namespace offlab::hdr
