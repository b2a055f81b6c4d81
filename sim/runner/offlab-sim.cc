// SPDX-License-Identifier: Apache-2.0
// offlab-sim: runs one scenario file and writes results.json (and pcaps) to
// an output folder. `offlab sim` wraps it.
//
//   offlab-sim SCENARIO.yaml --cost COST.yaml --out DIR [--pcap] [--duration S]
//              [--mode train|per-frame] [--progress]
//   offlab-sim SCENARIO.yaml --check     (validate the file only)
//   offlab-sim --replay TRACE.pcapng --out DIR [--nic NAME] [--rx-nic NAME]
//              [--inject FAULT]... [--gro]   (replay a trace: trace-replay.h)
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "ns3/nstime.h"
#include "offlab/net/error.h"
#include "scenario.h"
#include "trace-replay.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: offlab-sim SCENARIO.yaml --cost COST.yaml --out DIR [--pcap] "
               "[--duration S] [--mode train|per-frame] [--progress]\n"
               "       offlab-sim SCENARIO.yaml --check\n"
               "       offlab-sim --replay TRACE.pcapng --out DIR [--nic NAME] [--rx-nic NAME] "
               "[--inject FAULT]... [--gro]\n");
  return 2;
}

void WriteAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    if (!f) {
      throw offlab::Error("cannot write " + path);
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  // Frames up to 64 KB are allocated and freed at a high rate; left to its
  // defaults glibc hands such blocks back to the kernel and faults them in
  // again, which costs a quarter of a run.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A 64-byte frame lasts 6.72 ns at 100 Gbit/s: nanosecond times would
  // round every frame up to 7 ns and serialize 4 % slow.
  ns3::Time::SetResolution(ns3::Time::PS);
  std::string scenarioPath, costPath, out;
  offlab::sim::RunOptions opt;
  bool pcap = false, progress = false, check = false;
  offlab::sim::ReplayOptions replay;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        throw offlab::Error(a + " needs a value");
      }
      return argv[++i];
    };
    try {
      if (a == "--cost") {
        costPath = value();
      } else if (a == "--out") {
        out = value();
      } else if (a == "--pcap") {
        pcap = true;
      } else if (a == "--replay") {
        replay.trace = value();
      } else if (a == "--nic") {
        replay.nic = value();
      } else if (a == "--rx-nic") {
        replay.rxNic = value();
      } else if (a == "--inject") {
        replay.inject.push_back(value());
      } else if (a == "--gro") {
        replay.gro = true;
      } else if (a == "--check") {
        check = true;
      } else if (a == "--progress") {
        progress = true;
      } else if (a == "--duration") {
        opt.durationS = std::stod(value());
        if (!(opt.durationS > 0 && opt.durationS <= 3600)) {
          throw offlab::Error("--duration must be in (0, 3600]");
        }
      } else if (a == "--mode") {
        const std::string m = value();
        if (m != "train" && m != "per-frame") {
          throw offlab::Error("--mode must be train or per-frame");
        }
        opt.trainMode = m == "train";
      } else if (a.rfind("--", 0) == 0 || !scenarioPath.empty()) {
        return Usage();
      } else {
        scenarioPath = a;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "offlab-sim: error: %s\n", e.what());
      return 2;
    }
  }
  if (!replay.trace.empty()) {
    if (!scenarioPath.empty() || out.empty()) {
      return Usage();
    }
    try {
      replay.pcapPath = out + "/replay.pcapng";
      const offlab::sim::ReplayResult r = offlab::sim::ReplayTrace(replay);
      WriteAtomically(out + "/replay.json", offlab::sim::ToJson(r));
      std::fputs(offlab::sim::ToTable(r).c_str(), stdout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "offlab-sim: error: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  if (check && !scenarioPath.empty()) {
    try {
      offlab::sim::LoadScenario(scenarioPath);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "offlab-sim: error: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  if (scenarioPath.empty() || costPath.empty() || out.empty()) {
    return Usage();
  }
  try {
    offlab::sim::Scenario s = offlab::sim::LoadScenario(scenarioPath);
    s.topology.cost = offlab::sim::LoadCostModel(costPath);
    std::filesystem::create_directories(out);
    if (pcap) {
      opt.pcapDir = out;
    }
    if (progress) {
      opt.progress = [](double f) {
        std::fprintf(stderr, "progress %.2f\n", f);
        std::fflush(stderr);
      };
    }
    const offlab::sim::Result r = offlab::sim::RunScenario(s, opt);
    WriteAtomically(out + "/results.json", offlab::sim::ToJson(r, s));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "offlab-sim: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
