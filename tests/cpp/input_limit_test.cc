// SPDX-License-Identifier: Apache-2.0
//
// The input-size limits and their environment variables (docs/security.md):
// a decimal count of bytes with an optional k/M/G (powers of 1024) suffix,
// anything else refused with the variable named; and the special files
// ReadInputFile refuses by kind. Expected values are the decimal arithmetic
// done by hand and the kinds stat(2) names.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "offlab/net/error.h"
#include "offlab/net/input_file.h"

namespace offlab {
namespace {

// Sets one variable for the test's scope and removes it afterwards, also when
// the test fails.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST(InputLimit, DefaultsAre512MiBForCapturesAnd4MiBForYaml) {
  unsetenv("OFFLAB_MAX_INPUT_BYTES");
  unsetenv("OFFLAB_MAX_YAML_BYTES");
  EXPECT_EQ(InputLimit(InputKind::kCapture), 536870912u);
  EXPECT_EQ(InputLimit(InputKind::kYaml), 4194304u);
}

TEST(InputLimit, EveryDecimalDigitCounts) {
  // Each digit 0-9 in its place: a digit read as another shifts the value.
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "1234567890");
    EXPECT_EQ(InputLimit(InputKind::kYaml), 1234567890u);
  }
  {
    ScopedEnv e("OFFLAB_MAX_INPUT_BYTES", "9");
    EXPECT_EQ(InputLimit(InputKind::kCapture), 9u);
  }
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "100");
    EXPECT_EQ(InputLimit(InputKind::kYaml), 100u);
  }
}

TEST(InputLimit, SuffixesArePowersOf1024EitherCase) {
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "3k");
    EXPECT_EQ(InputLimit(InputKind::kYaml), 3072u);
  }
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "5M");
    EXPECT_EQ(InputLimit(InputKind::kYaml), 5242880u);
  }
  {
    ScopedEnv e("OFFLAB_MAX_INPUT_BYTES", "2g");
    EXPECT_EQ(InputLimit(InputKind::kCapture), 2147483648u);
  }
}

TEST(InputLimit, MalformedValuesAreRefusedNamingTheVariable) {
  for (const char* bad : {"0", "0k", "12x", "-5", "1.5M", "k", "1234567890123", " 7"}) {
    ScopedEnv e("OFFLAB_MAX_INPUT_BYTES", bad);
    try {
      InputLimit(InputKind::kCapture);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find("OFFLAB_MAX_INPUT_BYTES='"), std::string::npos)
          << err.what();
    }
  }
}

std::string ReadError(const std::string& path) {
  try {
    ReadInputFile(path, "f: ", InputKind::kYaml);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, SpecialFilesAreRefusedByKindBeforeAnyRead) {
  // The kinds stat(2) tells apart (S_ISDIR, S_ISFIFO, S_ISCHR).
  EXPECT_EQ(ReadError("/dev/null"), "f: is a character device, not a regular file");
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(ReadError(dir), "f: is a directory, not a regular file");
  const std::string fifo = dir + "offlab-input-file-test.fifo";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(ReadError(fifo), "f: is a FIFO, not a regular file");  // and does not block
  unlink(fifo.c_str());
}

TEST(InputFile, AReadThatFailsIsReportedNotRetried) {
  // /proc/self/mem is a regular file (proc_mem_operations) whose read at
  // offset 0 fails with EIO: page 0 is never mapped (mmap_min_addr). Only
  // EINTR is worth another read(2); any other error would fail forever.
  EXPECT_EQ(ReadError("/proc/self/mem"), "f: read failed: Input/output error");
}

TEST(InputFile, AFileOverTheLimitIsRefusedBeforeReading) {
  // 10 bytes against a limit of 9 (and exactly at a limit of 10: accepted).
  const std::string path = ::testing::TempDir() + "offlab-input-file-test.10";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("0123456789", f);
    std::fclose(f);
  }
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "9");
    EXPECT_EQ(ReadError(path),
              "f: 10 bytes is over the limit of 9 (raise it with OFFLAB_MAX_YAML_BYTES)");
  }
  {
    ScopedEnv e("OFFLAB_MAX_YAML_BYTES", "10");
    EXPECT_EQ(ReadError(path), "");
  }
  unlink(path.c_str());
}

TEST(InputFile, ABlockDeviceIsRefusedByKind) {
  // S_ISBLK; a loop device exists on most Linux hosts, but only root may open it.
  struct stat st {};
  const char* dev = "/dev/loop0";
  if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode) || access(dev, R_OK) != 0) {
    GTEST_SKIP() << dev << " is not a readable block device here";
  }
  EXPECT_EQ(ReadError(dev), "f: is a block device, not a regular file");
}

}  // namespace
}  // namespace offlab
