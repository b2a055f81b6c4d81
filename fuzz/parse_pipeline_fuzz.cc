// Feeds arbitrary frames through every entry point that reads packet bytes:
// the parsers, NIC receive, coalescing, the vnet header and a pipeline whose
// ports and flows exercise rewrites, encapsulation, decapsulation and
// recirculation. The first bytes choose statuses, TSO size and tunnel kind.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/pipeline.h"
#include "offlab/ovs/vnet.h"

namespace {

using namespace offlab;

std::unique_ptr<Pipeline> MakePipeline(TunnelType type, bool ipv6, bool csum, uint8_t opts) {
  auto br = std::make_unique<Pipeline>(PipelineConfig{.userspace_tso = true});
  const char* rx[] = {"good", "bad", "partial"};
  PortConfig p1{.name = "p1"};
  if (opts & 3) p1.options[std::string("ol_l4_rx_csum_set_") + rx[(opts & 3) - 1]] = "true";
  if ((opts >> 2) & 3)
    p1.options[std::string("ol_ip_rx_csum_set_") + rx[((opts >> 2) & 3) - 1]] = "true";
  br->AddPort(p1);
  PortConfig p2{.name = "p2"};
  if (opts & 0x10) p2.options["ol_l4_tx_csum"] = "true";
  if (opts & 0x20) p2.options["ol_out_udp_tx_csum"] = "true";
  if (opts & 0x40) p2.options["ol_ip_tx_csum"] = "true";
  if (opts & 0x80) p2.options["ol_tso_segsz"] = "1000";
  br->AddPort(p2);
  TunnelConfig t;
  t.type = type;
  t.ipv6 = ipv6;
  t.csum = csum;
  t.key = 7;
  bool v6;
  t.ip_src = ParseIp(ipv6 ? "2001:db8::1" : "10.0.0.1", &v6);
  t.ip_dst = ParseIp(ipv6 ? "2001:db8::2" : "10.0.0.2", &v6);
  br->AddPort({.name = "t1", .tunnel = t, .underlay = "p2"});
  br->AddPort({.name = "p3"});
  br->AddFlow("priority=300,in_port=p1,udp,tp_dst=4789,actions=tnl_pop:t1");
  br->AddFlow("priority=300,in_port=p1,udp,tp_dst=6081,actions=tnl_pop:t1");
  br->AddFlow("priority=290,in_port=p1,dl_type=0x0800,nw_proto=47,actions=tnl_pop:t1");
  br->AddFlow("priority=200,in_port=t1,actions=mod_nw_ttl:9,output:p3,recirc:1");
  br->AddFlow("table=1,actions=output:p2");
  br->AddFlow(
      "priority=100,in_port=p1,tcp,actions=mod_tp_dst:2222,mod_nw_dst:192.168.1.1,output:t1");
  br->AddFlow("priority=100,in_port=p1,udp,actions=mod_tp_src:1,output:t1,output:p2");
  br->AddFlow("priority=100,in_port=p1,tcp6,actions=set_field:2001:db8::9->ipv6_dst,output:t1");
  br->AddFlow("priority=90,in_port=p1,sctp,actions=mod_tp_dst:9,output:p2");
  br->AddFlow("priority=95,in_port=p1,icmp,actions=ct(commit,nat(dst=10.9.9.9),table=2)");
  br->AddFlow("priority=20,in_port=p1,ip,actions=ct(commit,nat(src=10.1.1.1:99),table=2)");
  br->AddFlow("table=2,ct_state=+trk+inv,actions=drop");
  br->AddFlow("table=2,ip,actions=ct(nat),output:p2");
  br->AddFlow("priority=10,in_port=p1,actions=dec_ttl,set_ecn_ce,output:p2");
  return br;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint8_t sel = data[0], opts = data[1], tso = data[2], vnet = data[3];
  const Bytes frame(data + 4, data + size);

  Packet p(frame);
  Parse(p);
  Packet q(frame);
  ParseSimple(q);
  (void)Dissect(frame);

  NicProfile prof;
  prof.rx_plain = {true, true, false, false};
  prof.rx_vxlan = {true, true, true, true};
  prof.rx_geneve = {true, false, false, false};
  prof.rx_gre = {true, false, true, true};
  RxStatus st;
  Packet r = NicReceive(frame, prof, &st);
  (void)Coalesce({{r, st}, {r, st}}, 65535);

  VnetHdr h;
  h.flags = vnet & 3;
  h.gso_type = (vnet >> 2) & 7;
  h.gso_size = tso;
  h.csum_start = static_cast<uint16_t>(data[2] * 2);
  h.csum_offset = static_cast<uint16_t>((vnet >> 4) * 2);
  Packet v(frame);
  Parse(v);
  (void)VnetReceive(v, h);

  const TunnelType types[] = {TunnelType::kVxlan, TunnelType::kGeneve, TunnelType::kGre};
  try {
    auto br = MakePipeline(types[sel % 3], (sel >> 2) & 1, (sel >> 3) & 1, opts);
    RxMeta meta;
    if (tso >= 64) meta.tso_segsz = tso;
    for (const Sent& s : br->Receive("p1", frame, meta)) {
      Packet out(s.frame);
      Parse(out);
      (void)Dissect(s.frame);
    }
  } catch (const Error&) {
    // Rejections with a message are the contract for bad input.
  }
  return 0;
}
