// SPDX-License-Identifier: Apache-2.0
//
// ReadInputFile / InputLimit (models/src/net/input_file.cc, docs/security.md)
// beyond the checks made before the read:
//  - a file whose size stat(2) under-reports is still held to the limit
//    while it is read: procfs files report st_size 0 (proc(5): "most of the
//    files in /proc are of size 0") yet read back their text;
//  - an empty limit variable counts as unset (the default applies);
//  - a path that does not open is reported with strerror's text.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "offlab/net/error.h"
#include "offlab/net/input_file.h"

namespace offlab {
namespace {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

std::string ReadError(const std::string& path, InputKind kind = InputKind::kYaml) {
  try {
    ReadInputFile(path, "f: ", kind);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputFileEdges, AFileThatReadsLongerThanItsSizeIsCutAtTheLimit) {
  const char* path = "/proc/self/status";
  struct stat st {};
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
    GTEST_SKIP() << path << " is not a zero-sized regular procfs file here";
  }
  {
    // Its text ("Name:\t...") is far longer than 9 bytes.
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "9");
    EXPECT_EQ(ReadError(path),
              "f: over the limit of 9 bytes (raise it with OFFLAB_MAX_YAML_BYTES)");
  }
  {
    ScopedEnv e("OFFLAB_MAX_INPUT_BYTES", "9");
    EXPECT_EQ(ReadError(path, InputKind::kCapture),
              "f: over the limit of 9 bytes (raise it with OFFLAB_MAX_INPUT_BYTES)");
  }
  // Under the default limit it is read whole.
  unsetenv("OFFLAB_MAX_YAML_BYTES");
  const std::string text = ReadInputFile(path, "f: ", InputKind::kYaml);
  EXPECT_EQ(text.rfind("Name:", 0), 0u);
}

TEST(InputFileEdges, AnEmptyVariableMeansTheDefault) {
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "");
    EXPECT_EQ(InputLimit(InputKind::kYaml), 4194304u);
  }
  {
    ScopedEnv e("OFFLAB_MAX_INPUT_BYTES", "");
    EXPECT_EQ(InputLimit(InputKind::kCapture), 536870912u);
  }
}

TEST(InputFileEdges, APathThatDoesNotOpenIsReported) {
  const std::string missing = ::testing::TempDir() + "offlab-input-file-edges-missing";
  EXPECT_EQ(ReadError(missing), "f: No such file or directory");
}

}  // namespace
}  // namespace offlab
