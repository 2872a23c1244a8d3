#pragma once
// The hyperparameters of a parameter group, by name and typed: a number (lr), a flag (nesterov) or a
// pair of numbers (Adam's betas). Each optimizer declares its own as a typed options struct with a
// field table (SGDOptions and sgd_fields() in optim/sgd.h); the optimizer refuses a group key that
// is neither one of its own nor one a scheduler adds (initial_lr, ...), and a value of the wrong
// kind, naming the key and the optimizer. Checkpoints store each value with its type.
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ember::optim {

/// Adam's (beta1, beta2).
using Betas = std::pair<double, double>;

/// One hyperparameter: 0.1, true, or Betas{0.9, 0.999}. Integers are numbers: {"momentum", 0}.
class Hyperparam {
 public:
  template <typename T>
    requires std::is_arithmetic_v<T>
  Hyperparam(T v) {  // NOLINT: implicit, so groups read {{"lr", 0.1}, {"nesterov", true}}
    if constexpr (std::is_same_v<T, bool>) value_ = v;
    else value_ = static_cast<double>(v);
  }
  Hyperparam(Betas v) : value_(v) {}  // NOLINT: implicit

  bool is_number() const { return std::holds_alternative<double>(value_); }
  bool is_flag() const { return std::holds_alternative<bool>(value_); }
  bool is_pair() const { return std::holds_alternative<Betas>(value_); }
  /// The value; the caller checked its kind (Hyperparams' accessors name the key when it is wrong).
  double number() const { return std::get<double>(value_); }
  bool flag() const { return std::get<bool>(value_); }
  Betas pair() const { return std::get<Betas>(value_); }
  /// "a number", "a bool" or "a pair of numbers": how errors name the kind.
  const char* kind() const;
  bool same_kind(const Hyperparam& other) const { return value_.index() == other.value_.index(); }
  bool operator==(const Hyperparam&) const = default;

 private:
  std::variant<double, bool, Betas> value_;
};

/// Prints 0.1, true or (0.9, 0.999).
std::ostream& operator<<(std::ostream& os, const Hyperparam& h);

/// A group's hyperparameters by name, in name order.
class Hyperparams {
 public:
  using Map = std::map<std::string, Hyperparam>;
  Hyperparams() = default;
  Hyperparams(std::initializer_list<Map::value_type> init) : values_(init) {}

  /// The value of `key` as a number / flag / pair: a KeyError naming the key when it is absent, a
  /// TypeError naming both kinds when it is of another kind.
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  Betas pair(const std::string& key) const;
  const Hyperparam& at(const std::string& key) const;
  bool contains(const std::string& key) const { return values_.contains(key); }
  /// The value of `key`, or null when absent.
  const Hyperparam* find(const std::string& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  void set(const std::string& key, Hyperparam value) { values_.insert_or_assign(key, value); }
  /// Sets `key` only when it is absent.
  void set_default(const std::string& key, Hyperparam value) { values_.emplace(key, value); }
  void erase(const std::string& key) { values_.erase(key); }
  size_t size() const { return values_.size(); }
  Map::const_iterator begin() const { return values_.begin(); }
  Map::const_iterator end() const { return values_.end(); }
  bool operator==(const Hyperparams&) const = default;

 private:
  Map values_;
};

/// The keys LR schedulers add to a group (numbers, as torch.optim's schedulers store them):
/// initial_lr, max_lr, min_lr, max_momentum, base_momentum, swa_lr.
bool is_scheduler_key(const std::string& key);

/// One field of a typed options struct O: its hyperparameter name and its member.
template <typename O>
struct Field {
  std::string_view name;
  std::variant<double O::*, bool O::*, Betas O::*> member;
};

/// The hyperparameters of `options`, every field under its name.
template <typename O>
Hyperparams to_hyperparams(const O& options, const std::vector<Field<O>>& fields) {
  Hyperparams h;
  for (const Field<O>& f : fields)
    std::visit([&](auto member) { h.set(std::string(f.name), options.*member); }, f.member);
  return h;
}

/// The typed options a group's hyperparameters hold; a field the group lacks keeps O's default.
/// A value of another kind than its field is a TypeError naming the key. NB: one pass over the
/// group, comparing names in place: optimizers convert once per parameter per step.
template <typename O>
O from_hyperparams(const Hyperparams& h, const std::vector<Field<O>>& fields) {
  O o;
  for (const auto& [key, value] : h) {
    for (const Field<O>& f : fields) {
      if (key.size() != f.name.size() || key != f.name) continue;
      std::visit([&]<typename T>(T O::*member) {
        if constexpr (std::is_same_v<T, double>) o.*member = value.is_number() ? value.number() : h.number(key);
        else if constexpr (std::is_same_v<T, bool>) o.*member = value.is_flag() ? value.flag() : h.flag(key);
        else o.*member = value.is_pair() ? value.pair() : h.pair(key);
      }, f.member);
      break;
    }
  }
  return o;
}

}  // namespace ember::optim
