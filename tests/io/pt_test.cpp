// PyTorch checkpoints (torch.save) read without PyTorch: the fixtures in tests/fixtures/pt/ were
// written by real PyTorch (make_pt_fixtures.py); each NAME.expected.safetensors holds every tensor
// of NAME.pt under its path, and the outputs PyTorch computed, which Ember must reproduce.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "ember/ember.h"
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

const std::filesystem::path kPtDir = std::filesystem::path(EMBER_FIXTURES_DIR) / "pt";

std::string fixture(const std::string& name) { return (kPtDir / name).string(); }

// Every tensor of `v` by its path, as the generator's flatten() names them.
void flatten(const Value& v, const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) {
  if (v.is_tensor()) {
    out.emplace_back(prefix.empty() ? "tensor" : prefix, v.as_tensor());
  } else if (v.is_dict()) {
    for (size_t i = 0; i < v.size(); ++i)
      flatten(v.items()[i], prefix.empty() ? v.keys()[i].str() : prefix + "/" + v.keys()[i].str(), out);
  } else if (v.is_list() || v.is_tuple()) {
    for (size_t i = 0; i < v.size(); ++i)
      flatten(v[i], prefix.empty() ? std::to_string(i) : prefix + "/" + std::to_string(i), out);
  }
}

// Loads NAME.pt and checks every tensor bit for bit against NAME.expected.safetensors; returns the
// tree and the expected file's tensors.
std::pair<Value, Value> load_checked(const std::string& name) {
  Value v = load(fixture(name + ".pt"));
  Value expected = load(fixture(name + ".expected.safetensors"));
  std::vector<std::pair<std::string, Tensor>> tensors;
  flatten(v, "", tensors);
  size_t stored = 0;
  for (const Key& key : expected.keys()) stored += key.str().rfind("ref/", 0) != 0;
  EXPECT_EQ(tensors.size(), stored) << name;
  for (const auto& [path, t] : tensors) {
    const Value* e = expected.find(path);
    if (e == nullptr) {
      ADD_FAILURE() << name << ": no expected tensor '" << path << "'";
      continue;
    }
    // complex128 is expected as its float64 pairs (safetensors has no complex128).
    const Tensor got = t.dtype() == kComplex128 ? view_as_real(t) : t;
    EXPECT_TRUE(bitwise_equal(got.contiguous(), e->as_tensor())) << name << ": " << path;
  }
  return {v, expected};
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  Tensor x = a.to(kFloat64).contiguous(), y = b.to(kFloat64).contiguous();
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    worst = std::max(worst, std::abs(x.data_ptr<double>()[i] - y.data_ptr<double>()[i]));
  return worst;
}

// The Embedding / Conv2d / BatchNorm2d / Linear model of make_pt_fixtures.py.
struct Net : nn::Module {
  std::shared_ptr<nn::Embedding> emb = register_module("emb", std::make_shared<nn::Embedding>(nn::EmbeddingOptions{10, 4}));
  std::shared_ptr<nn::Conv2d> conv =
      register_module("conv", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 2, .out_channels = 3, .kernel_size = 3, .padding = 1}));
  std::shared_ptr<nn::BatchNorm2d> bn = register_module("bn", std::make_shared<nn::BatchNorm2d>(3));
  std::shared_ptr<nn::Linear> fc = register_module("fc", std::make_shared<nn::Linear>(nn::LinearOptions{48, 5}));
  Tensor forward(const Tensor& x) override { return (*fc)(flatten(relu((*bn)((*conv)(x))), 1)); }
};

struct Mlp : nn::Module {
  std::shared_ptr<nn::Linear> fc1 = register_module("fc1", std::make_shared<nn::Linear>(nn::LinearOptions{4, 8}));
  std::shared_ptr<nn::Linear> fc2 = register_module("fc2", std::make_shared<nn::Linear>(nn::LinearOptions{8, 3}));
  Tensor forward(const Tensor& x) override { return (*fc2)(tanh((*fc1)(x))); }
};

TEST(PtTest, StateDictLoadsWithExactValuesAndKeyOrder) {
  auto [sd, expected] = load_checked("model");
  EXPECT_THAT(sd.keys(), ::testing::ElementsAre("emb.weight", "conv.weight", "conv.bias", "bn.weight", "bn.bias",
                                                "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                                "fc.weight", "fc.bias"));
  EXPECT_EQ(sd.at("bn.num_batches_tracked").as_tensor().dtype(), kInt64);
  EXPECT_EQ(sd.at("bn.num_batches_tracked").as_tensor().item<int64_t>(), 3);
}

TEST(PtTest, ModelOutputsEqualPyTorchs) {
  auto [sd, expected] = load_checked("model");
  Net net;
  load_into(net, sd);  // strict: every name matches
  net.eval();
  NoGradGuard no_grad;
  Tensor out = net(expected.at("ref/input").as_tensor());
  EXPECT_LT(max_abs_diff(out, expected.at("ref/output").as_tensor()), 1e-5);
  Tensor emb = (*net.emb)(expected.at("ref/idx").as_tensor());
  EXPECT_TRUE(bitwise_equal(emb, expected.at("ref/emb_output").as_tensor()));
}

TEST(PtTest, TiedTensorsComeBackAsOneTensor) {
  auto [v, expected] = load_checked("tied");
  const Value& sd = v.at("state");
  // state_dict() detaches each name separately: two tensor objects over one storage, one view.
  EXPECT_TRUE(sd.at("embed.weight").as_tensor().is_same(sd.at("decoder.weight").as_tensor()));
  EXPECT_FALSE(sd.at("embed.weight").as_tensor().is_same(sd.at("decoder.bias").as_tensor()));
  // The same tensor object twice (the pickle's memo).
  EXPECT_TRUE(v.at("same")[0].as_tensor().is_same(v.at("same")[1].as_tensor()));
  // Saved as Ember, the tie is stored once and stays a tie.
  TempDir dir;
  save(v, dir.file("tied.ember"));
  Value back = load(dir.file("tied.ember"));
  EXPECT_TRUE(back.at("state").at("embed.weight").as_tensor().is_same(back.at("state").at("decoder.weight").as_tensor()));
  EXPECT_EQ(File::open(dir.file("tied.ember")).tensors().size(), 3u);
}

TEST(PtTest, EveryDtypeLoadsBitForBit) {
  auto [v, expected] = load_checked("dtypes");
  EXPECT_EQ(v.at("f16").as_tensor().dtype(), kFloat16);
  EXPECT_EQ(v.at("bf16").as_tensor().dtype(), kBFloat16);
  EXPECT_EQ(v.at("bool").as_tensor().dtype(), kBool);
  EXPECT_EQ(v.at("u8").as_tensor().dtype(), kUInt8);
  EXPECT_EQ(v.at("i32").as_tensor().dtype(), kInt32);
  EXPECT_EQ(v.at("i16").as_tensor().dtype(), kInt16);
  EXPECT_EQ(v.at("i16").as_tensor().to_vector<int16_t>(), (std::vector<int16_t>{-32768, 32767, -1}));
  EXPECT_EQ(v.at("i8").as_tensor().dtype(), kInt8);
  EXPECT_EQ(v.at("i8").as_tensor().to_vector<int8_t>(), (std::vector<int8_t>{-128, 127, -1, 0}));
  EXPECT_EQ(v.at("i64").as_tensor().data_ptr<int64_t>()[0], INT64_MIN);
  EXPECT_EQ(v.at("scalar").as_tensor().dim(), 0);
  EXPECT_EQ(v.at("scalar").as_tensor().item<float>(), 2.5f);
  EXPECT_EQ(v.at("empty").as_tensor().shape(), (DimVector{0, 3}));
  EXPECT_EQ(v.at("c64").as_tensor().dtype(), kComplex64);
  EXPECT_EQ(v.at("c64").as_tensor().to_vector<std::complex<float>>()[0], std::complex<float>(1, 2));
  const Tensor& c128 = v.at("c128").as_tensor();  // saved transposed: a view of its storage
  EXPECT_EQ(c128.dtype(), kComplex128);
  EXPECT_EQ(c128.sizes(), (DimVector{1, 2}));
  EXPECT_EQ(c128.strides(), (DimVector{1, 1}));
  EXPECT_EQ(c128.to_vector<std::complex<double>>()[1], std::complex<double>(5e-324, 0));
}

TEST(PtTest, ViewsKeepTheirStorageOffsetsAndStrides) {
  auto [v, expected] = load_checked("views");
  const Tensor& base = v.at("base").as_tensor();
  for (const char* name : {"t", "slice", "step", "offset", "row", "elem"})
    EXPECT_EQ(v.at(name).as_tensor().storage(), base.storage()) << name;
  EXPECT_EQ(v.at("t").as_tensor().strides(), (IntArrayRef{1, 6}));
  EXPECT_EQ(v.at("slice").as_tensor().storage_offset(), 8);
  EXPECT_EQ(v.at("step").as_tensor().strides(), (IntArrayRef{6, 2}));
  EXPECT_EQ(v.at("offset").as_tensor().storage_offset(), 5);
  EXPECT_EQ(v.at("elem").as_tensor().storage_offset(), 22);
  // A write through the base shows in every view, as in PyTorch.
  base.fill_(-1.0);
  EXPECT_EQ(v.at("elem").as_tensor().item<float>(), -1.0f);
  EXPECT_EQ(v.at("t").as_tensor().contiguous().data_ptr<float>()[5], -1.0f);
}

TEST(PtTest, NestedContainersScalarsAndStrings) {
  auto [v, expected] = load_checked("nested");
  EXPECT_EQ(v.at("epoch").as_int(), 3);
  EXPECT_TRUE(v.at("epoch").is_int());
  EXPECT_EQ(v.at("lr").as_float(), 0.001);
  EXPECT_TRUE(v.at("lr").is_float());
  EXPECT_EQ(v.at("name").as_string(), "run-1");
  EXPECT_EQ(v.at("unicode").as_string(), "h\xc3\xa9llo \xe2\x9c\x93");
  const Value& flags = v.at("flags");
  ASSERT_TRUE(flags.is_list());
  ASSERT_EQ(flags.size(), 3u);
  EXPECT_TRUE(flags[0].as_bool());
  EXPECT_FALSE(flags[1].as_bool());
  EXPECT_TRUE(flags[2].is_none());
  const Value& pair = v.at("pair");
  ASSERT_TRUE(pair.is_tuple());
  EXPECT_EQ(pair[0].as_string(), "best");
  EXPECT_EQ(pair[1].as_float(), 0.5);
  EXPECT_TRUE(pair[2].is_tensor());
  const Value& ints = v.at("nested").at("a").at("b");
  ASSERT_EQ(ints.size(), 5u);
  EXPECT_EQ(ints[0].as_int(), 1);
  EXPECT_EQ(ints[1].as_int(), -2);
  EXPECT_EQ(ints[2].as_int(), int64_t{1} << 40);
  EXPECT_EQ(ints[3].as_int(), INT64_MIN);
  EXPECT_EQ(ints[4].as_int(), INT64_MAX);
  EXPECT_THAT(v.at("int_keys").keys(), ::testing::ElementsAre(Key(0), Key(7)));
  EXPECT_EQ(v.at("int_keys").at(7).as_string(), "seven");
  EXPECT_FALSE(v.at("int_keys").contains("7")) << "the int key 7 is not the str key \"7\"";
  ASSERT_TRUE(v.at("size").is_tuple());
  EXPECT_EQ(v.at("size")[1].as_int(), 3);
  EXPECT_EQ(v.at("dtype").as_string(), "torch.float16");
  EXPECT_TRUE(v.at("empty").at("list").is_list());
  EXPECT_TRUE(v.at("empty").at("tuple").is_tuple());
  EXPECT_TRUE(v.at("empty").at("dict").is_dict());
}

TEST(PtTest, FromMemoryEqualsFromDisk) {
  std::string bytes = read_file(fixture("nested.pt"));
  Value a = File::from_bytes(bytes.data(), bytes.size(), "mem").root();
  EXPECT_TRUE(a.equals(load(fixture("nested.pt"))));
}

// Training continues in Ember from a PyTorch checkpoint: model and optimizer state imported by
// the parameter order of named_parameters(), then 4 more steps reach PyTorch's parameters.
template <typename Opt>
void continue_training(const std::string& name, const std::string& type, int steps, Opt make_optimizer) {
  auto [ckpt, expected] = load_checked(name);
  Mlp mlp;
  load_into(mlp, ckpt.at("model"));
  std::vector<std::string> names;
  for (const auto& [n, p] : mlp.named_parameters()) names.push_back(n);
  auto opt = make_optimizer(mlp);
  Value state = import_torch_optimizer(ckpt.at("optimizer"), names, type);
  optim::OptimizerLoadReport report = load_into(*opt, state, /*strict=*/true);
  Tensor data = expected.at("ref/data").as_tensor(), target = expected.at("ref/target").as_tensor();
  for (int i = 0; i < steps; ++i) {
    opt->zero_grad();
    nn::functional::mse_loss(mlp(data), target).backward();
    opt->step();
  }
  for (const auto& [n, p] : mlp.named_parameters())
    EXPECT_LT(max_abs_diff(p, expected.at("ref/final/" + n).as_tensor()), 2e-6) << name << ": " << n;
}

TEST(PtTest, AdamCheckpointContinuesTrainingInEmber) {
  continue_training("adam", "Adam", 4, [](Mlp& m) {
    return std::make_unique<optim::Adam>(m.named_parameters(), optim::AdamOptions{});  // hyperparameters come from the file
  });
}

TEST(PtTest, SgdMomentumCheckpointContinuesTrainingInEmber) {
  continue_training("sgd", "SGD", 3, [](Mlp& m) {
    return std::make_unique<optim::SGD>(m.named_parameters(), optim::SGDOptions{});
  });
}

// torch.optim keys state by int position: the ints survive io::load and an Ember save (schema
// version 2), so a checkpoint converted to Ember keeps PyTorch's structure exactly.
TEST(PtTest, OptimizerStateKeepsItsIntKeysThroughAnEmberFile) {
  Value ckpt = load(fixture("adam.pt"));
  const Value& state = ckpt.at("optimizer").at("state");
  EXPECT_THAT(state.keys(), ::testing::ElementsAre(Key(0), Key(1), Key(2), Key(3)));
  EXPECT_FALSE(state.contains("0"));
  EXPECT_THAT(ckpt.at("optimizer").at("param_groups")[0].at("params").str(), HasSubstr("[0, 1, 2, 3]"));
  TempDir dir;
  save(ckpt, dir.file("adam.ember"));
  EXPECT_EQ(File::open(dir.file("adam.ember")).version(), 2);
  Value back = load(dir.file("adam.ember"));
  EXPECT_TRUE(back.equals(ckpt));
  EXPECT_TRUE(back.at("optimizer").at("state").keys()[3].is_int());
}

TEST(PtTest, ImportedAdamStateIsKeyedByName) {
  Value ckpt = load(fixture("adam.pt"));
  Value state = import_torch_optimizer(ckpt.at("optimizer"), {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}, "Adam");
  EXPECT_THAT(state.at("state").keys(), ::testing::ElementsAre("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"));
  const Value& g = state.at("param_groups")[0];
  ASSERT_TRUE(g.at("betas").is_tuple());
  EXPECT_EQ(g.at("betas")[0].as_float(), 0.8);
  EXPECT_EQ(g.at("betas")[1].as_float(), 0.95);
  EXPECT_TRUE(g.at("amsgrad").is_bool());  // flags stay flags
  EXPECT_EQ(g.at("eps").as_float(), 1e-7);
  EXPECT_EQ(state.at("state").at("fc2.bias").at("step").as_tensor().item<float>(), 3.0f);
}

TEST(PtTest, ImportRejectsAPositionWithoutAName) {
  Value ckpt = load(fixture("adam.pt"));
  try {
    import_torch_optimizer(ckpt.at("optimizer"), {"fc1.weight", "fc1.bias"}, "Adam");
    ADD_FAILURE() << "three parameters without names were accepted";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'param_groups/0/params/2' is parameter 2, but 2 names were given"));
  }
  expect_error<ValueError>([&] { import_torch_optimizer(ckpt.at("optimizer"), {"a", "b", "c", "d"}, "SGD"); },
                           {"import_torch_optimizer: 'param_groups/0/betas' has no SGD equivalent"});
}

// A pickle that would run os.system under pickle.load: refused by name, and nothing runs.
TEST(PtTest, ForbiddenGlobalIsRefusedAndNothingRuns) {
  TempDir dir;
  std::string marker = dir.file("pwned");
  auto le = [](uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  // data.pkl: os.system("touch <marker>") as protocol 2, in a zip laid out as torch.save's.
  std::string cmd = "touch " + marker;
  std::string pkl = std::string("\x80\x02" "cos\nsystem\n") + "X" + le(cmd.size(), 4) + cmd + "\x85R.";
  // A stored zip entry by hand: local header, data, central directory, end record.
  std::string name = "evil/data.pkl";
  uint32_t crc = 0xffffffffu;  // CRC-32 (IEEE), bit by bit
  for (unsigned char c : pkl) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  crc = ~crc;
  std::string local = "PK\x03\x04" + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) + le(pkl.size(), 4) +
                      le(pkl.size(), 4) + le(name.size(), 2) + le(0, 2) + name + pkl;
  std::string central = "PK\x01\x02" + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) +
                        le(pkl.size(), 4) + le(pkl.size(), 4) + le(name.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) +
                        le(0, 2) + le(0, 4) + le(0, 4) + name;
  std::string end = "PK\x05\x06" + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) + le(central.size(), 4) +
                    le(local.size(), 4) + le(0, 2);
  std::string path = dir.file("evil.pt");
  write_file(path, local + central + end);
  try {
    load(path);
    ADD_FAILURE() << "a pickle calling os.system loaded";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("refers to the global 'os.system', which Ember does not load"));
    EXPECT_THAT(e.what(), HasSubstr(path));
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
  // Allowed, the call comes back described: still nothing runs.
  Value described = load(path, {.pickle_globals = {"os.system"}});
  EXPECT_EQ(described.at(kPickledGlobalKey).as_string(), "os.system");
  EXPECT_EQ(described.at("call").as_string(), "reduce");
  EXPECT_EQ(described.at("args")[0].as_string(), "touch " + marker);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// A checkpoint with Python objects beside its tensors (objects.pt: a script's argparse.Namespace,
// a timedelta, an Enum member, a Fraction and a class itself): refused unless allowed; allowed,
// each is described as pickle would make it, with the tensors inside them read as any other.
TEST(PtTest, AllowedGlobalsComeBackDescribed) {
  expect_error<ValueError>([] { load(fixture("objects.pt")); },
                           {"refers to the global 'argparse.Namespace'", "add_safe_globals"});
  expect_error<ValueError>([] { load(fixture("objects.pt"), {.pickle_globals = {"argparse.Namespace"}}); },
                           {"refers to the global 'datetime.timedelta'"});
  for (const std::vector<std::string>& allowed :
       {std::vector<std::string>{"argparse.Namespace", "datetime.timedelta", "http.HTTPStatus", "fractions.Fraction"},
        std::vector<std::string>{"*"}}) {
    Value v = load(fixture("objects.pt"), {.pickle_globals = allowed});
    const Value& args = v.at("args");
    EXPECT_EQ(args.at(kPickledGlobalKey).as_string(), "argparse.Namespace");
    EXPECT_EQ(args.at("call").as_string(), "new");
    EXPECT_EQ(args.at("args").size(), 0u);
    const Value& state = args.at("state");
    EXPECT_DOUBLE_EQ(state.at("lr").as_float(), 0.1);
    EXPECT_EQ(state.at("arch").as_string(), "resnet18");
    EXPECT_EQ(state.at("milestones")[1].as_int(), 60);
    // The tensor in the Namespace is the one under model/w (one object in the pickle).
    EXPECT_EQ(state.at("init").as_tensor().impl_ptr(), v.at("model").at("w").as_tensor().impl_ptr());
    const Value& elapsed = v.at("elapsed");
    EXPECT_EQ(elapsed.at(kPickledGlobalKey).as_string(), "datetime.timedelta");
    EXPECT_EQ(elapsed.at("call").as_string(), "reduce");
    EXPECT_EQ(elapsed.at("args")[2].as_int(), 3);
    EXPECT_EQ(elapsed.find("state"), nullptr);
    EXPECT_EQ(v.at("status").at("args")[0].as_int(), 200);
    EXPECT_EQ(v.at("ratio").at("args")[1].as_int(), 3);
    EXPECT_EQ(v.at("kind").at(kPickledGlobalKey).as_string(), "argparse.Namespace");
    EXPECT_EQ(v.at("kind").at("call").as_string(), "global");
  }
}

TEST(PtTest, DamagedStorageFailsTheCrcCheck) {
  std::string bytes = read_file(fixture("views.pt"));
  // The storage of views.pt is arange(24) in float32: find 23.0f and change it.
  float f = 23.0f;
  size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&f), 4));
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 1;
  try {
    File::from_bytes(bytes.data(), bytes.size(), "flipped").root();
    ADD_FAILURE() << "a damaged storage loaded";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("CRC-32 mismatch for entry 'views/data/0' in 'flipped'"));
  }
  // Unverified, it loads (the bytes are what they are).
  EXPECT_NO_THROW(File::from_bytes(bytes.data(), bytes.size(), "flipped").root(/*verify=*/false));
}

TEST(PtTest, EveryTruncationIsRefusedCleanly) {
  std::string bytes = read_file(fixture("tied.pt"));
  for (size_t n = 0; n < bytes.size(); n += 7) {
    try {
      File::from_bytes(bytes.data(), n, "cut").root();
      ADD_FAILURE() << "a prefix of " << n << " bytes loaded";
    } catch (const Error& e) {
      ASSERT_THAT(e.what(), HasSubstr("'cut'")) << n;
    }
  }
}

}  // namespace
}  // namespace ember::io
