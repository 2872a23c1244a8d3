// Writes the golden checkpoint of the current schema version (tests/fixtures/io/golden/README.md):
//
//   ninja -C build make_io_golden
//   build/tests/make_io_golden tests/fixtures/io/golden
//       -> tests/fixtures/io/golden/v<kSchemaVersion>/checkpoint.ember
//
// Run it once per schema version, when that version is introduced, and commit the file; it
// refuses to overwrite an existing golden file, because files of earlier versions must keep
// loading as they were written. tests/io/golden_test.cpp checks every value of the file against
// literals of its own (never against this program).
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;

template <typename T>
Tensor from_bits(const std::vector<T>& values, IntArrayRef shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  if (t.nbytes() != values.size() * sizeof(T)) throw std::logic_error("from_bits: size mismatch");
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), t.nbytes());
  return t;
}

io::Value golden() {
  using io::Value;
  Value scalars = Value::dict({
      {"none", Value()},
      {"yes", true},
      {"no", false},
      {"int", int64_t{-7}},
      {"int_max", std::numeric_limits<int64_t>::max()},
      {"int_min", std::numeric_limits<int64_t>::min()},
      {"float", 0.1},
      {"whole_float", 3.0},
      {"neg_zero", -0.0},
      {"tiny", 5e-324},
      {"nan", std::nan("")},
      {"inf", HUGE_VAL},
      {"neg_inf", -HUGE_VAL},
      {"str", "h\xc3\xa9llo \"quoted\"\n\ttab"},
      {"empty_str", ""},
      {"list", Value::list({1, 2.5, "x", Value(), Value::list(), Value::tuple()})},
      {"tuple", Value::tuple({true})},
      {"empty_dict", Value::dict()},
  });

  Value tensors = Value::dict({
      // +0, -0, 1.5, a float32 NaN with a payload, the largest float32, the smallest subnormal
      {"f32", from_bits<uint32_t>({0x00000000, 0x80000000, 0x3FC00000, 0x7FC00001, 0x7F7FFFFF, 0x00000001},
                                  {2, 3}, kFloat32)},
      {"f64", from_bits<double>({0.1, -1e300, 5e-324}, {3}, kFloat64)},
      // 1.0, -2.5, 65504, 2^-24 (the smallest subnormal)
      {"f16", from_bits<uint16_t>({0x3C00, 0xC100, 0x7BFF, 0x0001}, {2, 2}, kFloat16)},
      // 1.0, -2.5, the largest bfloat16, -inf
      {"bf16", from_bits<uint16_t>({0x3F80, 0xC020, 0x7F7F, 0xFF80}, {4}, kBFloat16)},
      {"i64", from_bits<int64_t>({std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max()},
                                 {4}, kInt64)},
      {"i32", from_bits<int32_t>({std::numeric_limits<int32_t>::min(), 7, std::numeric_limits<int32_t>::max()},
                                 {3, 1}, kInt32)},
      {"u8", from_bits<uint8_t>({0, 1, 127, 255}, {4}, kUInt8)},
      {"bool", from_bits<uint8_t>({1, 0, 0, 1, 1, 0}, {2, 3}, kBool)},
      {"zero_dim", from_bits<double>({2.5}, {}, kFloat64)},
      {"empty", empty({0, 3}, kFloat32)},
      {"empty_i64", empty({2, 0}, kInt64)},
      // a non-contiguous view, saved by value: [[1, 2, 3], [4, 5, 6]] transposed
      {"transposed", from_bits<float>({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat32).t()},
  });

  Tensor tied = from_bits<float>({1, 2, 3, 4}, {2, 2}, kFloat32);
  tied.set_requires_grad();
  tied.attributes()["lr_scale"] = 0.5;
  tied.attributes()["no_decay"] = true;
  tied.attributes()["group"] = std::string("embed");
  tied.attributes()["rank"] = int64_t{3};
  Value model = Value::dict({
      {"embed.weight", Value(tied, io::TensorKind::Parameter)},
      {"bn.running_mean", Value(from_bits<float>({0.5f, -0.5f}, {2}, kFloat32), io::TensorKind::Buffer)},
      {"bn.scratch", Value(from_bits<int32_t>({9}, {1}, kInt32), io::TensorKind::Buffer, /*persistent=*/false)},
      {"decoder.weight", Value(tied, io::TensorKind::Parameter)},
  });

  return Value::dict({
      {"scalars", scalars},
      {"tensors", tensors},
      {"note", Value::tuple({"best", from_bits<float>({0.25f, -4.0f}, {2}, kFloat32)})},
      {"model", model},
      // Paths that collide: "paths/a/b" is taken by the first, the second is stored as "paths/a/b#2".
      {"paths", Value::dict({{"a/b", from_bits<int32_t>({1}, {1}, kInt32)},
                             {"a", Value::dict({{"b", from_bits<int32_t>({2}, {1}, kInt32)}})}})},
      {"step", int64_t{1234}},
      // Schema version 2: int keys (PyTorch's optimizer state), beside a str key that reads the
      // same; both hold tensors, so their paths collide too ("int_keys/0" and "int_keys/0#2").
      {"int_keys", Value::dict({{0, from_bits<float>({7.0f}, {1}, kFloat32)},
                                {"0", from_bits<float>({8.0f}, {1}, kFloat32)},
                                {-1, "minus one"},
                                {std::numeric_limits<int64_t>::max(), Value::dict({{int64_t{3}, true}})}})},
      // Schema version 3: complex128, stored as float64 pairs and named in the table; complex64
      // (safetensors' C64) and the int8/int16 dtypes that came without a version of their own.
      {"storage_types", Value::dict({
          // 1.5-2j, -0+inf*j
          {"c64", from_bits<uint32_t>({0x3FC00000, 0xC0000000, 0x80000000, 0x7F800000}, {2}, kComplex64)},
          // 0.1-1e300j, 5e-324+nan*j, then 1+2j and 3+4j in a transposed 2x2 with 5+6j, 7+8j
          {"c128", from_bits<double>({0.1, -1e300, 5e-324, std::nan("")}, {2}, kComplex128)},
          {"c128_transposed", from_bits<double>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2}, kComplex128).t()},
          {"c128_empty", empty({0, 2}, kComplex128)},
          {"i8", from_bits<int8_t>({-128, -1, 0, 127}, {4}, kInt8)},
          {"i16", from_bits<int16_t>({-32768, -1, 0, 32767}, {2, 2}, kInt16)},
      })},
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_io_golden GOLDEN_DIR   (writes GOLDEN_DIR/v" << io::kSchemaVersion
              << "/checkpoint.ember)\n";
    return 2;
  }
  std::filesystem::path dir = std::filesystem::path(argv[1]) / ("v" + std::to_string(io::kSchemaVersion));
  std::filesystem::path file = dir / "checkpoint.ember";
  if (std::filesystem::exists(file)) {
    std::cerr << "make_io_golden: " << file.string() << " exists; golden files are never rewritten\n";
    return 1;
  }
  try {
    std::filesystem::create_directories(dir);
    io::save(golden(), file.string());
    if (io::File::open(file.string()).version() != io::kSchemaVersion) {
      std::cerr << "make_io_golden: the tree was written as an older version: add what version "
                << io::kSchemaVersion << " brought to golden()\n";
      std::filesystem::remove_all(dir);
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "make_io_golden: error: " << e.what() << '\n';
    return 1;
  }
  std::cout << "wrote " << file.string() << '\n';
  return 0;
}
