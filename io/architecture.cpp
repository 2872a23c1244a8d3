// Architectures: a registry of module types by name, each with a function that reads a module's
// settings into a dict and one that builds a module from them; the built-in layers are
// registered here, containers rebuild their children recursively.
#include "ember/io/architecture.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <variant>

#include "ember/core/factory.h"
#include "ember/nn/nn.h"

namespace ember::io {
namespace {

using Children = std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>;

struct TypeEntry {
  ToOptions to_options;
  FromOptions from_options;  // leaf types and user types
  // Containers and composites only: rebuilds the module from its already rebuilt children (names
  // kept) and its options.
  std::function<std::shared_ptr<nn::Module>(Children, const Value& options)> from_children;
};

std::string where(const std::string& path) { return path.empty() ? "the root module" : "'" + path + "'"; }

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// The module path being rebuilt on this thread, for the errors of built-in option readers: their
// factories take only the options, as a user's do.
std::string& building_path() {
  thread_local std::string path;
  return path;
}

template <typename T>
constexpr bool is_optional = false;
template <typename T>
constexpr bool is_optional<std::optional<T>> = true;
template <typename T>
constexpr bool is_vector = false;
template <typename T>
constexpr bool is_vector<std::vector<T>> = true;

// Sets building_path() for one factory call, restoring the outer path afterwards.
class BuildingPath {
 public:
  explicit BuildingPath(const std::string& path) : saved_(std::move(building_path())) { building_path() = path; }
  ~BuildingPath() { building_path() = std::move(saved_); }
  BuildingPath(const BuildingPath&) = delete;
  BuildingPath& operator=(const BuildingPath&) = delete;

 private:
  std::string saved_;
};

// Reads one built-in layer's options, naming the layer, its path and the option in every error.
// Optional fields absent from the node take the Options struct's default; a field the layer does
// not know is refused, since building without it would silently change the architecture.
class OptionReader {
 public:
  OptionReader(const Value& options, std::string type, std::string path)
      : options_(options), type_(std::move(type)), path_(std::move(path)) {
    EMBER_CHECK_TYPE(options.is_dict() || options.is_none(), "io: the options of ", type_, " at ",
                     where(path_), " are a ", options.type_name(), ", expected a dict");
  }

  int64_t get_int(const char* key, std::optional<int64_t> fallback = std::nullopt) {
    const Value* v = find(key, fallback.has_value());
    if (!v) return *fallback;
    check(v->is_int(), key, *v, "int");
    return v->as_int();
  }
  double get_float(const char* key, std::optional<double> fallback = std::nullopt) {
    const Value* v = find(key, fallback.has_value());
    if (!v) return *fallback;
    check(v->is_float() || v->is_int(), key, *v, "float");
    return v->as_float();
  }
  bool get_bool(const char* key, std::optional<bool> fallback = std::nullopt) {
    const Value* v = find(key, fallback.has_value());
    if (!v) return *fallback;
    check(v->is_bool(), key, *v, "bool");
    return v->as_bool();
  }
  std::string get_string(const char* key, std::optional<std::string> fallback = std::nullopt) {
    const Value* v = find(key, fallback.has_value());
    if (!v) return *fallback;
    check(v->is_string(), key, *v, "str");
    return v->as_string();
  }
  /// A float or None; `fallback` when the key is absent.
  std::optional<double> get_optional_float(const char* key, std::optional<double> fallback) {
    const Value* v = find(key, true);
    if (!v) return fallback;
    if (v->is_none()) return std::nullopt;
    check(v->is_float() || v->is_int(), key, *v, "float or None");
    return v->as_float();
  }
  std::optional<int64_t> get_optional_int(const char* key) {
    const Value* v = find(key, true);
    if (!v || v->is_none()) return std::nullopt;
    check(v->is_int(), key, *v, "int or None");
    return v->as_int();
  }
  std::vector<int64_t> get_ints(const char* key) {
    const Value* v = find(key, false);
    check(v->is_list() || v->is_tuple(), key, *v, "list of ints");
    std::vector<int64_t> out;
    for (const Value& item : v->items()) {
      check(item.is_int(), key, item, "list of ints");
      out.push_back(item.as_int());
    }
    return out;
  }
  Size2 get_size2(const char* key, std::optional<Size2> fallback = std::nullopt) {
    const Value* v = find(key, fallback.has_value());
    if (!v) return *fallback;
    return size2(key, *v);
  }
  /// An option that is a size or a name (a convolution's padding: [1, 1] or "same").
  std::variant<Size2, std::string> get_size2_or_string(const char* key, Size2 fallback) {
    const Value* v = find(key, true);
    if (!v) return fallback;
    if (v->is_string()) return v->as_string();
    return size2(key, *v);
  }
  std::variant<Size3, std::string> get_size3_or_string(const char* key, Size3 fallback) {
    const Value* v = find(key, true);
    if (!v) return fallback;
    if (v->is_string()) return v->as_string();
    return size3(key, *v);
  }
  /// An option of any type a field may have (int, float, bool, str, Size2, Size3, optional).
  template <typename T>
  T get_required(const char* key) {
    return read_value<T>(key, *find(key, false));
  }
  template <typename T>
  T get(const char* key, T fallback) {
    const Value* v = find(key, true);
    return v ? read_value<T>(key, *v) : fallback;
  }
  std::optional<Size2> get_optional_size2(const char* key) {
    const Value* v = find(key, true);
    if (!v || v->is_none()) return std::nullopt;
    return size2(key, *v);
  }
  /// A layer's option, by its field (nn/option_field.h); absent: the default already in `o`.
  template <typename O, typename T>
  void read_field(O& o, nn::OptionField<O, T> f) {
    if (const Value* v = find(f.name, true)) o.*(f.member) = read_value<T>(f.name, *v);
  }
  /// A weight buffer's placeholder  /// A weight buffer's placeholder (zeros of the recorded shape and dtype; the state
  /// fills it), or undefined when none was recorded.
  Tensor get_weight(const char* key) {
    const Value* v = find(key, true);
    if (!v || v->is_none()) return Tensor();
    check(v->is_dict(), key, *v, "dict with shape and dtype");
    OptionReader spec(*v, type_ + "." + key, path_);
    std::vector<int64_t> shape = spec.get_ints("shape");
    std::string dtype = spec.get_string("dtype");
    spec.done();
    std::optional<DType> t = dtype_from_name(dtype);
    EMBER_CHECK_VALUE(t.has_value(), "io: ", type_, " at ", where(path_), ": unknown dtype '", dtype, "' of ", key);
    return zeros(shape, TensorOptions(*t));
  }
  /// Refuses options nobody read.
  void done() const {
    if (!options_.is_dict()) return;
    for (const Key& key : options_.keys())
      EMBER_CHECK_VALUE(key.is_string() && read_.count(key.as_string()), "io: unknown option ", key, " for ", type_, " at ", where(path_),
                        " (written by a newer Ember?)");
  }

 private:
  const Value* find(const char* key, bool optional) {
    read_.insert(key);
    const Value* v = options_.is_dict() ? options_.find(key) : nullptr;
    EMBER_CHECK_VALUE(v || optional, "io: option '", key, "' of ", type_, " at ", where(path_), " is missing");
    return v;
  }
  void check(bool ok, const char* key, const Value& v, const char* expected) const {
    EMBER_CHECK_TYPE(ok, "io: option '", key, "' of ", type_, " at ", where(path_), " is a ", v.type_name(),
                     ", expected ", expected);
  }
  template <typename T>
  T read_value(const char* key, const Value& v) {
    if constexpr (is_optional<T>) {
      if (v.is_none()) return std::nullopt;
      return read_value<typename T::value_type>(key, v);
    } else if constexpr (is_vector<T>) {
      check(v.is_list() || v.is_tuple(), key, v, "list");
      T out;
      for (const Value& item : v.items()) out.push_back(read_value<typename T::value_type>(key, item));
      return out;
    } else if constexpr (std::is_same_v<T, nn::Reduction>) {
      check(v.is_string(), key, v, "str");
      return nn::functional::reduction_from_string(v.as_string(), type_.c_str());
    } else if constexpr (std::is_same_v<T, std::string>) {
      check(v.is_string(), key, v, "str");
      return v.as_string();
    } else if constexpr (std::is_same_v<T, bool>) {
      check(v.is_bool(), key, v, "bool");
      return v.as_bool();
    } else if constexpr (std::is_same_v<T, Size2>) {
      return size2(key, v);
    } else if constexpr (std::is_same_v<T, Size3>) {
      return size3(key, v);
    } else if constexpr (std::is_integral_v<T>) {
      check(v.is_int(), key, v, "int");
      return v.as_int();
    } else {
      check(v.is_float() || v.is_int(), key, v, "float");
      return v.as_float();
    }
  }
  Size3 size3(const char* key, const Value& v) const {
    if (v.is_int()) return Size3(v.as_int());
    check((v.is_list() || v.is_tuple()) && v.size() == 3 && v[0].is_int() && v[1].is_int() && v[2].is_int(), key, v,
          "[d, h, w] of ints");
    return Size3(v[0].as_int(), v[1].as_int(), v[2].as_int());
  }
  Size2 size2(const char* key, const Value& v) const {
    if (v.is_int()) return Size2(v.as_int());
    check((v.is_list() || v.is_tuple()) && v.size() == 2 && v[0].is_int() && v[1].is_int(), key, v,
          "[h, w] of ints");
    return Size2(v[0].as_int(), v[1].as_int());
  }

  const Value& options_;
  std::string type_, path_;
  std::set<std::string> read_;
};

// The rebuilt children of a composite layer (a TransformerEncoder's "layers" and "norm"), taken
// by name and type; a child missing, of the wrong type or left over is refused.
class ChildReader {
 public:
  ChildReader(Children children, std::string type, std::string path)
      : children_(std::move(children)), type_(std::move(type)), path_(std::move(path)) {}

  /// The child `name` as an M; null when it is absent and `optional`.
  template <typename M>
  std::shared_ptr<M> take(const std::string& name, bool optional = false) {
    for (auto& [child_name, child] : children_) {
      if (child_name != name || !child) continue;
      auto typed = std::dynamic_pointer_cast<M>(child);
      EMBER_CHECK_TYPE(typed != nullptr, "io: child '", name, "' of ", type_, " at ", where(path_), " is a ",
                       child->type_name(), ", which it cannot hold there");
      child.reset();
      return typed;
    }
    EMBER_CHECK_VALUE(optional, "io: child '", name, "' of ", type_, " at ", where(path_), " is missing");
    return nullptr;
  }
  /// Refuses children nobody took.
  void done() const {
    for (const auto& [name, child] : children_)
      EMBER_CHECK_VALUE(child == nullptr, "io: unexpected child '", name, "' of ", type_, " at ", where(path_));
  }

 private:
  Children children_;
  std::string type_, path_;
};

Value size2_value(Size2 s) { return Value::list({s.h, s.w}); }
Value int_list(const std::vector<int64_t>& xs) {
  std::vector<Value> items(xs.begin(), xs.end());
  return Value::list(std::move(items));
}

// One option as the architecture records it: sizes as lists, an unset optional as None.
template <typename T>
Value field_value(const T& v) {
  if constexpr (std::is_same_v<T, nn::Reduction>)
    return Value(nn::functional::reduction_name(v));
  else if constexpr (std::is_same_v<T, Size2>)
    return size2_value(v);
  else if constexpr (std::is_same_v<T, Size3>)
    return Value::list({v.d, v.h, v.w});
  else if constexpr (is_optional<T>)
    return v ? field_value(*v) : Value();
  else if constexpr (is_vector<T>)
    return Value::list(std::vector<Value>(v.begin(), v.end()));
  else
    return Value(v);
}

// A loss's options, written and read through its options struct's fields(); a weight buffer it was
// built with is recorded as its shape and dtype, so the loaded module has the buffer the state
// fills ({"weight": {"shape": [10], "dtype": "float32"}}).
template <typename O>
void write_fields(const O& o, std::vector<Value::Item>& items) {
  std::apply(
      [&](auto... f) {
        auto one = [&](auto field) { items.emplace_back(field.name, field_value(o.*(field.member))); };
        (one(f), ...);
      },
      O::fields());
}

Value weight_spec(const Tensor& weight) {
  if (!weight.defined()) return Value();
  return Value::dict(
      {{"shape", int_list(weight.sizes().std_vec())}, {"dtype", std::string(dtype_name(weight.dtype()))}});
}

// The built-in layer a module claims to be by its type name; a user class that reuses a built-in
// name but is another class is refused rather than described wrongly.
template <typename T>
const T& as_layer(const nn::Module& m) {
  const T* layer = dynamic_cast<const T*>(&m);
  EMBER_CHECK_TYPE(layer != nullptr, "io: a module named '", m.type_name(), "' is not the built-in ",
                   m.type_name(), "; give it a type name of its own and register it with "
                   "io::register_module_type");
  return *layer;
}

// The builder of a built-in layer: reads its options, then checks that all were used.
using Build = std::function<std::shared_ptr<nn::Module>(OptionReader&)>;

class Registry {
 public:
  static Registry& get() {
    static Registry registry;
    return registry;
  }

  void add(const std::string& name, TypeEntry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    EMBER_CHECK_KEY(!types_.count(name), "io::register_module_type: module type '", name,
                    "' is already registered");
    types_.emplace(name, std::move(entry));
  }
  std::optional<TypeEntry> find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = types_.find(name);
    if (it == types_.end()) return std::nullopt;
    return it->second;  // a copy: a factory may re-enter the registry for its children
  }
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, entry] : types_) out.push_back(name);
    return out;
  }

 private:
  Registry() { add_builtins(); }

  // A built-in leaf layer: `to` reads its options, `build` makes one from an OptionReader. The
  // path for errors is set by from_architecture through the reader.
  template <typename T>
  void builtin(const std::string& name, std::function<Value(const T&)> to, Build build) {
    TypeEntry entry;
    entry.to_options = [to = std::move(to)](const nn::Module& m) { return to(as_layer<T>(m)); };
    entry.from_options = [name, build = std::move(build)](const Value& options) {
      OptionReader reader(options, name, building_path());
      std::shared_ptr<nn::Module> m = build(reader);
      reader.done();
      return m;
    };
    types_.emplace(name, std::move(entry));
  }

  template <typename T>
  void container(const std::string& name, std::function<void(T&, const std::string&, std::shared_ptr<nn::Module>)> add) {
    TypeEntry entry;
    entry.to_options = [](const nn::Module& m) {
      as_layer<T>(m);
      return Value::dict();
    };
    entry.from_children = [add = std::move(add)](Children children, const Value&) {
      auto m = std::make_shared<T>();
      for (auto& [child_name, child] : children) add(*m, child_name, std::move(child));
      return std::shared_ptr<nn::Module>(m);
    };
    types_.emplace(name, std::move(entry));
  }

  // A built-in layer made of children it does not build itself (a TransformerEncoder's layers):
  // recorded with its options and its children, rebuilt from both.
  template <typename T>
  void composite(const std::string& name, std::function<Value(const T&)> to,
                 std::function<std::shared_ptr<nn::Module>(OptionReader&, ChildReader&)> build) {
    TypeEntry entry;
    entry.to_options = [to = std::move(to)](const nn::Module& m) { return to(as_layer<T>(m)); };
    entry.from_children = [name, build = std::move(build)](Children children, const Value& options) {
      OptionReader option_reader(options, name, building_path());
      ChildReader child_reader(std::move(children), name, building_path());
      std::shared_ptr<nn::Module> m = build(option_reader, child_reader);
      option_reader.done();
      child_reader.done();
      return m;
    };
    types_.emplace(name, std::move(entry));
  }

  // A stack of transformer layers: its "layers" (a ModuleList) and optional "norm".
  template <typename T>
  void transformer_stack(const std::string& name) {
    composite<T>(name, [](const T&) { return Value::dict(); }, [](OptionReader&, ChildReader& c) {
      auto layers = c.take<nn::ModuleList>("layers");
      return std::make_shared<T>(layers, c.take<nn::Module>("norm", true));
    });
  }

  template <typename T>
  void stateless(const std::string& name) {
    builtin<T>(name, [](const T&) { return Value::dict(); }, [](OptionReader&) { return std::make_shared<T>(); });
  }

  void add_builtins();

  // A layer made from an options struct with fields() (the losses, the activations): its fields
  // and, for a weighted loss, its weight buffers (the options' weights()).
  template <typename M>
  void builtin_with_fields(const std::string& name) {
    builtin<M>(
        name,
        [name](const M& m) {
          if constexpr (requires { m.options().distance_function; })
            EMBER_CHECK_VALUE(
                !m.options().distance_function, "io: ", name,
                " holds a distance_function, which is "
                "code, not state, and cannot be saved; save the model without it and set it after loading");
          std::vector<Value::Item> items;
          write_fields(m.options(), items);
          if constexpr (std::is_base_of_v<nn::Loss, M>)
            nn::for_each_weight<typename M::Options>(
                [&](auto w) { items.emplace_back(w.name, weight_spec(m.weight(w.name))); });
          return Value::dict(std::move(items));
        },
        [](OptionReader& r) {
          typename M::Options o{};
          std::apply([&](auto... f) { (r.read_field(o, f), ...); }, M::Options::fields());
          nn::for_each_weight<typename M::Options>([&](auto w) { o.*(w.member) = r.get_weight(w.name); });
          return std::make_shared<M>(o);
        });
  }
  // ConvTranspose1d or ConvTranspose3d: its ConvTransposeOptions.
  template <typename M>
  void conv_transpose(const std::string& name) {
    using O = std::remove_cvref_t<decltype(std::declval<M>().options())>;
    builtin<M>(
        name,
        [](const M& m) {
          const O& o = m.options();
          return Value::dict({{"in_channels", o.in_channels},
                              {"out_channels", o.out_channels},
                              {"kernel_size", field_value(o.kernel_size)},
                              {"stride", field_value(o.stride)},
                              {"padding", field_value(o.padding)},
                              {"output_padding", field_value(o.output_padding)},
                              {"groups", o.groups},
                              {"bias", o.bias},
                              {"dilation", field_value(o.dilation)}});
        },
        [](OptionReader& r) {
          using Size = decltype(O::kernel_size);
          O o{r.get_int("in_channels"), r.get_int("out_channels"), r.get_required<Size>("kernel_size")};
          o.stride = r.get("stride", o.stride);
          o.padding = r.get("padding", o.padding);
          o.output_padding = r.get("output_padding", o.output_padding);
          o.groups = r.get_int("groups", o.groups);
          o.bias = r.get_bool("bias", o.bias);
          o.dilation = r.get("dilation", o.dilation);
          return std::make_shared<M>(o);
        });
  }
  // A padding layer: its amounts (and a constant one's value).
  template <typename M>
  void builtin_pad(const std::string& name) {
    builtin<M>(
        name,
        [](const M& m) {
          if constexpr (std::is_constructible_v<M, nn::PadAmounts>)
            return Value::dict({{"padding", int_list(m.padding())}});
          else
            return Value::dict({{"padding", int_list(m.padding())}, {"value", m.value()}});
        },
        [](OptionReader& r) {
          std::vector<int64_t> padding = r.get_ints("padding");
          if constexpr (std::is_constructible_v<M, nn::PadAmounts>)
            return std::make_shared<M>(nn::PadAmounts(padding));
          else
            return std::make_shared<M>(nn::PadAmounts(padding), r.get_float("value"));
        });
  }
  mutable std::mutex mutex_;
  std::map<std::string, TypeEntry> types_;
};

Value pool_options(const nn::Pool2dOptions& o) {
  return Value::dict({{"kernel_size", size2_value(o.kernel_size)},
                      {"stride", o.stride ? size2_value(*o.stride) : Value()},
                      {"padding", size2_value(o.padding)},
                      {"dilation", size2_value(o.dilation)},
                      {"ceil_mode", o.ceil_mode},
                      {"count_include_pad", o.count_include_pad}});
}

nn::Pool2dOptions read_pool_options(OptionReader& r) {
  nn::Pool2dOptions o{.kernel_size = r.get_size2("kernel_size"), .stride = r.get_optional_size2("stride")};
  o.padding = r.get_size2("padding", o.padding);
  o.dilation = r.get_size2("dilation", o.dilation);
  o.ceil_mode = r.get_bool("ceil_mode", o.ceil_mode);
  o.count_include_pad = r.get_bool("count_include_pad", o.count_include_pad);
  return o;
}

Value batch_norm_options(const nn::BatchNorm& m) {
  const nn::BatchNormOptions& o = m.options();
  return Value::dict({{"num_features", o.num_features},
                      {"eps", o.eps},
                      {"momentum", o.momentum ? Value(*o.momentum) : Value()},
                      {"affine", o.affine},
                      {"track_running_stats", o.track_running_stats}});
}

nn::BatchNormOptions read_batch_norm_options(OptionReader& r) {
  nn::BatchNormOptions o{r.get_int("num_features")};
  o.eps = r.get_float("eps", o.eps);
  o.momentum = r.get_optional_float("momentum", o.momentum);
  o.affine = r.get_bool("affine", o.affine);
  o.track_running_stats = r.get_bool("track_running_stats", o.track_running_stats);
  return o;
}

Value instance_norm_options(const nn::InstanceNorm& m) {
  const nn::InstanceNormOptions& o = m.options();
  return Value::dict({{"num_features", o.num_features},
                      {"eps", o.eps},
                      {"momentum", o.momentum},
                      {"affine", o.affine},
                      {"track_running_stats", o.track_running_stats},
                      {"bias", o.bias}});
}

nn::InstanceNormOptions read_instance_norm_options(OptionReader& r) {
  nn::InstanceNormOptions o{r.get_int("num_features")};
  o.eps = r.get_float("eps", o.eps);
  o.momentum = r.get_float("momentum", o.momentum);
  o.affine = r.get_bool("affine", o.affine);
  o.track_running_stats = r.get_bool("track_running_stats", o.track_running_stats);
  o.bias = r.get_bool("bias", o.bias);
  return o;
}

Value transformer_layer_options(const nn::TransformerLayerOptions& o) {
  return Value::dict({{"d_model", o.d_model},
                      {"nhead", o.nhead},
                      {"dim_feedforward", o.dim_feedforward},
                      {"dropout", o.dropout},
                      {"activation", o.activation},
                      {"layer_norm_eps", o.layer_norm_eps},
                      {"batch_first", o.batch_first},
                      {"norm_first", o.norm_first},
                      {"bias", o.bias}});
}

nn::TransformerLayerOptions read_transformer_layer_options(OptionReader& r) {
  nn::TransformerLayerOptions o{r.get_int("d_model"), r.get_int("nhead")};
  o.dim_feedforward = r.get_int("dim_feedforward", o.dim_feedforward);
  o.dropout = r.get_float("dropout", o.dropout);
  o.activation = r.get_string("activation", o.activation);
  o.layer_norm_eps = r.get_float("layer_norm_eps", o.layer_norm_eps);
  o.batch_first = r.get_bool("batch_first", o.batch_first);
  o.norm_first = r.get_bool("norm_first", o.norm_first);
  o.bias = r.get_bool("bias", o.bias);
  return o;
}

// A convolution's padding: its name ("same", "valid") when given by name, else `explicit_padding`.
Value padding_value(const std::optional<PaddingRule>& rule, Value explicit_padding) {
  return rule ? Value(padding_rule_name(*rule)) : explicit_padding;
}

// The padding option padding_value wrote: a name sets `rule` (`what` names it in the error), a
// size is returned (`fallback` when absent).
Size2 read_padding(OptionReader& r, const char* what, Size2 fallback, std::optional<PaddingRule>& rule) {
  auto padding = r.get_size2_or_string("padding", fallback);
  if (auto* name = std::get_if<std::string>(&padding)) {
    rule = padding_rule(*name, what);
    return fallback;
  }
  return std::get<Size2>(padding);
}

Value rnn_options(const nn::RNNBase& m) {
  const nn::RNNOptions& o = m.options();
  Value v = Value::dict({{"input_size", o.input_size},
                         {"hidden_size", o.hidden_size},
                         {"num_layers", o.num_layers},
                         {"bias", o.bias},
                         {"batch_first", o.batch_first},
                         {"dropout", o.dropout},
                         {"bidirectional", o.bidirectional}});
  if (m.type_name() == "RNN") v.set("nonlinearity", o.nonlinearity);
  if (m.type_name() == "LSTM") v.set("proj_size", o.proj_size);
  return v;
}

// `type` decides the extra option it reads: RNN's nonlinearity, LSTM's proj_size.
nn::RNNOptions read_rnn_options(OptionReader& r, const std::string& type) {
  nn::RNNOptions o{r.get_int("input_size"), r.get_int("hidden_size")};
  o.num_layers = r.get_int("num_layers", o.num_layers);
  o.bias = r.get_bool("bias", o.bias);
  o.batch_first = r.get_bool("batch_first", o.batch_first);
  o.dropout = r.get_float("dropout", o.dropout);
  o.bidirectional = r.get_bool("bidirectional", o.bidirectional);
  if (type == "RNN") o.nonlinearity = r.get_string("nonlinearity", o.nonlinearity);
  if (type == "LSTM") o.proj_size = r.get_int("proj_size", o.proj_size);
  return o;
}

Value rnn_cell_options(const nn::RNNCellBase& m) {
  const nn::RNNCellOptions& o = m.options();
  Value v = Value::dict({{"input_size", o.input_size}, {"hidden_size", o.hidden_size}, {"bias", o.bias}});
  if (m.type_name() == "RNNCell") v.set("nonlinearity", o.nonlinearity);
  return v;
}

nn::RNNCellOptions read_rnn_cell_options(OptionReader& r, const std::string& type) {
  nn::RNNCellOptions o{r.get_int("input_size"), r.get_int("hidden_size")};
  o.bias = r.get_bool("bias", o.bias);
  if (type == "RNNCell") o.nonlinearity = r.get_string("nonlinearity", o.nonlinearity);
  return o;
}

void Registry::add_builtins() {
  using namespace nn;
  builtin<Linear>(
      "Linear",
      [](const Linear& m) {
        const LinearOptions& o = m.options();
        return Value::dict({{"in_features", o.in_features}, {"out_features", o.out_features}, {"bias", o.bias}});
      },
      [](OptionReader& r) {
        LinearOptions o{r.get_int("in_features"), r.get_int("out_features")};
        o.bias = r.get_bool("bias", o.bias);
        return std::make_shared<Linear>(o);
      });
  builtin<Conv2d>(
      "Conv2d",
      [](const Conv2d& m) {
        const Conv2dOptions& o = m.options();
        return Value::dict({{"in_channels", o.in_channels},
                            {"out_channels", o.out_channels},
                            {"kernel_size", size2_value(o.kernel_size)},
                            {"stride", size2_value(o.stride)},
                            {"padding", padding_value(o.padding_rule, size2_value(o.padding))},
                            {"dilation", size2_value(o.dilation)},
                            {"groups", o.groups},
                            {"bias", o.bias},
                            {"padding_mode", o.padding_mode}});
      },
      [](OptionReader& r) {
        Conv2dOptions o{r.get_int("in_channels"), r.get_int("out_channels"), r.get_size2("kernel_size")};
        o.stride = r.get_size2("stride", o.stride);
        o.padding = read_padding(r, "io: Conv2d padding", o.padding, o.padding_rule);
        o.dilation = r.get_size2("dilation", o.dilation);
        o.groups = r.get_int("groups", o.groups);
        o.bias = r.get_bool("bias", o.bias);
        o.padding_mode = r.get_string("padding_mode", o.padding_mode);
        return std::make_shared<Conv2d>(o);
      });
  builtin<Conv1d>(
      "Conv1d",
      [](const Conv1d& m) {
        const Conv1dOptions& o = m.options();
        return Value::dict({{"in_channels", o.in_channels},
                            {"out_channels", o.out_channels},
                            {"kernel_size", o.kernel_size},
                            {"stride", o.stride},
                            {"padding", padding_value(o.padding_rule, Value(o.padding))},
                            {"dilation", o.dilation},
                            {"groups", o.groups},
                            {"bias", o.bias},
                            {"padding_mode", o.padding_mode}});
      },
      [](OptionReader& r) {
        Conv1dOptions o{r.get_int("in_channels"), r.get_int("out_channels"), r.get_int("kernel_size")};
        o.stride = r.get_int("stride", o.stride);
        o.padding = read_padding(r, "io: Conv1d padding", Size2(o.padding), o.padding_rule).w;
        o.dilation = r.get_int("dilation", o.dilation);
        o.groups = r.get_int("groups", o.groups);
        o.bias = r.get_bool("bias", o.bias);
        o.padding_mode = r.get_string("padding_mode", o.padding_mode);
        return std::make_shared<Conv1d>(o);
      });
  builtin<Conv3d>(
      "Conv3d",
      [](const Conv3d& m) {
        const Conv3dOptions& o = m.options();
        return Value::dict({{"in_channels", o.in_channels},
                            {"out_channels", o.out_channels},
                            {"kernel_size", field_value(o.kernel_size)},
                            {"stride", field_value(o.stride)},
                            {"padding", padding_value(o.padding_rule, field_value(o.padding))},
                            {"dilation", field_value(o.dilation)},
                            {"groups", o.groups},
                            {"bias", o.bias},
                            {"padding_mode", o.padding_mode}});
      },
      [](OptionReader& r) {
        Conv3dOptions o{r.get_int("in_channels"), r.get_int("out_channels"), r.get_required<Size3>("kernel_size")};
        o.stride = r.get("stride", o.stride);
        auto padding = r.get_size3_or_string("padding", o.padding);
        if (auto* name = std::get_if<std::string>(&padding))
          o.padding_rule = padding_rule(*name, "io: Conv3d padding");
        else
          o.padding = std::get<Size3>(padding);
        o.dilation = r.get("dilation", o.dilation);
        o.groups = r.get_int("groups", o.groups);
        o.bias = r.get_bool("bias", o.bias);
        o.padding_mode = r.get_string("padding_mode", o.padding_mode);
        return std::make_shared<Conv3d>(o);
      });
  conv_transpose<ConvTranspose1d>("ConvTranspose1d");
  conv_transpose<ConvTranspose3d>("ConvTranspose3d");
  builtin<ConvTranspose2d>(
      "ConvTranspose2d",
      [](const ConvTranspose2d& m) {
        const ConvTranspose2dOptions& o = m.options();
        return Value::dict({{"in_channels", o.in_channels},
                            {"out_channels", o.out_channels},
                            {"kernel_size", size2_value(o.kernel_size)},
                            {"stride", size2_value(o.stride)},
                            {"padding", size2_value(o.padding)},
                            {"output_padding", size2_value(o.output_padding)},
                            {"groups", o.groups},
                            {"bias", o.bias},
                            {"dilation", size2_value(o.dilation)}});
      },
      [](OptionReader& r) {
        ConvTranspose2dOptions o{r.get_int("in_channels"), r.get_int("out_channels"), r.get_size2("kernel_size")};
        o.stride = r.get_size2("stride", o.stride);
        o.padding = r.get_size2("padding", o.padding);
        o.output_padding = r.get_size2("output_padding", o.output_padding);
        o.groups = r.get_int("groups", o.groups);
        o.bias = r.get_bool("bias", o.bias);
        o.dilation = r.get_size2("dilation", o.dilation);
        return std::make_shared<ConvTranspose2d>(o);
      });
  builtin<MaxPool2d>(
      "MaxPool2d", [](const MaxPool2d& m) { return pool_options(m.options()); },
      [](OptionReader& r) { return std::make_shared<MaxPool2d>(read_pool_options(r)); });
  builtin<AvgPool2d>(
      "AvgPool2d", [](const AvgPool2d& m) { return pool_options(m.options()); },
      [](OptionReader& r) { return std::make_shared<AvgPool2d>(read_pool_options(r)); });
  builtin<AdaptiveAvgPool2d>(
      "AdaptiveAvgPool2d",
      [](const AdaptiveAvgPool2d& m) { return Value::dict({{"output_size", size2_value(m.output_size())}}); },
      [](OptionReader& r) { return std::make_shared<AdaptiveAvgPool2d>(r.get_size2("output_size")); });
  builtin<AdaptiveMaxPool2d>(
      "AdaptiveMaxPool2d",
      [](const AdaptiveMaxPool2d& m) {
        return Value::dict({{"output_size", size2_value(m.output_size())}, {"return_indices", m.return_indices()}});
      },
      [](OptionReader& r) {
        return std::make_shared<AdaptiveMaxPool2d>(r.get_size2("output_size"), r.get_bool("return_indices", false));
      });
  builtin<GroupNorm>(
      "GroupNorm",
      [](const GroupNorm& m) {
        const GroupNormOptions& o = m.options();
        return Value::dict({{"num_groups", o.num_groups},
                            {"num_channels", o.num_channels},
                            {"eps", o.eps},
                            {"affine", o.affine},
                            {"bias", o.bias}});
      },
      [](OptionReader& r) {
        GroupNormOptions o{r.get_int("num_groups"), r.get_int("num_channels")};
        o.eps = r.get_float("eps", o.eps);
        o.affine = r.get_bool("affine", o.affine);
        o.bias = r.get_bool("bias", o.bias);
        return std::make_shared<GroupNorm>(o);
      });
  builtin<InstanceNorm1d>("InstanceNorm1d", instance_norm_options, [](OptionReader& r) {
    return std::make_shared<InstanceNorm1d>(read_instance_norm_options(r));
  });
  builtin<InstanceNorm2d>("InstanceNorm2d", instance_norm_options, [](OptionReader& r) {
    return std::make_shared<InstanceNorm2d>(read_instance_norm_options(r));
  });
  builtin<InstanceNorm3d>("InstanceNorm3d", instance_norm_options, [](OptionReader& r) {
    return std::make_shared<InstanceNorm3d>(read_instance_norm_options(r));
  });
  builtin<PReLU>(
      "PReLU",
      [](const PReLU& m) { return Value::dict({{"num_parameters", m.num_parameters()}, {"init", m.init()}}); },
      [](OptionReader& r) { return std::make_shared<PReLU>(r.get_int("num_parameters", 1), r.get_float("init", 0.25)); });
  builtin<BatchNorm1d>("BatchNorm1d", batch_norm_options, [](OptionReader& r) {
    return std::make_shared<BatchNorm1d>(read_batch_norm_options(r));
  });
  builtin<BatchNorm2d>("BatchNorm2d", batch_norm_options,
                       [](OptionReader& r) { return std::make_shared<BatchNorm2d>(read_batch_norm_options(r)); });
  builtin<BatchNorm3d>("BatchNorm3d", batch_norm_options,
                       [](OptionReader& r) { return std::make_shared<BatchNorm3d>(read_batch_norm_options(r)); });
  builtin<LayerNorm>(
      "LayerNorm",
      [](const LayerNorm& m) {
        const LayerNormOptions& o = m.options();
        return Value::dict({{"normalized_shape", int_list(o.normalized_shape)},
                            {"eps", o.eps},
                            {"elementwise_affine", o.elementwise_affine},
                            {"bias", o.bias}});
      },
      [](OptionReader& r) {
        LayerNormOptions o{r.get_ints("normalized_shape")};
        o.eps = r.get_float("eps", o.eps);
        o.elementwise_affine = r.get_bool("elementwise_affine", o.elementwise_affine);
        o.bias = r.get_bool("bias", o.bias);
        return std::make_shared<LayerNorm>(o);
      });
  builtin<Embedding>(
      "Embedding",
      [](const Embedding& m) {
        const EmbeddingOptions& o = m.options();
        return Value::dict({{"num_embeddings", o.num_embeddings},
                            {"embedding_dim", o.embedding_dim},
                            {"padding_idx", o.padding_idx ? Value(*o.padding_idx) : Value()}});
      },
      [](OptionReader& r) {
        EmbeddingOptions o{r.get_int("num_embeddings"), r.get_int("embedding_dim"), std::nullopt};
        o.padding_idx = r.get_optional_int("padding_idx");
        return std::make_shared<Embedding>(o);
      });
  builtin_with_fields<L1Loss>("L1Loss");
  builtin_with_fields<MSELoss>("MSELoss");
  builtin_with_fields<CrossEntropyLoss>("CrossEntropyLoss");
  builtin_with_fields<NLLLoss>("NLLLoss");
  builtin_with_fields<BCELoss>("BCELoss");
  builtin_with_fields<BCEWithLogitsLoss>("BCEWithLogitsLoss");
  builtin_with_fields<SmoothL1Loss>("SmoothL1Loss");
  builtin_with_fields<HuberLoss>("HuberLoss");
  builtin_with_fields<KLDivLoss>("KLDivLoss");
  builtin_with_fields<PoissonNLLLoss>("PoissonNLLLoss");
  builtin_with_fields<GaussianNLLLoss>("GaussianNLLLoss");
  builtin_with_fields<MarginRankingLoss>("MarginRankingLoss");
  builtin_with_fields<HingeEmbeddingLoss>("HingeEmbeddingLoss");
  builtin_with_fields<SoftMarginLoss>("SoftMarginLoss");
  builtin_with_fields<MultiLabelSoftMarginLoss>("MultiLabelSoftMarginLoss");
  builtin_with_fields<CosineEmbeddingLoss>("CosineEmbeddingLoss");
  builtin_with_fields<MultiMarginLoss>("MultiMarginLoss");
  builtin_with_fields<MultiLabelMarginLoss>("MultiLabelMarginLoss");
  builtin_with_fields<TripletMarginLoss>("TripletMarginLoss");
  builtin_with_fields<TripletMarginWithDistanceLoss>("TripletMarginWithDistanceLoss");
  builtin_with_fields<CTCLoss>("CTCLoss");
  builtin_with_fields<SiLU>("SiLU");
  builtin_with_fields<Mish>("Mish");
  builtin_with_fields<SELU>("SELU");
  builtin_with_fields<ReLU6>("ReLU6");
  builtin_with_fields<Hardsigmoid>("Hardsigmoid");
  builtin_with_fields<Hardswish>("Hardswish");
  builtin_with_fields<Softsign>("Softsign");
  builtin_with_fields<Tanhshrink>("Tanhshrink");
  builtin_with_fields<LogSigmoid>("LogSigmoid");
  builtin_with_fields<Softmax2d>("Softmax2d");
  builtin_with_fields<ELU>("ELU");
  builtin_with_fields<CELU>("CELU");
  builtin_with_fields<Softplus>("Softplus");
  builtin_with_fields<Hardtanh>("Hardtanh");
  builtin_with_fields<Threshold>("Threshold");
  builtin_with_fields<GLU>("GLU");
  builtin_with_fields<LogSoftmax>("LogSoftmax");
  builtin_with_fields<Softmin>("Softmin");
  builtin_with_fields<Softshrink>("Softshrink");
  builtin_with_fields<Hardshrink>("Hardshrink");
  builtin_with_fields<RReLU>("RReLU");
  builtin_pad<ZeroPad1d>("ZeroPad1d");
  builtin_pad<ZeroPad2d>("ZeroPad2d");
  builtin_pad<ZeroPad3d>("ZeroPad3d");
  builtin_pad<ConstantPad1d>("ConstantPad1d");
  builtin_pad<ConstantPad2d>("ConstantPad2d");
  builtin_pad<ConstantPad3d>("ConstantPad3d");
  builtin_pad<ReflectionPad1d>("ReflectionPad1d");
  builtin_pad<ReflectionPad2d>("ReflectionPad2d");
  builtin_pad<ReflectionPad3d>("ReflectionPad3d");
  builtin_pad<ReplicationPad1d>("ReplicationPad1d");
  builtin_pad<ReplicationPad2d>("ReplicationPad2d");
  builtin_pad<ReplicationPad3d>("ReplicationPad3d");
  builtin_pad<CircularPad1d>("CircularPad1d");
  builtin_pad<CircularPad2d>("CircularPad2d");
  builtin_pad<CircularPad3d>("CircularPad3d");
  builtin_with_fields<PixelShuffle>("PixelShuffle");
  builtin_with_fields<PixelUnshuffle>("PixelUnshuffle");
  builtin_with_fields<ChannelShuffle>("ChannelShuffle");
  builtin_with_fields<Dropout1d>("Dropout1d");
  builtin_with_fields<Dropout2d>("Dropout2d");
  builtin_with_fields<Dropout3d>("Dropout3d");
  builtin_with_fields<AlphaDropout>("AlphaDropout");
  builtin_with_fields<FeatureAlphaDropout>("FeatureAlphaDropout");
  builtin_with_fields<PairwiseDistance>("PairwiseDistance");
  builtin_with_fields<CosineSimilarity>("CosineSimilarity");
  builtin_with_fields<LocalResponseNorm>("LocalResponseNorm");
  builtin_with_fields<Bilinear>("Bilinear");
  builtin_with_fields<Unfold>("Unfold");
  builtin_with_fields<Fold>("Fold");
  builtin_with_fields<MaxPool1d>("MaxPool1d");
  builtin_with_fields<AvgPool1d>("AvgPool1d");
  builtin_with_fields<AdaptiveAvgPool1d>("AdaptiveAvgPool1d");
  builtin_with_fields<AdaptiveMaxPool1d>("AdaptiveMaxPool1d");
  builtin_with_fields<MaxPool3d>("MaxPool3d");
  builtin_with_fields<AvgPool3d>("AvgPool3d");
  builtin_with_fields<AdaptiveAvgPool3d>("AdaptiveAvgPool3d");
  builtin_with_fields<AdaptiveMaxPool3d>("AdaptiveMaxPool3d");
  builtin_with_fields<LPPool1d>("LPPool1d");
  builtin_with_fields<LPPool2d>("LPPool2d");
  builtin_with_fields<LPPool3d>("LPPool3d");
  builtin_with_fields<Upsample>("Upsample");
  builtin_with_fields<UpsamplingNearest2d>("UpsamplingNearest2d");
  builtin_with_fields<UpsamplingBilinear2d>("UpsamplingBilinear2d");
  builtin<Unflatten>(
      "Unflatten",
      [](const Unflatten& m) {
        return Value::dict({{"dim", m.dim()}, {"unflattened_size", int_list(m.unflattened_size())}});
      },
      [](OptionReader& r) { return std::make_shared<Unflatten>(r.get_int("dim"), r.get_ints("unflattened_size")); });
  builtin<EmbeddingBag>(
      "EmbeddingBag",
      [](const EmbeddingBag& m) {
        const EmbeddingBagOptions& o = m.options();
        return Value::dict({{"num_embeddings", o.num_embeddings},
                            {"embedding_dim", o.embedding_dim},
                            {"mode", o.mode},
                            {"include_last_offset", o.include_last_offset},
                            {"padding_idx", o.padding_idx ? Value(*o.padding_idx) : Value()}});
      },
      [](OptionReader& r) {
        EmbeddingBagOptions o{r.get_int("num_embeddings"), r.get_int("embedding_dim")};
        o.mode = r.get_string("mode", o.mode);
        o.include_last_offset = r.get_bool("include_last_offset", o.include_last_offset);
        o.padding_idx = r.get_optional_int("padding_idx");
        return std::make_shared<EmbeddingBag>(o);
      });
  builtin<Dropout>(
      "Dropout", [](const Dropout& m) { return Value::dict({{"p", m.p()}}); },
      [](OptionReader& r) { return std::make_shared<Dropout>(r.get_float("p", 0.5)); });
  builtin<Flatten>(
      "Flatten",
      [](const Flatten& m) { return Value::dict({{"start_dim", m.start_dim()}, {"end_dim", m.end_dim()}}); },
      [](OptionReader& r) {
        return std::make_shared<Flatten>(r.get_int("start_dim", 1), r.get_int("end_dim", -1));
      });
  builtin<GELU>(
      "GELU", [](const GELU& m) { return Value::dict({{"approximate", m.approximate()}}); },
      [](OptionReader& r) { return std::make_shared<GELU>(r.get_string("approximate", "none")); });
  builtin<LeakyReLU>(
      "LeakyReLU", [](const LeakyReLU& m) { return Value::dict({{"negative_slope", m.negative_slope()}}); },
      [](OptionReader& r) { return std::make_shared<LeakyReLU>(r.get_float("negative_slope", 0.01)); });
  builtin<Softmax>(
      "Softmax", [](const Softmax& m) { return Value::dict({{"dim", m.dim()}}); },
      [](OptionReader& r) { return std::make_shared<Softmax>(r.get_int("dim")); });
  stateless<ReLU>("ReLU");
  stateless<Tanh>("Tanh");
  stateless<Sigmoid>("Sigmoid");
  stateless<Identity>("Identity");
  builtin<MultiheadAttention>(
      "MultiheadAttention",
      [](const MultiheadAttention& m) {
        const MultiheadAttentionOptions& o = m.options();
        return Value::dict({{"embed_dim", o.embed_dim},
                            {"num_heads", o.num_heads},
                            {"dropout", o.dropout},
                            {"bias", o.bias},
                            {"batch_first", o.batch_first},
                            {"add_bias_kv", o.add_bias_kv},
                            {"add_zero_attn", o.add_zero_attn},
                            {"kdim", o.kdim ? Value(*o.kdim) : Value()},
                            {"vdim", o.vdim ? Value(*o.vdim) : Value()}});
      },
      [](OptionReader& r) {
        MultiheadAttentionOptions o{r.get_int("embed_dim"), r.get_int("num_heads")};
        o.dropout = r.get_float("dropout", o.dropout);
        o.bias = r.get_bool("bias", o.bias);
        o.batch_first = r.get_bool("batch_first", o.batch_first);
        o.add_bias_kv = r.get_bool("add_bias_kv", o.add_bias_kv);
        o.add_zero_attn = r.get_bool("add_zero_attn", o.add_zero_attn);
        o.kdim = r.get_optional_int("kdim");
        o.vdim = r.get_optional_int("vdim");
        return std::make_shared<MultiheadAttention>(o);
      });
  builtin<TransformerEncoderLayer>(
      "TransformerEncoderLayer", [](const TransformerEncoderLayer& m) { return transformer_layer_options(m.options()); },
      [](OptionReader& r) { return std::make_shared<TransformerEncoderLayer>(read_transformer_layer_options(r)); });
  builtin<TransformerDecoderLayer>(
      "TransformerDecoderLayer", [](const TransformerDecoderLayer& m) { return transformer_layer_options(m.options()); },
      [](OptionReader& r) { return std::make_shared<TransformerDecoderLayer>(read_transformer_layer_options(r)); });
  transformer_stack<TransformerEncoder>("TransformerEncoder");
  transformer_stack<TransformerDecoder>("TransformerDecoder");
  composite<Transformer>(
      "Transformer",
      [](const Transformer& m) {
        const TransformerOptions& o = m.options();
        Value options = transformer_layer_options(o.layer());
        options.set("num_encoder_layers", o.num_encoder_layers);
        options.set("num_decoder_layers", o.num_decoder_layers);
        return options;
      },
      [](OptionReader& r, ChildReader& c) {
        TransformerOptions o = TransformerOptions::from(read_transformer_layer_options(r));
        o.num_encoder_layers = r.get_int("num_encoder_layers", o.num_encoder_layers);
        o.num_decoder_layers = r.get_int("num_decoder_layers", o.num_decoder_layers);
        auto encoder = c.take<TransformerEncoder>("encoder");
        return std::make_shared<Transformer>(o, encoder, c.take<TransformerDecoder>("decoder"));
      });

  builtin<RNN>("RNN", rnn_options, [](OptionReader& r) { return std::make_shared<RNN>(read_rnn_options(r, "RNN")); });
  builtin<LSTM>("LSTM", rnn_options, [](OptionReader& r) { return std::make_shared<LSTM>(read_rnn_options(r, "LSTM")); });
  builtin<GRU>("GRU", rnn_options, [](OptionReader& r) { return std::make_shared<GRU>(read_rnn_options(r, "GRU")); });
  builtin<RNNCell>("RNNCell", rnn_cell_options, [](OptionReader& r) {
    return std::make_shared<RNNCell>(read_rnn_cell_options(r, "RNNCell"));
  });
  builtin<LSTMCell>("LSTMCell", rnn_cell_options, [](OptionReader& r) {
    return std::make_shared<LSTMCell>(read_rnn_cell_options(r, "LSTMCell"));
  });
  builtin<GRUCell>("GRUCell", rnn_cell_options, [](OptionReader& r) {
    return std::make_shared<GRUCell>(read_rnn_cell_options(r, "GRUCell"));
  });

  container<Sequential>("Sequential", [](Sequential& s, const std::string& name, std::shared_ptr<Module> child) {
    s.push_back(name, std::move(child));
  });
  container<ModuleList>("ModuleList", [](ModuleList& l, const std::string& name, std::shared_ptr<Module> child) {
    // A ModuleList names its elements by position; any other name means a damaged node.
    EMBER_CHECK_VALUE(name == std::to_string(l.size()), "io: ModuleList child '", name, "' should be named '",
                      l.size(), "'");
    l.push_back(std::move(child));
  });
  container<ModuleDict>("ModuleDict", [](ModuleDict& d, const std::string& name, std::shared_ptr<Module> child) {
    d.insert(name, std::move(child));
  });
}

Value architecture_at(const nn::Module& module, const std::string& path, int depth) {
  EMBER_CHECK_VALUE(depth <= 100, "io::architecture: modules nested deeper than 100 levels at ", where(path));
  const std::string& type = module.type_name();
  std::optional<TypeEntry> entry = Registry::get().find(type);
  Value node = Value::dict({{"type", type}});
  node.set("options", entry ? entry->to_options(module) : Value());
  if (!entry || entry->from_children) {
    Value children = Value::dict();
    for (const auto& [name, child] : module.named_children())
      children.set(name, architecture_at(*child, join(path, name), depth + 1));
    node.set("children", std::move(children));
  }
  return node;
}

std::shared_ptr<nn::Module> build_at(const Value& node, const std::string& path, int depth) {
  EMBER_CHECK_VALUE(depth <= 100, "io: the architecture is nested deeper than 100 levels at ", where(path));
  EMBER_CHECK_TYPE(node.is_dict(), "io: the architecture node of ", where(path), " is a ", node.type_name(),
                   ", expected a dict {\"type\", \"options\", \"children\"}");
  const Value* type_node = node.find("type");
  EMBER_CHECK_TYPE(type_node && type_node->is_string(), "io: the architecture node of ", where(path),
                   " has no \"type\" string");
  const std::string& type = type_node->as_string();
  std::optional<TypeEntry> entry = Registry::get().find(type);
  EMBER_CHECK_KEY(entry.has_value(), "io: unknown module type '", type, "' at ", where(path),
                  "; register it before loading with io::register_module_type(\"", type,
                  "\", to_options, from_options) (ember/io/architecture.h), or from Python with "
                  "ember.io.register_module_type(cls)");
  const Value* options = node.find("options");
  Value none;
  if (!options) options = &none;

  std::shared_ptr<nn::Module> module;
  if (entry->from_children) {
    const Value* children = node.find("children");
    EMBER_CHECK_TYPE(children && children->is_dict(), "io: the ", type, " at ", where(path),
                     " has no \"children\" dict");
    Children built;
    for (size_t i = 0; i < children->size(); ++i) {
      const Key& key = children->keys()[i];
      EMBER_CHECK_TYPE(key.is_string(), "io: the ", type, " at ", where(path), " has a child keyed by the int ", key,
                       ", expected a name");
      const std::string& name = key.as_string();
      built.emplace_back(name, build_at(children->items()[i], join(path, name), depth + 1));
    }
    BuildingPath building(path);
    module = entry->from_children(std::move(built), *options);
  } else {
    BuildingPath building(path);
    module = entry->from_options(*options);
  }
  EMBER_CHECK_VALUE(module != nullptr, "io: the factory of module type '", type, "' returned null at ", where(path));
  EMBER_CHECK_VALUE(module->type_name() == type, "io: the factory of module type '", type, "' built a module named '",
                    module->type_name(), "' at ", where(path), "; the module must pass \"", type,
                    "\" to Module's constructor");
  return module;
}

}  // namespace

void register_module_type(const std::string& type_name, ToOptions to_options, FromOptions from_options) {
  EMBER_CHECK_VALUE(!type_name.empty(), "io::register_module_type: the type name is empty");
  EMBER_CHECK_VALUE(to_options && from_options, "io::register_module_type: '", type_name,
                    "' needs both to_options and from_options");
  Registry::get().add(type_name, TypeEntry{std::move(to_options), std::move(from_options), nullptr});
}

bool has_module_type(const std::string& type_name) { return Registry::get().find(type_name).has_value(); }

std::vector<std::string> module_types() { return Registry::get().names(); }

Value architecture(const nn::Module& module) { return architecture_at(module, "", 0); }

std::shared_ptr<nn::Module> from_architecture(const Value& architecture) { return build_at(architecture, "", 0); }

}  // namespace ember::io
