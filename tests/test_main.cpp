// Runs every test; tests named *_CUDA are filtered out when no CUDA device is present, unless
// EMBER_REQUIRE_CUDA=1: then they run and fail, each with its "no CUDA device: ..." error (on a GPU
// machine's CI, a GPU suite skipped for want of a driver would otherwise pass unnoticed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ember/core/backend.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* require = std::getenv("EMBER_REQUIRE_CUDA");
  const bool required = require != nullptr && std::string(require) == "1";
  if (!required && !ember::cuda::is_available()) {
    std::string filter = testing::GTEST_FLAG(filter);
    std::string negative = "*_CUDA";
    filter += filter.find('-') == std::string::npos ? "-" + negative : ":" + negative;
    testing::GTEST_FLAG(filter) = filter;
  }
  return RUN_ALL_TESTS();
}
