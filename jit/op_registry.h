#pragma once
// The ops a program may name, with their schemas and how to run them on arguments read back from
// a file: every op of the table (and the in-place method of each that has one; generated,
// jit/table_ops.cpp), the Tensor methods that write in place (jit/tensor_method_ops.cpp) and the nn
// functions that own a backward (jit/nn_ops.cpp), and the factories (jit/factory_ops.cpp). An argument's type is a
// table type ("Tensor", "int[]?", "ScalarType", ...: ops/ops.toml's header); a result's "Tensor", "Tensor[]" or "bool".
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/tracing.h"

namespace ember::jit {

struct OpSchema {
  using Args = std::vector<tracing::Arg>;
  std::string name;                                       // "add.Tensor", "Tensor.copy_", "nn.linear"
  std::vector<std::pair<std::string, std::string>> args;  // (name, table type)
  std::vector<std::string> returns;                       // "Tensor", "Tensor[]", "bool"
  std::function<std::vector<tracing::Arg>(const Args&)> run;
  std::function<void(const Args&)> run_inplace;  // the in-place method, if the op has one
};

/// The op a program names `name`, or nullptr.
const OpSchema* find_op(std::string_view name);
/// Every op's name, sorted (for tests and error messages).
std::vector<std::string> op_names();

namespace detail {
void register_table_ops(const std::function<void(OpSchema)>& add);
void register_tensor_method_ops(const std::function<void(OpSchema)>& add);
void register_nn_ops(const std::function<void(OpSchema)>& add);
void register_factory_ops(const std::function<void(OpSchema)>& add);
}  // namespace detail

}  // namespace ember::jit
