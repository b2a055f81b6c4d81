// SPDX-License-Identifier: Apache-2.0
#include "pcapng-writer.h"

#include <unistd.h>

#include <cstdio>

#include "offlab/net/error.h"

namespace ns3 {

namespace {

// pcapng (draft-ietf-opsawg-pcapng): little-endian blocks padded to 32 bits.
void Put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; i++) {
    s.push_back(static_cast<char>(v >> (8 * i)));
  }
}

void Put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v));
  s.push_back(static_cast<char>(v >> 8));
}

void Option(std::string& s, uint16_t code, const std::string& value) {
  Put16(s, code);
  Put16(s, static_cast<uint16_t>(value.size()));
  s += value;
  s.append((4 - value.size() % 4) % 4, '\0');
}

}  // namespace

PcapNgWriter::~PcapNgWriter() {
  if (m_out.is_open()) {
    m_out.close();
    std::remove(m_tmp.c_str());
  }
}

void PcapNgWriter::Open(const std::string& path) {
  m_path = path;
  m_tmp = path + ".tmp." + std::to_string(getpid());
  m_out.open(m_tmp, std::ios::binary | std::ios::trunc);
  if (!m_out) {
    throw offlab::Error("cannot create " + path);
  }
  std::string shb;
  Put32(shb, 0x1A2B3C4D);
  Put16(shb, 1);
  Put16(shb, 0);
  Put32(shb, 0xffffffff);  // section length unknown
  Put32(shb, 0xffffffff);
  Option(shb, 4, "offlab simulator");  // shb_userappl
  Put32(shb, 0);                       // opt_endofopt
  Block(0x0A0D0D0A, shb);
  std::string idb;
  Put16(idb, 1);  // LINKTYPE_ETHERNET
  Put16(idb, 0);
  Put32(idb, 0);                           // no snap length
  Option(idb, 9, std::string(1, '\x09'));  // if_tsresol: nanoseconds
  Put32(idb, 0);
  Block(1, idb);
}

bool PcapNgWriter::IsOpen() const { return m_out.is_open(); }

uint64_t PcapNgWriter::GetRecords() const { return m_records; }

uint64_t PcapNgWriter::Write(uint64_t ns, const offlab::Bytes& frame, const std::string& comment) {
  std::string epb;
  Put32(epb, 0);
  Put32(epb, static_cast<uint32_t>(ns >> 32));
  Put32(epb, static_cast<uint32_t>(ns));
  Put32(epb, static_cast<uint32_t>(frame.size()));
  Put32(epb, static_cast<uint32_t>(frame.size()));
  epb.append(reinterpret_cast<const char*>(frame.data()), frame.size());
  epb.append((4 - frame.size() % 4) % 4, '\0');
  if (!comment.empty()) {
    Option(epb, 1, comment);
    Put32(epb, 0);
  }
  Block(6, epb);
  return m_records++;
}

void PcapNgWriter::Block(uint32_t type, const std::string& body) {
  std::string b;
  const uint32_t len = static_cast<uint32_t>(body.size() + 12);
  Put32(b, type);
  Put32(b, len);
  b += body;
  Put32(b, len);
  m_out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

void PcapNgWriter::Close() {
  if (!m_out.is_open()) {
    return;
  }
  m_out.close();
  if (!m_out || std::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
    std::remove(m_tmp.c_str());
    throw offlab::Error("cannot write " + m_path);
  }
}

}  // namespace ns3
