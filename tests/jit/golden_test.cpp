// The golden program files (tests/fixtures/jit/golden/v<N>/, written once by
// tests/fixtures/jit/make_golden.py) keep loading and running with every later build: a program
// written by version N of the format must give what it gave then (io/FORMAT.md, section 8).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/ember.h"

namespace ember::jit {
namespace {

using ::testing::ElementsAre;

std::string golden(int version, const std::string& file) {
  return std::string(EMBER_FIXTURES_DIR) + "/jit/golden/v" + std::to_string(version) + "/" + file;
}

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(allclose(got, want, 1e-6, 1e-6)) << got << "\nvs\n" << want;
}

TEST(GoldenProgramTest, Version1LoadsAndRunsAsItDid) {
  auto m = load(golden(1, "program.ember"));
  const io::Value io_ = io::load(golden(1, "io.ember"));
  std::vector<std::string> names;
  for (const auto& [name, t] : m->named_parameters()) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("gain", "enc.weight", "enc.bias", "bn.weight", "bn.bias", "mid.bias"));
  EXPECT_EQ(m->child("enc")->parameter("weight").impl_ptr(), m->child("mid")->parameter("weight").impl_ptr());
  EXPECT_FALSE(m->parameter("gain").requires_grad());
  EXPECT_FALSE(m->is_persistent_buffer("shift"));
  EXPECT_EQ(m->child("bn")->type_name(), "BatchNorm1d");
  m->eval();
  for (const char* batch : {"3", "5"}) {
    SCOPED_TRACE(batch);
    const io::Value out = m->run({io_.at(std::string("x") + batch).as_tensor()});
    ASSERT_TRUE(out.is_tuple());
    expect_close(out[0].as_tensor(), io_.at(std::string("y") + batch).as_tensor());
    expect_close(out[1].as_tensor(), io_.at(std::string("s") + batch).as_tensor());
  }
}

TEST(GoldenProgramTest, Version2FollowsTheBatchAndTheSequenceAsItDid) {
  auto m = load(golden(2, "program.ember"));
  const io::Value io_ = io::load(golden(2, "io.ember"));
  std::vector<std::string> names;
  for (const auto& [name, t] : m->named_parameters()) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("gain", "enc.weight", "enc.bias", "pos.weight", "bn.weight", "bn.bias", "mid.bias"));
  EXPECT_EQ(m->child("enc")->parameter("weight").impl_ptr(), m->child("mid")->parameter("weight").impl_ptr());
  EXPECT_FALSE(m->is_persistent_buffer("shift"));
  const io::Value dims = m->program(false).to_value().at("dims");
  ASSERT_EQ(dims.size(), 2u);  // the batch (traced at 3) and the sequence (at 5)
  EXPECT_EQ(dims[0].at("size").as_int(), 3);
  EXPECT_EQ(dims[1].at("size").as_int(), 5);
  m->eval();
  for (const char* shape : {"3x5", "2x8", "4x1"}) {
    SCOPED_TRACE(shape);
    const io::Value out = m->run({io_.at(std::string("x") + shape).as_tensor()});
    ASSERT_TRUE(out.is_tuple());
    expect_close(out[0].as_tensor(), io_.at(std::string("y") + shape).as_tensor());
    expect_close(out[1].as_tensor(), io_.at(std::string("s") + shape).as_tensor());
  }
}

}  // namespace
}  // namespace ember::jit
