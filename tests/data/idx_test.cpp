#include "ember/data/idx.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "data/data_test_util.h"
#include "ember/core/error.h"

namespace ember::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

/// Runs read_idx(path) and returns the message of the ember::ValueError it must throw.
std::string value_error_of(const std::string& path) {
  try {
    data::read_idx(path);
  } catch (const ValueError& e) {
    return e.what();
  }
  ADD_FAILURE() << "read_idx('" << path << "') threw no ValueError";
  return "";
}

TEST(IdxTest, ReadsGzippedFixture) {
  Tensor images = data::read_idx(data_fixture_dir() + "/t10k-images-idx3-ubyte.gz");
  ASSERT_EQ(images.dtype(), kUInt8);
  EXPECT_EQ(images.sizes(), IntArrayRef({100, 28, 28}));
  const uint8_t* p = images.data_ptr<uint8_t>();
  int64_t first = 0, all = 0;
  for (int64_t i = 0; i < images.numel(); ++i) (i < 784 ? first : all) += p[i];
  // Sums computed by Python's gzip module from the same file.
  EXPECT_EQ(first, 33456);
  EXPECT_EQ(first + all, 5854180);
  EXPECT_EQ(p[14 * 28 + 14], 110);

  Tensor labels = data::read_idx(data_fixture_dir() + "/t10k-labels-idx1-ubyte.gz");
  ASSERT_EQ(labels.dtype(), kUInt8);
  EXPECT_EQ(labels.sizes(), IntArrayRef({100}));
  EXPECT_EQ(labels.to_vector<uint8_t>().at(0), 9);  // the first test image is an ankle boot
}

TEST(IdxTest, ReadsPlainFileLikeGzipped) {
  DataTempDir dir;
  write_bytes(dir.file("plain-idx1"), idx_header(0x08, {3}) + std::string("\x01\x02\x07", 3));
  Tensor t = data::read_idx(dir.file("plain-idx1"));
  EXPECT_EQ(t.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 7}));
}

TEST(IdxTest, ReadsBigEndianInt32AndFloat32) {
  DataTempDir dir;
  write_bytes(dir.file("ints"), idx_header(0x0C, {2}) + std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8));
  EXPECT_EQ(data::read_idx(dir.file("ints")).to_vector<int32_t>(), (std::vector<int32_t>{258, -2}));
  // 1.5f = 0x3fc00000
  write_bytes(dir.file("floats"), idx_header(0x0D, {1, 1}) + std::string("\x3f\xc0\x00\x00", 4));
  Tensor f = data::read_idx(dir.file("floats"));
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(f.sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(f.to_vector<float>().at(0), 1.5f);
}

TEST(IdxTest, RejectsBadMagicNamingTheFile) {
  DataTempDir dir;
  write_bytes(dir.file("bad-magic"), std::string("\x01\x00\x08\x01\x00\x00\x00\x01\x05", 9));
  EXPECT_THAT(value_error_of(dir.file("bad-magic")),
              AllOf(HasSubstr(dir.file("bad-magic")), HasSubstr("bad magic number")));
}

TEST(IdxTest, RejectsUnsupportedTypeAndBadDimensionCount) {
  DataTempDir dir;
  write_bytes(dir.file("short-type"), idx_header(0x0B, {1}) + std::string(2, '\0'));
  EXPECT_THAT(value_error_of(dir.file("short-type")),
              AllOf(HasSubstr(dir.file("short-type")), HasSubstr("unsupported element type 0x0b")));
  write_bytes(dir.file("zero-dims"), idx_header(0x08, {}));
  EXPECT_THAT(value_error_of(dir.file("zero-dims")),
              AllOf(HasSubstr(dir.file("zero-dims")), HasSubstr("0 dimensions")));
  write_bytes(dir.file("huge"), idx_header(0x08, {0xffffffff, 0xffffffff, 0xffffffff}));
  EXPECT_THAT(value_error_of(dir.file("huge")), HasSubstr("-byte limit"));
}

TEST(IdxTest, RejectsTruncatedFiles) {
  DataTempDir dir;
  write_bytes(dir.file("empty"), "");
  EXPECT_THAT(value_error_of(dir.file("empty")),
              AllOf(HasSubstr(dir.file("empty")), HasSubstr("is truncated: 0 bytes")));
  write_bytes(dir.file("short-header"), idx_header(0x08, {2, 3}).substr(0, 9));
  EXPECT_THAT(value_error_of(dir.file("short-header")),
              AllOf(HasSubstr(dir.file("short-header")), HasSubstr("truncated in its header")));
  write_bytes(dir.file("short-data"), idx_header(0x08, {2, 3}) + std::string(5, '\x01'));
  EXPECT_THAT(value_error_of(dir.file("short-data")),
              AllOf(HasSubstr(dir.file("short-data")),
                    HasSubstr("dimensions [2, 3] need 6 bytes of data, found 5")));
}

TEST(IdxTest, RejectsTrailingBytes) {
  DataTempDir dir;
  write_bytes(dir.file("long"), idx_header(0x08, {2}) + std::string(3, '\x01'));
  EXPECT_THAT(value_error_of(dir.file("long")),
              AllOf(HasSubstr(dir.file("long")), HasSubstr("has bytes after the 2 bytes")));
}

TEST(IdxTest, RejectsTruncatedOrCorruptGzip) {
  DataTempDir dir;
  const std::string gz = read_bytes(data_fixture_dir() + "/t10k-images-idx3-ubyte.gz");
  ASSERT_GT(gz.size(), 1000u);
  write_bytes(dir.file("cut.gz"), gz.substr(0, gz.size() / 2));
  try {
    data::read_idx(dir.file("cut.gz"));
    ADD_FAILURE() << "a gzip stream cut in half was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir.file("cut.gz")));
  }
  std::string corrupt = gz;
  for (size_t i = 100; i < 200; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  write_bytes(dir.file("corrupt.gz"), corrupt);
  try {
    data::read_idx(dir.file("corrupt.gz"));
    ADD_FAILURE() << "a corrupt gzip stream was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(dir.file("corrupt.gz")));
  }
}

TEST(IdxTest, MissingFileIsAnErrorNamingIt) {
  DataTempDir dir;
  try {
    data::read_idx(dir.file("absent.gz"));
    ADD_FAILURE() << "no error for a missing file";
  } catch (const FileNotFoundError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("cannot open '" + dir.file("absent.gz") + "'"),
                                HasSubstr("No such file")));
  }
}

}  // namespace
}  // namespace ember::testing
