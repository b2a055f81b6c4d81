/* SPDX-License-Identifier: Apache-2.0 */

#include "offlab/net/trace.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "offlab/net/error.h"
#include "offlab/net/input_file.h"

namespace offlab::trace {

namespace {

/* pcapng block types and options (pcapng specification, sections 4.1-4.3). */
constexpr uint32_t kShb = 0x0A0D0D0A;
constexpr uint32_t kIdb = 0x00000001;
constexpr uint32_t kEpb = 0x00000006;
constexpr uint16_t kOptComment = 1;
constexpr uint16_t kLinktypeEthernet = 1;
constexpr const char kPrefix[] = "offlab ";

struct Cursor {
  const uint8_t* p;
  bool swap;
  uint32_t U32(size_t at) const {
    uint32_t v;
    std::memcpy(&v, p + at, 4);
    return swap ? __builtin_bswap32(v) : v;
  }
  uint16_t U16(size_t at) const {
    uint16_t v;
    std::memcpy(&v, p + at, 2);
    return swap ? __builtin_bswap16(v) : v;
  }
};

const char* kOfsNames[] = {"l3", "l4", "inner_l2", "inner_l3", "inner_l4"};

uint64_t UInt(const YAML::Node& n, const std::string& key, uint64_t max, const std::string& at) {
  try {
    long long v = n.as<long long>();
    if (v < 0 || static_cast<uint64_t>(v) > max) throw YAML::Exception(YAML::Mark(), "range");
    return static_cast<uint64_t>(v);
  } catch (const YAML::Exception&) {
    throw Error(at + ": " + key + " must be an integer 0.." + std::to_string(max));
  }
}

RxReport ParseRx(const YAML::Node& n, const std::string& at) {
  RxReport r;
  if (!n.IsMap()) throw Error(at + ": rx report must be an object");
  auto get = [&](const char* key, CsumStatus* s) {
    if (!n[key]) return;
    try {
      *s = StatusFromName(n[key].as<std::string>());
    } catch (const std::exception& e) {
      throw Error(at + ": rx." + key + ": " + e.what());
    }
  };
  get("ip", &r.ip);
  get("l4", &r.l4);
  get("inner_ip", &r.inner_ip);
  get("inner_l4", &r.inner_l4);
  return r;
}

void ParseFields(const YAML::Node& m, Record& r, const std::string& at);

/* Fills `r` from the JSON object of an `offlab {...}` comment. */
void ParseMeta(const std::string& json, Record& r, const std::string& at) {
  YAML::Node m;
  try {
    m = YAML::Load(json);
  } catch (const YAML::Exception& e) {
    throw Error(at + ": comment is not JSON (" + e.msg + ")");
  }
  if (!m.IsMap()) throw Error(at + ": comment is not a JSON object");
  try {
    ParseFields(m, r, at);
  } catch (const YAML::Exception& e) {
    // A field of the wrong JSON type (e.g. an object where a string belongs).
    throw Error(at + ": comment has a field of the wrong type (" + e.msg + ")");
  }
}

void ParseFields(const YAML::Node& m, Record& r, const std::string& at) {
  if (m["op"]) r.op = m["op"].as<std::string>();
  std::string role = m["role"] ? m["role"].as<std::string>() : (r.op == "wire" ? "wire" : "step");
  if (role == "tx")
    r.role = Role::kTx;
  else if (role == "wire")
    r.role = Role::kWire;
  else if (role == "step")
    r.role = Role::kStep;
  else
    throw Error(at + ": role must be tx, wire or step, not '" + role + "'");
  if (r.role == Role::kTx) {
    for (const char* key : {"offloads", "tso_segsz", "ofs"}) {
      if (!m[key]) throw Error(at + ": tx record without '" + key + "'");
    }
  }
  if (m["offloads"])
    r.offloads = static_cast<uint32_t>(UInt(m["offloads"], "offloads", UINT32_MAX, at));
  if (m["tso_segsz"])
    r.tso_segsz = static_cast<uint16_t>(UInt(m["tso_segsz"], "tso_segsz", 65535, at));
  if (m["of"]) r.of = static_cast<int>(UInt(m["of"], "of", INT32_MAX, at));
  if (m["profile"]) r.profile = m["profile"].as<std::string>();
  if (r.role == Role::kTx) {
    const YAML::Node ofs = m["ofs"];
    if (!ofs.IsMap()) throw Error(at + ": ofs must be an object");
    size_t last = 0;
    for (size_t i = 0; i < r.ofs.size(); i++) {
      const YAML::Node v = ofs[kOfsNames[i]];
      if (!v || v.IsNull()) continue;
      const uint64_t max = std::min<uint64_t>(r.frame.size(), kNoOffset - 1);
      uint64_t o = UInt(v, std::string("ofs.") + kOfsNames[i], max, at);
      if (o < last) throw Error(at + ": ofs." + kOfsNames[i] + " is before the previous layer");
      r.ofs[i] = static_cast<uint16_t>(o);
      last = o;
    }
  }
  if (m["rx"]) {
    if (!m["rx"].IsMap()) throw Error(at + ": rx must be an object");
    for (const auto& kv : m["rx"]) r.rx[kv.first.as<std::string>()] = ParseRx(kv.second, at);
  }
}

}  // namespace

CsumStatus StatusFromName(const std::string& name) {
  for (CsumStatus s :
       {CsumStatus::kUnknown, CsumStatus::kBad, CsumStatus::kGood, CsumStatus::kPartial}) {
    if (name == ToString(s)) return s;
  }
  throw Error("unknown checksum status '" + name + "' (unknown, bad, good or partial)");
}

Packet Record::ToPacket() const {
  Packet p(frame);
  p.l3_ofs = ofs[0];
  p.l4_ofs = ofs[1];
  p.inner_l2_ofs = ofs[2];
  p.inner_l3_ofs = ofs[3];
  p.inner_l4_ofs = ofs[4];
  p.offloads = Offloads(offloads);
  p.tso_segsz = tso_segsz;
  return p;
}

std::vector<Record> ReadTrace(const std::string& path) {
  const std::string text = ReadInputFile(path, "trace " + path + ": ", InputKind::kCapture);
  return ParseTrace(Bytes(text.begin(), text.end()), "trace " + path);
}

std::vector<Record> ParseTrace(const Bytes& data, const std::string& name) {
  if (data.size() < 12 || Cursor{data.data(), false}.U32(0) != kShb) {
    throw Error(name + ": not a pcapng file (no section header block)");
  }
  std::vector<Record> out;
  std::vector<uint16_t> linktypes;
  Cursor c{data.data(), false};
  size_t at = 0;
  while (at < data.size()) {
    if (data.size() - at < 12)
      throw Error(name + ": truncated block at byte " + std::to_string(at));
    if (Cursor{data.data(), false}.U32(at) == kShb) {
      uint32_t magic = Cursor{data.data(), false}.U32(at + 8);
      if (magic == 0x1A2B3C4D)
        c.swap = false;
      else if (magic == 0x4D3C2B1A)
        c.swap = true;
      else
        throw Error(name + ": bad byte-order magic at byte " + std::to_string(at));
      linktypes.clear();
    }
    const uint32_t type = c.U32(at), len = c.U32(at + 4);
    if (len < 12 || len % 4 || len > data.size() - at || c.U32(at + len - 4) != len) {
      throw Error(name + ": corrupt or truncated block at byte " + std::to_string(at));
    }
    const size_t body = at + 8, end = at + len - 4;
    if (type == kIdb) {
      linktypes.push_back(c.U16(body));
    } else if (type == kEpb) {
      const std::string pkt = name + ": packet " + std::to_string(out.size() + 1);
      if (end - body < 20) throw Error(pkt + ": corrupt packet block");
      const uint32_t iface = c.U32(body), cap = c.U32(body + 12), orig = c.U32(body + 16);
      if (iface >= linktypes.size() || linktypes[iface] != kLinktypeEthernet) {
        throw Error(pkt + ": not on an Ethernet interface");
      }
      if (cap > end - body - 20) throw Error(pkt + ": captured length runs past the block");
      if (cap != orig) {
        throw Error(pkt + ": truncated capture (" + std::to_string(cap) + " of " +
                    std::to_string(orig) + " bytes)");
      }
      Record r;
      r.frame.assign(data.begin() + body + 20, data.begin() + body + 20 + cap);
      size_t o = body + 20 + (cap + 3) / 4 * 4;
      while (o + 4 <= end) {
        const uint16_t code = c.U16(o), olen = c.U16(o + 2);
        if (code == 0) break;
        if (olen > end - o - 4) throw Error(pkt + ": option runs past its block");
        std::string text(reinterpret_cast<const char*>(data.data() + o + 4), olen);
        while (!text.empty() && text.back() == '\0') text.pop_back();
        if (code == kOptComment && text.rfind(kPrefix, 0) == 0) {
          ParseMeta(text.substr(sizeof(kPrefix) - 1), r, pkt);
        }
        o += 4 + (olen + 3u) / 4 * 4;
      }
      out.push_back(std::move(r));
    }
    at += len;
  }
  for (size_t i = 0; i < out.size(); i++) {
    const Record& r = out[i];
    if (r.role == Role::kWire && r.of >= 0 &&
        (static_cast<size_t>(r.of) >= out.size() || out[r.of].role != Role::kTx)) {
      throw Error(name + ": packet " + std::to_string(i + 1) + ": 'of' = " + std::to_string(r.of) +
                  " does not name a tx record");
    }
  }
  return out;
}

}  // namespace offlab::trace
