#include "ember/jit/op_registry.h"

#include <algorithm>
#include <map>

#include "ember/core/error.h"

namespace ember::jit {

namespace {

const std::map<std::string, OpSchema, std::less<>>& registry() {
  static const auto ops = [] {
    std::map<std::string, OpSchema, std::less<>> m;
    const auto add = [&m](OpSchema s) {
      const std::string name = s.name;
      EMBER_CHECK(m.emplace(name, std::move(s)).second, "jit: op '", name, "' registered twice");
    };
    detail::register_table_ops(add);
    detail::register_tensor_method_ops(add);
    detail::register_nn_ops(add);
    detail::register_factory_ops(add);
    return m;
  }();
  return ops;
}

}  // namespace

const OpSchema* find_op(std::string_view name) {
  const auto& ops = registry();
  auto it = ops.find(name);
  return it == ops.end() ? nullptr : &it->second;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto& [name, schema] : registry()) names.push_back(name);
  return names;
}

}  // namespace ember::jit
