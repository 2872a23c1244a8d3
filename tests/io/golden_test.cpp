// Files written by every earlier schema version keep loading (FORMAT.md §4): each version has a
// committed golden checkpoint (tests/fixtures/io/golden/v<N>/, written once by
// tests/io/programs/make_io_golden.cpp) and a test here that checks every value in it against
// literals. The literals are never recomputed from the writer, so a reader change that misreads
// an old file fails here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "ember/ember.h"

namespace ember::io {
namespace {

using ::testing::ElementsAre;

std::string golden_file(int64_t version) {
  return std::string(EMBER_IO_GOLDEN_DIR) + "/v" + std::to_string(version) + "/checkpoint.ember";
}

/// The element bytes of `t` as T (bit patterns for the floating types).
template <typename T>
std::vector<T> bits(const Tensor& t) {
  EXPECT_EQ(t.itemsize(), sizeof(T)) << describe(t);
  Tensor c = t.contiguous();
  std::vector<T> out(static_cast<size_t>(c.numel()));
  if (!out.empty()) std::memcpy(out.data(), c.data_ptr(), c.nbytes());
  return out;
}

const Tensor& tensor_at(const Value& v, DType dtype, IntArrayRef shape) {
  EXPECT_TRUE(v.is_tensor()) << v.str();
  const Tensor& t = v.as_tensor();
  EXPECT_EQ(t.dtype(), dtype);
  EXPECT_EQ(t.sizes(), shape);
  return t;
}

TEST(GoldenTest, EverySchemaVersionUpToTheCurrentHasAGoldenFile) {
  for (int64_t version = 1; version <= kSchemaVersion; ++version)
    EXPECT_TRUE(std::filesystem::exists(golden_file(version)))
        << "schema version " << version << " has no golden file: run make_io_golden (see "
        << "tests/fixtures/io/golden/README.md) and commit it";
}

TEST(GoldenTest, V1ScalarsAndContainersLoadExactly) {
  Value root = load(golden_file(1));
  ASSERT_TRUE(root.is_dict());
  EXPECT_THAT(root.keys(), ElementsAre("scalars", "tensors", "note", "model", "paths", "step"));
  EXPECT_TRUE(root.at("step").is_int());
  EXPECT_EQ(root.at("step").as_int(), 1234);

  const Value& s = root.at("scalars");
  EXPECT_THAT(s.keys(), ElementsAre("none", "yes", "no", "int", "int_max", "int_min", "float", "whole_float",
                                    "neg_zero", "tiny", "nan", "inf", "neg_inf", "str", "empty_str", "list",
                                    "tuple", "empty_dict"));
  EXPECT_TRUE(s.at("none").is_none());
  EXPECT_TRUE(s.at("yes").is_bool() && s.at("yes").as_bool());
  EXPECT_TRUE(s.at("no").is_bool() && !s.at("no").as_bool());
  EXPECT_TRUE(s.at("int").is_int());
  EXPECT_EQ(s.at("int").as_int(), -7);
  EXPECT_EQ(s.at("int_max").as_int(), INT64_C(9223372036854775807));
  EXPECT_EQ(s.at("int_min").as_int(), -INT64_C(9223372036854775807) - 1);
  EXPECT_TRUE(s.at("float").is_float());
  EXPECT_EQ(std::bit_cast<uint64_t>(s.at("float").as_float()), UINT64_C(0x3FB999999999999A));  // 0.1
  EXPECT_TRUE(s.at("whole_float").is_float());
  EXPECT_EQ(s.at("whole_float").as_float(), 3.0);
  EXPECT_EQ(std::bit_cast<uint64_t>(s.at("neg_zero").as_float()), UINT64_C(0x8000000000000000));
  EXPECT_EQ(std::bit_cast<uint64_t>(s.at("tiny").as_float()), UINT64_C(1));  // 5e-324
  EXPECT_TRUE(std::isnan(s.at("nan").as_float()));
  EXPECT_EQ(s.at("inf").as_float(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.at("neg_inf").as_float(), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(s.at("str").is_string());
  EXPECT_EQ(s.at("str").as_string(), "h\xc3\xa9llo \"quoted\"\n\ttab");
  EXPECT_EQ(s.at("empty_str").as_string(), "");

  const Value& list = s.at("list");
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.size(), 6u);
  EXPECT_TRUE(list[0].is_int());
  EXPECT_EQ(list[0].as_int(), 1);
  EXPECT_TRUE(list[1].is_float());
  EXPECT_EQ(list[1].as_float(), 2.5);
  EXPECT_EQ(list[2].as_string(), "x");
  EXPECT_TRUE(list[3].is_none());
  EXPECT_TRUE(list[4].is_list());
  EXPECT_EQ(list[4].size(), 0u);
  EXPECT_TRUE(list[5].is_tuple());
  EXPECT_EQ(list[5].size(), 0u);
  ASSERT_TRUE(s.at("tuple").is_tuple());
  ASSERT_EQ(s.at("tuple").size(), 1u);
  EXPECT_TRUE(s.at("tuple")[0].is_bool());
  EXPECT_TRUE(s.at("empty_dict").is_dict());
  EXPECT_EQ(s.at("empty_dict").size(), 0u);

  // A ("name", tensor) tuple stays that tuple.
  const Value& note = root.at("note");
  ASSERT_TRUE(note.is_tuple());
  ASSERT_EQ(note.size(), 2u);
  EXPECT_EQ(note[0].as_string(), "best");
  EXPECT_THAT(bits<float>(tensor_at(note[1], kFloat32, {2})), ElementsAre(0.25f, -4.0f));
}

TEST(GoldenTest, V1TensorsOfEveryDTypeLoadBitForBit) {
  Value root = load(golden_file(1));
  const Value& t = root.at("tensors");
  EXPECT_THAT(t.keys(), ElementsAre("f32", "f64", "f16", "bf16", "i64", "i32", "u8", "bool", "zero_dim", "empty",
                                    "empty_i64", "transposed"));
  // +0, -0, 1.5, a NaN with a payload, the largest float32, the smallest subnormal
  EXPECT_THAT(bits<uint32_t>(tensor_at(t.at("f32"), kFloat32, {2, 3})),
              ElementsAre(0x00000000u, 0x80000000u, 0x3FC00000u, 0x7FC00001u, 0x7F7FFFFFu, 0x00000001u));
  // 0.1, -1e300, 5e-324
  EXPECT_THAT(bits<uint64_t>(tensor_at(t.at("f64"), kFloat64, {3})),
              ElementsAre(UINT64_C(0x3FB999999999999A), UINT64_C(0xFE37E43C8800759C), UINT64_C(0x1)));
  // 1.0, -2.5, 65504, 2^-24
  EXPECT_THAT(bits<uint16_t>(tensor_at(t.at("f16"), kFloat16, {2, 2})), ElementsAre(0x3C00, 0xC100, 0x7BFF, 0x0001));
  // 1.0, -2.5, the largest bfloat16, -inf
  EXPECT_THAT(bits<uint16_t>(tensor_at(t.at("bf16"), kBFloat16, {4})), ElementsAre(0x3F80, 0xC020, 0x7F7F, 0xFF80));
  EXPECT_THAT(bits<int64_t>(tensor_at(t.at("i64"), kInt64, {4})),
              ElementsAre(std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max()));
  EXPECT_THAT(bits<int32_t>(tensor_at(t.at("i32"), kInt32, {3, 1})),
              ElementsAre(std::numeric_limits<int32_t>::min(), 7, std::numeric_limits<int32_t>::max()));
  EXPECT_THAT(bits<uint8_t>(tensor_at(t.at("u8"), kUInt8, {4})), ElementsAre(0, 1, 127, 255));
  EXPECT_THAT(bits<uint8_t>(tensor_at(t.at("bool"), kBool, {2, 3})), ElementsAre(1, 0, 0, 1, 1, 0));
  EXPECT_THAT(bits<double>(tensor_at(t.at("zero_dim"), kFloat64, {})), ElementsAre(2.5));
  EXPECT_EQ(tensor_at(t.at("empty"), kFloat32, {0, 3}).numel(), 0);
  EXPECT_EQ(tensor_at(t.at("empty_i64"), kInt64, {2, 0}).numel(), 0);
  EXPECT_THAT(bits<float>(tensor_at(t.at("transposed"), kFloat32, {3, 2})), ElementsAre(1, 4, 2, 5, 3, 6));
  for (const Value& v : t.items()) {
    EXPECT_EQ(v.tensor_kind(), TensorKind::Tensor);
    EXPECT_FALSE(v.as_tensor().requires_grad());
  }
}

TEST(GoldenTest, V1ModelKeepsKindsTheTieAndItsAttributes) {
  Value root = load(golden_file(1));
  const Value& model = root.at("model");
  EXPECT_THAT(model.keys(), ElementsAre("embed.weight", "bn.running_mean", "bn.scratch", "decoder.weight"));
  const Tensor& embed = tensor_at(model.at("embed.weight"), kFloat32, {2, 2});
  EXPECT_TRUE(embed.is_same(model.at("decoder.weight").as_tensor()));  // one tensor under both names
  EXPECT_EQ(model.at("embed.weight").tensor_kind(), TensorKind::Parameter);
  EXPECT_EQ(model.at("decoder.weight").tensor_kind(), TensorKind::Parameter);
  EXPECT_THAT(bits<float>(embed), ElementsAre(1, 2, 3, 4));
  EXPECT_TRUE(embed.requires_grad());
  EXPECT_EQ(embed.attributes(), (Attributes{{"lr_scale", 0.5},
                                            {"no_decay", true},
                                            {"group", std::string("embed")},
                                            {"rank", int64_t{3}}}));

  EXPECT_EQ(model.at("bn.running_mean").tensor_kind(), TensorKind::Buffer);
  EXPECT_TRUE(model.at("bn.running_mean").persistent());
  EXPECT_THAT(bits<float>(tensor_at(model.at("bn.running_mean"), kFloat32, {2})), ElementsAre(0.5f, -0.5f));
  EXPECT_EQ(model.at("bn.scratch").tensor_kind(), TensorKind::Buffer);
  EXPECT_FALSE(model.at("bn.scratch").persistent());
  EXPECT_THAT(bits<int32_t>(tensor_at(model.at("bn.scratch"), kInt32, {1})), ElementsAre(9));

  // Colliding paths: two distinct tensors.
  const Value& paths = root.at("paths");
  EXPECT_THAT(paths.keys(), ElementsAre("a/b", "a"));
  EXPECT_THAT(bits<int32_t>(tensor_at(paths.at("a/b"), kInt32, {1})), ElementsAre(1));
  EXPECT_THAT(bits<int32_t>(tensor_at(paths.at("a").at("b"), kInt32, {1})), ElementsAre(2));
}

TEST(GoldenTest, V1FileTableListsEveryNameAndVerifies) {
  File file = File::open(golden_file(1));
  EXPECT_TRUE(file.is_ember());
  EXPECT_EQ(file.version(), 1);
  EXPECT_EQ(file.metadata().at("format"), "ember");
  EXPECT_EQ(file.tensors().size(), 18u);
  for (const TensorInfo& info : file.tensors()) {
    EXPECT_TRUE(info.checksum.has_value()) << info.key;
    EXPECT_TRUE(file.verify(info.key)) << info.key;
  }
  const TensorInfo& tie = file.info("model/decoder.weight");
  EXPECT_EQ(tie.key, "model/embed.weight");
  EXPECT_THAT(tie.names, ElementsAre("model/embed.weight", "model/decoder.weight"));
  EXPECT_TRUE(tie.requires_grad);
  EXPECT_EQ(tie.nbytes, 16u);
  EXPECT_EQ(file.info("paths/a/b#2").key, "paths/a/b#2");
  // One tensor read on its own, by an alias.
  EXPECT_THAT(bits<float>(load_tensor(golden_file(1), "model/decoder.weight")), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(bits<uint16_t>(file.tensor("tensors/bf16")), ElementsAre(0x3F80, 0xC020, 0x7F7F, 0xFF80));
}

// Version 2 added int dict keys; everything version 1 held reads the same from a version-2 file.
TEST(GoldenTest, V2IntKeysStayIntsBesideTheStrKeysThatReadTheSame) {
  Value root = load(golden_file(2));
  EXPECT_THAT(root.keys(), ElementsAre("scalars", "tensors", "note", "model", "paths", "step", "int_keys"));
  const Value& ints = root.at("int_keys");
  EXPECT_THAT(ints.keys(), ElementsAre(Key(0), Key("0"), Key(-1), Key(std::numeric_limits<int64_t>::max())));
  EXPECT_TRUE(ints.keys()[0].is_int());
  EXPECT_TRUE(ints.keys()[1].is_string());
  EXPECT_THAT(bits<float>(tensor_at(ints.at(0), kFloat32, {1})), ElementsAre(7.0f));
  EXPECT_THAT(bits<float>(tensor_at(ints.at("0"), kFloat32, {1})), ElementsAre(8.0f));
  EXPECT_EQ(ints.at(-1).as_string(), "minus one");
  EXPECT_TRUE(ints.at(std::numeric_limits<int64_t>::max()).at(3).as_bool());
  EXPECT_EQ(root.at("step").as_int(), 1234);
  EXPECT_THAT(bits<float>(tensor_at(root.at("model").at("decoder.weight"), kFloat32, {2, 2})), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(bits<uint16_t>(tensor_at(root.at("tensors").at("bf16"), kBFloat16, {4})),
              ElementsAre(0x3F80, 0xC020, 0x7F7F, 0xFF80));
}

TEST(GoldenTest, V2FileTableNamesTheCollidingIntAndStrPaths) {
  File file = File::open(golden_file(2));
  EXPECT_EQ(file.version(), 2);
  EXPECT_EQ(file.tensors().size(), 20u);
  EXPECT_THAT(bits<float>(file.tensor("int_keys/0")), ElementsAre(7.0f));
  EXPECT_THAT(bits<float>(file.tensor("int_keys/0#2")), ElementsAre(8.0f));
  for (const TensorInfo& info : file.tensors()) EXPECT_TRUE(file.verify(info.key)) << info.key;
}

// Version 3 added complex128 (float64 pairs in the file, named in the table); complex64, int8 and
// int16 came without a version of their own and are checked here too.
TEST(GoldenTest, V3ComplexAndSmallIntegerTensorsLoadBitForBit) {
  Value root = load(golden_file(3));
  EXPECT_THAT(root.keys(), ElementsAre("scalars", "tensors", "note", "model", "paths", "step", "int_keys",
                                       "storage_types"));
  const Value& t = root.at("storage_types");
  // 1.5-2j, -0+inf*j
  EXPECT_THAT(bits<uint32_t>(view_as_real(tensor_at(t.at("c64"), kComplex64, {2}))),
              ElementsAre(0x3FC00000u, 0xC0000000u, 0x80000000u, 0x7F800000u));
  // 0.1-1e300j, 5e-324+nan*j
  std::vector<uint64_t> c128 = bits<uint64_t>(view_as_real(tensor_at(t.at("c128"), kComplex128, {2})));
  EXPECT_THAT(std::vector<uint64_t>(c128.begin(), c128.begin() + 3),
              ElementsAre(UINT64_C(0x3FB999999999999A), UINT64_C(0xFE37E43C8800759C), UINT64_C(0x1)));
  EXPECT_TRUE(std::isnan(std::bit_cast<double>(c128[3])));
  // [[1+2j, 3+4j], [5+6j, 7+8j]] transposed, saved by value
  EXPECT_THAT(bits<double>(view_as_real(tensor_at(t.at("c128_transposed"), kComplex128, {2, 2}))),
              ElementsAre(1, 2, 5, 6, 3, 4, 7, 8));
  EXPECT_EQ(tensor_at(t.at("c128_empty"), kComplex128, {0, 2}).numel(), 0);
  EXPECT_THAT(bits<int8_t>(tensor_at(t.at("i8"), kInt8, {4})), ElementsAre(-128, -1, 0, 127));
  EXPECT_THAT(bits<int16_t>(tensor_at(t.at("i16"), kInt16, {2, 2})), ElementsAre(-32768, -1, 0, 32767));
  EXPECT_THAT(root.at("int_keys").keys(),
              ElementsAre(Key(0), Key("0"), Key(-1), Key(std::numeric_limits<int64_t>::max())));
}

TEST(GoldenTest, V3FileTableDescribesComplex128AsItsOwnDtype) {
  File file = File::open(golden_file(3));
  EXPECT_EQ(file.version(), 3);
  const TensorInfo& info = file.info("storage_types/c128_transposed");
  EXPECT_EQ(info.dtype, kComplex128);
  EXPECT_EQ(info.shape, (DimVector{2, 2}));
  EXPECT_EQ(info.nbytes, 64u);
  EXPECT_EQ(file.tensor("storage_types/c128").dtype(), kComplex128);
  EXPECT_EQ(load_tensor(golden_file(3), "storage_types/c64").dtype(), kComplex64);
  for (const TensorInfo& i : file.tensors()) EXPECT_TRUE(file.verify(i.key)) << i.key;
}

}  // namespace
}  // namespace ember::io
