#pragma once
// A module whose forward is a program (jit/program.h): the one traced in training mode runs while
// the module trains, the one traced in eval mode otherwise, so dropout and batch norm follow
// train()/eval() as in the module traced. Its parameters and buffers sit under their original
// dotted names (a child module per prefix), so optimizers, state dicts, checkpoints and
// load_state_dict see the names the original module had.
//
//   auto m = jit::load("model.ember");           // no class needed
//   optim::AdamW opt(m->named_parameters(), {.lr = 1e-3});
//   Tensor loss = nn::functional::cross_entropy(m->forward(x), y);
#include <memory>
#include <string>
#include <vector>

#include "ember/io/value.h"
#include "ember/jit/program.h"
#include "ember/nn/module.h"

namespace ember::jit {

class TracedModule : public nn::Module {
 public:
  TracedModule(Program train, Program eval);

  /// Runs the current mode's program; the outputs in the traced structure (a tensor, or tuples,
  /// lists and dicts of them).
  io::Value run(const std::vector<Tensor>& inputs);
  /// run({input}) as a tensor, for a program of one input and one tensor result; a TypeError otherwise.
  Tensor forward(const Tensor& input) override;

  const Program& program(bool training) const { return training ? train_ : eval_; }
  /// Registers the entries of `state` (dotted name -> tensor leaf, as io::to_value gives them,
  /// non-persistent buffers included) on this module and the children it creates for the prefixes;
  /// a tensor under several names is registered under each (the tie is kept).
  void register_state(const io::Value& state);
  /// Names the children register_state creates after the modules traced: {"conv": "Conv2d", ...}
  /// (dotted paths), so printing the module shows what it was. Call before register_state.
  void set_module_types(const io::Value& types);
  /// The module types by dotted path, as set_module_types was given them (for the file).
  const io::Value& module_types() const { return module_types_; }

 private:
  // The tensors of a program's state entries, found by their dotted paths (split once).
  std::vector<Tensor> state_of(const Program& program, std::vector<std::vector<std::string>>& paths) const;

  Program train_;
  Program eval_;
  io::Value module_types_ = io::Value::dict();
  std::vector<std::vector<std::string>> train_paths_, eval_paths_;  // filled on first run
};

}  // namespace ember::jit
