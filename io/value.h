#pragma once
// io::Value: the tagged tree a checkpoint holds. None, bool, int, float, string, Tensor, list,
// tuple and dict (insertion order kept; keys are str or int, as PyTorch's optimizer state
// {0: ..., 1: ...} needs, and 0 and "0" are different keys), to any depth. Every node keeps its type:
// a tuple ("best", t) comes back as that tuple, never as a list or a tensor.
//
//   io::Value ckpt = io::Value::dict({{"model", io::to_value(model)},
//                                    {"epoch", 3},
//                                    {"note", io::Value::tuple({"best", t})}});
//
// A tensor leaf also carries how the tensor was known where it was taken from: its kind
// (parameter, buffer or plain tensor) and, for buffers, whether it is persistent. requires_grad
// and the attribute map travel on the Tensor itself. The same Tensor under several names (a tie)
// is saved once and comes back as one Tensor under every name.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::io {

enum class TensorKind : uint8_t { Tensor, Parameter, Buffer };
/// "tensor", "parameter", "buffer": the names the file uses.
const char* tensor_kind_name(TensorKind kind);

/// A dict key: a string or an int64. Implicit from either, so `v.at("lr")` and `v.at(0)` read
/// as they would in Python.
class Key {
 public:
  Key(std::string s) : string_(std::move(s)) {}  // NOLINT: implicit
  Key(const char* s) : string_(s) {}             // NOLINT: implicit
  Key(int64_t i) : int_(i), is_int_(true) {}     // NOLINT: implicit
  Key(int i) : Key(int64_t{i}) {}                // NOLINT: implicit

  bool is_int() const { return is_int_; }
  bool is_string() const { return !is_int_; }
  /// The key's int or string; a TypeError naming the key when it is the other kind.
  int64_t as_int() const;
  const std::string& as_string() const;
  /// The key as text: a string as itself, an int in decimal (for paths such as "state/0").
  std::string str() const { return is_int_ ? std::to_string(int_) : string_; }
  /// The key as Python prints it: 'name' or 0.
  std::string repr() const { return is_int_ ? std::to_string(int_) : "'" + string_ + "'"; }

  friend bool operator==(const Key& a, const Key& b) {
    return a.is_int_ == b.is_int_ && a.int_ == b.int_ && a.string_ == b.string_;
  }
  friend bool operator==(const Key& a, std::string_view b) { return !a.is_int_ && a.string_ == b; }
  friend bool operator==(const Key& a, const char* b) { return a == std::string_view(b); }
  struct Hash {
    size_t operator()(const Key& k) const {
      return k.is_int_ ? std::hash<int64_t>()(k.int_) : std::hash<std::string>()(k.string_);
    }
  };

 private:
  std::string string_;
  int64_t int_ = 0;
  bool is_int_ = false;
};

std::ostream& operator<<(std::ostream& os, const Key& k);

class Value {
 public:
  enum class Type : uint8_t { None, Bool, Int, Float, String, Tensor, List, Tuple, Dict };
  using Item = std::pair<Key, Value>;

  /// None.
  Value() = default;
  Value(std::nullptr_t) {}  // NOLINT: implicit, None
  Value(bool v) : type_(Type::Bool), int_(v) {}  // NOLINT: implicit
  Value(int v) : type_(Type::Int), int_(v) {}    // NOLINT: implicit
  Value(int64_t v) : type_(Type::Int), int_(v) {}  // NOLINT: implicit
  Value(double v) : type_(Type::Float), float_(v) {}  // NOLINT: implicit
  Value(const char* v) : type_(Type::String), string_(v) {}  // NOLINT: implicit
  Value(std::string v) : type_(Type::String), string_(std::move(v)) {}  // NOLINT: implicit
  /// A tensor leaf; `persistent` only matters for buffers.
  Value(Tensor t, TensorKind kind = TensorKind::Tensor, bool persistent = true);  // NOLINT: implicit

  static Value list(std::vector<Value> items = {});
  static Value tuple(std::vector<Value> items = {});
  /// An ordered dict; keys must be unique.
  static Value dict(std::initializer_list<Item> items = {});
  static Value dict(std::vector<Item> items);

  Type type() const { return type_; }
  /// "None", "bool", "int", "float", "str", "Tensor", "list", "tuple", "dict".
  const char* type_name() const;
  bool is_none() const { return type_ == Type::None; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_int() const { return type_ == Type::Int; }
  bool is_float() const { return type_ == Type::Float; }
  bool is_string() const { return type_ == Type::String; }
  bool is_tensor() const { return type_ == Type::Tensor; }
  bool is_list() const { return type_ == Type::List; }
  bool is_tuple() const { return type_ == Type::Tuple; }
  bool is_dict() const { return type_ == Type::Dict; }

  // ---- leaves (each a TypeError naming both types when the node is something else)
  bool as_bool() const;
  int64_t as_int() const;
  /// A float, or an int converted (a saved 3 reads as 3.0 where a float is expected).
  double as_float() const;
  const std::string& as_string() const;
  const Tensor& as_tensor() const;
  TensorKind tensor_kind() const;
  bool persistent() const;

  // ---- list, tuple and dict
  /// Elements of a list or tuple, values of a dict (in key order).
  const std::vector<Value>& items() const;
  std::vector<Value>& items();
  size_t size() const { return items().size(); }
  /// Element `index` of a list or tuple (an IndexError naming the size when out of range).
  const Value& operator[](size_t index) const;
  Value& operator[](size_t index);
  /// Appends to a list.
  void push_back(Value v);

  /// Keys of a dict, in insertion order.
  const std::vector<Key>& keys() const;
  bool contains(const Key& key) const;
  /// The value under `key`; a KeyError naming the key and the keys there are.
  const Value& at(const Key& key) const;
  Value& at(const Key& key);
  /// The value under `key`, or null when absent.
  const Value* find(const Key& key) const;
  /// Sets `key`, keeping its position if it exists; returns the stored value.
  Value& set(const Key& key, Value v);
  /// at(key) for reading, set(key, None) when absent.
  Value& operator[](const std::string& key);
  const Value& operator[](const std::string& key) const { return at(key); }

  /// Same structure and types, equal scalars, tensors with equal dtype, shape and bits
  /// (not identity).
  bool equals(const Value& other) const;
  /// A one-line summary of the tree: {'epoch': 3, 'w': Tensor(float32 [2, 3])}.
  std::string str() const;

 private:
  void check(Type expected, const char* what) const;
  bool is_sequence() const { return type_ == Type::List || type_ == Type::Tuple; }

  Type type_ = Type::None;
  int64_t int_ = 0;  // bool and int
  double float_ = 0;
  std::string string_;
  Tensor tensor_;
  TensorKind kind_ = TensorKind::Tensor;
  bool persistent_ = true;
  std::vector<Value> items_;  // list and tuple elements, dict values
  std::vector<Key> keys_;  // dict keys, parallel to items_
  std::unordered_map<Key, size_t, Key::Hash> index_;  // dict key -> position
};

std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace ember::io
