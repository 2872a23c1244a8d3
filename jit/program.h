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
//    "dims": [{"size": 6, "at": [[0, 0]]}, {"size": 5, "at": [[0, 1], [1, 1]]}],
//    "types": [["float32", [6, 4]], ...]}      each value's dtype and shape as traced (for exporters)
//
// "dims" are the sizes the program follows: each is read at run time from the input dims named in
// "at" (which must agree), and was `size` when traced (the batch, a sequence length). Every other
// dim of an input must be as traced: the program refuses another shape, naming both. A node's
// "sizes" lists its int arguments computed from the dims, [arg, element (-1: the argument itself),
// c, [[k, d...], ...]] for c + the sum of each k times the product of dims d (view(B * T, C): c = 0,
// [[1, 0, 1]]), found by tracing again at other sizes (jit/tracer.cpp). Version 1 documents hold
// "batch": {"input", "size", "follows"} instead, and size entries [arg, element, a, c] for a B + c.
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
inline constexpr int64_t kProgramVersion = 2;

namespace detail {
/// An int argument computed from the dims a program follows: c + the sum of each term's coef times
/// the product of the dims it names.
struct SizeRule {
  struct Term {
    int64_t coef;
    std::vector<size_t> dims;
  };
  size_t arg;
  int64_t element;  // -1: the argument itself; else an element of an int list
  int64_t c;
  std::vector<Term> terms;
};
}  // namespace detail

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
  using Size = detail::SizeRule;
  struct InputDim {
    size_t input, dim;
  };
  struct Dim {  // a size the program follows
    int64_t size;
    std::vector<InputDim> at;
  };
  struct Fixed {  // an input dim that must be as traced
    size_t input, dim;
    int64_t size;
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
  std::vector<Dim> dims_;
  std::vector<Fixed> fixed_;
  std::vector<int64_t> ranks_;  // per input, as traced (-1: unknown)
  io::Value types_;  // per value [dtype, shape] as traced (None when the document has none)

  std::vector<int64_t> dim_values(const std::vector<Tensor>& inputs) const;
};

namespace detail {
/// A constant argument in its document form: a dtype or device by name, an int list as a list.
io::Value constant_document(const tracing::Arg& a);
/// A size rule in its document form, [arg, element, c, [[coef, dim...], ...]].
io::Value size_document(const SizeRule& size);
/// The value of `size` at `dims`; a ValueError if it overflows.
int64_t evaluate(const SizeRule& size, const std::vector<int64_t>& dims);
/// An entry of "dims": {"size": size, "at": [[input, dim], ...]}.
io::Value dim_document(int64_t size, const std::vector<std::pair<size_t, size_t>>& at);
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
