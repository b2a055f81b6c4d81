// Frames the dissector tests check: Open vSwitch's tests/dpif-netdev.at
// checksum-offloading frames and frames built by scapy, each with the
// expression that produced it. Shared by the dissector's test files.
#pragma once

#include <string>

namespace offlab::dissect_vectors {

// ---------------------------------------------------------------------------
// Open vSwitch tests/dpif-netdev.at (d6a632a9b16e), "checksum offloading"
// VXLAN cases. Inner frame: Ether(src='8a:bf:7e:2f:05:84',
// dst='0a:8f:39:4f:e0:73')/IP(src='192.168.123.2', dst='192.168.123.1', id=0,
// ttl=0)/TCP(sport=54392, dport=5201, flags='A', window=0)/Raw(range(64)).
inline constexpr char kE[] = "0a8f394fe0738abf7e2f05840800";
inline constexpr char kIpt[] = "45000068000000000006433cc0a87b02c0a87b01";
inline constexpr char kTcp[] = "d47814510000000000000000501000006b720000";
inline constexpr char kPay[] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";
// After mod_tp_dst:2222: 0x6b72 + (5201 - 2222) = 0x7715.
inline constexpr char kTcp2222[] = "d47808ae00000000000000005010000077150000";
// The same for a frame that arrived with TCP checksum 0xdead: 0xea50.
inline constexpr char kTcp2222Bad[] = "d47808ae000000000000000050100000ea500000";
// Outer Ether(src='aa:66:aa:66:00:00', dst='aa:66:aa:66:00:01')/IP(src='1.1.2.88',
// dst='1.1.2.92', id=0, flags='DF')/UDP(sport=57363), before the UDP checksum.
inline constexpr char kOuterEthIp[] =
    "aa66aa660001aa66aa6600000800"
    "4500009a000040004011339e010102580101025c";
inline constexpr char kOuterUdpNoCsum[] = "e01312b50086";
inline constexpr char kVxlanVni123[] = "0800000000007b00";

inline std::string G() { return std::string(kE) + kIpt + kTcp + kPay; }

// The VXLAN frame OVS expects on the wire, with outer UDP checksum `c`.
inline std::string VxlanFrame(const std::string& c, const char* inner_tcp = kTcp2222) {
  return std::string(kOuterEthIp) + kOuterUdpNoCsum + c + kVxlanVni123 + kE + kIpt + inner_tcp +
         kPay;
}

// OVS "tunnel push" ARP and NDP cases: outer UDP checksums 1354 and e106.
inline constexpr char kVxlanArp[] =
    "aa66aa660001aa66aa6600000800"
    "4500004e00004000401133ea010102580101025c"
    "e01312b5003a1354"
    "0800000000007b00"
    "ffffffffffff04bf1bd82d2d0806"
    "00010800060400018abf7e2f0584c0a80111000000000000c0a87b01";
// Inner: IPv6(src='fe80::2', dst='ff02::1:ff00:1')/ICMPv6ND_NS(tgt='fe80::1')/
// ICMPv6NDOptSrcLLAddr(lladdr='8a:bf:7e:2f:05:84'), ICMPv6 checksum 6e26.
inline constexpr char kVxlanNdp[] =
    "aa66aa660001aa66aa6600000800"
    "4500007a00004000401133be010102580101025c"
    "e01312b50066e106"
    "0800000000007b00"
    "3333ff00000104bf1bd82d2d86dd"
    "6000000000203afffe800000000000000000000000000002ff0200000000000000000001ff000001"
    "87006e2600000000fe800000000000000000000000000001"
    "01018abf7e2f0584";

// OVS VXLAN case with an inner UDP datagram: Ether/IP(id=0, ttl=0)/
// UDP(sport=54392, dport=2222)/Raw(range(64)); inner UDP checksum 0 (none),
// c6de (good) or ea50 (bad), outer UDP checksums 8643, bf64 and 9bf2.
inline std::string VxlanUdpFrame(const char* outer_csum, const char* inner_csum) {
  return std::string("aa66aa660001aa66aa6600000800") + "4500008e00004000401133aa010102580101025c" +
         "e01312b5007a" + outer_csum + kVxlanVni123 + kE +
         "4500005c000000000011433dc0a87b02c0a87b01" + "d47808ae0048" + inner_csum + kPay;
}

// ---------------------------------------------------------------------------
// Frames generated with scapy 2.8.0, raw(expression).hex().

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/UDP(sport=1234, dport=5678)/Raw(bytes(range(16)))
// scapy's checksum fields: UDP=0x5109 (78 bytes)
inline constexpr char kIpv6Udp[] =
    "02000000000202000000000186dd600000000018114020010db80000000000000000000000012001"
    "0db800000000000000000000000204d2162e00185109000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/UDP(sport=1234, dport=5678, chksum=0)/
//     Raw(bytes(range(16)))
// scapy's checksum fields: UDP=0x0000 (78 bytes)
inline constexpr char kIpv6UdpZeroCsum[] =
    "02000000000202000000000186dd600000000018114020010db80000000000000000000000012001"
    "0db800000000000000000000000204d2162e00180000000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/IPv6ExtHdrHopByHop(options=[RouterAlert()])/
//     IPv6ExtHdrDestOpt(options=[PadN(optdata=b'\0\0\0\0')])/
//     IPv6ExtHdrRouting(addresses=['2001:db8::99'], segleft=1)/
//     IPv6ExtHdrFragment(id=0x1234, offset=0, m=0)/TCP(sport=1000, dport=80, flags='S', seq=1)/
//     Raw(bytes(range(16)))
// scapy's checksum fields: TCP=0xf74d (138 bytes)
inline constexpr char kIpv6ExtTcp[] =
    "02000000000202000000000186dd600000000054004020010db80000000000000000000000012001"
    "0db80000000000000000000000023c000502000001002b000104000000002c020001000000002001"
    "0db8000000000000000000000099060000000000123403e80050000000010000000050022000f74d"
    "0000000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/IPv6ExtHdrFragment(id=7, offset=0, m=1)/
//     UDP(sport=1, dport=2, len=1008, chksum=0x1234)/Raw(bytes(range(16)))
// scapy's checksum fields: UDP=0x1234 (86 bytes)
inline constexpr char kIpv6FirstFragUdp[] =
    "02000000000202000000000186dd6000000000202c4020010db80000000000000000000000012001"
    "0db800000000000000000000000211000001000000070001000203f0123400010203040506070809"
    "0a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/IPv6ExtHdrFragment(id=7, offset=2, m=0, nh=17)/
//     Raw(bytes(range(16)))
// (78 bytes, no checksum field)
inline constexpr char kIpv6LaterFrag[] =
    "02000000000202000000000186dd6000000000182c4020010db80000000000000000000000012001"
    "0db80000000000000000000000021100001000000007000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='10.0.0.1', dst='10.0.0.2')/SCTP(sport=5000, dport=6000, tag=0xdeadbeef)/
//     SCTPChunkData(tsn=1, stream_id=0, stream_seq=0, data=b'hello sctp')
// scapy's checksum fields: IP=0x663b, SCTP=0x57b49325 (74 bytes)
inline constexpr char kIpv4Sctp[] =
    "02000000000202000000000108004500003c000100004084663b0a0000010a00000213881770dead"
    "beef57b493250000001a00000001000000000000000068656c6c6f20736374700000";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/SCTP(sport=5000, dport=6000, tag=0x01020304)/
//     SCTPChunkInit(init_tag=0x11223344, a_rwnd=65535, n_out_streams=10, n_in_streams=10,
//                   init_tsn=1)
// scapy's checksum fields: SCTP=0x40ce0d69 (86 bytes)
inline constexpr char kIpv6Sctp[] =
    "02000000000202000000000186dd600000000020844020010db80000000000000000000000012001"
    "0db8000000000000000000000002138817700102030440ce0d6901000014112233440000ffff000a"
    "000a00000001";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='10.0.0.1', dst='10.0.0.2')/ICMP(type=8, id=0x42, seq=7)/Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x66ce, ICMP=0xbf76 (58 bytes)
inline constexpr char kIpv4IcmpEcho[] =
    "02000000000202000000000108004500002c00010000400166ce0a0000010a0000020800bf760042"
    "0007000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='fe80::1', dst='ff02::1')/ICMPv6EchoRequest(id=0x42, seq=7, data=bytes(range(16)))
// scapy's checksum fields: ICMPv6 Echo Request=0x499e (78 bytes)
inline constexpr char kIpv6Icmpv6Echo[] =
    "02000000000202000000000186dd6000000000183a40fe800000000000000000000000000001ff02"
    "00000000000000000000000000018000499e00420007000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='172.16.0.1', dst='172.16.0.2', flags='DF')/UDP(sport=40000, dport=6081)/
//     GENEVE(vni=0x123456, proto=0x6558,
//            options=[GeneveOptions(classid=0x0102, type=0x80, data=b'\xaa\xbb\xcc\xdd'),
//                     GeneveOptions(classid=0xffff, type=0x01,
//                                   data=b'\x11\x22\x33\x44\x55\x66\x77\x88')])/
//     Ether(src='02:00:00:00:00:0a', dst='02:00:00:00:00:0b')/
//     IP(src='192.168.1.1', dst='192.168.1.2')/
//     TCP(sport=1234, dport=80, flags='PA', seq=100, ack=200)/Raw(bytes(range(16)))
// scapy's checksum fields: IP=0xe24a, UDP=0x8cdd, IP=0xf76b, TCP=0xcdda (140 bytes)
inline constexpr char kGeneveOpts[] =
    "02000000000202000000000108004500007e000140004011e24aac100001ac1000029c4017c1006a"
    "8cdd050065581234560001028001aabbccddffff0102112233445566778802000000000b02000000"
    "000a080045000038000100004006f76bc0a80101c0a8010204d2005000000064000000c850182000"
    "cdda0000000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='172.16.0.1', dst='172.16.0.2')/
//     GRE(chksum_present=1, key_present=1, seqnum_present=1, key=0x0a0b0c0d,
//         sequence_number=42, proto=0x6558)/
//     Ether(src='02:00:00:00:00:0a', dst='02:00:00:00:00:0b')/
//     IP(src='192.168.1.1', dst='192.168.1.2')/UDP(sport=53, dport=5353)/Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x224d, GRE=0x4bcd, IP=0xf76c, UDP=0x2f0c (108 bytes)
inline constexpr char kGreCksTeb[] =
    "02000000000202000000000108004500005e00010000402f224dac100001ac100002b00065584bcd"
    "00000a0b0c0d0000002a02000000000b02000000000a08004500002c000100004011f76cc0a80101"
    "c0a80102003514e900182f0c000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='172.16.0.1', dst='172.16.0.2')/GRE(key_present=1, key=5, proto=0x86dd)/
//     IPv6(src='2001:db8::a', dst='2001:db8::b')/UDP(sport=7, dport=9)/Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x224f, UDP=0x6be7 (106 bytes)
inline constexpr char kGreIpv6[] =
    "02000000000202000000000108004500005c00010000402f224fac100001ac100002200086dd0000"
    "0005600000000018114020010db800000000000000000000000a20010db800000000000000000000"
    "000b0007000900186be7000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/Dot1AD(vlan=100, prio=3)/
//     Dot1Q(vlan=200)/IP(src='10.1.1.1', dst='10.1.1.2')/UDP(sport=1111, dport=2222)/
//     Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x64bc, UDP=0xa474 (66 bytes)
inline constexpr char kQinQUdp[] =
    "02000000000202000000000188a86064810000c808004500002c00010000401164bc0a0101010a01"
    "0102045708ae0018a474000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='10.0.0.1', dst='10.0.0.2', options=[IPOption_RR(routers=['1.2.3.4'])])/
//     UDP(sport=1, dport=2)/Raw(b'ab')/Padding(b'\0' * 10)
// scapy's checksum fields: IP=0x53b9, UDP=0x8a72 (62 bytes)
inline constexpr char kIpv4OptsPadded[] =
    "02000000000202000000000108004700002600010000401153b90a0000010a000002070704010203"
    "040000010002000a8a72616200000000000000000000";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::100')/
//     IPv6ExtHdrSegmentRouting(addresses=['2001:db8::2', '2001:db8::100'], segleft=1)/
//     UDP(sport=1234, dport=5678)/Raw(bytes(range(16)))
// scapy's checksum fields: UDP=0x5109 (118 bytes)
inline constexpr char kIpv6SrhUdp[] =
    "02000000000202000000000186dd6000000000402b4020010db80000000000000000000000012001"
    "0db8000000000000000000000100110404010100000020010db80000000000000000000000022001"
    "0db800000000000000000000010004d2162e00185109000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IPv6(src='2001:db8::1', dst='2001:db8::2')/
//     IPv6ExtHdrDestOpt(options=[HAO(hoa='2001:db8::77')])/UDP(sport=1234, dport=5678)/
//     Raw(bytes(range(16)))
// scapy's checksum fields: UDP=0x5093 (102 bytes)
inline constexpr char kIpv6HaoUdp[] =
    "02000000000202000000000186dd6000000000303c4020010db80000000000000000000000012001"
    "0db8000000000000000000000002110201020000c91020010db800000000000000000000007704d2"
    "162e00185093000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     ARP(op=1, hwsrc='02:00:00:00:00:01', psrc='10.0.0.1', pdst='10.0.0.2')
// (42 bytes, no checksum field)
inline constexpr char kArpRequest[] =
    "020000000002020000000001080600010800060400010200000000010a0000010000000000000a00"
    "0002";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='10.0.0.1', dst='10.0.0.2', flags='MF', frag=0)/TCP(sport=1, dport=2, chksum=0x1234)/
//     Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x46bd, TCP=0x1234 (70 bytes)
inline constexpr char kIpv4FirstFragTcp[] =
    "02000000000202000000000108004500003800012000400646bd0a0000010a000002000100020000"
    "0000000000005002200012340000000102030405060708090a0b0c0d0e0f";

// scapy: Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')/
//     IP(src='10.0.0.1', dst='10.0.0.2', proto=6, frag=100)/Raw(bytes(range(16)))
// scapy's checksum fields: IP=0x666d (50 bytes)
inline constexpr char kIpv4LaterFrag[] =
    "020000000002020000000001080045000024000100644006666d0a0000010a000002000102030405"
    "060708090a0b0c0d0e0f";

}  // namespace offlab::dissect_vectors
