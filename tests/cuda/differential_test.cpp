// Every op on cuda:0 against the CPU, forward and backward, on contiguous, transposed, stepped,
// expanded, permuted, 0-d, empty and large inputs (cuda_test_util.h). float64 is compared to 1e-10,
// float32 to 1e-5 relative; integer and bool results exactly; the 16-bit GEMMs and convolutions
// (tensor cores on the GPU) to about an ulp of their dtype (product_tol). Needs a GPU: every test here is
// *_CUDA (never run on the machine this was written on; see README, "CUDA").
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "ember/nn/loss.h"
#include "ember/ops/op_db.h"

using namespace ember;
using namespace ember::cuda_test;
namespace F = ember::nn::functional;

namespace {

struct UnaryCase {
  std::string name;
  double lo, hi;  // the op's domain
  std::function<Tensor(const Tensor&)> op;
};

// The op database's unary cases of floating inputs (ops/ops.toml).
std::vector<UnaryCase> unary_ops() {
  std::vector<UnaryCase> cases;
  for (const op_db::UnaryCase& c : op_db::unary_cases())
    if (c.cuda && c.dtypes != op_db::Dtypes::Integral)
      cases.push_back({std::string(c.name), c.domain[0].lo, c.domain[0].hi, c.fn});
  return cases;
}

}  // namespace

TEST(DifferentialTest, UnaryOpsEveryLayout_CUDA) {
  uint64_t seed = 1;
  for (const UnaryCase& u : unary_ops())
    for (const Layout& l : layouts())
      for (DType t : {kFloat64, kFloat32})
        check({u.name + ", " + l.name + ", " + std::string(dtype_name(t)),
               {uniform(l.leaf, u.lo, u.hi, ++seed, t)},
               [&](const Inputs& in) { return Inputs{l.view(in[0])}; },
               [&](const Inputs& in) { return u.op(in[0]); },
               t == kFloat64 ? 1e-10 : 2e-5, t == kFloat64 ? 1e-10 : 2e-5});
}

TEST(DifferentialTest, IntegerUnaryOps_CUDA) {
  for (DType t : {kUInt8, kInt32, kInt64}) {
    const Tensor x = uniform({4, 9}, t == kUInt8 ? 0 : -50, 50, 3).floor().to(t);
    for (const auto& [name, op] : std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>>{
             {"neg", [](const Tensor& v) { return v.neg(); }},
             {"abs", [](const Tensor& v) { return v.abs(); }},
             {"sign", [](const Tensor& v) { return v.sign(); }},
             {"relu", [](const Tensor& v) { return v.relu(); }},
             // NB: a bound an unsigned dtype cannot hold is an error, as in PyTorch
             {"clamp", [t](const Tensor& v) { return t == kUInt8 ? v.clamp(7, 30) : v.clamp(-7, 30); }},
             {"pow 3", [](const Tensor& v) { return v.pow(3); }}})
      check({name + " " + std::string(dtype_name(t)), {x}, [](const Inputs& in) { return Inputs{in[0].t()}; },
             [&](const Inputs& in) { return op(in[0]); }, 0, 0, false});
  }
}

namespace {

struct BinaryCase {
  std::string name;
  op_db::Domain a, b;  // the operands' domains
  std::function<Tensor(const Tensor&, const Tensor&)> op;
};

// The op database's binary cases of floating operands (ops/ops.toml).
std::vector<BinaryCase> binary_ops() {
  std::vector<BinaryCase> cases;
  for (const op_db::BinaryCase& c : op_db::binary_cases())
    if (c.cuda && c.dtypes != op_db::Dtypes::Integral)
      cases.push_back({std::string(c.name), c.domain[0], c.domain[1], c.fn});
  return cases;
}

// Pairs of layouts of the two operands: both plain, broadcast against each other, one
// transposed, a 0-d with a tensor, empty.
struct PairLayout {
  std::string name;
  DimVector a, b;
  std::function<Inputs(const Inputs&)> views;
};
std::vector<PairLayout> pair_layouts() {
  const auto same = [](const Inputs& in) { return in; };
  return {
      {"same shape", {3, 5}, {3, 5}, same},
      {"broadcast", {3, 1, 5}, {4, 1}, same},
      {"transposed and stepped", {5, 3}, {3, 10}, [](const Inputs& in) { return Inputs{in[0].t(), in[1].slice(1, 0, 10, 2)}; }},
      {"0-d with a tensor", {}, {2, 3}, same},
      {"empty", {0, 3}, {3}, same},
      {"large", {300, 257}, {257}, same},
  };
}

}  // namespace

TEST(DifferentialTest, BinaryOpsEveryLayout_CUDA) {
  uint64_t seed = 100;
  for (const BinaryCase& b : binary_ops())
    for (const PairLayout& l : pair_layouts())
      for (DType t : {kFloat64, kFloat32})
        check({b.name + ", " + l.name + ", " + std::string(dtype_name(t)),
               {uniform(l.a, b.a.lo, b.a.hi, ++seed, t), uniform(l.b, b.b.lo, b.b.hi, ++seed, t)},
               l.views,
               [&](const Inputs& in) { return b.op(in[0], in[1]); },
               t == kFloat64 ? 1e-10 : 2e-5,
               t == kFloat64 ? 1e-10 : 2e-5});
}

TEST(DifferentialTest, IntegerAndBoolArithmetic_CUDA) {
  for (DType t : {kUInt8, kInt32, kInt64}) {
    const Tensor a = uniform({4, 6}, 0, 100, 7).floor().to(t);
    const Tensor b = uniform({6}, 1, 9, 8).floor().to(t);  // no zero divisor
    for (const op_db::BinaryCase& op : op_db::binary_cases()) {
      if (!op.cuda || op.dtypes == op_db::Dtypes::Float || op.dtypes == op_db::Dtypes::Integral || op.name == "atan2" ||
          op.name == "pow")
        continue;  // floating only, or checked below
      check({std::string(op.name) + " " + std::string(dtype_name(t)),
             {a, b},
             nullptr,
             [&](const Inputs& in) { return op.fn(in[0], in[1]); },
             0,
             0,
             false});
    }
    check({"remainder " + std::string(dtype_name(t)), {a, b}, nullptr,
           [](const Inputs& in) { return remainder(in[0], in[1]); }, 0, 0, false});
    check({"fmod " + std::string(dtype_name(t)), {a, b}, nullptr, [](const Inputs& in) { return fmod(in[0], in[1]); },
           0, 0, false});
    check({"floor_divide " + std::string(dtype_name(t)), {a, b}, nullptr,
           [](const Inputs& in) { return floor_divide(in[0], in[1]); }, 0, 0, false});
    check({"pow " + std::string(dtype_name(t)), {a, b}, nullptr, [](const Inputs& in) { return pow(in[0], in[1]); }, 0,
           0, false});
    // The bitwise ops; shift counts past the width and negative ones (int32, int64) included.
    const Tensor counts = (uniform({6}, -3, 70, 9).floor()).to(t == kUInt8 ? kInt32 : t).clamp(t == kUInt8 ? 0 : -3).to(t);
    for (const auto& [name, op] : std::vector<std::pair<std::string, Tensor (*)(const Tensor&, const Tensor&)>>{
             {"bitwise_and", [](const Tensor& x, const Tensor& y) { return x & y; }},
             {"bitwise_or", [](const Tensor& x, const Tensor& y) { return x | y; }},
             {"bitwise_xor", [](const Tensor& x, const Tensor& y) { return x ^ y; }},
             {"left_shift", [](const Tensor& x, const Tensor& y) { return x << y; }},
             {"right_shift", [](const Tensor& x, const Tensor& y) { return x >> y; }}}) {
      const Tensor& y = name.find("shift") != std::string::npos ? counts : b;
      check({name + " " + std::string(dtype_name(t)), {a - 50, y}, nullptr,
             [op](const Inputs& in) { return op(in[0], in[1]); }, 0, 0, false});
    }
    check({"bitwise_not " + std::string(dtype_name(t)), {a}, nullptr, [](const Inputs& in) { return ~in[0]; }, 0, 0,
           false});
  }
  const Tensor p = tensor(std::vector<bool>{true, false, true, false}), q = tensor(std::vector<bool>{true, true, false, false});
  for (const BinaryCase& op : binary_ops()) {
    if (op.name != "add" && op.name != "mul" && op.name != "maximum" && op.name != "minimum") continue;
    check({op.name + " bool", {p, q}, nullptr, [&](const Inputs& in) { return op.op(in[0], in[1]); }, 0, 0, false});
  }
  check({"bitwise bool", {p, q}, nullptr,
         [](const Inputs& in) { return stack({in[0] & in[1], in[0] | in[1], in[0] ^ in[1], ~in[0]}); }, 0, 0, false});
}

TEST(DifferentialTest, IntegerDivisionByZeroIsAnError_CUDA) {
  const Tensor a = tensor(std::vector<int64_t>{1, 2, 3}).to(kGpu), zero = tensor(std::vector<int64_t>{1, 0, 1}).to(kGpu);
  // NB: `/` is true division (integers give float32, and x / 0 is inf): fmod and remainder divide as integers.
  ember::testing::expect_error<ValueError>([&] { fmod(a, zero).to(Device::cpu()); }, {"fmod", "integer division by zero"});
  ember::testing::expect_error<ValueError>([&] { remainder(a, zero); }, {"remainder", "integer division by zero"});
  ember::testing::expect_error<ValueError>([&] { floor_divide(a, zero); }, {"floor_divide", "integer division by zero"});
  // The device is fine afterwards, and the error slot clear.
  ember::testing::expect_values((a / tensor(std::vector<int64_t>{1, 1, 3}).to(kGpu)).to(Device::cpu()), {1, 2, 1});
}

TEST(DifferentialTest, ComparisonsLogicalOpsAndWhere_CUDA) {
  const Tensor a = uniform({4, 1, 5}, -2, 2, 11).round(), b = uniform({3, 5}, -2, 2, 12).round();
  for (DType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool}) {
    const Tensor x = t == kUInt8 ? (a + 2).to(t) : a.to(t), y = t == kUInt8 ? (b + 2).to(t) : b.to(t);
    for (const auto& [name, op] : std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>>{
             {"eq", [](const Tensor& u, const Tensor& v) { return eq(u, v); }},
             {"ne", [](const Tensor& u, const Tensor& v) { return ne(u, v); }},
             {"lt", [](const Tensor& u, const Tensor& v) { return lt(u, v); }},
             {"le", [](const Tensor& u, const Tensor& v) { return le(u, v); }},
             {"gt", [](const Tensor& u, const Tensor& v) { return gt(u, v); }},
             {"ge", [](const Tensor& u, const Tensor& v) { return ge(u, v); }},
             {"logical_and", [](const Tensor& u, const Tensor& v) { return logical_and(u, v); }},
             {"logical_or", [](const Tensor& u, const Tensor& v) { return logical_or(u, v); }}})
      check({name + " " + std::string(dtype_name(t)), {x, y}, nullptr, [&](const Inputs& in) { return op(in[0], in[1]); },
             0, 0, false});
  }
  check({"where", {uniform({3, 5}, -1, 1, 13), uniform({3, 5}, -1, 1, 14), uniform({5}, -1, 1, 15)},
         [](const Inputs& in) { return Inputs{in[0], in[1].t().contiguous().t(), in[2]}; },
         [](const Inputs& in) { return where(in[0] > 0, in[1], in[2]); }});
}

TEST(DifferentialTest, ConversionsBetweenEveryDtypePair_CUDA) {
  const std::vector<DType> all = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};
  const Tensor base = tensor(std::vector<double>{0, 1, -1, 2.5, -2.5, 100, -100, 0.1, 65504, 1e-7, 3.999, 127, -128, 255},
                             {2, 7}, kFloat64);
  for (DType from : all)
    for (DType to : all) {
      const Tensor src = base.to(from);
      // Host to device and back, device to device with a conversion, and a transposed source.
      check({std::string("to ") + std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)), {src},
             [](const Inputs& in) { return Inputs{in[0].t()}; }, [&](const Inputs& in) { return in[0].to(to); }, 0, 0,
             false});
    }
}

TEST(DifferentialTest, CopiesBetweenHostAndDevice_CUDA) {
  // Past the 4 MiB staging chunk, odd sizes, every layout on both sides.
  for (int64_t n : {1, 1000, 1 << 20, (3 << 20) + 7}) {
    const Tensor x = uniform({n}, -1, 1, static_cast<uint64_t>(n));
    const Tensor on_gpu = x.to(kGpu);
    EXPECT_TRUE(on_gpu.device() == kGpu);
    ember::testing::expect_close(on_gpu.to(Device::cpu()), x, 0, 0, "round trip");
  }
  const Tensor m = uniform({64, 48}, -1, 1, 5);
  const Tensor g = m.to(kGpu);
  ember::testing::expect_close(g.t().contiguous().to(Device::cpu()), m.t().contiguous(), 0, 0, "transposed on the device");
  ember::testing::expect_close(g.t().to(Device::cpu()), m.t(), 0, 0, "transposed copied to the host");
  Tensor dst = zeros({48, 64}, TensorOptions(kFloat32).device(kGpu));
  dst.copy_(m.t());  // a strided host source into a device tensor, converting
  ember::testing::expect_close(dst.to(Device::cpu()), m.t().to(kFloat32), 0, 0, "copy_ host to device");
  Tensor host = zeros({48, 64}, kFloat64);
  host.slice(1, 0, 64, 2).copy_(g.t().slice(1, 0, 64, 2));
  ember::testing::expect_close(host.slice(1, 0, 64, 2), m.t().slice(1, 0, 64, 2), 0, 0, "strided device to strided host");
  // fill and zero in place on the device.
  Tensor f = empty({3, 4}, TensorOptions(kInt32).device(kGpu));
  f.fill_(7);
  ember::testing::expect_values(f.to(Device::cpu()), std::vector<double>(12, 7));
  f.t().zero_();
  ember::testing::expect_values(f.to(Device::cpu()), std::vector<double>(12, 0));
}

TEST(DifferentialTest, Reductions_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 1e-5;
    const Tensor x = uniform({4, 5, 6}, -2, 2, 21, t), big = uniform({300000}, -1, 1, 22, t);
    const Tensor col = uniform({20000, 3}, -1, 1, 23, t);
    for (const auto& [name, op] : std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>>{
             {"sum", [](const Tensor& v) { return v.sum(); }},
             {"sum dim 1", [](const Tensor& v) { return v.sum({1}); }},
             {"sum dims 0, 2 keepdim", [](const Tensor& v) { return v.sum({0, 2}, true); }},
             {"mean dim -1", [](const Tensor& v) { return v.mean({-1}); }},
             {"amax dim 0", [](const Tensor& v) { return v.amax({0}); }},
             {"amin dims 1, 2", [](const Tensor& v) { return amin(v, {1, 2}); }},
             {"max", [](const Tensor& v) { return max(v); }},
             {"max dim 1", [](const Tensor& v) { return std::get<0>(max(v, 1)); }},
             {"min dim 2 keepdim", [](const Tensor& v) { return std::get<0>(min(v, 2, true)); }},
             {"var dim 1", [](const Tensor& v) { return v.var({1}); }},
             {"std", [](const Tensor& v) { return v.std(); }},
             {"logsumexp dim 0", [](const Tensor& v) { return logsumexp(v, {0}); }},
             {"norm", [](const Tensor& v) { return norm(v); }}}) {
      check({name + " " + std::string(dtype_name(t)), {x}, nullptr, [&](const Inputs& in) { return op(in[0]); }, tol, tol});
      check({name + " transposed " + std::string(dtype_name(t)), {x}, [](const Inputs& in) { return Inputs{in[0].transpose(0, 2)}; },
             [&](const Inputs& in) { return op(in[0]); }, tol, tol});
    }
    // A long full reduction (split over blocks) and a long column reduction.
    check({"sum of 300000 " + std::string(dtype_name(t)), {big}, nullptr, [](const Inputs& in) { return in[0].sum(); },
           t == kFloat64 ? 1e-10 : 1e-4, tol});
    check({"column sums of 20000 rows " + std::string(dtype_name(t)), {col}, nullptr,
           [](const Inputs& in) { return in[0].sum({0}); }, t == kFloat64 ? 1e-10 : 1e-4, tol});
    check({"max of 300000 " + std::string(dtype_name(t)), {big}, nullptr, [](const Inputs& in) { return max(in[0]); }, 0, 0});
  }
  const Tensor ties = tensor(std::vector<double>{1, 3, 3, 0, 2, 2, 5, 5, 5, 1, 0, 0}, {3, 4});
  check({"argmax with ties (the first wins)", {ties}, nullptr, [](const Inputs& in) { return in[0].argmax(1); }, 0, 0, false});
  check({"argmin dim 0", {ties}, nullptr, [](const Inputs& in) { return in[0].argmin(0); }, 0, 0, false});
  const Tensor nan = tensor(std::vector<double>{1, NAN, 3, NAN, 2, 0}, {2, 3});
  check({"max with NaN (the first NaN wins)", {nan}, nullptr, [](const Inputs& in) { return std::get<1>(max(in[0], 1)); },
         0, 0, false});
  for (DType t : {kInt32, kInt64, kUInt8}) {
    const Tensor v = uniform({7, 9}, 0, 100, 24).floor().to(t);
    check({"integer sum", {v}, nullptr, [](const Inputs& in) { return in[0].sum({1}); }, 0, 0, false});
    check({"integer amax", {v}, nullptr, [](const Inputs& in) { return in[0].amax({0}); }, 0, 0, false});
    check({"integer argmax", {v}, nullptr, [](const Inputs& in) { return in[0].argmax(1); }, 0, 0, false});
  }
  check({"sum of an empty dim", {uniform({3, 0}, 0, 1, 25)}, nullptr, [](const Inputs& in) { return in[0].sum({1}); }});
}

TEST(DifferentialTest, SoftmaxAndLogSoftmax_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 1e-5;
    for (const auto& [name, shape, dim] : std::vector<std::tuple<std::string, DimVector, int64_t>>{
             {"last dim", {4, 9}, -1}, {"first dim", {9, 4}, 0}, {"middle dim", {3, 5, 4}, 1}, {"long row", {2, 5000}, 1},
             {"0-d", {}, 0}, {"empty rows", {0, 4}, 1}}) {
      check({"softmax " + name, {uniform(shape, -4, 4, 31, t)}, nullptr,
             [d = dim](const Inputs& in) { return softmax(in[0], d); }, tol, tol});
      check({"log_softmax " + name, {uniform(shape, -4, 4, 32, t)}, nullptr,
             [d = dim](const Inputs& in) { return log_softmax(in[0], d); }, tol, tol});
    }
    // A masked row: -inf entries get weight 0.
    const Tensor masked = tensor(std::vector<double>{1, -INFINITY, 2, -INFINITY}, {1, 4}, t);
    check({"softmax with -inf", {masked}, nullptr, [](const Inputs& in) { return softmax(in[0], 1); }, tol, tol, false});
  }
}

TEST(DifferentialTest, Indexing_CUDA) {
  const Tensor src = uniform({5, 6}, -1, 1, 41);
  const Tensor idx = tensor(std::vector<int64_t>{4, 0, 0, 2});
  const Tensor idx32 = tensor(std::vector<int32_t>{1, 3});
  check({"index_select dim 0", {src, idx}, nullptr, [](const Inputs& in) { return index_select(in[0], 0, in[1]); }});
  check({"index_select dim 1, int32 index, transposed source", {src, idx32},
         [](const Inputs& in) { return Inputs{in[0].t(), in[1]}; }, [](const Inputs& in) { return index_select(in[0], 1, in[1]); }});
  const Tensor gi = tensor(std::vector<int64_t>{0, 5, 5, 1, 2, 2, 3, 0}, {2, 4});
  check({"gather dim 1", {src, gi}, nullptr, [](const Inputs& in) { return gather(in[0], 1, in[1]); }});
  check({"scatter_add with duplicates", {zeros({2, 6}, kFloat64), gi, uniform({2, 4}, -1, 1, 42)}, nullptr,
         [](const Inputs& in) { return scatter_add(in[0], 1, in[1], in[2]); }});
  check({"index_add with duplicates", {src, idx, uniform({4, 6}, -1, 1, 43)}, nullptr,
         [](const Inputs& in) { return index_add(in[0], 0, in[1], in[2]); }});
  for (DType t : {kInt64, kInt32, kUInt8, kBool}) {
    const Tensor s = src.gt(0).to(t);
    check({"scatter_add integer " + std::string(dtype_name(t)), {zeros({2, 6}, t), gi, s.narrow(0, 0, 2).narrow(1, 0, 4)},
           nullptr, [](const Inputs& in) { return scatter_add(in[0], 1, in[1], in[2]); }, 0, 0, false});
  }
  check({"masked_fill", {src}, nullptr, [](const Inputs& in) { return masked_fill(in[0], in[0] > 0.3, -7.5); }});
  check({"embedding", {uniform({10, 4}, -1, 1, 44), tensor(std::vector<int64_t>{3, 3, 9, 0, 1}, {5})}, nullptr,
         [](const Inputs& in) { return embedding(in[0], in[1]); }});
  check({"advanced index", {src, tensor(std::vector<int64_t>{1, 4, 1})}, nullptr,
         [](const Inputs& in) { return index(in[0], {in[1]}); }});
  check({"cat and stack", {src, uniform({2, 6}, -1, 1, 45)}, nullptr,
         [](const Inputs& in) { return cat({in[0], in[1].to(kFloat32).to(kFloat64), stack({in[0].select(0, 0), in[1].select(0, 1)})}, 0); }});
  // A bad index: an IndexError naming the value, as on the CPU.
  const Tensor g = src.to(kGpu);
  ember::testing::expect_error<IndexError>([&] { index_select(g, 0, tensor(std::vector<int64_t>{0, 7}).to(kGpu)); },
                                    {"index_select", "index 7 is out of range for dimension 0 with size 5"});
  ember::testing::expect_error<IndexError>([&] { gather(g, 1, tensor(std::vector<int64_t>{-1}, {1, 1}).to(kGpu)); },
                                    {"gather", "index -1 is out of range for dimension 1 with size 6"});
}

// Tolerance of a product of 16-bit operands accumulated in float32: the CPU and cuBLAS/cuDNN sum in
// different orders, so the once-rounded results may differ by an ulp (2^-8 and 2^-11 relative).
double product_tol(DType t) {
  switch (t) {
    case DType::Float64: return 1e-10;
    case DType::Float32: return 1e-5;
    case DType::BFloat16: return 1.6e-2;
    default: return 2e-3;
  }
}

TEST(DifferentialTest, MatrixProducts_CUDA) {
  for (DType t : {kFloat64, kFloat32, kBFloat16, kFloat16}) {
    const double tol = product_tol(t);
    for (const auto& [name, a, b, views] : std::vector<std::tuple<std::string, DimVector, DimVector, std::function<Inputs(const Inputs&)>>>{
             {"2-d", {5, 7}, {7, 3}, nullptr},
             {"transposed operands", {7, 5}, {3, 7}, [](const Inputs& in) { return Inputs{in[0].t(), in[1].t()}; }},
             {"stepped operand (copied)", {5, 14}, {7, 3}, [](const Inputs& in) { return Inputs{in[0].slice(1, 0, 14, 2), in[1]}; }},
             {"batched", {4, 5, 7}, {4, 7, 3}, nullptr},
             {"broadcast batch", {2, 1, 5, 7}, {3, 7, 2}, nullptr},
             {"vector times matrix", {7}, {7, 3}, nullptr},
             {"matrix times vector", {5, 7}, {7}, nullptr},
             {"dot", {7}, {7}, nullptr},
             {"k = 0", {5, 0}, {0, 3}, nullptr},
             {"m = 0", {0, 4}, {4, 3}, nullptr},
             {"large", {130, 257}, {257, 66}, nullptr}})
      check({"matmul " + name + " " + std::string(dtype_name(t)), {uniform(a, -1, 1, 51, t), uniform(b, -1, 1, 52, t)},
             views, [](const Inputs& in) { return matmul(in[0], in[1]); }, tol, tol});
  }
  for (DType t : {kInt64, kInt32, kUInt8})
    check({"integer matmul " + std::string(dtype_name(t)),
           {uniform({3, 4, 5}, 0, 9, 53).floor().to(t), uniform({5, 2}, 0, 9, 54).floor().to(t)},
           [](const Inputs& in) { return Inputs{in[0], in[1]}; }, [](const Inputs& in) { return matmul(in[0], in[1]); }, 0,
           0, false});
  check({"linear", {uniform({6, 4}, -1, 1, 55), uniform({3, 4}, -1, 1, 56), uniform({3}, -1, 1, 57)}, nullptr,
         [](const Inputs& in) { return nn::functional::linear(in[0], in[1], in[2]); }});
  check({"addmm", {uniform({3}, -1, 1, 58), uniform({2, 4}, -1, 1, 59), uniform({4, 3}, -1, 1, 60)}, nullptr,
         [](const Inputs& in) { return addmm(in[0], in[1], in[2], 0.5, 2.0); }});
}

TEST(DifferentialTest, Convolution_CUDA) {
  struct Conv {
    std::string name;
    DimVector x, w;
    Size2 stride, padding, dilation;
    int64_t groups;
    bool bias;
  };
  for (DType t : {kFloat64, kFloat32, kBFloat16, kFloat16})
    for (const Conv& c : std::vector<Conv>{{"3x3", {2, 3, 8, 8}, {4, 3, 3, 3}, 1, 1, 1, 1, true},
                                           {"strided", {2, 3, 9, 7}, {5, 3, 3, 2}, {2, 3}, {1, 0}, 1, 1, true},
                                           {"dilated", {1, 2, 10, 10}, {2, 2, 3, 3}, 1, 2, 2, 1, false},
                                           {"grouped", {2, 4, 6, 6}, {6, 2, 3, 3}, 1, 1, 1, 2, true},
                                           {"depthwise", {2, 4, 5, 5}, {4, 1, 3, 3}, 1, 1, 1, 4, true},
                                           {"1x1", {3, 8, 4, 4}, {16, 8, 1, 1}, 1, 0, 1, 1, true},
                                           {"batch 0", {0, 3, 5, 5}, {2, 3, 3, 3}, 1, 1, 1, 1, true}}) {
      Inputs leaves{uniform(c.x, -1, 1, 61, t), uniform(c.w, -1, 1, 62, t)};
      if (c.bias) leaves.push_back(uniform({c.w[0]}, -1, 1, 63, t));
      check({"conv2d " + c.name + " " + std::string(dtype_name(t)), leaves, nullptr,
             [&](const Inputs& in) {
               return conv2d(in[0], in[1], c.bias ? in[2] : Tensor(), c.stride, c.padding, c.dilation, c.groups);
             },
             t == kFloat32 ? 1e-4 : 2 * product_tol(t), t == kFloat32 ? 1e-4 : 2 * product_tol(t)});
    }
}

// cuDNN pads both sides alike: padding="same" with an even kernel and a transposed convolution's
// output_padding go through the input padded or cut at its trailing edge (cuda/conv_kernel.cpp).
TEST(DifferentialTest, ConvolutionWithOneSidedPadding_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 1e-4;
    const Tensor x = uniform({2, 3, 7, 8}, -1, 1, 241, t), b = uniform({4}, -1, 1, 243, t);
    check({"conv2d same, even kernel", {x, uniform({4, 3, 2, 4}, -1, 1, 242, t), b}, nullptr,
           [](const Inputs& in) { return conv2d(in[0], in[1], in[2], Size2(1, 1), PaddingRule::Same, Size2(1, 1), 1); },
           tol, tol});
    check({"conv2d same, dilated even kernel", {x, uniform({4, 3, 2, 2}, -1, 1, 244, t), b}, nullptr,
           [](const Inputs& in) { return conv2d(in[0], in[1], in[2], Size2(1, 1), PaddingRule::Same, Size2(3, 2), 1); },
           tol, tol});
    check({"conv1d same", {uniform({2, 3, 9}, -1, 1, 245, t), uniform({4, 3, 4}, -1, 1, 246, t), b}, nullptr,
           [](const Inputs& in) { return conv1d(in[0], in[1], in[2], 1, PaddingRule::Same, 1, 1); }, tol, tol});
    check({"conv_transpose2d output_padding", {x, uniform({3, 4, 3, 3}, -1, 1, 247, t), b}, nullptr,
           [](const Inputs& in) {
             return conv_transpose2d(in[0], in[1], in[2], Size2(2, 3), Size2(1, 1), Size2(1, 2), 1, Size2(1, 1));
           },
           tol, tol});
    check({"conv_transpose2d grouped", {uniform({2, 4, 5, 5}, -1, 1, 248, t), uniform({4, 3, 3, 3}, -1, 1, 249, t)},
           nullptr,
           [](const Inputs& in) {
             return conv_transpose2d(in[0], in[1], Tensor(), Size2(2, 2), Size2(0, 0), Size2(1, 1), 2, Size2(1, 1));
           },
           tol, tol});
  }
}

TEST(DifferentialTest, Pooling_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 1e-5;
    const Tensor x = uniform({2, 3, 9, 8}, -1, 1, 71, t);
    check({"max_pool2d 2x2", {x}, nullptr, [](const Inputs& in) { return max_pool2d(in[0], 2); }, tol, tol});
    check({"max_pool2d padded dilated ceil", {x}, nullptr,
           [](const Inputs& in) { return max_pool2d(in[0], 3, 2, 1, 2, true); }, tol, tol});
    check({"max_pool2d indices", {x}, nullptr,
           [](const Inputs& in) { return std::get<1>(max_pool2d_with_indices(in[0], Size2(3, 2), Size2(2, 1), Size2(1, 1))); }, 0, 0, false});
    check({"avg_pool2d", {x}, nullptr, [](const Inputs& in) { return avg_pool2d(in[0], 3, 2, 1); }, tol, tol});
    check({"avg_pool2d ceil, no pad count, divisor", {x}, nullptr,
           [](const Inputs& in) { return avg_pool2d(in[0], 3, 2, 1, true, false, 5); }, tol, tol});
    check({"adaptive_avg_pool2d", {x}, nullptr, [](const Inputs& in) { return adaptive_avg_pool2d(in[0], Size2(4, 3)); }, tol, tol});
    check({"adaptive_avg_pool2d upsampling", {x}, nullptr,
           [](const Inputs& in) { return adaptive_avg_pool2d(in[0], Size2(11, 10)); }, tol, tol});
    check({"max_pool2d non-contiguous", {x}, [](const Inputs& in) { return Inputs{in[0].transpose(2, 3)}; },
           [](const Inputs& in) { return max_pool2d(in[0], 2); }, tol, tol});
    check({"adaptive_max_pool2d", {x}, nullptr, [](const Inputs& in) { return adaptive_max_pool2d(in[0], Size2(4, 3)); },
           tol, tol});
    check({"adaptive_max_pool2d indices", {x}, nullptr,
           [](const Inputs& in) { return std::get<1>(adaptive_max_pool2d_with_indices(in[0], Size2(5, 6))); }, 0, 0,
           false});
  }
}

TEST(DifferentialTest, Normalization_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-9 : 1e-4;
    const Tensor x = uniform({4, 3, 5, 5}, -2, 3, 81, t), w = uniform({3}, 0.5, 1.5, 82, t), b = uniform({3}, -1, 1, 83, t);
    check({"batch_norm training", {x, w, b}, nullptr,
           [&](const Inputs& in) {
             return batch_norm(in[0], zeros({3}, TensorOptions(t).device(in[0].device())),
                               ones({3}, TensorOptions(t).device(in[0].device())), in[1], in[2], true);
           },
           tol, tol});
    check({"batch_norm 2-d input", {uniform({16, 3}, -1, 1, 84, t), w, b}, nullptr,
           [&](const Inputs& in) { return batch_norm(in[0], Tensor(), Tensor(), in[1], in[2], true); }, tol, tol});
    check({"batch_norm eval", {x, w, b}, nullptr,
           [&](const Inputs& in) {
             return batch_norm(in[0], full({3}, 0.5, TensorOptions(t).device(in[0].device())),
                               full({3}, 2.0, TensorOptions(t).device(in[0].device())), in[1], in[2], false);
           },
           tol, tol});
    check({"layer_norm", {x, uniform({5, 5}, 0.5, 1.5, 85, t), uniform({5, 5}, -1, 1, 86, t)}, nullptr,
           [](const Inputs& in) { return layer_norm(in[0], {5, 5}, in[1], in[2]); }, tol, tol});
    check({"layer_norm without affine, long rows", {uniform({3, 3000}, -1, 1, 87, t)}, nullptr,
           [](const Inputs& in) { return layer_norm(in[0], {3000}); }, tol, tol});
  }
}

TEST(DifferentialTest, SortingAndScans_CUDA) {
  const Tensor x = uniform({4, 300}, -1, 1, 91).mul(8).round();  // many ties: stability shows
  check({"argsort", {x}, nullptr, [](const Inputs& in) { return argsort(in[0], 1); }, 0, 0, false});
  check({"argsort descending dim 0", {x}, nullptr, [](const Inputs& in) { return argsort(in[0], 0, true); }, 0, 0, false});
  check({"sort values", {x}, nullptr, [](const Inputs& in) { return std::get<0>(sort(in[0], 1)); }});
  check({"topk", {x}, nullptr, [](const Inputs& in) { return std::get<0>(topk(in[0], 5, 1)); }});
  const Tensor nan = tensor(std::vector<double>{3, NAN, 1, 2, NAN, 0}, {1, 6});
  check({"argsort with NaN", {nan}, nullptr, [](const Inputs& in) { return argsort(in[0], 1); }, 0, 0, false});
  check({"argsort descending with NaN", {nan}, nullptr, [](const Inputs& in) { return argsort(in[0], 1, true); }, 0, 0, false});
  for (DType t : {kInt64, kInt32, kUInt8, kFloat32})
    check({"argsort " + std::string(dtype_name(t)), {(x + 8.0).to(t)}, nullptr,
           [](const Inputs& in) { return argsort(in[0], -1); }, 0, 0, false});
  check({"cumsum", {uniform({3, 1000}, -1, 1, 92)}, nullptr, [](const Inputs& in) { return cumsum(in[0], 1); }});
  check({"cumsum dim 0", {uniform({700, 3}, -1, 1, 93)}, nullptr, [](const Inputs& in) { return cumsum(in[0], 0); }});
  check({"integer cumsum", {uniform({2, 600}, 0, 50, 94).floor().to(kInt64)}, nullptr,
         [](const Inputs& in) { return cumsum(in[0], 1); }, 0, 0, false});
}

TEST(DifferentialTest, Losses_CUDA) {
  const Tensor logits = uniform({8, 5}, -2, 2, 101), target = tensor(std::vector<int64_t>{0, 4, 2, 2, 1, 3, -100, 0});
  check({"cross_entropy with ignore_index", {logits, target}, nullptr,
         [](const Inputs& in) { return F::cross_entropy(in[0], in[1]); }});
  check({"cross_entropy label smoothing", {logits, target.clamp(0)}, nullptr,
         [](const Inputs& in) { return F::cross_entropy(in[0], in[1], -100, F::Reduction::Sum, 0.1); }});
  check({"mse_loss", {uniform({4, 3}, -1, 1, 102), uniform({4, 3}, -1, 1, 103)}, nullptr,
         [](const Inputs& in) { return F::mse_loss(in[0], in[1]); }});
  check({"binary_cross_entropy_with_logits", {uniform({4, 3}, -3, 3, 104), uniform({4, 3}, 0, 1, 105)}, nullptr,
         [](const Inputs& in) { return F::binary_cross_entropy_with_logits(in[0], in[1]); }});
}

TEST(DifferentialTest, DropoutMasksAreTheCpusBitForBit_CUDA) {
  for (DType t : {kFloat32, kFloat64}) {
    const Tensor x = uniform({37, 41}, -1, 1, 111, t);
    Generator a(5), b(5);
    a.set_state({5, 3});  // mid-block: the first element draws word 3 of block 0
    b.set_state({5, 3});
    const Tensor on_cpu = dropout(x, 0.3, true, &a);
    const Tensor on_gpu = dropout(x.to(kGpu), 0.3, true, &b);
    ember::testing::expect_close(on_gpu.to(Device::cpu()), on_cpu, 0, 0, "dropout");
    EXPECT_EQ(a.get_state(), b.get_state());  // both streams advanced alike: resumable on either
  }
}

TEST(DifferentialTest, OptimizerStepsFollowTheCpu_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-12 : 1e-6;
    using Make = std::function<std::unique_ptr<optim::Optimizer>(const Tensor&)>;
    const std::vector<std::pair<std::string, Make>> makers = {
        {"SGD nesterov", [](const Tensor& p) { return std::make_unique<optim::SGD>(optim::NamedParameters{{"p", p}}, optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true}); }},
        {"Adam amsgrad", [](const Tensor& p) { return std::make_unique<optim::Adam>(optim::NamedParameters{{"p", p}}, optim::AdamOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true}); }},
        {"AdamW", [](const Tensor& p) { return std::make_unique<optim::AdamW>(optim::NamedParameters{{"p", p}}, optim::AdamWOptions{.lr = 0.01, .weight_decay = 0.1}); }},
        {"RMSprop centered momentum", [](const Tensor& p) { return std::make_unique<optim::RMSprop>(optim::NamedParameters{{"p", p}}, optim::RMSpropOptions{.lr = 0.01, .momentum = 0.5, .centered = true}); }},
        {"Adagrad", [](const Tensor& p) { return std::make_unique<optim::Adagrad>(optim::NamedParameters{{"p", p}}, optim::AdagradOptions{.lr = 0.1}); }},
    };
    for (const auto& [name, make] : makers) {
      SCOPED_TRACE(name);
      const Tensor init = uniform({7, 5}, -1, 1, 121, t);
      Tensor pc = init.clone().set_requires_grad(), pg = init.to(kGpu).detach().set_requires_grad();
      auto oc = make(pc), og = make(pg);
      for (int step = 0; step < 4; ++step) {
        const Tensor g = uniform({7, 5}, -1, 1, 130 + static_cast<uint64_t>(step), t);
        pc.set_grad(g);
        pg.set_grad(g.to(kGpu));
        oc->step();
        og->step();
      }
      ember::testing::expect_close(pg.to(Device::cpu()), pc, tol, tol, "parameter after 4 steps");
      for (const auto& [key, s] : og->state().at("p"))
        if (key != "step") EXPECT_TRUE(s.device() == kGpu) << key << " lives on " << s.device();
    }
  }
}

TEST(DifferentialTest, ProductsAndRunningScans_CUDA) {
  const Tensor x = uniform({5, 40}, 0.5, 1.5, 141);
  check({"prod", {x}, nullptr, [](const Inputs& in) { return prod(in[0]); }});
  check({"prod dim 1", {x}, nullptr, [](const Inputs& in) { return prod(in[0], 1); }});
  check({"prod dim 0 keepdim", {x}, nullptr, [](const Inputs& in) { return prod(in[0], 0, true); }});
  check({"prod of a transposed view", {x}, [](const Inputs& in) { return Inputs{in[0].t()}; },
         [](const Inputs& in) { return prod(in[0], 1); }});
  check({"integer prod wraps", {uniform({3, 50}, 1, 9, 142).floor().to(kInt64)}, nullptr,
         [](const Inputs& in) { return prod(in[0], 1); }, 0, 0, false});
  check({"int32 prod wraps", {uniform({3, 50}, 1, 9, 143).floor().to(kInt32)}, nullptr,
         [](const Inputs& in) { return prod(in[0], 1); }, 0, 0, false});
  check({"cumprod", {x}, nullptr, [](const Inputs& in) { return cumprod(in[0], 1); }});
  check({"cumprod dim 0", {x}, nullptr, [](const Inputs& in) { return cumprod(in[0], 0); }});
  check({"integer cumprod", {uniform({3, 40}, -3, 3, 144).floor().to(kInt64)}, nullptr,
         [](const Inputs& in) { return cumprod(in[0], 1); }, 0, 0, false});
  check({"logcumsumexp", {uniform({4, 300}, -30, 30, 145)}, nullptr,
         [](const Inputs& in) { return logcumsumexp(in[0], 1); }});
  check({"logcumsumexp float32", {uniform({4, 300}, -30, 30, 146, kFloat32)}, nullptr,
         [](const Inputs& in) { return logcumsumexp(in[0], 1); }, 1e-5, 1e-5});
  const Tensor ties = uniform({4, 200}, -4, 4, 147).round();
  for (bool is_max : {true, false}) {
    const std::string name = is_max ? "cummax" : "cummin";
    auto values = [is_max](const Inputs& in) { return std::get<0>(is_max ? cummax(in[0], 1) : cummin(in[0], 1)); };
    auto indices = [is_max](const Inputs& in) { return std::get<1>(is_max ? cummax(in[0], 1) : cummin(in[0], 1)); };
    check({name + " values", {ties}, nullptr, values});
    check({name + " indices (ties move on)", {ties}, nullptr, indices, 0, 0, false});
    const Tensor nan = tensor(std::vector<double>{3, NAN, 1, 5, NAN, 0, 2, 2}, {2, 4});
    check({name + " with NaN", {nan}, nullptr, indices, 0, 0, false});
    check({name + " int32", {ties.to(kInt32)}, nullptr, indices, 0, 0, false});
  }
  ember::testing::expect_error<TypeError>(
      [] { logcumsumexp(ones({3}, TensorOptions(kInt64).device(kGpu)), 0); }, {"logcumsumexp", "int64"});
}

TEST(DifferentialTest, MultinomialSamplesAreTheCpusForTheSameGenerator_CUDA) {
  const Tensor w = uniform({6, 50}, 0, 1, 151).mul(uniform({6, 50}, 0, 1, 152).gt(0.3));
  for (bool replacement : {true, false})
    for (int64_t k : {int64_t{1}, int64_t{7}, int64_t{50}}) {
      Generator a(9), b(9);
      a.set_state({9, 5});
      b.set_state({9, 5});
      const Tensor on_cpu = multinomial(w, k, replacement, &a);
      const Tensor on_gpu = multinomial(w.to(kGpu), k, replacement, &b);
      ember::testing::expect_close(on_gpu.to(Device::cpu()), on_cpu, 0, 0, "multinomial");
      EXPECT_EQ(a.get_state(), b.get_state());
    }
}

TEST(DifferentialTest, ScaledDotProductAttention_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 2e-5;
    const Tensor q = uniform({2, 3, 7, 8}, -1, 1, 161, t), k = uniform({2, 3, 11, 8}, -1, 1, 162, t),
                 v = uniform({2, 3, 11, 5}, -1, 1, 163, t);
    const Tensor bool_mask = uniform({7, 11}, 0, 1, 164).gt(0.25), add_mask = uniform({2, 1, 7, 11}, -2, 1, 165, t);
    auto sdpa = [](const Tensor& m, bool causal) {
      return [m, causal](const Inputs& in) {
        return scaled_dot_product_attention(in[0], in[1], in[2], m.defined() ? m.to(in[0].device()) : m, 0.0, causal);
      };
    };
    check({"sdpa", {q, k, v}, nullptr, sdpa(Tensor(), false), tol, tol});
    check({"sdpa causal", {q, k, v}, nullptr, sdpa(Tensor(), true), tol, tol});
    check({"sdpa bool mask", {q, k, v}, nullptr, sdpa(bool_mask, false), tol, tol});
    check({"sdpa additive mask broadcast over heads", {q, k, v}, nullptr, sdpa(add_mask, false), tol, tol});
    check({"sdpa causal, as many keys as queries", {q, uniform({2, 3, 7, 8}, -1, 1, 169, t), uniform({2, 3, 7, 5}, -1, 1, 170, t)},
           nullptr, sdpa(Tensor(), true), tol, tol});
    check({"sdpa transposed q, k, v", {q, k, v},
           [](const Inputs& in) {
             return Inputs{in[0].transpose(1, 2).contiguous().transpose(1, 2), in[1], in[2].transpose(-1, -2).contiguous().transpose(-1, -2)};
           },
           sdpa(Tensor(), false), tol, tol});
    check({"sdpa long rows (several key chunks)", {uniform({1, 1, 300, 4}, -1, 1, 166, t), uniform({1, 1, 600, 4}, -1, 1, 167, t),
                                                   uniform({1, 1, 600, 3}, -1, 1, 168, t)},
           nullptr, sdpa(Tensor(), true), tol, tol});
    // A query row that sees no key: zero output and no gradient, as on the CPU.
    Tensor hide = ones({7, 11}, kBool);
    hide.select(0, 2).fill_(Scalar(false));
    check({"sdpa fully masked row", {q, k, v}, nullptr, sdpa(hide, false), tol, tol});
  }
}

TEST(DifferentialTest, RecurrentCellsAndLayers_CUDA) {
  for (DType t : {kFloat64, kFloat32}) {
    const double tol = t == kFloat64 ? 1e-10 : 2e-5;
    const int64_t B = 3, I = 4, H = 5;
    auto weights = [&](int64_t gates, uint64_t seed) {
      return Inputs{uniform({B, I}, -1, 1, seed, t), uniform({B, H}, -1, 1, seed + 1, t),
                    uniform({gates * H, I}, -0.5, 0.5, seed + 2, t), uniform({gates * H, H}, -0.5, 0.5, seed + 3, t),
                    uniform({gates * H}, -0.5, 0.5, seed + 4, t), uniform({gates * H}, -0.5, 0.5, seed + 5, t)};
    };
    check({"rnn_tanh_cell", weights(1, 171), nullptr,
           [](const Inputs& in) { return rnn_tanh_cell(in[0], in[1], in[2], in[3], in[4], in[5]); }, tol, tol});
    check({"rnn_relu_cell without biases", weights(1, 181), nullptr,
           [](const Inputs& in) { return rnn_relu_cell(in[0], in[1], in[2], in[3]); }, tol, tol});
    check({"gru_cell", weights(3, 191), nullptr,
           [](const Inputs& in) { return gru_cell(in[0], in[1], in[2], in[3], in[4], in[5]); }, tol, tol});
    Inputs l = weights(4, 201);
    l.push_back(uniform({B, H}, -1, 1, 208, t));
    check({"lstm_cell h and c", l, nullptr,
           [](const Inputs& in) {
             auto [h, c] = lstm_cell(in[0], {in[1], in[6]}, in[2], in[3], in[4], in[5]);
             return cat({h, c}, 1);
           },
           tol, tol});
    // A two-layer bidirectional LSTM and GRU over a sequence: the cell kernels step by step.
    const int64_t T = 6;
    Inputs seq{uniform({T, B, I}, -1, 1, 211, t), uniform({4, B, H}, -1, 1, 212, t), uniform({4, B, H}, -1, 1, 213, t)};
    uint64_t seed = 220;
    for (int64_t layer = 0; layer < 2; ++layer)
      for (int64_t dir = 0; dir < 2; ++dir) {
        const int64_t in_size = layer == 0 ? I : 2 * H;
        seq.push_back(uniform({4 * H, in_size}, -0.4, 0.4, seed++, t));
        seq.push_back(uniform({4 * H, H}, -0.4, 0.4, seed++, t));
        seq.push_back(uniform({4 * H}, -0.4, 0.4, seed++, t));
        seq.push_back(uniform({4 * H}, -0.4, 0.4, seed++, t));
      }
    check({"lstm 2 layers bidirectional", seq, nullptr,
           [](const Inputs& in) {
             const Inputs params(in.begin() + 3, in.end());
             auto [out, h, c] = lstm(in[0], {in[1], in[2]}, params, true, 2, 0.0, true, true, false);
             return cat({out.reshape({-1}), h.reshape({-1}), c.reshape({-1})}, 0);
           },
           tol, tol});
  }
}

TEST(DifferentialTest, ComplexTensorsMoveAndConvert_CUDA) {
  for (DType real : {kFloat32, kFloat64}) {
    const Tensor parts = uniform({4, 6, 2}, -3, 3, 231, real);
    const Tensor z = view_as_complex(parts);
    const Tensor zg = z.to(kGpu);
    ember::testing::expect_close(view_as_real(zg).to(Device::cpu()), parts, 0, 0, "round trip");
    // Rearranged on the device (the conversion kernel), and converted between the two complex dtypes.
    ember::testing::expect_close(view_as_real(zg.t().contiguous()).to(Device::cpu()), view_as_real(z.t().contiguous()),
                                 0, 0, "transposed copy");
    const DType other = real == kFloat32 ? kComplex128 : kComplex64;
    ember::testing::expect_close(view_as_real(zg.to(other)).to(Device::cpu()), view_as_real(z.to(other)), 1e-6, 1e-6,
                                 "complex to complex");
    ember::testing::expect_close(zg.to(kFloat64).to(Device::cpu()), z.to(kFloat64), 0, 0, "complex to real");
    ember::testing::expect_close(zg.to(kBool).to(Device::cpu()), z.to(kBool), 0, 0, "complex to bool");
    ember::testing::expect_close(view_as_real(parts.select(-1, 0).to(kGpu).to(z.dtype())).to(Device::cpu()),
                                 view_as_real(parts.select(-1, 0).to(z.dtype())), 0, 0, "real to complex");
    // Moved by item size: index_select, gather, where, cat, masked_fill, fill.
    const Tensor idx = tensor(std::vector<int64_t>{3, 0, 0, 2});
    ember::testing::expect_close(view_as_real(index_select(zg, 0, idx.to(kGpu))).to(Device::cpu()),
                                 view_as_real(index_select(z, 0, idx)), 0, 0, "index_select");
    const Tensor cond = uniform({4, 6}, 0, 1, 232).gt(0.5);
    const Tensor zr = z.flip({0});
    ember::testing::expect_close(view_as_real(where(cond.to(kGpu), zg, zr.to(kGpu))).to(Device::cpu()),
                                 view_as_real(where(cond, z, zr)), 0, 0, "where");
    ember::testing::expect_close(view_as_real(cat({zg, zr.to(kGpu)}, 1)).to(Device::cpu()), view_as_real(cat({z, zr}, 1)),
                                 0, 0, "cat");
    ember::testing::expect_close(view_as_real(zg.masked_fill(cond.to(kGpu), Scalar(2.5))).to(Device::cpu()),
                                 view_as_real(z.masked_fill(cond, Scalar(2.5))), 0, 0, "masked_fill");
    ember::testing::expect_close(view_as_real(zg.clone().fill_(Scalar(-1.25))).to(Device::cpu()),
                                 view_as_real(z.clone().fill_(Scalar(-1.25))), 0, 0, "fill");
  }
}

// PyTorch's CPU scalars: a 0-d CPU tensor joins GPU operands of elementwise ops, comparisons and
// where, and its gradient comes back to the CPU; a CPU tensor with dims does not.
TEST(DifferentialTest, CpuScalarsJoinGpuOperands_CUDA) {
  const Tensor x = uniform({3, 4}, -1, 1, 301).to(kGpu).set_requires_grad();
  const Tensor s = scalar_tensor(2.5, kFloat32).set_requires_grad();
  const Tensor y = x * s + s;
  ASSERT_TRUE(y.device() == kGpu);
  ember::testing::expect_close(y.to(Device::cpu()), x.detach().to(Device::cpu()) * 2.5 + 2.5, 1e-6, 1e-6, "x * s + s");
  y.sum().backward();
  ASSERT_TRUE(s.grad().device().is_cpu());
  ember::testing::expect_values_near(s.grad(), {x.detach().sum().item<double>() + 12});
  ember::testing::expect_close(x.grad().to(Device::cpu()), full({3, 4}, 2.5), 0, 0, "x.grad");
  const Tensor half = scalar_tensor(0.5, kFloat32);
  ember::testing::expect_close(gt(x.detach(), half).to(Device::cpu()), gt(x.detach().to(Device::cpu()), 0.5), 0, 0, "gt");
  const Tensor w = where(gt(x.detach(), 0.0), x.detach(), scalar_tensor(0.0, kFloat32));
  ember::testing::expect_close(w.to(Device::cpu()), x.detach().to(Device::cpu()).relu(), 0, 0, "where");
  ember::testing::expect_close(where(scalar_tensor(true, kBool), scalar_tensor(1.0, kFloat32), x.detach()).to(Device::cpu()), ones({3, 4}), 0, 0,
                        "where with a CPU scalar condition");
  ember::testing::expect_error<ValueError>([&] { x.detach() + ones({4}); }, {"add", "different devices", "cuda:0", "cpu"});
}
