// The C++ half of the interop check with the `safetensors` Python package
// (tests/io/programs/safetensors_interop.py drives it):
//
//   safetensors_interop write DIR   # DIR/numpy.ember (every dtype numpy has, a tie, a view)
//                                   # and DIR/bfloat16.ember (numpy has no bfloat16)
//   safetensors_interop check DIR   # loads DIR/from_numpy.safetensors and
//                                   # DIR/bfloat16.safetensors, written by Python, with io::load
//
// The values are literals, repeated in the Python script: every float is exact in its dtype,
// and the comparisons are bit for bit. Exit status 0 when every check passes, 1 otherwise.
#include <bit>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;

int failures = 0;

#define INTEROP_CHECK(cond, ...)                                                   \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      ++failures;                                                                  \
      std::cerr << "safetensors_interop: FAILED " #cond ": " << __VA_ARGS__ << '\n'; \
    }                                                                              \
  } while (0)

/// A tensor holding exactly these element bytes (any dtype, including the 16-bit floats).
template <typename T>
Tensor from_bits(const std::vector<T>& values, IntArrayRef shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  if (t.nbytes() != values.size() * sizeof(T)) throw std::logic_error("from_bits: size mismatch");
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), t.nbytes());
  return t;
}

// ---- the tensors both sides agree on (the Python script holds the same literals)
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

Tensor f32() { return from_bits<float>({1.5f, -2.25f, 0.0f, 0.125f, 1024.0f, -0.0f}, {2, 3}, kFloat32); }
Tensor f64() { return from_bits<double>({0.1, -1e300, 5e-324}, {3}, kFloat64); }
// 1.0, -2.5, 65504 (the largest float16), 2^-10
Tensor f16() { return from_bits<uint16_t>({0x3C00, 0xC100, 0x7BFF, 0x1400}, {4}, kFloat16); }
// 1.0, -2.5, the largest bfloat16, the smallest subnormal bfloat16
Tensor bf16() { return from_bits<uint16_t>({0x3F80, 0xC020, 0x7F7F, 0x0001}, {4}, kBFloat16); }
Tensor i64() { return from_bits<int64_t>({kI64Min, -1, 0, kI64Max}, {2, 2}, kInt64); }
Tensor i32() { return from_bits<int32_t>({kI32Min, 7, kI32Max}, {3}, kInt32); }
Tensor u8() { return from_bits<uint8_t>({0, 1, 127, 255}, {4}, kUInt8); }
Tensor boolean() { return from_bits<uint8_t>({1, 0, 0, 1}, {2, 2}, kBool); }
Tensor scalar() { return from_bits<double>({2.5}, {}, kFloat64); }
Tensor empty_f32() { return empty({0, 3}, kFloat32); }

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

void check_tensor(const io::Value& root, const std::string& key, const Tensor& expected) {
  const io::Value* v = root.find(key);
  INTEROP_CHECK(v != nullptr, "no key '" << key << "' in " << root.str());
  if (!v) return;
  INTEROP_CHECK(v->is_tensor(), "'" << key << "' is a " << v->type_name());
  if (!v->is_tensor()) return;
  INTEROP_CHECK(same_bits(v->as_tensor(), expected),
                "'" << key << "': got " << v->as_tensor() << ", expected " << expected);
}

void write(const std::string& dir) {
  Tensor tied = from_bits<float>({1, 2, 3, 4}, {2, 2}, kFloat32);
  tied.set_requires_grad();
  Tensor m = from_bits<float>({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat32);
  io::Value numpy_dtypes = io::Value::dict({
      {"f32", f32()},
      {"f64", f64()},
      {"f16", f16()},
      {"i64", i64()},
      {"i32", i32()},
      {"u8", u8()},
      {"bool", boolean()},
      {"scalar", scalar()},
      {"empty", empty_f32()},
      {"transposed", m.t()},  // a non-contiguous view, saved by value
      {"model", io::Value::dict({{"embed.weight", io::Value(tied, io::TensorKind::Parameter)},
                                 {"decoder.weight", io::Value(tied, io::TensorKind::Parameter)}})},
      {"step", 7},
  });
  io::save(numpy_dtypes, dir + "/numpy.ember");
  io::save(io::Value::dict({{"bf16", bf16()}}), dir + "/bfloat16.ember");
}

void check(const std::string& dir) {
  {
    std::string path = dir + "/from_numpy.safetensors";
    io::File file = io::File::open(path);
    INTEROP_CHECK(!file.is_ember(), path << " reads as an Ember checkpoint");
    auto writer = file.metadata().find("writer");
    INTEROP_CHECK(writer != file.metadata().end() && writer->second == "safetensors.numpy",
                  "metadata 'writer' missing or wrong in " << path);
    auto note = file.metadata().find("note");
    INTEROP_CHECK(note != file.metadata().end() && note->second == "h\xc3\xa9llo",
                  "metadata 'note' missing or wrong in " << path);
    io::Value root = io::load(path);
    INTEROP_CHECK(root.is_dict() && root.size() == 9, "expected a dict of 9 tensors, got " << root.str());
    check_tensor(root, "f32", f32());
    check_tensor(root, "f64", f64());
    check_tensor(root, "f16", f16());
    check_tensor(root, "i64", i64());
    check_tensor(root, "i32", i32());
    check_tensor(root, "u8", u8());
    check_tensor(root, "bool", boolean());
    check_tensor(root, "scalar", scalar());
    check_tensor(root, "empty", empty_f32());
    // One tensor on its own, by key, as load_tensor does for plain files.
    INTEROP_CHECK(same_bits(io::load_tensor(path, "i64"), i64()), "load_tensor('i64') differs");
  }
  {
    std::string path = dir + "/bfloat16.safetensors";
    io::Value root = io::load(path);
    INTEROP_CHECK(root.is_dict() && root.size() == 1, "expected a dict of 1 tensor, got " << root.str());
    check_tensor(root, "bf16", bf16());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "write" && mode != "check") {
    std::cerr << "usage: safetensors_interop write|check DIR\n";
    return 2;
  }
  try {
    if (mode == "write") write(argv[2]);
    else check(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "safetensors_interop: error: " << e.what() << '\n';
    return 1;
  }
  if (failures) {
    std::cerr << "safetensors_interop: " << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "safetensors_interop " << mode << ": ok\n";
  return 0;
}
