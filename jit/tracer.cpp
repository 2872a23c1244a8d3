// jit::trace (jit/trace.h): the recorder that turns the ops a forward runs into a program.
#include <algorithm>
#include <array>
#include <functional>
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

  void note_own_generator() override {
    throw ValueError(
        "jit.trace: an op was given a generator of its own; a traced program draws its random numbers from the "
        "default generator");
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

// Input dims of one traced size, which a program may let vary together (the batch of every input,
// a sequence length).
struct Candidate {
  int64_t size;
  std::vector<std::pair<size_t, size_t>> at;  // (input, dim)
};

// The input dims grouped by size, in the order they first appear.
std::vector<Candidate> candidates(const std::vector<Tensor>& inputs) {
  std::vector<Candidate> out;
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t d = 0; d < static_cast<size_t>(inputs[i].dim()); ++d) {
      const int64_t size = inputs[i].size(static_cast<int64_t>(d));
      if (size == 0) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const Candidate& c) { return c.size == size; });
      if (it == out.end()) it = out.insert(out.end(), Candidate{size, {}});
      it->at.emplace_back(i, d);
    }
  return out;
}

// The inputs with the dims of each candidate at sizes[k]: their entries repeated in turn.
std::vector<Tensor> resized(const std::vector<Tensor>& inputs, const std::vector<Candidate>& cs,
                            const std::vector<int64_t>& sizes) {
  std::vector<Tensor> out = inputs;
  for (size_t k = 0; k < cs.size(); ++k) {
    if (sizes[k] == cs[k].size) continue;
    std::vector<int64_t> rows(static_cast<size_t>(sizes[k]));
    for (int64_t i = 0; i < sizes[k]; ++i) rows[static_cast<size_t>(i)] = i % cs[k].size;
    const Tensor index = tensor(rows);
    for (const auto& [input, dim] : cs[k].at)
      out[input] = index_select(out[input], static_cast<int64_t>(dim), index.to(out[input].device()));
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

// Where an int argument of a node sits: the places a size computed from the dims can go.
struct Slot {
  size_t node, arg;
  int64_t element;  // -1: the argument itself
};

// The int arguments of `other` (a trace with the skeleton of `base`), in the order of the slots of
// `base` (returned through `slots` when given); nullopt if an argument other than an int differs.
std::optional<std::vector<int64_t>> int_arguments(const io::Value& base, const io::Value& other,
                                                  std::vector<Slot>* slots) {
  std::vector<int64_t> out;
  const io::Value &nodes0 = base.at("nodes"), &nodes1 = other.at("nodes");
  for (size_t k = 0; k < nodes0.size(); ++k) {
    const OpSchema& op = *find_op(nodes0[k].at("op").as_string());
    const io::Value &args0 = nodes0[k].at("args"), &args1 = nodes1[k].at("args");
    for (size_t i = 0; i < op.args.size(); ++i) {
      const io::Value &v0 = args0[i], &v1 = args1[i];
      const std::string& type = op.args[i].second;
      const bool sized = type == "int" || type == "int?" || type == "Scalar" || type == "Scalar?";
      const bool list = type.starts_with("int[") || type == "int...";
      if (sized && v0.is_int() && v1.is_int()) {
        if (slots) slots->push_back({k, i, -1});
        out.push_back(v1.as_int());
      } else if (list && v0.is_list() && v1.is_list() && v0.size() == v1.size()) {
        for (size_t e = 0; e < v0.size(); ++e) {
          if (!v0[e].is_int() || !v1[e].is_int()) return std::nullopt;
          if (slots) slots->push_back({k, i, static_cast<int64_t>(e)});
          out.push_back(v1[e].as_int());
        }
      } else if (!v0.equals(v1)) {
        return std::nullopt;
      }
    }
  }
  return out;
}

// Finds which candidate dims the program may follow and how each int argument is computed from
// them: c + sum a_i d_i + sum k_ij d_i d_j, fitted from traces at other sizes (`at`: the int
// arguments of a trace with the candidates at the sizes given, nullopt if the forward failed there or
// ran other ops). Each candidate is varied alone by 1, 2, 3 and 11 (down from sizes above 4, to no
// less than 1, else up: a model traced at its largest sequence length still follows it), each pair
// together by 1, then all together by 3, and must fit all of them. A group of dims that does not fit together (a batch
// and a sequence traced at the same size) is tried dim by dim.
struct Fit {
  std::vector<Candidate> dims;
  std::vector<std::vector<detail::SizeRule::Term>> terms;  // per slot
  std::vector<int64_t> c;                                  // per slot
};

Fit fit_dims(std::vector<Candidate> cs, const std::vector<int64_t>& base_args,
             const std::function<std::optional<std::vector<int64_t>>(const std::vector<Candidate>&,
                                                                     const std::vector<int64_t>&)>& at) {
  const size_t slots = base_args.size();
  const auto offsets = [](int64_t size) {
    return size > 4 ? std::array<int64_t, 3>{-1, -2, -3} : std::array<int64_t, 3>{1, 2, 3};
  };
  // 1. Each candidate alone: its slope per slot.
  std::vector<Candidate> free;
  std::vector<std::vector<int64_t>> slope, first;  // per free dim: per slot
  for (size_t k = 0; k < cs.size(); ++k) {
    // The three near sizes, then a far one: a size divided by a stride (T / 8) can look constant over
    // four neighbours; eleven apart, a division by up to 11 shows.
    const std::array<int64_t, 3> near = offsets(cs[k].size);
    const std::array<int64_t, 4> off{near[0], near[1], near[2],
                                     cs[k].size > 4 ? std::max<int64_t>(1, cs[k].size - 11) - cs[k].size : 11};
    std::optional<std::vector<int64_t>> v[4];
    bool fits = true;
    for (size_t j = 0; j < 4 && fits; ++j) {
      v[j] = at({cs[k]}, {cs[k].size + off[j]});
      fits = v[j].has_value();
    }
    std::vector<int64_t> s(slots);
    for (size_t i = 0; fits && i < slots; ++i) {
      s[i] = ((*v[0])[i] - base_args[i]) * off[0];  // off[0] is 1 or -1
      for (size_t j = 1; j < 4; ++j) fits = fits && (*v[j])[i] - base_args[i] == s[i] * off[j];
    }
    if (fits) {
      free.push_back(cs[k]);
      slope.push_back(std::move(s));
      first.push_back(std::move(*v[0]));
    } else if (cs[k].at.size() > 1) {
      const Candidate group = cs[k];  // NB: a copy, as push_back may move cs
      for (const auto& one : group.at) cs.push_back(Candidate{group.size, {one}});
    }
  }
  // 2. Each pair together: the product terms; 3. all together, checking the whole rule.
  const auto solve = [&](size_t n, bool pairs) -> std::optional<Fit> {
    Fit fit;
    fit.dims.assign(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<std::vector<std::vector<int64_t>>> k(n, std::vector<std::vector<int64_t>>(n));
    for (size_t p = 0; pairs && p < n; ++p)
      for (size_t q = p + 1; q < n; ++q) {
        const int64_t op = offsets(free[p].size)[0], oq = offsets(free[q].size)[0];
        const auto v = at({free[p], free[q]}, {free[p].size + op, free[q].size + oq});
        if (!v) return std::nullopt;
        k[p][q].resize(slots);
        for (size_t i = 0; i < slots; ++i) k[p][q][i] = ((*v)[i] - first[p][i] - first[q][i] + base_args[i]) * op * oq;
      }
    fit.terms.resize(slots);
    fit.c.resize(slots);
    for (size_t i = 0; i < slots; ++i) {
      int64_t c = base_args[i];
      for (size_t p = 0; p < n; ++p) {
        int64_t a = slope[p][i];
        for (size_t q = 0; q < n; ++q)
          if (q != p && pairs) a -= k[std::min(p, q)][std::max(p, q)][i] * free[q].size;
        if (a != 0) fit.terms[i].push_back({a, {p}});
        c -= a * free[p].size;
      }
      for (size_t p = 0; pairs && p < n; ++p)
        for (size_t q = p + 1; q < n; ++q)
          if (k[p][q][i] != 0) {
            fit.terms[i].push_back({k[p][q][i], {p, q}});
            c -= k[p][q][i] * free[p].size * free[q].size;
          }
      fit.c[i] = c;
    }
    if (n > 1) {
      std::vector<int64_t> sizes;
      for (size_t p = 0; p < n; ++p) sizes.push_back(free[p].size + offsets(free[p].size)[2]);
      const auto v = at(fit.dims, sizes);
      if (!v) return std::nullopt;
      for (size_t i = 0; i < slots; ++i)
        if ((*v)[i] != detail::evaluate({0, -1, fit.c[i], fit.terms[i]}, sizes)) return std::nullopt;
    }
    return fit;
  };
  if (free.empty()) return {};
  if (auto all = solve(free.size(), true)) return *all;
  return *solve(1, false);  // NB: the first dim alone was checked at four sizes above
}

// `doc` with the dims its program follows ("dims") and each node's int arguments computed from them
// ("sizes"); `trace` traces the forward on inputs resized as asked (nullopt if it failed).
io::Value with_dims(io::Value doc, const std::vector<Tensor>& inputs,
                    const std::function<std::optional<io::Value>(const std::vector<Tensor>&)>& trace) {
  std::vector<Slot> slots;
  const std::vector<int64_t> base_args = *int_arguments(doc, doc, &slots);
  const Fit fit = fit_dims(
      candidates(inputs), base_args,
      [&](const std::vector<Candidate>& cs, const std::vector<int64_t>& sizes) -> std::optional<std::vector<int64_t>> {
        for (int64_t s : sizes)
          if (s < 1) return std::nullopt;
        const std::optional<io::Value> other = trace(resized(inputs, cs, sizes));
        if (!other || !same_skeleton(doc, *other)) return std::nullopt;
        return int_arguments(doc, *other, nullptr);
      });
  if (fit.dims.empty()) return doc;
  std::vector<std::vector<io::Value>> sizes(doc.at("nodes").size());
  for (size_t i = 0; i < slots.size(); ++i) {
    if (fit.terms[i].empty()) continue;
    sizes[slots[i].node].push_back(detail::size_document({slots[i].arg, slots[i].element, fit.c[i], fit.terms[i]}));
  }
  for (size_t k = 0; k < sizes.size(); ++k)
    if (!sizes[k].empty()) doc.at("nodes")[k].set("sizes", io::Value::list(std::move(sizes[k])));
  std::vector<io::Value> dims;
  for (const Candidate& c : fit.dims) dims.push_back(detail::dim_document(c.size, c.at));
  doc.set("dims", io::Value::list(std::move(dims)));
  return doc;
}

// The program of the module in `mode`: traced at the example inputs (keeping what the forward
// changes when `keep` is set), then at other sizes (with_dims), whose changes are undone.
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
  {
    Restore restore(module);
    doc = with_dims(std::move(doc), inputs, [&](const std::vector<Tensor>& resized) -> std::optional<io::Value> {
      try {
        return trace_once(state, resized, forward, /*quiet=*/true);
      } catch (const std::exception&) {
        // NB: any exception (a Python forward raises through its binding's own type): the forward
        // holds at the traced sizes only, and the program keeps them
        return std::nullopt;
      }
    });
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
  // NB: both runs draw the same random numbers (a factory in the forward draws afresh in the program too)
  const Generator::State generator = default_generator().get_state();
  for (const std::vector<Tensor>* ins : {&inputs, static_cast<const std::vector<Tensor>*>(&rolled)}) {
    const io::Value expected = forward(*ins);
    default_generator().set_state(generator);
    const io::Value got = traced.run(*ins);
    default_generator().set_state(generator);
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
