// DissectQuiet, the per-frame dissection of the NIC receive models, against
// Dissect: the same layers, offsets, checksum verdicts and error on every
// frame (the vectors, and those frames cut short or with bytes changed), and
// no summary text at all.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dissect_vectors.h"
#include "offlab/net/bytes.h"
#include "offlab/net/dissect.h"

namespace offlab {
namespace {

using namespace dissect_vectors;  // NOLINT(google-build-using-namespace)

std::vector<Bytes> Frames() {
  const std::string hex[] = {
      G(),
      VxlanFrame("0000"),
      VxlanFrame("bf4d"),
      VxlanFrame("4c12", kTcp2222Bad),
      VxlanUdpFrame("8643", "0000"),
      VxlanUdpFrame("9bf2", "ea50"),
      kVxlanArp,
      kVxlanNdp,
      kIpv6Udp,
      kIpv6UdpZeroCsum,
      kIpv6ExtTcp,
      kIpv6FirstFragUdp,
      kIpv6LaterFrag,
      kIpv4Sctp,
      kIpv6Sctp,
      kIpv4IcmpEcho,
      kIpv6Icmpv6Echo,
      kGeneveOpts,
      kGreCksTeb,
      kGreIpv6,
      kQinQUdp,
      kIpv4OptsPadded,
      kIpv6SrhUdp,
      kIpv6HaoUdp,
      kArpRequest,
      kIpv4FirstFragTcp,
      kIpv4LaterFrag,
  };
  std::vector<Bytes> out;
  for (const std::string& h : hex) out.push_back(FromHex(h));
  return out;
}

void ExpectSameStructure(const Bytes& f, const std::string& what) {
  const Dissection full = Dissect(f);
  const Dissection quiet = DissectQuiet(f.data(), f.size());
  ASSERT_EQ(quiet.layers.size(), full.layers.size()) << what;
  for (size_t i = 0; i < full.layers.size(); i++) {
    const Layer &a = full.layers[i], &b = quiet.layers[i];
    EXPECT_EQ(b.name, a.name) << what << " layer " << i;
    EXPECT_EQ(b.depth, a.depth) << what << " layer " << i;
    EXPECT_EQ(b.offset, a.offset) << what << " layer " << i;
    EXPECT_EQ(b.length, a.length) << what << " layer " << i;
    // The contract: no summary text, not even the notes some layers add.
    EXPECT_EQ(b.summary, "") << what << " layer " << i << " (" << a.summary << ")";
  }
  ASSERT_EQ(quiet.checksums.size(), full.checksums.size()) << what;
  for (size_t i = 0; i < full.checksums.size(); i++) {
    const ChecksumField &a = full.checksums[i], &b = quiet.checksums[i];
    EXPECT_EQ(b.layer, a.layer) << what;
    EXPECT_EQ(b.depth, a.depth) << what;
    EXPECT_EQ(b.offset, a.offset) << what;
    EXPECT_EQ(b.value, a.value) << what;
    EXPECT_EQ(b.expected, a.expected) << what;
    EXPECT_EQ(b.verdict, a.verdict) << what;
  }
  // The error is described in both modes.
  EXPECT_EQ(quiet.error, full.error) << what;
}

TEST(DissectQuiet, SameStructureAsDissectOnEveryVector) {
  const std::vector<Bytes> frames = Frames();
  for (size_t i = 0; i < frames.size(); i++) ExpectSameStructure(frames[i], std::to_string(i));
}

TEST(DissectQuiet, SameStructureOnCutAndChangedFrames) {
  // Every cut of every vector, and random byte changes (fixed seed): the
  // quiet mode takes no shortcut that a malformed frame could tell apart.
  std::mt19937 rng(7);
  for (const Bytes& f : Frames()) {
    for (size_t n = 0; n <= f.size(); n++) {
      Bytes cut(f.begin(), f.begin() + static_cast<long>(n));
      ExpectSameStructure(cut, "cut at " + std::to_string(n));
    }
    for (int k = 0; k < 200; k++) {
      Bytes g = f;
      const size_t at = rng() % g.size();
      g[at] = static_cast<uint8_t>(rng());
      ExpectSameStructure(g, "byte " + std::to_string(at) + " changed");
    }
  }
}

TEST(DissectQuiet, Ipv6ZeroUdpChecksumNoteOnlyInTheFullSummary) {
  // The RFC 6935 note Dissect adds to a zero IPv6 UDP checksum is text:
  // the quiet mode leaves it out like every other summary.
  const Bytes f = FromHex(kIpv6UdpZeroCsum);
  const Dissection full = Dissect(f);
  bool noted = false;
  for (const Layer& l : full.layers)
    noted = noted || l.summary.find("zero-csum") != std::string::npos;
  EXPECT_TRUE(noted);
  for (const Layer& l : DissectQuiet(f.data(), f.size()).layers) EXPECT_EQ(l.summary, "");
}

TEST(DissectQuiet, ZeroCsumNoteOnlyForAZeroIpv6UdpChecksum) {
  // RFC 6935 is about IPv6 alone: a zero IPv4 UDP checksum is RFC 768's
  // "no checksum" (the inner datagram here), and a non-zero IPv6 one (scapy's
  // 0x5109) needs no note, so no UDP layer of these frames carries it.
  for (const std::string& hex : {std::string(kIpv6Udp), VxlanUdpFrame("8643", "0000")}) {
    int udp = 0;
    for (const Layer& l : Dissect(FromHex(hex)).layers) {
      if (l.name == "udp") udp++;
      EXPECT_EQ(l.summary.find("zero-csum"), std::string::npos) << l.name << ": " << l.summary;
    }
    EXPECT_GE(udp, 1) << hex;
  }
}

}  // namespace
}  // namespace offlab
