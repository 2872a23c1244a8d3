// io::save / io::load / io::load_tensor / io::File through the public API: every value type and
// dtype round-trips with its type kept, ties are stored once under every name, and a failed or
// damaged save never costs the previous file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "ember/ember.h"
#include "ember/io/checksum.h"
#include "ember/io/schema.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::read_file;
using ember::testing::TempDir;
using ember::testing::write_file;
using ::testing::HasSubstr;

Value round_trip(const Value& v, const TempDir& dir) {
  std::string path = dir.file("value.ember");
  save(v, path);
  return load(path);
}

TEST(SerializeTest, ScalarsKeepTheirTypes) {
  TempDir dir;
  Value v = Value::dict({{"none", Value()},
                         {"yes", true},
                         {"int", int64_t{-7}},
                         {"big", std::numeric_limits<int64_t>::max()},
                         {"float", 0.1},
                         {"whole_float", 3.0},
                         {"nan", std::nan("")},
                         {"inf", -HUGE_VAL},
                         {"neg_zero", -0.0},
                         {"str", "héllo \"quoted\"\n"}});
  Value back = round_trip(v, dir);
  EXPECT_TRUE(back.equals(v)) << back.str();
  EXPECT_TRUE(back.at("int").is_int());
  EXPECT_TRUE(back.at("whole_float").is_float());  // 3.0 stays a float, not an int
  EXPECT_TRUE(back.at("yes").is_bool());
  EXPECT_TRUE(std::isnan(back.at("nan").as_float()));
  EXPECT_TRUE(std::signbit(back.at("neg_zero").as_float()));
  EXPECT_EQ(back.at("big").as_int(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(back.keys(), v.keys());  // insertion order, not sorted
}

TEST(SerializeTest, EveryDTypeRoundTripsBitForBit) {
  TempDir dir;
  Value v = Value::dict();
  Tensor base = randn({3, 5}, kFloat64);
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool, kInt8, kInt16})
    v.set(std::string(dtype_name(dtype)), base.mul(10).to(dtype));
  for (DType dtype : {kComplex64, kComplex128})  // non-contiguous too: a transposed complex view
    v.set(std::string(dtype_name(dtype)), view_as_complex(randn({5, 3, 2}, real_dtype(dtype))).t());
  Value back = round_trip(v, dir);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(back.items()[i].as_tensor().dtype(), v.items()[i].as_tensor().dtype()) << v.keys()[i];
    EXPECT_TRUE(bitwise_equal(back.items()[i].as_tensor(), v.items()[i].as_tensor())) << v.keys()[i];
  }
}

// The schema version is the oldest that holds the tree: complex128 needs 3, complex64 nothing new.
TEST(SerializeTest, OnlyComplex128RaisesTheSchemaVersion) {
  TempDir dir;
  save(Value::dict({{"z", zeros({2}, kComplex64)}}), dir.file("c64.ember"));
  EXPECT_EQ(File::open(dir.file("c64.ember")).version(), 1);
  save(Value::dict({{"z", zeros({2}, kComplex128)}}), dir.file("c128.ember"));
  File file = File::open(dir.file("c128.ember"));
  EXPECT_EQ(file.version(), 3);
  EXPECT_EQ(file.info("z").shape, (DimVector{2}));
  // A plain safetensors file gets complex128 as float64 pairs (view_as_real's layout).
  Tensor z = view_as_complex(tensor<double>({1, 2, 3, 4}).reshape({2, 2}));
  save_safetensors(Value::dict({{"z", z}}), dir.file("plain.safetensors"));
  Tensor pairs = load(dir.file("plain.safetensors")).at("z").as_tensor();
  EXPECT_EQ(pairs.dtype(), kFloat64);
  EXPECT_EQ(pairs.sizes(), (DimVector{2, 2}));
  EXPECT_EQ(pairs.to_vector<double>(), (std::vector<double>{1, 2, 3, 4}));
}

TEST(SerializeTest, ZeroDimEmptyAndNonContiguousTensors) {
  TempDir dir;
  Tensor m = arange(12, kFloat32).reshape({3, 4});
  Value v = Value::list({scalar_tensor(2.5), zeros({0, 3}), m.t(), m.slice(1, 1, 4, 2),
                         m.expand({2, 3, 4})});
  Value back = round_trip(v, dir);
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[0].as_tensor().dim(), 0);
  EXPECT_EQ(back[0].as_tensor().item<double>(), 2.5);
  EXPECT_EQ(back[1].as_tensor().sizes(), IntArrayRef({0, 3}));
  for (size_t i = 2; i < 5; ++i) EXPECT_TRUE(bitwise_equal(back[i].as_tensor(), v[i].as_tensor().contiguous()));
}

TEST(SerializeTest, NameTensorTuplesAndStringArrayListsKeepTheirTypes) {
  // The failure of older formats: a saved ("name", array) tuple came back as a tensor.
  TempDir dir;
  Tensor t = randn({2, 2});
  Value v = Value::dict({{"note", Value::tuple({"best", t})},
                         {"pair", Value::list({"w", t.mul(2)})},
                         {"single", Value::tuple({1})},
                         {"nested", Value::list({Value::list({}), Value::tuple({}), Value::dict()})}});
  Value back = round_trip(v, dir);
  ASSERT_TRUE(back.at("note").is_tuple());
  EXPECT_EQ(back.at("note")[0].as_string(), "best");
  EXPECT_TRUE(bitwise_equal(back.at("note")[1].as_tensor(), t));
  EXPECT_TRUE(back.at("pair").is_list());
  EXPECT_TRUE(back.at("pair")[0].is_string());
  EXPECT_TRUE(back.at("single").is_tuple());
  EXPECT_TRUE(back.at("nested")[0].is_list());
  EXPECT_TRUE(back.at("nested")[1].is_tuple());
  EXPECT_TRUE(back.at("nested")[2].is_dict());
  EXPECT_TRUE(back.equals(v));
}

TEST(SerializeTest, DeepNestingRoundTripsAndTooDeepIsRefusedOnSave) {
  TempDir dir;
  Value deep = Value::list({1});
  // Two levels each: 180 in all, within the limit of 200.
  for (int i = 0; i < 90; ++i) deep = Value::dict({{"k", Value::list({deep, Value::tuple({i})})}});
  EXPECT_TRUE(round_trip(deep, dir).equals(deep));

  Value too_deep = 1;
  for (int i = 0; i < 300; ++i) too_deep = Value::list({too_deep});
  try {
    save(too_deep, dir.file("deep.ember"));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("nested deeper than"));
  }
}

TEST(SerializeTest, TiedTensorIsStoredOnceUnderEveryName) {
  TempDir dir;
  Tensor shared = randn({4, 3});
  Value v = Value::dict({{"embed.weight", Value(shared, TensorKind::Parameter)},
                         {"decoder.weight", Value(shared, TensorKind::Parameter)},
                         {"other", randn({2})}});
  std::string path = dir.file("tied.ember");
  save(v, path);
  File file = File::open(path);
  ASSERT_EQ(file.tensors().size(), 2u);
  const TensorInfo& info = file.info("decoder.weight");
  EXPECT_EQ(info.key, "embed.weight");
  EXPECT_THAT(info.names, ::testing::ElementsAre("embed.weight", "decoder.weight"));

  Value back = load(path);
  EXPECT_TRUE(back.at("embed.weight").as_tensor().is_same(back.at("decoder.weight").as_tensor()));
  EXPECT_EQ(back.at("decoder.weight").tensor_kind(), TensorKind::Parameter);
  EXPECT_TRUE(bitwise_equal(load_tensor(path, "decoder.weight"), shared));
}

TEST(SerializeTest, TensorAttributesAndRequiresGradRoundTrip) {
  TempDir dir;
  Tensor w = randn({2, 2}).set_requires_grad();
  w.attributes()["lr_scale"] = 0.5;
  w.attributes()["no_decay"] = true;
  w.attributes()["group"] = std::string("head");
  w.attributes()["rank"] = int64_t{3};
  Tensor frozen = randn({2});
  Value back = round_trip(Value::dict({{"w", Value(w, TensorKind::Parameter)},
                                       {"b", Value(frozen, TensorKind::Buffer, false)}}), dir);
  const Tensor& w2 = back.at("w").as_tensor();
  EXPECT_TRUE(w2.requires_grad());
  EXPECT_EQ(w2.attributes(), w.attributes());
  EXPECT_FALSE(back.at("b").as_tensor().requires_grad());
  EXPECT_EQ(back.at("b").tensor_kind(), TensorKind::Buffer);
  EXPECT_FALSE(back.at("b").persistent());
}

TEST(SerializeTest, LoadedTensorsShareTheMappingAndEditsNeverReachTheFile) {
  TempDir dir;
  std::string path = dir.file("m.ember");
  save(Value::dict({{"w", ones({1024})}}), path);
  std::string before = read_file(path);
  Value back = load(path);
  back.at("w").as_tensor().mul_(3.0);
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(load_tensor(path, "w").sum().item<double>(), 1024.0);
}

TEST(SerializeTest, LoadTensorNamesTheMissingKey) {
  TempDir dir;
  std::string path = dir.file("k.ember");
  save(Value::dict({{"a", ones({1})}, {"b", zeros({1})}}), path);
  try {
    load_tensor(path, "c");
    FAIL() << "expected an error";
  } catch (const KeyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no tensor named 'c'"));
    EXPECT_THAT(e.what(), HasSubstr("'a'"));
  }
}

TEST(SerializeTest, IntKeysRoundTripAsIntsAndNeedVersionTwo) {
  TempDir dir;
  std::string path = dir.file("k.ember");
  Tensor a = arange(3, kFloat32), b = ones({2}, kInt64);
  // PyTorch's optimizer state is keyed by position; 0 and "0" are different keys.
  Value state = Value::dict({{0, Value::dict({{"exp_avg", a}})}, {"0", b}, {-5, int64_t{1}}, {7, a}});
  save(Value::dict({{"state", state}}), path);
  File file = File::open(path);
  EXPECT_EQ(file.version(), 2);
  Value back = load(path);
  EXPECT_TRUE(back.equals(Value::dict({{"state", state}})));
  const Value& s = back.at("state");
  EXPECT_THAT(s.keys(), ::testing::ElementsAre(Key(0), Key("0"), Key(-5), Key(7)));
  EXPECT_TRUE(s.keys()[0].is_int());
  EXPECT_FALSE(s.keys()[1].is_int());
  EXPECT_TRUE(s.at(0).at("exp_avg").as_tensor().is_same(s.at(7).as_tensor())) << "a tie under int keys stays a tie";
  EXPECT_EQ(s.at(-5).as_int(), 1);
  expect_error<KeyError>([&] { s.at(1); }, {"no key 1 in dict (keys: 0, '0', -5, 7)"});
  expect_error<TypeError>([&] { s.keys()[0].as_string(); }, {"the dict key 0 is an int, expected a str"});
}

TEST(SerializeTest, FileIsValidSafetensorsWithAlignedData) {
  TempDir dir;
  std::string path = dir.file("s.ember");
  save(Value::dict({{"flag", ones({3}, kBool)}, {"x", randn({5}, kFloat64)}, {"h", ones({3}, kFloat16)}}), path);
  std::string bytes = read_file(path);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
  EXPECT_EQ(bytes[8], '{');
  File file = File::open(path);
  EXPECT_TRUE(file.is_ember());
  EXPECT_EQ(file.version(), 1) << "a tree without int keys is written as version 1, which older readers read";
  EXPECT_EQ(file.metadata().at("format"), "ember");
  // Widest elements first: the float64 tensor leads the data.
  EXPECT_EQ(file.tensors().front().key, "x");
}

TEST(SerializeTest, ReadsPlainSafetensorsInFileOrder) {
  TempDir dir;
  // Written by hand, as another tool would: no Ember metadata, data out of key order.
  std::string header = R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("a":{"dtype":"I64","shape":[],"data_offsets":[8,16]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  float b[2] = {1.5f, -2.f};
  int64_t a = 42;
  bytes += header + std::string(reinterpret_cast<char*>(b), 8) + std::string(reinterpret_cast<char*>(&a), 8);
  write_file(dir.file("plain.safetensors"), bytes);
  Value v = load(dir.file("plain.safetensors"));
  EXPECT_EQ(v.keys(), (std::vector<Key>{"b", "a"}));
  EXPECT_EQ(v.at("a").as_tensor().item<int64_t>(), 42);
  EXPECT_EQ(v.at("b").as_tensor().to_vector<float>(), (std::vector<float>{1.5f, -2.f}));
  EXPECT_FALSE(File::open(dir.file("plain.safetensors")).is_ember());
}

TEST(SerializeTest, DamagedBytesFailTheChecksumNamingTheTensor) {
  TempDir dir;
  std::string path = dir.file("d.ember");
  save(Value::dict({{"a", ones({16})}, {"b", zeros({16})}}), path);
  std::string bytes = read_file(path);
  bytes[bytes.size() - 3] ^= 0x40;  // inside the last tensor's data
  write_file(path, bytes);
  File file = File::open(path);
  std::string damaged = file.verify("a") ? "b" : "a";
  EXPECT_FALSE(file.verify(damaged));
  try {
    load(path);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("checksum mismatch for tensor '" + damaged + "'"));
    EXPECT_THAT(e.what(), HasSubstr(path));
  }
  // The undamaged tensor still reads on its own.
  EXPECT_NO_THROW(load_tensor(path, damaged == "a" ? "b" : "a"));
}

TEST(SerializeTest, FailedSaveLeavesThePreviousFileIntact) {
  TempDir dir;
  std::string path = dir.file("keep.ember");
  save(Value::dict({{"w", ones({8})}}), path);
  std::string before = read_file(path);
  // Not UTF-8: the JSON header cannot hold it, so the save fails before touching the target.
  expect_error<ValueError>([&] { save(Value::dict({{std::string("bad\xff"), ones({1})}}), path); },
                           {"io::save: '" + path + "': cannot encode the value", "invalid UTF-8 byte",
                            "keys and strings must be UTF-8"});
  EXPECT_EQ(read_file(path), before);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename(), "keep.ember") << "a temporary was left behind";
  try {
    save(Value(1), dir.file("no/such/dir/x.ember"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no/such/dir/x.ember"));
  }
}

TEST(SerializeTest, RootTensorAndKeysThatCollide) {
  TempDir dir;
  Value back = round_trip(Value(arange(3, kFloat32)), dir);
  EXPECT_TRUE(back.is_tensor());
  Tensor t1 = ones({1}), t2 = zeros({1});
  Value v = Value::dict({{"a/b", t1}, {"a", Value::dict({{"b", t2}})}, {"__metadata__", ones({2})}});
  Value back2 = round_trip(v, dir);
  EXPECT_TRUE(back2.equals(v));
}

TEST(SerializeTest, NewerSchemaVersionIsRefusedWithAClearMessage) {
  TempDir dir;
  std::string path = dir.file("v.ember");
  save(Value::dict({{"w", ones({2})}}), path);
  std::string bytes = read_file(path);
  size_t at = bytes.find("\\\"version\\\":1");
  ASSERT_NE(at, std::string::npos);
  bytes[at + std::string("\\\"version\\\":").size()] = '9';
  // As a newer Ember would write it: with the header's checksum of its own bytes.
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = header_len << 8 | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  std::string header = bytes.substr(0, 8 + header_len);
  detail::seal(header, detail::kHeaderChecksumField);
  write_file(path, header + bytes.substr(header.size()));
  try {
    load(path);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("schema version 9"));
    EXPECT_THAT(e.what(), HasSubstr("upgrade Ember"));
  }
}

TEST(SerializeTest, LoadingAMissingFileIsFileNotFoundNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("absent.ember");
  try {
    load(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const FileNotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '" + path + "'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::io

namespace ember::io {
namespace {

TEST(SerializeTest, TypeErrorsNameTheTypeTheValueHas) {
  expect_error<TypeError>([] { Value(3.5).as_int(); }, {"io::Value: expected int, got float"});
  expect_error<TypeError>([] { Value(std::string("s")).as_float(); }, {"got str"});
  expect_error<TypeError>([] { Value().as_tensor(); }, {"got None"});
  expect_error<TypeError>([] { Value::list({}).as_bool(); }, {"got list"});
  expect_error<TypeError>([] { Value::tuple({}).as_string(); }, {"got tuple"});
  expect_error<TypeError>([] { Value(int64_t{1}).items(); }, {"expected list, tuple or dict, got int"});
  expect_error<TypeError>([] { Value(ones({1})).as_int(); }, {"got Tensor"});
  expect_error<TypeError>([] { Value::dict({}).as_float(); }, {"got dict"});
}

}  // namespace
}  // namespace ember::io
