#include "ember/io/value.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "ember/core/copy.h"

namespace ember::io {

const char* tensor_kind_name(TensorKind kind) {
  switch (kind) {
    case TensorKind::Tensor: return "tensor";
    case TensorKind::Parameter: return "parameter";
    case TensorKind::Buffer: return "buffer";
  }
  return "?";
}

int64_t Key::as_int() const {
  EMBER_CHECK_TYPE(is_int_, "io::Value: the dict key ", repr(), " is a str, expected an int");
  return int_;
}

const std::string& Key::as_string() const {
  EMBER_CHECK_TYPE(!is_int_, "io::Value: the dict key ", int_, " is an int, expected a str");
  return string_;
}

std::ostream& operator<<(std::ostream& os, const Key& k) { return os << k.repr(); }

Value::Value(Tensor t, TensorKind kind, bool persistent)
    : type_(Type::Tensor), tensor_(std::move(t)), kind_(kind), persistent_(persistent) {
  EMBER_CHECK_VALUE(tensor_.defined(), "io::Value: an undefined tensor cannot be stored");
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.type_ = Type::List;
  v.items_ = std::move(items);
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v = list(std::move(items));
  v.type_ = Type::Tuple;
  return v;
}

Value Value::dict(std::initializer_list<Item> items) { return dict(std::vector<Item>(items)); }

Value Value::dict(std::vector<Item> items) {
  Value v;
  v.type_ = Type::Dict;
  for (Item& item : items) {
    EMBER_CHECK_VALUE(!v.contains(item.first), "io::Value::dict: duplicate key ", item.first);
    v.set(item.first, std::move(item.second));
  }
  return v;
}

const char* Value::type_name() const {
  switch (type_) {
    case Type::None: return "None";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Float: return "float";
    case Type::String: return "str";
    case Type::Tensor: return "Tensor";
    case Type::List: return "list";
    case Type::Tuple: return "tuple";
    case Type::Dict: return "dict";
  }
  return "?";
}

void Value::check(Type expected, const char* what) const {
  EMBER_CHECK_TYPE(type_ == expected, "io::Value: expected ", what, ", got ", type_name());
}

bool Value::as_bool() const {
  check(Type::Bool, "bool");
  return int_ != 0;
}

int64_t Value::as_int() const {
  check(Type::Int, "int");
  return int_;
}

double Value::as_float() const {
  if (type_ == Type::Int) return static_cast<double>(int_);
  check(Type::Float, "float");
  return float_;
}

const std::string& Value::as_string() const {
  check(Type::String, "str");
  return string_;
}

const Tensor& Value::as_tensor() const {
  check(Type::Tensor, "Tensor");
  return tensor_;
}

TensorKind Value::tensor_kind() const {
  check(Type::Tensor, "Tensor");
  return kind_;
}

bool Value::persistent() const {
  check(Type::Tensor, "Tensor");
  return persistent_;
}

const std::vector<Value>& Value::items() const {
  EMBER_CHECK_TYPE(is_sequence() || is_dict(), "io::Value: expected list, tuple or dict, got ",
                   type_name());
  return items_;
}

std::vector<Value>& Value::items() {
  return const_cast<std::vector<Value>&>(std::as_const(*this).items());
}

const Value& Value::operator[](size_t index) const {
  EMBER_CHECK_TYPE(is_sequence(), "io::Value: expected list or tuple, got ", type_name());
  EMBER_CHECK_INDEX(index < items_.size(), "io::Value: index ", index, " out of range for ",
                    type_name(), " of size ", items_.size());
  return items_[index];
}

Value& Value::operator[](size_t index) {
  return const_cast<Value&>(std::as_const(*this)[index]);
}

void Value::push_back(Value v) {
  check(Type::List, "list");
  items_.push_back(std::move(v));
}

const std::vector<Key>& Value::keys() const {
  check(Type::Dict, "dict");
  return keys_;
}

bool Value::contains(const Key& key) const { return find(key) != nullptr; }

const Value* Value::find(const Key& key) const {
  check(Type::Dict, "dict");
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &items_[it->second];
}

const Value& Value::at(const Key& key) const {
  const Value* v = find(key);
  if (v == nullptr) [[unlikely]] {
    std::ostringstream known;
    for (size_t i = 0; i < keys_.size() && i < 20; ++i) known << (i ? ", " : "") << keys_[i];
    if (keys_.size() > 20) known << ", ...";
    throw KeyError(detail::str("io::Value: no key ", key, " in dict (keys: ", known.str(), ")"));
  }
  return *v;
}

Value& Value::at(const Key& key) { return const_cast<Value&>(std::as_const(*this).at(key)); }

Value& Value::set(const Key& key, Value v) {
  check(Type::Dict, "dict");
  auto it = index_.find(key);
  if (it != index_.end()) return items_[it->second] = std::move(v);
  index_.emplace(key, items_.size());
  keys_.push_back(key);
  items_.push_back(std::move(v));
  return items_.back();
}

Value& Value::operator[](const std::string& key) {
  check(Type::Dict, "dict");
  auto it = index_.find(key);
  return it != index_.end() ? items_[it->second] : set(key, Value());
}

namespace {
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = contiguous_data(a.to(Device::cpu()));
  Tensor cb = contiguous_data(b.to(Device::cpu()));
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}
}  // namespace

bool Value::equals(const Value& other) const {
  if (type_ != other.type_) return false;
  switch (type_) {
    case Type::None: return true;
    case Type::Bool:
    case Type::Int: return int_ == other.int_;
    case Type::Float:
      return std::memcmp(&float_, &other.float_, sizeof(double)) == 0 || float_ == other.float_;
    case Type::String: return string_ == other.string_;
    case Type::Tensor:
      return kind_ == other.kind_ && persistent_ == other.persistent_ &&
             same_bits(tensor_, other.tensor_);
    case Type::List:
    case Type::Tuple:
    case Type::Dict:
      if (keys_ != other.keys_ || items_.size() != other.items_.size()) return false;
      for (size_t i = 0; i < items_.size(); ++i)
        if (!items_[i].equals(other.items_[i])) return false;
      return true;
  }
  return false;
}

namespace {
void print(std::ostream& os, const Value& v) {
  switch (v.type()) {
    case Value::Type::None: os << "None"; return;
    case Value::Type::Bool: os << (v.as_bool() ? "True" : "False"); return;
    case Value::Type::Int: os << v.as_int(); return;
    case Value::Type::Float: os << v.as_float(); return;
    case Value::Type::String: os << '\'' << v.as_string() << '\''; return;
    case Value::Type::Tensor: os << "Tensor(" << describe(v.as_tensor()) << ')'; return;
    case Value::Type::List:
    case Value::Type::Tuple: {
      bool list = v.is_list();
      os << (list ? '[' : '(');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) os << ", ";
        print(os, v[i]);
      }
      if (!list && v.size() == 1) os << ',';
      os << (list ? ']' : ')');
      return;
    }
    case Value::Type::Dict:
      os << '{';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) os << ", ";
        os << v.keys()[i] << ": ";
        print(os, v.items()[i]);
      }
      os << '}';
      return;
  }
}
}  // namespace

std::string Value::str() const {
  std::ostringstream os;
  print(os, *this);
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.str(); }

}  // namespace ember::io
