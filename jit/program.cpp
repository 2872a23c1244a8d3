#include "ember/jit/program.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "ember/core/error.h"

namespace ember::jit {

namespace {

// A hostile document must not make the loader allocate without bound: ids index a vector.
constexpr int64_t kMaxValues = int64_t{1} << 24;
// More dims than any input of a program has (a document's bound, not a tensor's).
constexpr int64_t kMaxDims = 64;

using detail::SizeRule;

// Reads one program document, naming `where` and the node in every error.
class Reader {
 public:
  Reader(const std::string& where, int64_t num_values) : where_(where), defined_(static_cast<size_t>(num_values)) {}

  template <typename... Ts>
  [[noreturn]] void fail(const Ts&... parts) const {
    std::ostringstream os;
    os << "jit.load: '" << where_ << "': " << context_;
    (os << ... << parts);
    throw ValueError(os.str());
  }
  void set_context(std::string context) { context_ = std::move(context); }

  const io::Value& field(const io::Value& dict, const char* key, io::Value::Type type) const {
    if (!dict.is_dict()) fail("expected a dict, got ", dict.type_name());
    const io::Value* v = dict.find(key);
    if (v == nullptr) fail("the field '", key, "' is missing");
    if (v->type() != type) fail("the field '", key, "' is a ", v->type_name());
    return *v;
  }

  int64_t id(const io::Value& v) const {
    if (!v.is_int()) fail("a value id must be an int, got ", v.type_name());
    const int64_t i = v.as_int();
    if (i < 0 || i >= static_cast<int64_t>(defined_.size()))
      fail("value ", i, " is out of range (the program has ", defined_.size(), " values)");
    return i;
  }
  // A value read here: it must have been defined before.
  int64_t use(const io::Value& v) const {
    const int64_t i = id(v);
    if (!defined_[static_cast<size_t>(i)]) fail("value ", i, " is used before it is defined");
    return i;
  }
  // A value defined here: never before.
  int64_t define(const io::Value& v) {
    const int64_t i = id(v);
    if (defined_[static_cast<size_t>(i)]) fail("value ", i, " is defined twice");
    defined_[static_cast<size_t>(i)] = true;
    return i;
  }

 private:
  const std::string& where_;
  std::string context_;
  std::vector<bool> defined_;
};

std::vector<int64_t> int_list(Reader& r, const io::Value& v, const std::string& type) {
  if (!v.is_list() && !v.is_tuple()) r.fail("a ", type, " must be a list of ints, got ", v.type_name());
  std::vector<int64_t> out;
  for (const io::Value& e : v.items()) {
    if (!e.is_int()) r.fail("a ", type, " holds a ", e.type_name());
    out.push_back(e.as_int());
  }
  return out;
}

// One constant argument of table type `type` (not a tensor) from its document form.
tracing::Arg constant(Reader& r, const io::Value& v, std::string_view type) {
  const bool optional = type.ends_with('?');
  const std::string base(optional ? type.substr(0, type.size() - 1) : type);
  if (v.is_none()) {
    if (optional || base == "Generator") return {};
    r.fail("None where a ", type, " is required");
  }
  if (base == "Scalar") {
    if (v.is_bool()) return Scalar(v.as_bool());
    if (v.is_int()) return Scalar(v.as_int());
    if (v.is_float()) return Scalar(v.as_float());
  } else if (base == "int") {
    if (v.is_int()) return v.as_int();
  } else if (base == "float") {
    if (v.is_float() || v.is_int()) return v.as_float();
  } else if (base == "bool") {
    if (v.is_bool()) return v.as_bool();
  } else if (base == "str") {
    if (v.is_string()) return v.as_string();
  } else if (base == "int[]" || base == "int...") {
    return int_list(r, v, std::string(type));
  } else if (base == "int[2]") {
    std::vector<int64_t> pair = int_list(r, v, "pair of ints");
    if (pair.size() != 2) r.fail("a pair of ints holds ", pair.size());
    return pair;
  } else if (base == "ScalarType") {
    if (v.is_string()) {
      if (std::optional<DType> d = dtype_from_name(v.as_string())) return *d;
      r.fail("unknown dtype '", v.as_string(), "'");
    }
  } else if (base == "Device") {
    if (v.is_string()) {
      try {
        return Device(v.as_string());
      } catch (const Error&) {
        r.fail("unknown device '", v.as_string(), "'");
      }
    }
  } else {
    r.fail("an argument of unknown type ", type);
  }
  r.fail("a ", type, " argument holds a ", v.type_name());
}

// A node's size entry: [arg, element, c, [[coef, dim...], ...]], or version 1's [arg, element, a, c]
// for a B + c (B: dim 0).
SizeRule read_size(Reader& r, const io::Value& e, int64_t version, size_t num_dims) {
  if (!e.is_list() || e.size() != 4)
    r.fail(version == 1 ? "a size entry is [arg, element, a, c]" : "a size entry is [arg, element, c, terms]");
  if (version == 1) {
    const std::vector<int64_t> f = int_list(r, e, "size entry");
    if (num_dims == 0) r.fail("a size entry where the program does not follow the batch");
    if (f[0] < 0) r.fail("a size entry's argument ", f[0], " is out of range");
    SizeRule size{static_cast<size_t>(f[0]), f[1], f[3], {}};
    if (f[2] != 0) size.terms.push_back({f[2], {0}});
    return size;
  }
  for (size_t i = 0; i < 3; ++i)
    if (!e[i].is_int()) r.fail("a size entry's field ", i, " is a ", e[i].type_name());
  if (!e[3].is_list()) r.fail("a size entry's terms must be a list, got ", e[3].type_name());
  if (e[0].as_int() < 0) r.fail("a size entry's argument ", e[0].as_int(), " is out of range");
  SizeRule size{static_cast<size_t>(e[0].as_int()), e[1].as_int(), e[2].as_int(), {}};
  for (const io::Value& t : e[3].items()) {
    const std::vector<int64_t> f = int_list(r, t, "size term");
    if (f.size() < 2) r.fail("a size term is [coef, dim...]");
    SizeRule::Term term{f[0], {}};
    for (size_t i = 1; i < f.size(); ++i) {
      if (f[i] < 0 || f[i] >= static_cast<int64_t>(num_dims))
        r.fail("a size term names dim ", f[i], " of the ", num_dims, " the program follows");
      term.dims.push_back(static_cast<size_t>(f[i]));
    }
    size.terms.push_back(std::move(term));
  }
  return size;
}

void output_ids(Reader& r, const io::Value& v, std::vector<int64_t>& ids) {
  switch (v.type()) {
    case io::Value::Type::None:
      return;
    case io::Value::Type::Int:
      ids.push_back(r.use(v));
      return;
    case io::Value::Type::List:
    case io::Value::Type::Tuple:
    case io::Value::Type::Dict:
      for (const io::Value& e : v.items()) output_ids(r, e, ids);
      return;
    default:
      r.fail("the outputs hold a ", v.type_name(), " (value ids in tuples, lists and dicts only)");
  }
}

io::Value outputs_of(const io::Value& tree, const std::vector<Tensor>& values) {
  switch (tree.type()) {
    case io::Value::Type::Int:
      return io::Value(values[static_cast<size_t>(tree.as_int())]);
    case io::Value::Type::List:
    case io::Value::Type::Tuple: {
      std::vector<io::Value> items;
      for (const io::Value& e : tree.items()) items.push_back(outputs_of(e, values));
      return tree.is_list() ? io::Value::list(std::move(items)) : io::Value::tuple(std::move(items));
    }
    case io::Value::Type::Dict: {
      std::vector<io::Value::Item> items;
      for (size_t i = 0; i < tree.keys().size(); ++i)
        items.emplace_back(tree.keys()[i], outputs_of(tree.items()[i], values));
      return io::Value::dict(std::move(items));
    }
    default:
      return io::Value();
  }
}

}  // namespace

namespace detail {

int64_t evaluate(const SizeRule& size, const std::vector<int64_t>& dims) {
  int64_t v = size.c;
  bool overflow = false;
  for (const SizeRule::Term& t : size.terms) {
    int64_t product = t.coef;
    for (size_t d : t.dims) overflow |= __builtin_mul_overflow(product, dims[d], &product);
    overflow |= __builtin_add_overflow(v, product, &v);
  }
  EMBER_CHECK_VALUE(!overflow, "traced module: a size the program computes from the input sizes overflows");
  return v;
}

io::Value dim_document(int64_t size, const std::vector<std::pair<size_t, size_t>>& at) {
  std::vector<io::Value> pairs;
  for (const auto& [input, dim] : at)
    pairs.push_back(io::Value::list({static_cast<int64_t>(input), static_cast<int64_t>(dim)}));
  return io::Value::dict({{"size", size}, {"at", io::Value::list(std::move(pairs))}});
}

io::Value size_document(const SizeRule& size) {
  std::vector<io::Value> terms;
  for (const SizeRule::Term& t : size.terms) {
    std::vector<io::Value> f{t.coef};
    for (size_t d : t.dims) f.emplace_back(static_cast<int64_t>(d));
    terms.push_back(io::Value::list(std::move(f)));
  }
  return io::Value::list({static_cast<int64_t>(size.arg), size.element, size.c, io::Value::list(std::move(terms))});
}

io::Value constant_document(const tracing::Arg& a) {
  return std::visit(
      [](const auto& v) -> io::Value {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return io::Value();
        } else if constexpr (std::is_same_v<T, Scalar>) {
          if (v.is_bool()) return io::Value(v.template to<bool>());
          if (v.is_floating()) return io::Value(v.to_double());
          return io::Value(v.template to<int64_t>());
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::vector<io::Value> items(v.begin(), v.end());
          return io::Value::list(std::move(items));
        } else if constexpr (std::is_same_v<T, DType>) {
          return io::Value(std::string(dtype_name(v)));
        } else if constexpr (std::is_same_v<T, Device>) {
          return io::Value(v.str());
        } else if constexpr (std::is_same_v<T, Tensor> || std::is_same_v<T, std::vector<Tensor>>) {
          EMBER_CHECK(false, "jit: a tensor argument is not a constant");
          return io::Value();
        } else {
          return io::Value(v);
        }
      },
      a);
}

}  // namespace detail

Program Program::from_value(const io::Value& doc, const std::string& where) {
  Reader head(where, 0);
  head.set_context("program: ");
  const int64_t version = head.field(doc, "version", io::Value::Type::Int).as_int();
  if (version < 1 || version > kProgramVersion)
    head.fail("version ", version, " is not one this build reads (1 to ", kProgramVersion, ")");
  const int64_t n = head.field(doc, "values", io::Value::Type::Int).as_int();
  if (n < 0 || n > kMaxValues) head.fail("the value count ", n, " is out of range (0 to ", kMaxValues, ")");

  Program p;
  p.num_values_ = n;
  Reader r(where, n);
  r.set_context("program: inputs: ");
  for (const io::Value& v : r.field(doc, "inputs", io::Value::Type::List).items()) p.inputs_.push_back(r.define(v));
  std::optional<Fixed> v1_batch;  // a version 1 batch the program holds at its traced size only
  if (version == 1) {
    if (const io::Value* batch = doc.find("batch")) {
      r.set_context("program: batch: ");
      const int64_t input = r.field(*batch, "input", io::Value::Type::Int).as_int();
      const int64_t size = r.field(*batch, "size", io::Value::Type::Int).as_int();
      if (input < 0 || input >= static_cast<int64_t>(p.inputs_.size())) r.fail("input ", input, " is out of range");
      if (size < 1) r.fail("the batch size ", size, " is not positive");
      if (r.field(*batch, "follows", io::Value::Type::Bool).as_bool())
        p.dims_.push_back({size, {{static_cast<size_t>(input), 0}}});
      else
        v1_batch = Fixed{static_cast<size_t>(input), 0, size};
    }
  } else if (const io::Value* dims = doc.find("dims")) {
    r.set_context("program: dims: ");
    if (!dims->is_list()) r.fail("expected a list, got ", dims->type_name());
    std::vector<std::pair<int64_t, int64_t>> seen;
    for (const io::Value& d : dims->items()) {
      Dim dim{r.field(d, "size", io::Value::Type::Int).as_int(), {}};
      if (dim.size < 1) r.fail("the traced size ", dim.size, " is not positive");
      const io::Value& at = r.field(d, "at", io::Value::Type::List);
      if (at.size() == 0) r.fail("a dim names no input dim");
      for (const io::Value& e : at.items()) {
        const std::vector<int64_t> f = int_list(r, e, "input dim");
        if (f.size() != 2) r.fail("an input dim is [input, dim]");
        if (f[0] < 0 || f[0] >= static_cast<int64_t>(p.inputs_.size())) r.fail("input ", f[0], " is out of range");
        if (f[1] < 0 || f[1] >= kMaxDims) r.fail("dim ", f[1], " is out of range");
        if (std::find(seen.begin(), seen.end(), std::make_pair(f[0], f[1])) != seen.end())
          r.fail("input ", f[0], " dim ", f[1], " is named twice");
        seen.emplace_back(f[0], f[1]);
        dim.at.push_back({static_cast<size_t>(f[0]), static_cast<size_t>(f[1])});
      }
      p.dims_.push_back(std::move(dim));
    }
  }
  r.set_context("program: state: ");
  const io::Value& state = r.field(doc, "state", io::Value::Type::Dict);
  for (size_t i = 0; i < state.keys().size(); ++i) {
    if (!state.keys()[i].is_string()) r.fail("a state name must be a str");
    p.state_.emplace_back(state.keys()[i].as_string(), r.define(state.items()[i]));
  }
  r.set_context("program: constants: ");
  const io::Value& constants = r.field(doc, "constants", io::Value::Type::Dict);
  for (size_t i = 0; i < constants.keys().size(); ++i) {
    const io::Key& key = constants.keys()[i];
    if (!key.is_int()) r.fail("a constant's key must be its value id (an int)");
    if (!constants.items()[i].is_tensor())
      r.fail("constant ", key.as_int(), " is a ", constants.items()[i].type_name());
    p.constants_.emplace_back(r.define(io::Value(key.as_int())), constants.items()[i].as_tensor());
  }

  const io::Value& nodes = r.field(doc, "nodes", io::Value::Type::List);
  for (size_t k = 0; k < nodes.size(); ++k) {
    const io::Value& node = nodes[k];
    r.set_context("program: node " + std::to_string(k) + ": ");
    const std::string& name = r.field(node, "op", io::Value::Type::String).as_string();
    const OpSchema* op = find_op(name);
    if (op == nullptr)
      throw KeyError("jit.load: '" + where + "': program: node " + std::to_string(k) + ": unknown op '" + name +
                     "' (not an op of this build's table, Tensor method or nn function)");
    r.set_context("program: node " + std::to_string(k) + " (" + name + "): ");
    Step step;
    step.op = op;
    step.doc = node;
    if (const io::Value* inplace = node.find("inplace")) {
      if (!inplace->is_bool()) r.fail("'inplace' must be a bool");
      step.inplace = inplace->as_bool();
      if (step.inplace && !op->run_inplace) r.fail("the op has no in-place form");
    }
    const io::Value& args = r.field(node, "args", io::Value::Type::List);
    if (args.size() != op->args.size()) r.fail("takes ", op->args.size(), " arguments, the node gives ", args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const auto& [arg_name, type] = op->args[i];
      const io::Value& v = args[i];
      if (type == "Tensor" || type == "Tensor?") {
        if (v.is_none()) {
          if (type == "Tensor") r.fail("argument '", arg_name, "' is None where a tensor is required");
          step.args.emplace_back();
        } else {
          step.reads.push_back({i, -1, r.use(v)});
          step.args.emplace_back(Tensor());
        }
      } else if (type == "Tensor[]") {
        if (!v.is_list()) r.fail("argument '", arg_name, "' must be a list of value ids, got ", v.type_name());
        for (size_t e = 0; e < v.size(); ++e)
          if (!v[e].is_none()) step.reads.push_back({i, static_cast<int64_t>(e), r.use(v[e])});
        step.args.emplace_back(std::vector<Tensor>(v.size()));
      } else {
        step.args.push_back(constant(r, v, type));
      }
    }
    const io::Value& outs = r.field(node, "outputs", io::Value::Type::List);
    if (outs.size() != op->returns.size()) r.fail("has ", op->returns.size(), " results, the node names ", outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      std::vector<int64_t> ids;
      if (op->returns[i] == "Tensor") {
        if (!outs[i].is_none()) ids.push_back(r.define(outs[i]));
      } else if (op->returns[i] == "Tensor[]") {
        if (!outs[i].is_list()) r.fail("result ", i, " must be a list of value ids");
        for (const io::Value& e : outs[i].items()) ids.push_back(r.define(e));
      } else if (!outs[i].is_none()) {
        r.fail("result ", i, " (a ", op->returns[i], ") is not a value");
      }
      step.writes.push_back(std::move(ids));
    }
    if (step.inplace && (step.reads.empty() || step.reads[0].arg != 0)) r.fail("an in-place op needs its self");
    if (const io::Value* sizes = node.find("sizes")) {
      if (!sizes->is_list()) r.fail("'sizes' must be a list");
      std::vector<io::Value> documents;
      for (const io::Value& e : sizes->items()) {
        Size size = read_size(r, e, version, p.dims_.size());
        if (size.arg >= step.args.size()) r.fail("a size entry's argument ", size.arg, " is out of range");
        const std::string& type = op->args[size.arg].second;
        if (size.element < 0) {
          if (type != "int" && type != "int?" && type != "Scalar" && type != "Scalar?")
            r.fail("a size entry names argument ", size.arg, ", a ", type);
        } else {
          const auto* list = std::get_if<std::vector<int64_t>>(&step.args[size.arg]);
          if (list == nullptr || size.element >= static_cast<int64_t>(list->size()))
            r.fail("a size entry names element ", size.element, " of argument ", size.arg, ", which has none");
        }
        documents.push_back(detail::size_document(size));
        step.sizes.push_back(std::move(size));
      }
      step.doc.set("sizes", io::Value::list(std::move(documents)));  // version 1's entries in today's form
    }
    p.steps_.push_back(std::move(step));
  }
  r.set_context("program: outputs: ");
  const io::Value* outputs = doc.find("outputs");
  if (outputs == nullptr) r.fail("the field is missing");
  std::vector<int64_t> ids;
  output_ids(r, *outputs, ids);
  p.outputs_ = *outputs;
  if (const io::Value* types = doc.find("types")) {
    r.set_context("program: types: ");
    if (!types->is_list() || static_cast<int64_t>(types->size()) != n)
      r.fail("expected a list of ", n, " [dtype, shape] pairs");
    for (const io::Value& t : types->items()) {
      if (!t.is_list() || t.size() != 2 || !t[0].is_string() || !dtype_from_name(t[0].as_string()))
        r.fail("an entry is not [dtype, shape]");
      int_list(r, t[1], "shape");
    }
    p.types_ = *types;
  }
  // The input dims the program holds at their traced sizes: every one the dims do not name.
  r.set_context("program: dims: ");
  p.ranks_.assign(p.inputs_.size(), -1);
  if (!p.types_.is_none()) {
    for (size_t i = 0; i < p.inputs_.size(); ++i) {
      const std::vector<int64_t> shape = int_list(r, p.types_[static_cast<size_t>(p.inputs_[i])][1], "shape");
      p.ranks_[i] = static_cast<int64_t>(shape.size());
      for (size_t d = 0; d < shape.size(); ++d) {
        const Dim* dim = nullptr;
        for (const Dim& x : p.dims_)
          for (const InputDim& at : x.at)
            if (at.input == i && at.dim == d) dim = &x;
        if (dim == nullptr)
          p.fixed_.push_back({i, d, shape[d]});
        else if (dim->size != shape[d])
          r.fail("input ", i, " dim ", d, " was traced at ", dim->size, " but its type says ", shape[d]);
      }
    }
    for (const Dim& x : p.dims_)
      for (const InputDim& at : x.at)
        if (static_cast<int64_t>(at.dim) >= p.ranks_[at.input])
          r.fail("input ", at.input, " has no dim ", at.dim, " (it was traced with ", p.ranks_[at.input], ")");
  } else if (v1_batch) {
    p.fixed_.push_back(*v1_batch);
  }
  return p;
}

io::Value Program::to_value() const {
  std::vector<io::Value> inputs(inputs_.begin(), inputs_.end());
  std::vector<io::Value::Item> state, constants;
  for (const auto& [name, id] : state_) state.emplace_back(name, id);
  for (const auto& [id, t] : constants_) constants.emplace_back(id, t);
  std::vector<io::Value> nodes;
  for (const Step& s : steps_) nodes.push_back(s.doc);
  io::Value doc = io::Value::dict({{"version", kProgramVersion},
                                   {"values", num_values_},
                                   {"inputs", io::Value::list(std::move(inputs))},
                                   {"state", io::Value::dict(std::move(state))},
                                   {"constants", io::Value::dict(std::move(constants))},
                                   {"nodes", io::Value::list(std::move(nodes))},
                                   {"outputs", outputs_}});
  if (!dims_.empty()) {
    std::vector<io::Value> dims;
    for (const Dim& d : dims_) {
      std::vector<std::pair<size_t, size_t>> at;
      for (const InputDim& x : d.at) at.emplace_back(x.input, x.dim);
      dims.push_back(detail::dim_document(d.size, at));
    }
    doc.set("dims", io::Value::list(std::move(dims)));
  }
  if (!types_.is_none()) doc.set("types", types_);
  return doc;
}

io::Value Program::run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& state_values) const {
  EMBER_CHECK_VALUE(inputs.size() == inputs_.size(), "traced module: the program takes ", inputs_.size(),
                    " inputs, got ", inputs.size());
  std::vector<Tensor> values(static_cast<size_t>(num_values_));
  for (size_t i = 0; i < inputs.size(); ++i) values[static_cast<size_t>(inputs_[i])] = inputs[i];
  EMBER_CHECK(state_values.size() == state_.size(), "traced module: ", state_values.size(), " state tensors for ",
              state_.size(), " entries");
  for (size_t i = 0; i < state_.size(); ++i) values[static_cast<size_t>(state_[i].second)] = state_values[i];
  for (const auto& [id, t] : constants_) values[static_cast<size_t>(id)] = t;
  const std::vector<int64_t> dims = dim_values(inputs);
  for (const Step& s : steps_) {
    std::vector<tracing::Arg> args = s.args;
    for (const Size& size : s.sizes) {
      const int64_t v = detail::evaluate(size, dims);
      if (size.element >= 0)
        std::get<std::vector<int64_t>>(args[size.arg])[static_cast<size_t>(size.element)] = v;
      else if (std::holds_alternative<Scalar>(args[size.arg]))
        args[size.arg] = Scalar(v);
      else
        args[size.arg] = v;
    }
    for (const Read& read : s.reads) {
      const Tensor& v = values[static_cast<size_t>(read.value)];
      if (read.element < 0)
        args[read.arg] = v;
      else
        std::get<std::vector<Tensor>>(args[read.arg])[static_cast<size_t>(read.element)] = v;
    }
    std::vector<tracing::Arg> results;
    if (s.inplace) {
      s.op->run_inplace(args);
      results.emplace_back(args[0]);
    } else {
      results = s.op->run(args);
    }
    for (size_t i = 0; i < s.writes.size(); ++i) {
      const std::vector<int64_t>& ids = s.writes[i];
      if (ids.empty()) continue;
      if (const auto* list = std::get_if<std::vector<Tensor>>(&results[i])) {
        EMBER_CHECK_VALUE(list->size() == ids.size(), "traced module: ", s.op->name, " gave ", list->size(),
                          " tensors where the program was traced with ", ids.size(),
                          " (an input shape the trace did not see?)");
        for (size_t e = 0; e < ids.size(); ++e) values[static_cast<size_t>(ids[e])] = (*list)[e];
      } else {
        values[static_cast<size_t>(ids[0])] = std::get<Tensor>(results[i]);
      }
    }
  }
  return outputs_of(outputs_, values);
}

std::vector<int64_t> Program::dim_values(const std::vector<Tensor>& inputs) const {
  const auto following = [&] {
    if (dims_.empty()) return std::string(" (it follows no size)");
    std::ostringstream os;
    os << " (the sizes it follows:";
    for (size_t k = 0; k < dims_.size(); ++k)
      for (size_t j = 0; j < dims_[k].at.size(); ++j)
        os << (k + j ? "," : "") << " input " << dims_[k].at[j].input << " dim " << dims_[k].at[j].dim;
    return os.str() + ")";
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    EMBER_CHECK_VALUE(ranks_[i] < 0 || inputs[i].dim() == ranks_[i], "traced module: input ", i, " has shape ",
                      inputs[i].sizes(), "; the program was traced with ", ranks_[i], " dims");
  for (const Fixed& f : fixed_) {
    const Tensor& in = inputs[f.input];
    EMBER_CHECK_VALUE(static_cast<size_t>(in.dim()) > f.dim && in.size(static_cast<int64_t>(f.dim)) == f.size,
                      "traced module: input ", f.input, " has shape ", in.sizes(), ", but the program holds its dim ",
                      f.dim, " at ", f.size,
                      ", the size it was traced at: the forward used that size outside the ops a program holds, or "
                      "failed at other sizes",
                      following());
  }
  std::vector<int64_t> values;
  for (const Dim& d : dims_) {
    int64_t v = -1;
    for (const InputDim& at : d.at) {
      const Tensor& in = inputs[at.input];
      EMBER_CHECK_VALUE(static_cast<size_t>(in.dim()) > at.dim, "traced module: input ", at.input, " has shape ",
                        in.sizes(), ", which has no dim ", at.dim, following());
      const int64_t here = in.size(static_cast<int64_t>(at.dim));
      EMBER_CHECK_VALUE(v < 0 || here == v, "traced module: input ", d.at[0].input, " dim ", d.at[0].dim, " (", v,
                        ") and input ", at.input, " dim ", at.dim, " (", here,
                        ") must be equal: the program was traced with both at ", d.size);
      v = here;
    }
    values.push_back(v);
  }
  return values;
}

std::string Program::str() const {
  std::ostringstream os;
  os << "program(";
  for (size_t i = 0; i < inputs_.size(); ++i) os << (i ? ", " : "") << "%" << inputs_[i];
  os << "):\n";
  for (size_t k = 0; k < dims_.size(); ++k) {  // "  # d0 = %0.size(0), traced at 3"
    os << "  # d" << k << " =";
    for (size_t j = 0; j < dims_[k].at.size(); ++j)
      os << (j ? " =" : "") << " %" << inputs_[dims_[k].at[j].input] << ".size(" << dims_[k].at[j].dim << ")";
    os << ", traced at " << dims_[k].size << "\n";
  }
  for (const auto& [name, id] : state_) os << "  %" << id << " = state['" << name << "']\n";
  for (const auto& [id, t] : constants_) os << "  %" << id << " = constant(" << describe(t) << ")\n";
  for (const Step& s : steps_) {
    os << "  " << s.doc.at("outputs").str() << " = " << s.op->name << (s.inplace ? "_" : "") << s.doc.at("args").str();
    for (size_t i = 0; i < s.sizes.size(); ++i) {  // "  # args[1][0] = 0 + d0*d1"
      const Size& size = s.sizes[i];
      os << (i ? ", " : "  # ") << "args[" << size.arg << "]";
      if (size.element >= 0) os << "[" << size.element << "]";
      os << " = " << size.c;
      for (const Size::Term& t : size.terms) {
        os << (t.coef < 0 ? " - " : " + ") << (t.coef < 0 ? -t.coef : t.coef);
        for (size_t d : t.dims) os << "*d" << d;
      }
    }
    os << "\n";
  }
  os << "  return " << outputs_.str() << "\n";
  return os.str();
}

int64_t ProgramBuilder::new_value(const Tensor& t) {
  std::vector<io::Value> sizes(t.sizes().begin(), t.sizes().end());
  types_.push_back(io::Value::list({std::string(dtype_name(t.dtype())), io::Value::list(std::move(sizes))}));
  return num_values_++;
}

io::Value ProgramBuilder::document(io::Value outputs) const {
  std::vector<io::Value> inputs(inputs_.begin(), inputs_.end());
  std::vector<io::Value::Item> state, constants;
  for (const auto& [name, id] : state_) state.emplace_back(name, id);
  for (const auto& [id, t] : constants_) constants.emplace_back(id, t);
  return io::Value::dict({{"version", kProgramVersion},
                          {"values", num_values_},
                          {"inputs", io::Value::list(std::move(inputs))},
                          {"state", io::Value::dict(std::move(state))},
                          {"constants", io::Value::dict(std::move(constants))},
                          {"nodes", io::Value::list(nodes_)},
                          {"outputs", std::move(outputs)},
                          {"types", io::Value::list(types_)}});
}

}  // namespace ember::jit
