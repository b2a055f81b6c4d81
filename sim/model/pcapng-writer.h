// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * pcapng output with one comment per frame (offlab's trace format: the
 * comment `offlab {json}` carries the offload metadata), written to a
 * temporary file and renamed on Close() so no half-written trace appears.
 */
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include "offlab/net/bytes.h"

namespace ns3 {

class PcapNgWriter {
 public:
  PcapNgWriter() = default;
  ~PcapNgWriter();
  PcapNgWriter(const PcapNgWriter&) = delete;
  PcapNgWriter& operator=(const PcapNgWriter&) = delete;

  /** Throws offlab::Error if the file cannot be created. */
  void Open(const std::string& path);
  bool IsOpen() const;
  /** Timestamps in nanoseconds (if_tsresol = 9). Returns the record's 0-based number. */
  uint64_t Write(uint64_t ns, const offlab::Bytes& frame, const std::string& comment);
  uint64_t GetRecords() const;
  /** Publishes the file under its name; a writer never closed leaves nothing. */
  void Close();

 private:
  void Block(uint32_t type, const std::string& body);

  std::ofstream m_out;
  std::string m_path;
  std::string m_tmp;
  uint64_t m_records = 0;
};

}  // namespace ns3
