// SPDX-License-Identifier: Apache-2.0
#include "trace-replay.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "ns3/boolean.h"
#include "ns3/node.h"
#include "ns3/offload-channel.h"
#include "ns3/offload-net-device.h"
#include "ns3/simulator.h"
#include "ns3/trace-comment.h"
#include "ns3/uinteger.h"
#include "offlab/net/dissect.h"
#include "offlab/net/error.h"
#include "offlab/net/trace.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/faults.h"
#include "offlab/ovs/pipeline.h"
#include "scenario.h"

namespace offlab::sim {

namespace {

using ns3::BooleanValue;
using ns3::CreateObject;
using ns3::Node;
using ns3::OffloadChannel;
using ns3::OffloadNetDevice;
using ns3::Ptr;
using ns3::Simulator;
using ns3::UintegerValue;

std::string DefaultProfile(const std::vector<trace::Record>& records, const std::string& path) {
  for (const trace::Record& r : records) {
    if (r.role == trace::Role::kWire && !r.profile.empty()) {
      return r.profile;
    }
  }
  throw Error("trace " + path + ": no wire record names a NIC profile; give one with --nic");
}

ReplayFrame Inspect(const Bytes& frame) {
  ReplayFrame f;
  f.bytes = frame.size();
  for (const ChecksumField& c : Dissect(frame).checksums) {
    std::string key(c.layer);
    if (c.depth != 0) key += "@" + std::to_string(c.depth);
    f.checksums.push_back({key, ToString(c.verdict)});
    f.wrong = f.wrong || c.verdict == Verdict::kIncorrect;
  }
  return f;
}

// Faults are process-wide; they are on for the replay only.
class FaultScope {
 public:
  explicit FaultScope(const std::vector<std::string>& names) : saved_(Faults::mask()) {
    for (const std::string& n : names) {
      Faults::Enable(FaultFromName(n));
    }
  }
  ~FaultScope() { Faults::set_mask(saved_); }

 private:
  uint32_t saved_;
};

}  // namespace

ReplayResult ReplayTrace(const ReplayOptions& options) {
  const std::vector<trace::Record> records = trace::ReadTrace(options.trace);
  ReplayResult r;
  r.trace = options.trace;
  r.nic = options.nic.empty() ? DefaultProfile(records, options.trace) : options.nic;
  r.rxNic = options.rxNic.empty() ? r.nic : options.rxNic;
  r.inject = options.inject;
  const NicProfile profile = BuiltinProfile(r.nic);
  BuiltinProfile(r.rxNic);  // an unknown name fails before anything is written
  FaultScope faults(options.inject);

  bool anyTx = false;
  for (const trace::Record& rec : records) {
    anyTx = anyTx || rec.role == trace::Role::kTx;
  }
  if (!anyTx) {
    throw Error("trace " + options.trace + ": no tx records to replay");
  }

  // The core's work first: a record it refuses stops the replay before
  // anything is written.
  struct Pending {
    std::vector<Sent> frames;
    std::shared_ptr<ns3::TxRecord> tx;
  };
  std::vector<Pending> pending;
  const NicTx tx = NicTx::FromProfile(profile);
  for (std::size_t i = 0; i < records.size(); i++) {
    const trace::Record& rec = records[i];
    if (rec.role != trace::Role::kTx) {
      continue;
    }
    ReplayRecord out;
    out.number = i + 1;
    out.op = rec.op;
    const Packet packet = rec.ToPacket();
    out.handed = packet.offloads.Describe();
    auto txRecord = std::make_shared<ns3::TxRecord>();
    txRecord->frame = packet.bytes();
    txRecord->comment = ns3::TxComment(packet);

    std::vector<Sent> frames;
    try {
      frames = SendThroughNic(packet, "replay", profile.tx_caps, tx, {}, nullptr, &out.errors,
                              &out.violations);
    } catch (const Error& e) {
      // A record the core cannot process (e.g. TSO without a TCP header).
      throw Error("trace " + options.trace + ": packet " + std::to_string(out.number) + ": " +
                  e.what());
    }
    r.droppedPackets += frames.empty();
    for (const Sent& f : frames) {
      out.frames.push_back(Inspect(f.frame));
      r.wrongFrames += out.frames.back().wrong;
    }
    r.wireFrames += frames.size();
    pending.push_back({std::move(frames), txRecord});
    r.records.push_back(std::move(out));
  }

  Ptr<OffloadChannel> cable = CreateObject<OffloadChannel>();
  Ptr<OffloadNetDevice> nic[2];
  for (int i = 0; i < 2; i++) {
    Ptr<Node> node = CreateObject<Node>();
    nic[i] = CreateObject<OffloadNetDevice>();
    nic[i]->SetProfile(i == 0 ? r.nic : r.rxNic);
    // Per-frame events: a trace is small, and each frame keeps its own arrival.
    nic[i]->SetAttribute("TrainMode", BooleanValue(false));
    nic[i]->SetAttribute("TxQueueLimit", UintegerValue(1u << 30));
    nic[i]->SetAttribute("Gro", BooleanValue(i == 1 && options.gro));
    node->AddDevice(nic[i]);
    nic[i]->Attach(cable);
  }
  if (!options.pcapPath.empty()) {
    const std::filesystem::path dir = std::filesystem::path(options.pcapPath).parent_path();
    if (!dir.empty()) {
      std::filesystem::create_directories(dir);
    }
    nic[0]->EnablePcap(options.pcapPath);
  }
  nic[1]->SetPacketHandler([&r](PacketBatch batch, uint32_t) {
    for (const Packet& p : batch) {
      char t[32];
      std::snprintf(t, sizeof t, "%.3f us: ", Simulator::Now().GetNanoSeconds() / 1e3);
      r.received.push_back(t + std::to_string(p.size()) + " bytes, " + p.offloads.Describe());
    }
  });

  for (Pending& p : pending) {
    nic[0]->SendFrames(std::move(p.frames), p.tx);
  }

  Simulator::Run();
  r.simUs = Simulator::Now().GetNanoSeconds() / 1e3;
  nic[0]->ClosePcap();
  Simulator::Destroy();
  return r;
}

std::string ToJson(const ReplayResult& r) {
  std::ostringstream o;
  auto list = [&o](const std::vector<std::string>& v) {
    o << "[";
    for (std::size_t i = 0; i < v.size(); i++) {
      o << (i ? ", " : "") << JsonString(v[i]);
    }
    o << "]";
  };
  o << "{\n  \"trace\": " << JsonString(r.trace) << ",\n  \"nic\": " << JsonString(r.nic)
    << ",\n  \"rx_nic\": " << JsonString(r.rxNic) << ",\n  \"inject\": ";
  list(r.inject);
  o << ",\n  \"wire_frames\": " << r.wireFrames << ",\n  \"wrong_frames\": " << r.wrongFrames
    << ",\n  \"dropped_packets\": " << r.droppedPackets << ",\n  \"sim_us\": " << r.simUs
    << ",\n  \"records\": [";
  for (std::size_t i = 0; i < r.records.size(); i++) {
    const ReplayRecord& rec = r.records[i];
    o << (i ? "," : "") << "\n    {\"number\": " << rec.number << ", \"op\": " << JsonString(rec.op)
      << ", \"handed\": " << JsonString(rec.handed) << ", \"errors\": ";
    list(rec.errors);
    o << ", \"violations\": ";
    list(rec.violations);
    o << ", \"frames\": [";
    for (std::size_t j = 0; j < rec.frames.size(); j++) {
      const ReplayFrame& f = rec.frames[j];
      o << (j ? ", " : "") << "{\"bytes\": " << f.bytes
        << ", \"wrong\": " << (f.wrong ? "true" : "false") << ", \"csum\": {";
      for (std::size_t k = 0; k < f.checksums.size(); k++) {
        o << (k ? ", " : "") << JsonString(f.checksums[k].layer) << ": "
          << JsonString(f.checksums[k].verdict);
      }
      o << "}}";
    }
    o << "]}";
  }
  o << "\n  ],\n  \"received\": ";
  list(r.received);
  o << "\n}\n";
  return o.str();
}

std::string ToTable(const ReplayResult& r) {
  std::ostringstream o;
  o << "replay of " << r.trace << " on " << r.nic;
  if (r.rxNic != r.nic) {
    o << " (received by " << r.rxNic << ")";
  }
  for (const std::string& f : r.inject) {
    o << ", fault " << f << " on";
  }
  o << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-7s %-10s %-6s %s\n", "packet", "op", "bytes",
                "checksums on the wire (recomputed)");
  o << line;
  for (const ReplayRecord& rec : r.records) {
    for (const std::string& e : rec.errors) {
      o << "  #" << rec.number << " dropped by netdev_send: " << e << "\n";
    }
    for (const std::string& v : rec.violations) {
      o << "  #" << rec.number << " outside the NIC's capabilities: " << v << "\n";
    }
    for (const ReplayFrame& f : rec.frames) {
      std::string sums;
      for (const ReplayChecksum& c : f.checksums) {
        sums += (sums.empty() ? "" : ", ") + c.layer + " " + c.verdict;
      }
      std::snprintf(line, sizeof line, "  #%-6zu %-10s %-6zu ", rec.number, rec.op.c_str(),
                    f.bytes);
      o << line << (sums.empty() ? "none" : sums) << (f.wrong ? "   <- WRONG" : "") << "\n";
    }
  }
  auto count = [](std::size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  o << "  " << count(r.wireFrames, "frame") << " on the wire, " << r.wrongFrames
    << " with a wrong checksum; " << count(r.droppedPackets, "packet")
    << " dropped before the NIC\n";
  o << "  the receiving " << r.rxNic << " delivered " << count(r.received.size(), "packet")
    << ":\n";
  for (const std::string& s : r.received) {
    o << "    " << s << "\n";
  }
  return o.str();
}

}  // namespace offlab::sim
