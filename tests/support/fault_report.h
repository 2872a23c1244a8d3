#pragma once
// The fault-injection suites say how many fault points they covered: on stdout, and appended to
// $EMBER_FAULT_REPORT when it is set, so `make test` can print the totals that ctest (one process
// per test, output kept only on failure) would hide.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace ember::testing {

inline void report_fault_points(const std::string& what, int64_t calls, int64_t points) {
  const std::string line = "fault injection: " + what + ": " + std::to_string(calls) + " calls, " +
                           std::to_string(points) + " fault points";
  std::cout << line << "\n";
  ::testing::Test::RecordProperty("fault_points", static_cast<int>(points));
  if (const char* file = std::getenv("EMBER_FAULT_REPORT")) std::ofstream(file, std::ios::app) << line << "\n";
}

}  // namespace ember::testing
