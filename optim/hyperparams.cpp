#include "ember/optim/hyperparams.h"

#include <array>
#include <sstream>

#include "ember/core/error.h"

namespace ember::optim {
namespace {

std::string shown(const Hyperparam& h) {
  std::ostringstream os;
  os << h;
  return os.str();
}

// The value of `key`, checked to be of the kind `check` accepts.
template <typename Check>
const Hyperparam& of_kind(const Hyperparams& h, const std::string& key, const char* kind, Check check) {
  const Hyperparam& v = h.at(key);
  EMBER_CHECK_TYPE(check(v), "hyperparameter '", key, "' is ", v.kind(), " (", shown(v), "), expected ", kind);
  return v;
}

}  // namespace

const char* Hyperparam::kind() const {
  if (is_flag()) return "a bool";
  return is_pair() ? "a pair of numbers" : "a number";
}

std::ostream& operator<<(std::ostream& os, const Hyperparam& h) {
  if (h.is_flag()) return os << (h.flag() ? "true" : "false");
  if (h.is_pair()) return os << '(' << h.pair().first << ", " << h.pair().second << ')';
  return os << h.number();
}

const Hyperparam& Hyperparams::at(const std::string& key) const {
  auto it = values_.find(key);
  EMBER_CHECK_KEY(it != values_.end(), "parameter group has no hyperparameter '", key, "'");
  return it->second;
}

double Hyperparams::number(const std::string& key) const {
  return of_kind(*this, key, "a number", [](const Hyperparam& v) { return v.is_number(); }).number();
}

bool Hyperparams::flag(const std::string& key) const {
  return of_kind(*this, key, "a bool", [](const Hyperparam& v) { return v.is_flag(); }).flag();
}

Betas Hyperparams::pair(const std::string& key) const {
  return of_kind(*this, key, "a pair of numbers", [](const Hyperparam& v) { return v.is_pair(); }).pair();
}

bool is_scheduler_key(const std::string& key) {
  static const std::array<const char*, 6> keys{"initial_lr",   "max_lr",        "min_lr",
                                               "max_momentum", "base_momentum", "swa_lr"};
  for (const char* k : keys)
    if (key == k) return true;
  return false;
}

}  // namespace ember::optim
