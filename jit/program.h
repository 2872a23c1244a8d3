#pragma once
// A traced forward as a program: numbered values (the inputs, the module's parameters and buffers
// by dotted name, constants, and each op's results, every value defined once), the ops in the order
// they ran, and the outputs as a tree of values. Its document form is an io::Value stored in the
// checkpoint's metadata (io/FORMAT.md, "Programs"):
//
//   {"version": 1, "values": 9, "inputs": [0], "state": {"fc.weight": 1, "fc.bias": 2},
//    "constants": {3: <tensor>},
//    "nodes": [{"op": "nn.linear", "args": [0, 1, 2], "outputs": [4]},
//              {"op": "relu", "args": [4], "outputs": [5], "inplace": true}, ...],
//    "outputs": 8,                        (or a tuple, list or dict of value ids, None allowed)
//    "batch": {"input": 0, "size": 6, "follows": true},
//    "types": [["float32", [6, 4]], ...]}      each value's dtype and shape as traced (for exporters)
//
// "batch" (absent when the inputs share no first dim): the traced batch size, and whether the
// program follows another one. A node's "sizes" lists the int arguments computed from the batch B
// of the input named there at run time, [arg, element (-1: the argument itself), a, c] for a B + c
// (view(B * T, C), found by tracing again at B + 1 and B + 2); a program that does not follow
// refuses another batch with an error naming both sizes.
//
// An op's arguments follow its schema (jit/op_registry.h): a tensor is a value id (None for an
// undefined one), a tensor list a list of ids, a dtype or device its name, other constants as
// themselves. from_value validates everything before anything runs: unknown ops, wrong arity or
// argument types, ids out of range, used before their definition (so no cycles) or defined twice.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tracing.h"
#include "ember/io/value.h"
#include "ember/jit/op_registry.h"

namespace ember::jit {

/// The document version this build writes; it reads this one and every earlier one.
inline constexpr int64_t kProgramVersion = 1;

class Program {
 public:
  /// A validated program from its document; `where` (a file's path) goes into every error, each a
  /// ValueError (a malformed document) or a KeyError (an op this build does not have).
  static Program from_value(const io::Value& doc, const std::string& where);
  io::Value to_value() const;

  /// Runs the ops on `inputs` (one tensor per traced input) and `state_values` (the tensor of each
  /// entry of state(), in its order); the outputs in the traced structure. Recorded by autograd as
  /// eager ops.
  io::Value run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& state_values) const;

  size_t num_inputs() const { return inputs_.size(); }
  const std::vector<std::pair<std::string, int64_t>>& state() const { return state_; }
  /// One line per op, as "%5 = relu(%4)": for printing and for errors.
  std::string str() const;

 private:
  friend class ProgramBuilder;
  struct Read {  // where a value goes into a step's arguments
    size_t arg;
    int64_t element;  // -1: the argument itself; else an element of a tensor list
    int64_t value;
  };
  struct Size {  // an int argument a B + c
    size_t arg;
    int64_t element;
    int64_t a, c;
  };
  struct Step {
    const OpSchema* op = nullptr;
    bool inplace = false;
    std::vector<tracing::Arg> args;  // constants in place, tensors filled from `reads`
    std::vector<Read> reads;
    std::vector<std::vector<int64_t>> writes;  // per result: its value id(s); empty for a bool
    std::vector<Size> sizes;
    io::Value doc;  // the node as read (args kept for to_value)
  };
  int64_t num_values_ = 0;
  std::vector<int64_t> inputs_;
  std::vector<std::pair<std::string, int64_t>> state_;
  std::vector<std::pair<int64_t, Tensor>> constants_;
  std::vector<Step> steps_;
  io::Value outputs_;
  std::optional<std::pair<size_t, int64_t>> batch_;  // (input, traced size)
  bool follows_batch_ = false;
  io::Value batch_doc_;
  io::Value types_;  // per value [dtype, shape] as traced (None when the document has none)
};

namespace detail {
/// A constant argument in its document form: a dtype or device by name, an int list as a list.
io::Value constant_document(const tracing::Arg& a);
}  // namespace detail

/// Builds a program's document while a forward is traced (jit/tracer.cpp), then validates it.
class ProgramBuilder {
 public:
  /// A new value id for `t`, whose dtype and shape the document records ("types").
  int64_t new_value(const Tensor& t);
  void add_input(int64_t id) { inputs_.push_back(id); }
  void add_state(std::string name, int64_t id) { state_.emplace_back(std::move(name), id); }
  void add_constant(int64_t id, Tensor t) { constants_.emplace_back(id, std::move(t)); }
  void add_node(io::Value node) { nodes_.push_back(std::move(node)); }
  /// The document with `outputs` (a tree of value ids); Program::from_value validates it.
  io::Value document(io::Value outputs) const;

 private:
  int64_t num_values_ = 0;
  std::vector<int64_t> inputs_;
  std::vector<std::pair<std::string, int64_t>> state_;
  std::vector<std::pair<int64_t, Tensor>> constants_;
  std::vector<io::Value> nodes_;
  std::vector<io::Value> types_;
};

}  // namespace ember::jit
