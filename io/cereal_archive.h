#pragma once
// cereal archives over io::Value, so that anything cereal can serialize (a struct of your own with
// serialize(Archive&), std::vector, std::map, std::optional, std::tuple, ... and ember::Tensor) goes
// into a checkpoint and comes back with its types:
//
//   struct RunState {
//     int64_t epoch = 0;
//     std::vector<double> losses;
//     std::optional<double> best;
//     template <class Archive> void serialize(Archive& ar) {
//       ar(CEREAL_NVP(epoch), CEREAL_NVP(losses), CEREAL_NVP(best));
//     }
//   };
//   ckpt.set("run", io::cereal_to_value(run));          // {"epoch": 3, "losses": [...], ...}
//   io::cereal_from_value(loaded.at("run"), run);
//
// A struct becomes a dict (named fields under their names, unnamed ones under value0, value1, ...
// as cereal names them), a sequence a list, a number, bool or string itself, a Tensor a tensor
// leaf. No class name or version is written (cereal's polymorphic registration is not supported),
// so the file stays readable by anything that reads Ember's tree. Reading checks every node's type
// and names its path in the error.
#include <cereal/cereal.hpp>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/io/value.h"

namespace ember::io {

/// Builds an io::Value from what cereal hands it.
class ValueOutputArchive : public cereal::OutputArchive<ValueOutputArchive>,
                           public cereal::traits::TextArchive {
 public:
  ValueOutputArchive();
  /// The root dict: what was archived, under value0, value1, ... or its NVP names.
  const Value& root() const { return frames_.front().value; }

  // ---- cereal's interface (called by the functions below)
  void startNode();
  void finishNode();
  void makeArray();
  void setNextName(const char* name) { next_name_ = name; }
  void saveLeaf(Value v);

 private:
  struct Frame {
    std::string name;  // where it goes in its parent (unused in an array)
    Value value;       // dict, or list once makeArray() was called
    bool array = false;
    uint32_t unnamed = 0;  // value0, value1, ... handed out so far
  };
  std::string take_name();
  void attach(Frame& parent, const std::string& name, Value v);

  std::vector<Frame> frames_;
  const char* next_name_ = nullptr;
};

/// Reads an io::Value back into the types that wrote it.
class ValueInputArchive : public cereal::InputArchive<ValueInputArchive>,
                          public cereal::traits::TextArchive {
 public:
  /// `root` is a dict as ValueOutputArchive::root() is; `where` prefixes errors.
  ValueInputArchive(const Value& root, std::string where);

  // ---- cereal's interface
  void startNode();
  void finishNode();
  void setNextName(const char* name) { next_name_ = name; }
  void loadSize(cereal::size_type& size);
  /// The next value (by name, else in order) checked to be of `type`.
  const Value& loadLeaf(Value::Type type, const char* expected);

 private:
  struct Frame {
    const Value* value;
    std::string path;
    size_t next = 0;  // position of the next unnamed read
  };
  const Value& next_child(std::string& path);

  std::vector<Frame> frames_;
  std::string where_;
  const char* next_name_ = nullptr;
};

// ---- how cereal's types land in the archives (prologue/epilogue delimit nodes; leaves have none)

template <class T>
void prologue(ValueOutputArchive&, const cereal::NameValuePair<T>&) {}
template <class T>
void epilogue(ValueOutputArchive&, const cereal::NameValuePair<T>&) {}
template <class T>
void prologue(ValueInputArchive&, const cereal::NameValuePair<T>&) {}
template <class T>
void epilogue(ValueInputArchive&, const cereal::NameValuePair<T>&) {}

template <class T>
void prologue(ValueOutputArchive& ar, const cereal::SizeTag<T>&) { ar.makeArray(); }
template <class T>
void epilogue(ValueOutputArchive&, const cereal::SizeTag<T>&) {}
template <class T>
void prologue(ValueInputArchive&, const cereal::SizeTag<T>&) {}
template <class T>
void epilogue(ValueInputArchive&, const cereal::SizeTag<T>&) {}

// A leaf takes no node of its own: numbers, strings, tensors, and types cereal saves as one of
// those (save_minimal: enums, for one).
template <class T>
constexpr bool kIsPlainLeaf = std::is_arithmetic_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, Tensor>;
template <class T>
constexpr bool kIsOutputLeaf =
    kIsPlainLeaf<T> || cereal::traits::has_minimal_output_serialization<T, ValueOutputArchive>::value ||
    cereal::traits::has_minimal_base_class_serialization<T, cereal::traits::has_minimal_output_serialization,
                                                         ValueOutputArchive>::value;
template <class T>
constexpr bool kIsInputLeaf =
    kIsPlainLeaf<T> || cereal::traits::has_minimal_input_serialization<T, ValueInputArchive>::value ||
    cereal::traits::has_minimal_base_class_serialization<T, cereal::traits::has_minimal_input_serialization,
                                                         ValueInputArchive>::value;

template <class T, std::enable_if_t<!kIsOutputLeaf<T>, int> = 0>
void prologue(ValueOutputArchive& ar, const T&) { ar.startNode(); }
template <class T, std::enable_if_t<!kIsOutputLeaf<T>, int> = 0>
void epilogue(ValueOutputArchive& ar, const T&) { ar.finishNode(); }
template <class T, std::enable_if_t<!kIsInputLeaf<T>, int> = 0>
void prologue(ValueInputArchive& ar, const T&) { ar.startNode(); }
template <class T, std::enable_if_t<!kIsInputLeaf<T>, int> = 0>
void epilogue(ValueInputArchive& ar, const T&) { ar.finishNode(); }

template <class T, std::enable_if_t<kIsOutputLeaf<T>, int> = 0>
void prologue(ValueOutputArchive&, const T&) {}
template <class T, std::enable_if_t<kIsOutputLeaf<T>, int> = 0>
void epilogue(ValueOutputArchive&, const T&) {}
template <class T, std::enable_if_t<kIsInputLeaf<T>, int> = 0>
void prologue(ValueInputArchive&, const T&) {}
template <class T, std::enable_if_t<kIsInputLeaf<T>, int> = 0>
void epilogue(ValueInputArchive&, const T&) {}

template <class T>
void CEREAL_SAVE_FUNCTION_NAME(ValueOutputArchive& ar, const cereal::NameValuePair<T>& t) {
  ar.setNextName(t.name);
  ar(t.value);
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ValueInputArchive& ar, cereal::NameValuePair<T>& t) {
  ar.setNextName(t.name);
  ar(t.value);
}

template <class T>
void CEREAL_SAVE_FUNCTION_NAME(ValueOutputArchive&, const cereal::SizeTag<T>&) {}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ValueInputArchive& ar, cereal::SizeTag<T>& st) {
  cereal::size_type size = 0;
  ar.loadSize(size);
  st.size = static_cast<T>(size);
}

/// bool, integers (within int64) and floating values.
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
void CEREAL_SAVE_FUNCTION_NAME(ValueOutputArchive& ar, const T& t) {
  if constexpr (std::is_same_v<T, bool>) {
    ar.saveLeaf(Value(t));
  } else if constexpr (std::is_floating_point_v<T>) {
    ar.saveLeaf(Value(static_cast<double>(t)));
  } else {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t))
      EMBER_CHECK_VALUE(t <= static_cast<T>(INT64_MAX), "io::cereal_to_value: the integer ", t,
                        " is beyond int64, the widest integer a checkpoint holds");
    ar.saveLeaf(Value(static_cast<int64_t>(t)));
  }
}
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
void CEREAL_LOAD_FUNCTION_NAME(ValueInputArchive& ar, T& t) {
  if constexpr (std::is_same_v<T, bool>) {
    t = ar.loadLeaf(Value::Type::Bool, "a bool").as_bool();
  } else if constexpr (std::is_floating_point_v<T>) {
    t = static_cast<T>(ar.loadLeaf(Value::Type::Float, "a float").as_float());
  } else {
    int64_t v = ar.loadLeaf(Value::Type::Int, "an int").as_int();
    EMBER_CHECK_VALUE(std::in_range<T>(v), "io::cereal_from_value: the integer ", v,
                      " does not fit the field's type");
    t = static_cast<T>(v);
  }
}

inline void CEREAL_SAVE_FUNCTION_NAME(ValueOutputArchive& ar, const std::string& s) { ar.saveLeaf(Value(s)); }
inline void CEREAL_LOAD_FUNCTION_NAME(ValueInputArchive& ar, std::string& s) {
  s = ar.loadLeaf(Value::Type::String, "a str").as_string();
}

inline void CEREAL_SAVE_FUNCTION_NAME(ValueOutputArchive& ar, const Tensor& t) { ar.saveLeaf(Value(t)); }
inline void CEREAL_LOAD_FUNCTION_NAME(ValueInputArchive& ar, Tensor& t) {
  t = ar.loadLeaf(Value::Type::Tensor, "a Tensor").as_tensor();
}

/// `obj` as an io::Value tree.
template <class T>
Value cereal_to_value(const T& obj) {
  ValueOutputArchive ar;
  ar(obj);
  return ar.root().at("value0");
}

/// Reads `value` (as cereal_to_value wrote it) into `obj`; a TypeError or KeyError names the path
/// of a node that is missing or of another type.
template <class T>
void cereal_from_value(const Value& value, T& obj) {
  Value root = Value::dict({{"value0", value}});
  ValueInputArchive ar(root, "io::cereal_from_value");
  ar(obj);
}

}  // namespace ember::io

CEREAL_REGISTER_ARCHIVE(ember::io::ValueOutputArchive)
CEREAL_REGISTER_ARCHIVE(ember::io::ValueInputArchive)
// NB: pairs the archives, so that types saved as one value (save_minimal: enums) load back.
CEREAL_SETUP_ARCHIVE_TRAITS(ember::io::ValueInputArchive, ember::io::ValueOutputArchive)
