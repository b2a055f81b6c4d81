// SPDX-License-Identifier: Apache-2.0
// ns-3 TestSuite "offload-generator": the packet generator and its sink.
// Expected values come from outside the code under test: line-rate
// arithmetic (a 64-byte frame takes 84 bytes of the line), the IMIX mix,
// frames built by scapy, and train vs per-frame agreement.
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/frame-sink.h"
#include "ns3/node.h"
#include "ns3/offload-channel.h"
#include "ns3/offload-net-device.h"
#include "ns3/packet-generator.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "offlab/net/checksum.h"
#include "offlab/net/error.h"

using namespace ns3;

namespace {

struct Capture {
  std::vector<offlab::Bytes> frames;
  std::vector<Time> departures;
  uint64_t trains = 0;
};

// Runs one generator alone until it stops at `until`, keeping every frame.
Capture Generate(GeneratorConfig c, Time until) {
  Capture cap;
  c.stop = until;
  {
    Ptr<PacketGenerator> gen = CreateObject<PacketGenerator>();
    gen->SetConfig(c);
    gen->SetSink([&cap](std::vector<offlab::Bytes> f, std::vector<Time> d) {
      cap.trains++;
      for (std::size_t i = 0; i < f.size(); i++) {
        cap.frames.push_back(std::move(f[i]));
        cap.departures.push_back(d[i]);
      }
    });
    gen->Start();
    Simulator::Stop(until);
    Simulator::Run();
  }
  Simulator::Destroy();
  return cap;
}

GeneratorConfig Fixed(uint32_t size, double lineGbps) {
  GeneratorConfig c;
  c.frame_sizes = {size};
  c.line_gbps = lineGbps;
  return c;
}

class LineRateArithmetic : public TestCase {
 public:
  LineRateArithmetic()
      : TestCase("64 B at 10 Gbps line rate: 14.88 Mpps, frame i leaves at i x 67.2 ns") {}

 private:
  void DoRun() override {
    // 64 B with FCS + 8 preamble + 12 IFG = 84 B = 672 bits; 10e9 / 672.
    const auto cap = Generate(Fixed(60, 10), MilliSeconds(1));
    // Departures before 1 ms: i x 67.2 ns < 1e6 ns for i = 0..14880.
    NS_TEST_ASSERT_MSG_EQ(cap.frames.size(), 14881u, "frames in 1 ms");
    for (std::size_t i = 0; i < cap.frames.size(); i++) {
      const int64_t expectNs = static_cast<int64_t>(i) * 672 / 10;  // floor(i x 67.2)
      NS_TEST_ASSERT_MSG_EQ(cap.departures[i].GetNanoSeconds(), expectNs, "departure " << i);
      NS_TEST_ASSERT_MSG_EQ(cap.frames[i].size(), 60u, "frame size");
    }
    // ~10 us per train at 14.88 Mpps: 148 frames, so 14881 frames take 101 trains.
    NS_TEST_ASSERT_MSG_EQ(cap.trains, 101u, "default train length");
    // A set rate: 2.5 Gbit/s L1 of 1500-byte frames: (1500+24) x 8 = 12192 bits = 4876.8 ns.
    GeneratorConfig c = Fixed(1500, 10);
    c.rate_gbps = 2.5;
    const auto slow = Generate(c, MicroSeconds(100));
    NS_TEST_ASSERT_MSG_EQ(slow.frames.size(), 21u, "i x 4876.8 ns < 100 us for i = 0..20");
    NS_TEST_ASSERT_MSG_EQ(slow.departures[20].GetNanoSeconds(), 97536, "20 x 4876.8 ns");
  }
};

class ImixMix : public TestCase {
 public:
  ImixMix()
      : TestCase("IMIX: 7:4:1 of 64, 594 and 1518 B, average 361.83 B with FCS, cumulative times") {
  }

 private:
  void DoRun() override {
    GeneratorConfig c;
    c.UseImix();
    c.line_gbps = 10;
    const auto cap = Generate(c, MicroSeconds(400));
    // 10 Gbit/s over (361.83 + 20) x 8 bits a frame: 3.2737 Mpps, 1309.5 in 400 us.
    NS_TEST_ASSERT_MSG_EQ_TOL(double(cap.frames.size()), 1309.5, 1.0, "IMIX frame rate");
    // Whole cycles of 12 frames: exactly 7, 4 and 1 of each size (with FCS).
    const std::size_t n = cap.frames.size() / 12 * 12;
    uint64_t small = 0, mid = 0, large = 0, bytes = 0;
    for (std::size_t i = 0; i < n; i++) {
      const std::size_t s = cap.frames[i].size() + 4;
      small += s == 64, mid += s == 594, large += s == 1518, bytes += s;
    }
    NS_TEST_ASSERT_MSG_EQ(small * 12, n * 7, "64-byte share");
    NS_TEST_ASSERT_MSG_EQ(mid * 12, n * 4, "594-byte share");
    NS_TEST_ASSERT_MSG_EQ(large * 12, n * 1, "1518-byte share");
    // (7 x 64 + 4 x 594 + 1518) / 12 = 4342 / 12.
    NS_TEST_ASSERT_MSG_EQ_TOL(double(bytes) / n, 361.8333, 1e-3, "average frame with FCS");
    // Frame i leaves when the line bits of frames 0..i-1 have gone at 10 Gbit/s.
    uint64_t bits = 0;
    for (std::size_t i = 0; i < cap.frames.size(); i++) {
      NS_TEST_ASSERT_MSG_EQ(cap.departures[i].GetNanoSeconds(), int64_t(bits / 10),
                            "departure " << i);
      bits += (cap.frames[i].size() + 24) * 8;
    }
  }
};

class FlowsAndChecksums : public TestCase {
 public:
  FlowsAndChecksums()
      : TestCase("flows cycle source ports; frames match scapy's bytes and checksums verify") {}

 private:
  void DoRun() override {
    for (bool v6 : {false, true}) {
      GeneratorConfig c = Fixed(100, 10);
      c.rate_pps = 1000;
      c.flows = 2;
      c.udp_src = 5000;
      c.start = Seconds(65538);  // tv_sec above 16 bits
      if (v6) {
        c.src_ip = "2001:db8::1";
        c.dst_ip = "2001:db8::2";
      }
      const auto cap = Generate(c, Seconds(65538) + MicroSeconds(3500));
      NS_TEST_ASSERT_MSG_EQ(cap.frames.size(), 4u, "1000 pps: 4 frames in 3.5 ms");
      // Ether()/IP(ttl=32, id=3)/UDP(sport=5001, dport=9)/pktgen header
      // (magic, seq 3, tv_sec 65538, tv_usec 3000) padded to 100 B, by scapy 2.8.0.
      const std::string want =
          v6 ? "02000000000202000000000186dd60000000002e112020010db80000000000000000000000012001"
               "0db800000000000000000000000213890009002edcdbbe9be955000000030001000200000bb80000"
               "0000000000000000000000000000000000000000"
             : "02000000000202000000000108004500005600030000201186920a0000010a000002138900090042"
               "2426be9be955000000030001000200000bb800000000000000000000000000000000000000000000"
               "0000000000000000000000000000000000000000";
      NS_TEST_ASSERT_MSG_EQ(offlab::ToHex(cap.frames[3]), want, (v6 ? "IPv6" : "IPv4"));
      for (std::size_t i = 0; i < cap.frames.size(); i++) {
        const uint8_t* f = cap.frames[i].data();
        const std::size_t udp = v6 ? 54 : 34, len = cap.frames[i].size() - udp;
        NS_TEST_ASSERT_MSG_EQ(uint64_t{offlab::GetBe16(f + udp)}, 5000 + i % 2, "port " << i);
        const uint64_t pseudo = v6 ? offlab::csum::PseudoIpv6(f + 22, f + 38, 17, uint32_t(len))
                                   : offlab::csum::PseudoIpv4(f + 26, f + 30, 17, uint16_t(len));
        NS_TEST_ASSERT_MSG_EQ(offlab::csum::Verify(f + udp, len, pseudo), true, "UDP " << i);
        NS_TEST_ASSERT_MSG_EQ(v6 || offlab::csum::Verify(f + 14, 20), true, "IPv4 " << i);
      }
    }
    // To 10.0.67.182 the first frame's UDP checksum computes to 0, sent as
    // 0xffff (RFC 768); the frame from scapy 2.8.0, which does the same.
    GeneratorConfig c = Fixed(60, 10);
    c.dst_ip = "10.0.67.182";
    const auto zero = Generate(c, NanoSeconds(1));
    NS_TEST_ASSERT_MSG_EQ(offlab::ToHex(zero.frames.at(0)),
                          "02000000000202000000000108004500002e00000000201143090a0000010a0043b600"
                          "090009001affffbe9be9550000000000000000000000000000",
                          "checksum 0 sent as 0xffff");
  }
};

std::string ErrorOf(void (*edit)(GeneratorConfig&)) {
  GeneratorConfig c = Fixed(60, 100);
  edit(c);
  try {
    c.Validate();
  } catch (const offlab::Error& e) {
    return e.what();
  }
  return "";
}

class BadConfigs : public TestCase {
 public:
  BadConfigs() : TestCase("bad configurations: one-line errors naming the field") {}

 private:
  void DoRun() override {
    const std::pair<void (*)(GeneratorConfig&), std::string> cases[] = {
        {[](GeneratorConfig& c) { c.rate_gbps = 120; }, "rate_gbps 120 is above the line rate 100"},
        {[](GeneratorConfig& c) { c.flows = 0; }, "flows 0: at least one flow is needed"},
        {[](GeneratorConfig& c) { c.frame_sizes = {59}; },
         "frame_sizes: 59 is outside 60..9018 (bytes without FCS)"},
        {[](GeneratorConfig& c) { c.frame_sizes.clear(); }, "frame_sizes is empty"},
        {[](GeneratorConfig& c) { c.weights.assign(2, 1); }, "weights: 2 given for 1 frame sizes"},
        {[](GeneratorConfig& c) { c.weights = {-1}; }, "weights: -1 is not a positive number"},
        {[](GeneratorConfig& c) { c.line_gbps = 0; }, "line_gbps 0 is not a positive rate"},
        // 2e7 x 84 x 8 bits = 13.44 Gbit/s.
        {[](GeneratorConfig& c) { c.line_gbps = 10, c.rate_pps = 2e7; },
         "rate_pps 2e+07 needs 13.44 Gbit/s at these frame sizes, above the line rate 10"},
        {[](GeneratorConfig& c) { c.rate_pps = 1, c.rate_gbps = 1; },
         "rate_gbps and rate_pps are both set: give one"},
        {[](GeneratorConfig& c) { c.src_ip = "2001:db8::1", c.frame_sizes = {77}; },
         "src_ip 2001:db8::1 and dst_ip 10.0.0.2 are not the same address family"},
        {[](GeneratorConfig& c) { c.src_ip = c.dst_ip = "2001:db8::1", c.frame_sizes = {77}; },
         "frame_sizes: 77 is below 78, the smallest IPv6/UDP frame with the 16-byte pktgen header"},
        {[](GeneratorConfig& c) { c.udp_src = 65535, c.flows = 2; },
         "flows 2 from udp_src 65535 run past port 65535"},
        {[](GeneratorConfig& c) { c.burst = 0; }, "burst 0: a train carries at least one frame"},
        {[](GeneratorConfig& c) { c.start = Seconds(2), c.stop = Seconds(1); },
         "stop 1 s is not after start 2 s"},
    };
    for (const auto& [edit, want] : cases) {
      NS_TEST_ASSERT_MSG_EQ(ErrorOf(edit), want, "message");
    }
    const std::string mac = ErrorOf([](GeneratorConfig& c) { c.src_mac = "nope"; });
    NS_TEST_ASSERT_MSG_EQ(mac.rfind("src_mac: ", 0), 0u, mac);
    NS_TEST_ASSERT_MSG_EQ(mac.find('\n'), std::string::npos, "one line");
    NS_TEST_ASSERT_MSG_EQ(ErrorOf([](GeneratorConfig& c) { c.rate_gbps = 100; }), "",
                          "exactly line rate is fine");
  }
};

class SinkCountsGaps : public TestCase {
 public:
  SinkCountsGaps() : TestCase("sink: lost and late frames from sequence gaps, across 2^32") {}

 private:
  void DoRun() override {
    const auto cap = Generate(Fixed(60, 10), NanoSeconds(672));
    NS_TEST_ASSERT_MSG_EQ(cap.frames.size(), 10u, "frames 0..9");
    auto sink = CreateObject<FrameSink>();
    sink->SetVerifyChecksums(true);
    std::vector<offlab::Bytes> in;
    // Frame 3 lost, 6 and 7 swapped, one ARP frame, one frame with a bad
    // UDP checksum (frame 9, payload byte changed).
    for (int i : {0, 1, 2, 4, 5, 7, 6, 8, 9}) {
      in.push_back(cap.frames[i]);
    }
    in.back()[59] ^= 1;
    offlab::Bytes arp(60, 0);
    arp[12] = 0x08, arp[13] = 0x06;
    in.push_back(arp);
    std::vector<Time> at(in.size(), MicroSeconds(1));
    sink->Receive(in, at);
    auto s = sink->GetStats();
    NS_TEST_ASSERT_MSG_EQ(s.frames, 9u, "pktgen frames");
    NS_TEST_ASSERT_MSG_EQ(s.lost, 1u, "frame 3");
    NS_TEST_ASSERT_MSG_EQ(s.late, 1u, "frame 6 after 7");
    NS_TEST_ASSERT_MSG_EQ(s.flowReorders, 1u, "one flow: the same frame");
    NS_TEST_ASSERT_MSG_EQ(s.foreign, 1u, "the ARP frame");
    NS_TEST_ASSERT_MSG_EQ(s.badChecksums, 1u, "frame 9");
    NS_TEST_ASSERT_MSG_EQ(sink->GetFlowFrames(9), 9u, "pktgen's default port 9");
    // Sequence numbers 2^32-2, 2^32-1, 0, 1 run on without a gap.
    sink = CreateObject<FrameSink>();
    std::vector<offlab::Bytes> wrap;
    for (uint32_t seq : {0xfffffffeu, 0xffffffffu, 0u, 1u}) {
      wrap.push_back(cap.frames[0]);
      offlab::PutBe32(&wrap.back()[46], seq);
    }
    sink->Receive(wrap, {Seconds(1), Seconds(1), Seconds(1), Seconds(1)});
    s = sink->GetStats();
    NS_TEST_ASSERT_MSG_EQ(s.frames, 4u, "frames across the wrap");
    NS_TEST_ASSERT_MSG_EQ(s.lost + s.late, 0u, "no gap across the wrap");
    // A train handed over at 0 arriving over 1..10 us, a window from 5.5 us:
    // the frames arriving at 6..10 us are in it.
    sink = CreateObject<FrameSink>();
    std::vector<Time> us;
    for (int i = 1; i <= 10; i++) {
      us.push_back(MicroSeconds(i));
    }
    Simulator::Schedule(Seconds(0), [&] { sink->Receive(cap.frames, us); });
    Simulator::Schedule(NanoSeconds(5500), &FrameSink::ResetStats, sink);
    Simulator::Run();
    NS_TEST_ASSERT_MSG_EQ(sink->GetStats().frames, 5u, "frames arriving in the window");
    Simulator::Destroy();
  }
};

struct DeviceRun {
  FrameSink::Stats window;
  uint64_t generated = 0, received = 0, lost = 0, late = 0;
};

// Generator -> OffloadNetDevice (10 Gbit/s) -> OffloadChannel -> device ->
// sink, 3 ms at `gbps`; the window runs from 0.5 to 2.5 ms.
DeviceRun ThroughDevices(double gbps, bool trains) {
  DeviceRun r;
  {
    Ptr<Node> a = CreateObject<Node>(), b = CreateObject<Node>();
    Ptr<OffloadNetDevice> tx = CreateObject<OffloadNetDevice>();
    Ptr<OffloadNetDevice> rx = CreateObject<OffloadNetDevice>();
    for (auto [node, dev] : {std::pair{a, tx}, std::pair{b, rx}}) {
      dev->SetAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
      dev->SetAttribute("TrainMode", BooleanValue(trains));
      node->AddDevice(dev);
    }
    Ptr<OffloadChannel> ch = CreateObject<OffloadChannel>();
    tx->Attach(ch);
    rx->Attach(ch);
    Ptr<FrameSink> sink = CreateObject<FrameSink>();
    rx->SetTrainHandler([sink](Ptr<FrameTrain> t) { sink->ReceiveTrain(t); });
    Ptr<PacketGenerator> gen = CreateObject<PacketGenerator>();
    GeneratorConfig c = Fixed(60, 10);
    c.rate_gbps = gbps;
    c.flows = 16;
    c.stop = MilliSeconds(3);
    if (!trains) {
      c.burst = 1;
    }
    gen->SetConfig(c);
    gen->SetSink([tx](std::vector<offlab::Bytes> frames, std::vector<Time>) {
      std::vector<offlab::Sent> sent;
      sent.reserve(frames.size());
      for (auto& f : frames) {
        sent.push_back(offlab::Sent{.frame = std::move(f)});
      }
      tx->SendFrames(std::move(sent));
    });
    gen->Start();
    Simulator::Schedule(MicroSeconds(500), &FrameSink::ResetStats, sink);
    Simulator::Schedule(MicroSeconds(2500), [&r, sink] { r.window = sink->GetStats(); });
    Simulator::Stop(MilliSeconds(4));
    Simulator::Run();
    r.generated = gen->GetFrames();
    r.received = rx->GetRxFrames();
    r.lost = sink->GetStats().lost;
    r.late = sink->GetStats().late;
  }
  Simulator::Destroy();
  return r;
}

class HalfLineRateThroughDevices : public TestCase {
 public:
  HalfLineRateThroughDevices()
      : TestCase(
            "half line rate through a device pair: arrives at that rate, no loss; trains "
            "and per-frame agree within 2%") {}

 private:
  void DoRun() override {
    const DeviceRun train = ThroughDevices(5, true), frame = ThroughDevices(5, false);
    // 5 Gbit/s of 84-byte line slots: 5e9 / 672 = 7.44 Mpps; 3 ms of it.
    const double pps = 5e9 / 672;
    for (const DeviceRun* r : {&train, &frame}) {
      const char* what = r == &train ? "trains" : "per frame";
      NS_TEST_ASSERT_MSG_EQ(r->generated, uint64_t(std::ceil(3e-3 * pps)), what);
      NS_TEST_ASSERT_MSG_EQ(r->received, r->generated, what << ": all arrive");
      NS_TEST_ASSERT_MSG_EQ(r->lost + r->late, 0u, what << ": no gap, no reorder");
      NS_TEST_ASSERT_MSG_EQ_TOL(r->window.Pps() / pps, 1.0, 0.01, what << ": pps");
      NS_TEST_ASSERT_MSG_EQ_TOL(r->window.L1Gbps(), 5.0, 0.05, what << ": L1 rate");
      NS_TEST_ASSERT_MSG_EQ_TOL(r->window.L2Gbps(), 5.0 * 64 / 84, 0.05, what << ": L2 rate");
    }
    NS_TEST_ASSERT_MSG_EQ(train.generated, frame.generated, "same frames");
    NS_TEST_ASSERT_MSG_LT(std::abs(train.window.Pps() / frame.window.Pps() - 1), 0.02,
                          "train vs per-frame rate");
  }
};

class HundredGigSpeed : public TestCase {
 public:
  HundredGigSpeed()
      : TestCase("10 simulated ms of 64 B at 100 Gbps line rate into a sink, under 60 s") {}

 private:
  void DoRun() override {
    const auto wall = std::chrono::steady_clock::now();
    uint64_t generated = 0;
    FrameSink::Stats s;
    {
      Ptr<FrameSink> sink = CreateObject<FrameSink>();
      sink->SetVerifyChecksums(true);
      Ptr<PacketGenerator> gen = CreateObject<PacketGenerator>();
      GeneratorConfig c = Fixed(60, 100);
      c.flows = 1024;
      c.stop = MilliSeconds(10);
      gen->SetConfig(c);
      gen->SetSink(
          [sink](std::vector<offlab::Bytes> f, std::vector<Time> d) { sink->Receive(f, d); });
      gen->Start();
      Simulator::Stop(MilliSeconds(10));
      Simulator::Run();
      generated = gen->GetFrames();
      s = sink->GetStats();
    }
    Simulator::Destroy();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    std::cout << "offload-generator: 10 ms of 64 B at 100 Gbit/s (" << generated << " frames) took "
              << seconds << " s wall\n";
    // i x 6.72 ns < 10 ms for i = 0..1488095.
    NS_TEST_ASSERT_MSG_EQ(generated, 1488096u, "frames in 10 ms");
    NS_TEST_ASSERT_MSG_EQ(s.frames, generated, "all reach the sink");
    NS_TEST_ASSERT_MSG_EQ(s.lost + s.late + s.badChecksums, 0u, "in order, checksums good");
    NS_TEST_ASSERT_MSG_EQ_TOL(s.Pps(), 100e9 / 672, 100e9 / 672 * 1e-3, "148.8 Mpps");
    NS_TEST_ASSERT_MSG_LT(seconds, 60.0, "wall time");
  }
};

class GeneratorTestSuite : public TestSuite {
 public:
  GeneratorTestSuite() : TestSuite("offload-generator", UNIT) {
    AddTestCase(new LineRateArithmetic, TestCase::QUICK);
    AddTestCase(new ImixMix, TestCase::QUICK);
    AddTestCase(new FlowsAndChecksums, TestCase::QUICK);
    AddTestCase(new BadConfigs, TestCase::QUICK);
    AddTestCase(new SinkCountsGaps, TestCase::QUICK);
    AddTestCase(new HalfLineRateThroughDevices, TestCase::QUICK);
    AddTestCase(new HundredGigSpeed, TestCase::QUICK);
  }
};

GeneratorTestSuite g_generatorTestSuite;

}  // namespace
