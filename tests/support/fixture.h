#pragma once
// Reference data written by PyTorch (tests/fixtures/make_*.py, run once with torch installed and
// committed) and read by the tests without PyTorch. A fixture file is JSON:
//   {"cases": {"<case>": {"tensors": {"<name>": {"dtype": "float32", "shape": [2, 3],
//                                               "data": [...]}},
//                         "scalars": {"<name>": 0.5}, "strings": {"<name>": "..."}}}}
// Floats are written with 17 significant digits, so float64 values come back bit for bit.
#include <map>
#include <string>

#include "ember/core/tensor.h"

namespace ember::testing {

struct FixtureCase {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, double> scalars;
  std::map<std::string, std::string> strings;
  const Tensor& tensor(const std::string& name) const;
  double scalar(const std::string& name) const;
};

/// Reads tests/fixtures/<file> (found through the EMBER_FIXTURES_DIR compile definition).
std::map<std::string, FixtureCase> load_fixture(const std::string& file);

}  // namespace ember::testing
