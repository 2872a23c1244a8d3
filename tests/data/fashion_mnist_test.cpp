#include "ember/data/fashion_mnist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "data/data_test_util.h"
#include "ember/core/error.h"

namespace ember::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(FashionMNISTTest, ReadsTestSplitFromFixture) {
  data::FashionMNIST test(data_fixture_dir(), /*train=*/false);
  EXPECT_EQ(test.size(), 100);
  EXPECT_EQ(test.images.dtype(), kUInt8);
  EXPECT_EQ(test.images.sizes(), IntArrayRef({100, 28, 28}));
  ASSERT_EQ(test.labels.dtype(), kInt64);
  EXPECT_EQ(test.labels.sizes(), IntArrayRef({100}));
  const std::vector<int64_t> labels = test.labels.to_vector<int64_t>();
  // The first labels of the t10k split (Python's gzip module on the Debian file).
  EXPECT_EQ(std::vector<int64_t>(labels.begin(), labels.begin() + 12),
            (std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7, 4, 5}));
  int64_t sum = 0;
  for (int64_t l : labels) sum += l;
  EXPECT_EQ(sum, 428);
  EXPECT_STREQ(data::FashionMNIST::kClasses[labels[0]], "Ankle boot");
}

TEST(FashionMNISTTest, MissingFilesNameThePathAndThePackage) {
  DataTempDir dir;
  try {
    data::FashionMNIST train(dir.str(), /*train=*/true);
    ADD_FAILURE() << "no error for an empty root";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(dir.file("train-images-idx3-ubyte.gz")),
                                HasSubstr("dataset-fashion-mnist")));
  }
}

TEST(FashionMNISTTest, ReadsUncompressedFilesAndChecksCounts) {
  DataTempDir dir;
  write_bytes(dir.file("t10k-images-idx3-ubyte"), idx_header(0x08, {2, 28, 28}) + std::string(2 * 784, '\x03'));
  write_bytes(dir.file("t10k-labels-idx1-ubyte"), idx_header(0x08, {2}) + std::string("\x01\x09", 2));
  data::FashionMNIST ok(dir.str(), false);
  EXPECT_EQ(ok.labels.to_vector<int64_t>(), (std::vector<int64_t>{1, 9}));

  write_bytes(dir.file("t10k-labels-idx1-ubyte"), idx_header(0x08, {3}) + std::string("\x01\x09\x02", 3));
  try {
    data::FashionMNIST bad(dir.str(), false);
    ADD_FAILURE() << "no error for 3 labels and 2 images";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has 3 labels but '" + dir.file("t10k-images-idx3-ubyte") + "' has 2 images"));
  }

  write_bytes(dir.file("t10k-labels-idx1-ubyte"), idx_header(0x08, {2}) + std::string("\x01\x0a", 2));
  try {
    data::FashionMNIST bad(dir.str(), false);
    ADD_FAILURE() << "no error for label 10";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("label 10 at index 1 is not in [0, 10)"));
  }

  write_bytes(dir.file("t10k-images-idx3-ubyte"), idx_header(0x08, {2, 28, 27}) + std::string(2 * 28 * 27, '\x03'));
  try {
    data::FashionMNIST bad(dir.str(), false);
    ADD_FAILURE() << "no error for 28x27 images";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds uint8 [2, 28, 27], expected uint8 [N, 28, 28]"));
  }
}

}  // namespace
}  // namespace ember::testing
