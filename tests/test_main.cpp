// Runs every test; tests named *_CUDA are filtered out when no CUDA device is present.
#include <gtest/gtest.h>

#include <string>

#include "ember/core/error.h"
#include "ember/core/storage.h"

namespace {
bool cuda_available() {
  try {
    ember::Storage probe(1, ember::Device::cuda());
    return true;
  } catch (const ember::Error&) {
    return false;
  }
}
}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (!cuda_available()) {
    std::string filter = testing::GTEST_FLAG(filter);
    std::string negative = "*_CUDA";
    filter += filter.find('-') == std::string::npos ? "-" + negative : ":" + negative;
    testing::GTEST_FLAG(filter) = filter;
  }
  return RUN_ALL_TESTS();
}
