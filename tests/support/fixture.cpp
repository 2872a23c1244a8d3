#include "support/fixture.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "ember/core/factory.h"

namespace ember::testing {

const Tensor& FixtureCase::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  EMBER_CHECK_KEY(it != tensors.end(), "fixture has no tensor '", name, "'");
  return it->second;
}

double FixtureCase::scalar(const std::string& name) const {
  auto it = scalars.find(name);
  EMBER_CHECK_KEY(it != scalars.end(), "fixture has no scalar '", name, "'");
  return it->second;
}

std::map<std::string, FixtureCase> load_fixture(const std::string& file) {
  std::string path = std::string(EMBER_FIXTURES_DIR) + "/" + file;
  std::ifstream in(path);
  EMBER_CHECK(in.good(), "fixture file ", path, " not found");
  nlohmann::json doc = nlohmann::json::parse(in);
  std::map<std::string, FixtureCase> out;
  for (auto& [case_name, c] : doc.at("cases").items()) {
    FixtureCase fc;
    if (c.contains("tensors")) {
      for (auto& [name, t] : c.at("tensors").items()) {
        std::vector<int64_t> shape = t.at("shape").get<std::vector<int64_t>>();
        auto dtype = dtype_from_name(t.at("dtype").get<std::string>());
        EMBER_CHECK(dtype.has_value(), "fixture ", file, ": unknown dtype for ", name);
        std::vector<double> data;
        for (const auto& v : t.at("data")) {
          if (v.is_string()) {  // "nan", "inf", "-inf"
            std::string s = v.get<std::string>();
            data.push_back(s == "nan" ? NAN : (s == "inf" ? INFINITY : -INFINITY));
          } else {
            data.push_back(v.get<double>());
          }
        }
        fc.tensors[name] = tensor(data, shape).to(*dtype);
      }
    }
    if (c.contains("scalars"))
      for (auto& [name, v] : c.at("scalars").items()) fc.scalars[name] = v.get<double>();
    if (c.contains("strings"))
      for (auto& [name, v] : c.at("strings").items()) fc.strings[name] = v.get<std::string>();
    out[case_name] = std::move(fc);
  }
  return out;
}

}  // namespace ember::testing
