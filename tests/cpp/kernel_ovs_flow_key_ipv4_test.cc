// key_extract's IPv4 cases the other datapath tests leave out, and
// execute_recirc's key update.
//
// Sources (torvalds/linux v6.18 net/openvswitch/): flow.c check_iphdr
// ("ip_len < sizeof(struct iphdr) || skb->len < nh_ofs + ip_len" ->
// -EINVAL) and key_extract (on -EINVAL: key->ip and key->ipv4 zeroed,
// skb->transport_header = skb->network_header, no error); key_extract's
// "if (nh->frag_off & htons(IP_MF | IP_OFFSET))": IP_OFFSET set ->
// OVS_FRAG_TYPE_LATER, else OVS_FRAG_TYPE_FIRST. actions.c execute_recirc:
// "if (!is_flow_key_valid(key)) ovs_flow_key_update(skb, key)", then
// clone_execute with the recirc_id; a valid key is used as it is.
// Frames are laid out by hand (RFC 791 header), checksums by the oracle.
#include <gtest/gtest.h>

#include "offlab/linux/ovs_dp.h"
#include "test_util.h"

namespace offlab::kernel {
namespace {

using testing::H;
using testing::OracleSum;
using testing::Put16;

// Ethernet + IPv4 (first byte `vihl`, flags/fragment word `frag`) + 20
// bytes of TCP.
Bytes Ip4(uint8_t vihl, uint16_t frag) {
  Bytes f =
      FromHex(H("0a8f394fe0738abf7e2f0584 0800 4500002812340000400600000a0000010a000002"
                "d478145100000001000000005010010000000000"));
  f[14] = vihl;
  Put16(f, 20, frag);
  Put16(f, 24, static_cast<uint16_t>(~OracleSum(&f[14], 20)));
  return f;
}

OvsSkb Receive(const Bytes& f) {
  SkBuff skb;
  skb.pkt = Packet(f);
  return OvsVportReceive(skb, {});
}

TEST(KernelOvsFlowKeyIpv4, HeaderLengthBelowFiveLeavesTransportAtTheNetworkHeader) {
  // IHL 4: 16 bytes, less than an IPv4 header.
  OvsSkb s = Receive(Ip4(0x44, 0x4000));
  EXPECT_EQ(s.key.eth_type, 0x0800);
  EXPECT_EQ(s.skb.pkt.l3_ofs, 14);
  EXPECT_EQ(s.skb.pkt.l4_ofs, 14);
  EXPECT_EQ(s.key.ip_proto, 0);  // key->ip zeroed
  EXPECT_EQ(s.key.frag, OvsFlowKey::Frag::kNone);
  // IHL 15 (60 bytes) beyond the 54-byte frame: the same.
  OvsSkb l = Receive(Ip4(0x4f, 0x4000));
  EXPECT_EQ(l.skb.pkt.l4_ofs, 14);
  EXPECT_EQ(l.key.ip_proto, 0);
  // Control: IHL 5 finds TCP at 34.
  OvsSkb ok = Receive(Ip4(0x45, 0x4000));
  EXPECT_EQ(ok.skb.pkt.l4_ofs, 34);
  EXPECT_EQ(ok.key.ip_proto, 6);
}

TEST(KernelOvsFlowKeyIpv4, FragmentOffsetMakesALaterFragment) {
  // Offset 185 (x 8 bytes), MF clear: a last fragment is a later one.
  EXPECT_EQ(Receive(Ip4(0x45, 0x00b9)).key.frag, OvsFlowKey::Frag::kLater);
  // Offset and MF: still later.
  EXPECT_EQ(Receive(Ip4(0x45, 0x20b9)).key.frag, OvsFlowKey::Frag::kLater);
  // MF alone: the first fragment.
  EXPECT_EQ(Receive(Ip4(0x45, 0x2000)).key.frag, OvsFlowKey::Frag::kFirst);
  EXPECT_EQ(Receive(Ip4(0x45, 0x4000)).key.frag, OvsFlowKey::Frag::kNone);
}

TEST(KernelOvsFlowKeyIpv4, OnlyEthertype0800IsKeyedAsIpv4) {
  // key_extract (flow.c) takes the IPv4 branch for "key->eth.type ==
  // htons(ETH_P_IP)" only: an 802.3 length field (below 0x0600) or another
  // Ethertype below 0x0800 in front of IPv4-looking bytes gives no IP key and
  // no transport header.
  for (uint16_t type : {uint16_t{0x0028}, uint16_t{0x0600}, uint16_t{0x07ff}}) {
    SCOPED_TRACE(type);
    Bytes f = Ip4(0x45, 0x4000);
    Put16(f, 12, type);
    OvsSkb s = Receive(f);
    EXPECT_EQ(s.key.ip_proto, 0);
    EXPECT_EQ(s.key.frag, OvsFlowKey::Frag::kNone);
    EXPECT_EQ(s.skb.pkt.l4_ofs, kNoOffset);
  }
}

TEST(KernelOvsRecirc, AnInvalidKeyIsExtractedAgainAValidOneKept) {
  OvsSkb s = Receive(Ip4(0x45, 0x4000));
  // A stale, invalidated key (as after a push_vlan with a tag left).
  s.key.valid = false;
  s.key.ip_proto = 0;
  s.skb.pkt.l4_ofs = kNoOffset;
  OvsRecirc(s, 7);
  EXPECT_EQ(s.recirc_id, 7u);
  EXPECT_TRUE(s.key.valid);
  EXPECT_EQ(s.key.ip_proto, 6);
  EXPECT_EQ(s.skb.pkt.l4_ofs, 34);
  // A valid key is not looked at again.
  s.key.ip_proto = 99;
  OvsRecirc(s, 8);
  EXPECT_EQ(s.recirc_id, 8u);
  EXPECT_EQ(s.key.ip_proto, 99);
}

}  // namespace
}  // namespace offlab::kernel
