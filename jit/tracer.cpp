// jit::trace (jit/trace.h): the recorder that turns the ops a forward runs into a program.
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/generator.h"
#include "ember/core/warning.h"
#include "ember/io/module_io.h"
#include "ember/jit/trace.h"
#include "ember/ops/ops.h"

namespace ember::jit {

namespace {

class Tracer final : public tracing::Recorder {
 public:
  Tracer(const io::Value& state, const std::vector<Tensor>& inputs, bool quiet) : quiet_(quiet) {
    for (const Tensor& t : inputs) b_.add_input(bind(t));
    for (size_t i = 0; i < state.keys().size(); ++i) {
      const Tensor& t = state.items()[i].as_tensor();
      if (ids_.contains(t.impl_ptr().get())) continue;  // a tie (or an input): named once
      b_.add_state(state.keys()[i].as_string(), bind(t));
    }
  }

  void record(std::string_view op, bool inplace, std::vector<tracing::Arg> args,
              std::vector<tracing::Arg> outputs) override {
    tracing::Paused paused;  // copying a constant runs ops of its own
    const OpSchema* schema = find_op(op);
    EMBER_CHECK(schema != nullptr, "jit.trace: op '", op, "' was recorded but has no schema (jit/op_registry.h)");
    EMBER_CHECK(args.size() == schema->args.size(), "jit.trace: ", op, " recorded ", args.size(),
                " arguments, its schema has ", schema->args.size());
    std::vector<io::Value> arg_docs;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& type = schema->args[i].second;
      const std::string& name = schema->args[i].first;
      if (type == "Tensor" || type == "Tensor?") {
        const Tensor* t = std::get_if<Tensor>(&args[i]);
        arg_docs.push_back(t != nullptr && t->defined() ? io::Value(id_of(*t, op, name)) : io::Value());
      } else if (type == "Tensor[]") {
        std::vector<io::Value> ids;
        for (const Tensor& t : std::get<std::vector<Tensor>>(args[i]))
          ids.push_back(t.defined() ? io::Value(id_of(t, op, name)) : io::Value());
        arg_docs.push_back(io::Value::list(std::move(ids)));
      } else {
        arg_docs.push_back(detail::constant_document(args[i]));
      }
    }
    std::vector<io::Value> out_docs;
    for (size_t i = 0; i < outputs.size() && i < schema->returns.size(); ++i) {
      const std::string& kind = schema->returns[i];
      if (kind == "Tensor") {
        const Tensor* t = std::get_if<Tensor>(&outputs[i]);
        out_docs.push_back(t != nullptr && t->defined() ? io::Value(bind(*t)) : io::Value());
      } else if (kind == "Tensor[]") {
        std::vector<io::Value> ids;
        for (const Tensor& t : std::get<std::vector<Tensor>>(outputs[i])) ids.push_back(bind(t));
        out_docs.push_back(io::Value::list(std::move(ids)));
      } else {
        note_data_dependence(std::string(op) + " returned a bool");
        out_docs.push_back(io::Value());
      }
    }
    io::Value node = io::Value::dict({{"op", std::string(op)},
                                      {"args", io::Value::list(std::move(arg_docs))},
                                      {"outputs", io::Value::list(std::move(out_docs))}});
    if (inplace) node.set("inplace", true);
    b_.add_node(std::move(node));
  }

  void note_data_dependence(std::string_view what) override {
    // NB: a warning, as PyTorch's TracerWarning: Python's warning machinery names the line of the
    // forward that asked, and a value that never changes (a shape check) is harmless.
    if (quiet_ || !noted_.insert(std::string(what)).second) return;
    warn("jit.trace: " + std::string(what) +
         ": a tensor's value became a host value here, and the program keeps what it was during the trace (a "
         "branch or a number taken from it will not follow other inputs)");
  }

  // The forward's outputs with each tensor replaced by its value id.
  io::Value output_ids(const io::Value& out) {
    tracing::Paused paused;
    switch (out.type()) {
      case io::Value::Type::None:
        return io::Value();
      case io::Value::Type::Tensor:
        return io::Value(id_of(out.as_tensor(), "the forward", "its result"));
      case io::Value::Type::List:
      case io::Value::Type::Tuple: {
        std::vector<io::Value> items;
        for (const io::Value& e : out.items()) items.push_back(output_ids(e));
        return out.is_list() ? io::Value::list(std::move(items)) : io::Value::tuple(std::move(items));
      }
      case io::Value::Type::Dict: {
        std::vector<io::Value::Item> items;
        for (size_t i = 0; i < out.keys().size(); ++i) items.emplace_back(out.keys()[i], output_ids(out.items()[i]));
        return io::Value::dict(std::move(items));
      }
      default:
        throw TypeError(std::string("jit.trace: the forward returned a ") + out.type_name() +
                        " (a program returns tensors, in tuples, lists and dicts, and None)");
    }
  }

  io::Value finish(const io::Value& outputs) { return b_.document(output_ids(outputs)); }

 private:
  int64_t bind(const Tensor& t) {
    const int64_t id = b_.new_value(t);
    ids_[t.impl_ptr().get()] = id;
    kept_.push_back(t);  // NB: held, so that no later tensor reuses the address
    return id;
  }

  int64_t id_of(const Tensor& t, std::string_view op, const std::string& arg) {
    auto it = ids_.find(t.impl_ptr().get());
    if (it != ids_.end()) return it->second;
    if (t.requires_grad()) {
      std::ostringstream os;
      os << "jit.trace: argument '" << arg << "' of " << op << " (" << describe(t) << ") ";
      if (t.grad_fn() != nullptr)
        os << "was computed where the trace cannot follow: it has a gradient history that no op the program "
              "can hold made (a function outside Ember's op table, Tensor methods and nn functions)";
      else
        os << "requires grad but is neither an input nor a parameter or buffer registered in the module: "
              "register it (register_parameter, or an nn.Parameter attribute) so that it is saved and trained";
      throw ValueError(os.str());
    }
    const int64_t id = b_.new_value(t);
    Tensor copy;
    {
      autograd::NoGradGuard no_grad;
      copy = clone(t.detach());
    }
    b_.add_constant(id, copy);
    ids_[t.impl_ptr().get()] = id;
    kept_.push_back(t);
    return id;
  }

  ProgramBuilder b_;
  std::unordered_map<const TensorImpl*, int64_t> ids_;
  std::vector<Tensor> kept_;
  std::set<std::string> noted_;
  bool quiet_;
};

io::Value trace_once(const io::Value& state, const std::vector<Tensor>& inputs, const Forward& forward,
                     bool quiet = false) {
  Tracer tracer(state, inputs, quiet);
  io::Value out;
  {
    tracing::Scope scope(tracer);
    out = forward(inputs);
  }
  return tracer.finish(out);
}

// The run in the mode the module is not in leaves its buffers and the generator as it found them.
class Restore {
 public:
  explicit Restore(nn::Module& module) : generator_(default_generator().get_state()) {
    autograd::NoGradGuard no_grad;
    for (auto& [name, t] : module.named_buffers()) saved_.emplace_back(t, clone(t));
  }
  ~Restore() {
    tracing::Paused paused;
    autograd::NoGradGuard no_grad;
    for (auto& [t, copy] : saved_) t.copy_(copy);
    default_generator().set_state(generator_);
  }

 private:
  Generator::State generator_;
  std::vector<std::pair<Tensor, Tensor>> saved_;
};

// The batch size the inputs share along their first dim, when every input has one.
std::optional<int64_t> common_batch(const std::vector<Tensor>& inputs) {
  std::optional<int64_t> batch;
  for (const Tensor& t : inputs) {
    if (t.dim() == 0 || (batch && *batch != t.size(0)) || t.size(0) == 0) return std::nullopt;
    batch = t.size(0);
  }
  return batch;
}

// The inputs at batch n: their rows repeated in turn.
std::vector<Tensor> at_batch(const std::vector<Tensor>& inputs, int64_t n) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i % t.size(0);
    out.push_back(index_select(t, 0, tensor(rows).to(t.device())));
  }
  return out;
}

bool same_shapes(const io::Value& a, const io::Value& b) {
  if (a.keys().size() != b.keys().size()) return false;
  for (size_t i = 0; i < a.keys().size(); ++i)
    if (!(a.keys()[i] == b.keys()[i]) || a.items()[i].as_tensor().sizes() != b.items()[i].as_tensor().sizes())
      return false;
  return true;
}

// Whether two traces ran the same ops on the same values, arguments aside.
bool same_skeleton(const io::Value& a, const io::Value& b) {
  if (!a.at("inputs").equals(b.at("inputs")) || !a.at("state").equals(b.at("state")) ||
      !a.at("outputs").equals(b.at("outputs")) || a.at("values").as_int() != b.at("values").as_int() ||
      !same_shapes(a.at("constants"), b.at("constants")) || a.at("nodes").size() != b.at("nodes").size())
    return false;
  for (size_t k = 0; k < a.at("nodes").size(); ++k) {
    const io::Value &x = a.at("nodes")[k], &y = b.at("nodes")[k];
    if (x.at("op").as_string() != y.at("op").as_string() || !x.at("outputs").equals(y.at("outputs")) ||
        (x.find("inplace") != nullptr) != (y.find("inplace") != nullptr))
      return false;
  }
  return true;
}

// The int arguments that follow the batch size: v(B) = a B + c through all three traces (at B, B + 1
// and B + 2), as [arg, element (-1: the argument itself), a, c]; nullopt if an argument changes otherwise.
std::optional<std::vector<io::Value>> batch_sizes(const OpSchema& op, const io::Value& n0, const io::Value& n1,
                                                  const io::Value& n2, int64_t batch) {
  std::vector<io::Value> sizes;
  const auto fit = [&](size_t arg, int64_t element, const io::Value& v0, const io::Value& v1, const io::Value& v2) {
    if (!v0.is_int() || !v1.is_int() || !v2.is_int()) return false;
    const int64_t a = v1.as_int() - v0.as_int();
    if (v2.as_int() - v1.as_int() != a) return false;
    sizes.push_back(io::Value::list({int64_t(arg), element, a, v0.as_int() - a * batch}));
    return true;
  };
  for (size_t i = 0; i < op.args.size(); ++i) {
    const io::Value &v0 = n0.at("args")[i], &v1 = n1.at("args")[i], &v2 = n2.at("args")[i];
    if (v0.equals(v1) && v0.equals(v2)) continue;
    const std::string& type = op.args[i].second;
    if (type.starts_with("Tensor")) return std::nullopt;
    if (v0.is_list() && v1.is_list() && v2.is_list()) {
      if (v0.size() != v1.size() || v0.size() != v2.size()) return std::nullopt;
      for (size_t e = 0; e < v0.size(); ++e)
        if (!(v0[e].equals(v1[e]) && v0[e].equals(v2[e])) && !fit(i, int64_t(e), v0[e], v1[e], v2[e]))
          return std::nullopt;
    } else if (!fit(i, -1, v0, v1, v2)) {
      return std::nullopt;
    }
  }
  return sizes;
}

// `doc` (traced at batch B) with what the traces at B + 1 and B + 2 say of the batch: "batch" names
// the input whose first dim is read at run time, and each node's "sizes" the arguments computed from it.
io::Value with_batch(io::Value doc, const std::vector<io::Value>& more, int64_t batch) {
  bool follows = more.size() == 2 && same_skeleton(doc, more[0]) && same_skeleton(doc, more[1]);
  std::vector<std::vector<io::Value>> sizes(doc.at("nodes").size());
  for (size_t k = 0; follows && k < sizes.size(); ++k) {
    const io::Value& node = doc.at("nodes")[k];
    auto s =
        batch_sizes(*find_op(node.at("op").as_string()), node, more[0].at("nodes")[k], more[1].at("nodes")[k], batch);
    if (!s)
      follows = false;
    else
      sizes[k] = std::move(*s);
  }
  if (follows)
    for (size_t k = 0; k < sizes.size(); ++k)
      if (!sizes[k].empty()) doc.at("nodes")[k].set("sizes", io::Value::list(std::move(sizes[k])));
  doc.set("batch", io::Value::dict({{"input", int64_t{0}}, {"size", batch}, {"follows", follows}}));
  return doc;
}

// The program of the module in `mode`: traced at the example inputs (keeping what the forward
// changes when `keep` is set), then at two more batch sizes, whose changes are undone.
Program trace_mode(nn::Module& module, const io::Value& state, const std::vector<Tensor>& inputs,
                   const Forward& forward, bool mode, bool keep) {
  const bool training = module.is_training();
  struct ModeBack {
    nn::Module& m;
    bool training;
    ~ModeBack() { m.train(training); }
  } back{module, training};
  module.train(mode);
  io::Value doc;
  if (keep) {
    doc = trace_once(state, inputs, forward);
  } else {
    Restore restore(module);
    doc = trace_once(state, inputs, forward);
  }
  if (std::optional<int64_t> batch = common_batch(inputs)) {
    std::vector<io::Value> more;
    Restore restore(module);
    try {
      for (int64_t extra : {1, 2}) more.push_back(trace_once(state, at_batch(inputs, *batch + extra), forward, true));
    } catch (const std::exception&) {
      // NB: any exception (a Python forward raises through its binding's own type): the forward holds
      // only at its traced batch, and the program keeps it
      more.clear();
    }
    doc = with_batch(std::move(doc), more, *batch);
  }
  return Program::from_value(doc, "jit.trace");
}

bool close(const io::Value& a, const io::Value& b, double tolerance) {
  if (a.type() != b.type()) return false;
  if (a.is_tensor()) {
    const Tensor& x = a.as_tensor();
    const Tensor& y = b.as_tensor();
    if (x.sizes() != y.sizes() || x.dtype() != y.dtype()) return false;
    if (!x.is_floating_point()) return equal(x, y);
    return allclose(x, y, tolerance, tolerance, true);
  }
  if (a.is_none()) return true;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!close(a.items()[i], b.items()[i], tolerance)) return false;
  return true;
}

void check(nn::Module& module, TracedModule& traced, const std::vector<Tensor>& inputs, const Forward& forward,
           double tolerance) {
  const bool training = module.is_training();
  module.eval();
  traced.eval();
  autograd::NoGradGuard no_grad;
  std::vector<Tensor> rolled;
  for (const Tensor& t : inputs) rolled.push_back(t.dim() > 0 && t.size(0) > 1 ? roll(t, {1}, {0}) : t);
  for (const std::vector<Tensor>* ins : {&inputs, static_cast<const std::vector<Tensor>*>(&rolled)}) {
    const io::Value expected = forward(*ins);
    const io::Value got = traced.run(*ins);
    if (!close(expected, got, tolerance)) {
      module.train(training);
      throw ValueError(std::string("jit.trace: the traced program does not reproduce the module's eval-mode forward") +
                       (ins == &rolled ? " on the example inputs rolled by one along their first dim" : "") +
                       ": part of the forward ran outside the ops a program can hold (a function outside Ember's "
                       "op table, or a value taken from a tensor into Python or C++); pass check=false to keep it");
    }
  }
  module.train(training);
  traced.train(training);
}

}  // namespace

std::shared_ptr<TracedModule> trace(nn::Module& module, const std::vector<Tensor>& example_inputs,
                                    const Forward& forward, const TraceOptions& options) {
  EMBER_CHECK_VALUE(!tracing::recording(), "jit.trace: a trace is already running on this thread");
  const io::Value state = io::to_value(module, /*include_non_persistent=*/true);
  const bool training = module.is_training();
  Program other = trace_mode(module, state, example_inputs, forward, !training, /*keep=*/false);
  Program own = trace_mode(module, state, example_inputs, forward, training, /*keep=*/true);
  auto traced = std::make_shared<TracedModule>(training ? std::move(own) : std::move(other),
                                               training ? std::move(other) : std::move(own));
  std::vector<io::Value::Item> types;
  for (const auto& [path, m] : module.named_modules())
    if (!path.empty()) types.emplace_back(path, m->type_name());
  traced->set_module_types(io::Value::dict(std::move(types)));
  traced->register_state(state);
  traced->train(training);
  if (options.check) check(module, *traced, example_inputs, forward, options.check_tolerance);
  return traced;
}

std::shared_ptr<TracedModule> trace(nn::Module& module, const Tensor& example_input, const TraceOptions& options) {
  return trace(
      module, {example_input}, [&module](const std::vector<Tensor>& in) { return io::Value(module.forward(in[0])); },
      options);
}

}  // namespace ember::jit
