// SPDX-License-Identifier: Apache-2.0
// Two hosts, one VM each, a bulk TCP flow over VXLAN between ConnectX-6 Dx
// NICs; prints goodput and CPU. Options: --nic, --tunnel, --csum, --time.
#include <cstdio>

#include "ns3/command-line.h"
#include "ns3/simulator.h"
#include "ns3/vm-tunnel-helper.h"

using namespace ns3;

int main(int argc, char** argv) {
  TunnelScenario s;
  double time = 1.0;
  CommandLine cmd(__FILE__);
  cmd.AddValue("nic", "NIC profile", s.nic);
  cmd.AddValue("tunnel", "vxlan, geneve, gre or none", s.tunnel);
  cmd.AddValue("csum", "outer UDP checksum", s.outerCsum);
  cmd.AddValue("time", "simulated seconds", time);
  cmd.Parse(argc, argv);
  // Illustrative costs; the calibrated ones live in sim/data/cost-model.yaml.
  s.cost.pmd = {2.6e9, 2000, 200, 300, 800, 0.3, 0.5};
  s.cost.guest = {2.6e9, 20000, 300, 300, 0, 0.3, 1.5};
  VmTunnelHelper topo(s);
  topo.Install(Seconds(0), Seconds(time));
  Simulator::Schedule(Seconds(time / 4), &VmTunnelHelper::ResetStats, &topo);
  Simulator::Stop(Seconds(time));
  Simulator::Run();
  const HostStats a = topo.GetHostStats(0);
  std::printf("goodput %.2f Gbit/s, sender PMD %.0f%%, sender guest %.0f%%\n",
              topo.GetGoodput() / 1e9, a.pmdUtilisation[0] * 100, a.guestUtilisation[0] * 100);
  Simulator::Destroy();
  return 0;
}
