/* SPDX-License-Identifier: Apache-2.0 */

#include "offlab/net/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "offlab/net/error.h"

namespace offlab {

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

const char* KindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

const char* EnvName(InputKind kind) {
  return kind == InputKind::kCapture ? "OFFLAB_MAX_INPUT_BYTES" : "OFFLAB_MAX_YAML_BYTES";
}

}  // namespace

uint64_t InputLimit(InputKind kind) {
  const uint64_t fallback = kind == InputKind::kCapture ? uint64_t{512} << 20 : uint64_t{4} << 20;
  const char* env = std::getenv(EnvName(kind));
  if (env == nullptr || *env == '\0') return fallback;
  std::string text(env);
  uint64_t scale = 1;
  const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  if (last == 'k' || last == 'm' || last == 'g') {
    scale = last == 'k' ? 1ULL << 10 : last == 'm' ? 1ULL << 20 : 1ULL << 30;
    text.pop_back();
  }
  uint64_t value = 0;
  bool ok = !text.empty() && text.size() <= 12;
  for (const char c : text) {
    ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok) value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok || value == 0) {
    throw Error(std::string(EnvName(kind)) + "='" + env +
                "': not a positive whole number (k, M, G allowed)");
  }
  return value * scale;
}

std::string ReadInputFile(const std::string& path, const std::string& prefix, InputKind kind) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat on the same descriptor
  // then refuses it (no window between the check and the read).
  Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) {
    throw Error(prefix + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw Error(prefix + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    throw Error(prefix + "is " + KindName(st.st_mode) + ", not a regular file");
  }
  const uint64_t cap = InputLimit(kind);
  if (static_cast<uint64_t>(st.st_size) > cap) {
    throw Error(prefix + std::to_string(st.st_size) + " bytes is over the limit of " +
                std::to_string(cap) + " (raise it with " + EnvName(kind) + ")");
  }
  std::string data;
  data.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(prefix + "read failed: " + std::strerror(errno));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > cap) {  // the file grew while being read
      throw Error(prefix + "over the limit of " + std::to_string(cap) + " bytes (raise it with " +
                  EnvName(kind) + ")");
    }
  }
  return data;
}

}  // namespace offlab
