// The workloads of bench/python_bench.py in C++, for Ember or (built with -DBENCH_TORCH) the
// libtorch that PyTorch's PyPI wheel ships: per-op autograd overhead on tiny tensors, a 100,000-op
// chain's backward, the 1024x1024 matmul, the MLP, CNN, ResNet-18, small-GPT and LSTM language-model
// training steps, the per-step overhead (the MLP's step 16 wide) and one Fashion-MNIST epoch of the
// MLP. The same loops run through a thin adapter, so both sides do the same work; keep them in step
// with python_bench.py (same models, settings, budgets and timing). Prints "name value unit" lines
// for bench/run.sh.
//   cpp_bench THREADS
#include <immintrin.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using Widths = std::array<int64_t, 4>;  // an MLP's layer widths
constexpr Widths kMLP = {784, 256, 128, 10}, kTiny = {16, 16, 16, 10};
// The GPT of the training-step workload: nanoGPT's decoder (tests/compat/gpt.py) at 2 layers, 4
// heads, 128 wide, blocks of 64 tokens from a 256-token vocabulary, batch 16, AdamW.
struct GptShape {
  int64_t vocab = 256, block = 64, layers = 2, heads = 4, width = 128, batch = 16;
};
constexpr GptShape kGpt;

#ifdef BENCH_TORCH
#include <torch/torch.h>
namespace lib {
using Tensor = torch::Tensor;
using NoGrad = torch::NoGradGuard;
using Model = torch::nn::Sequential;
using Optimizer = torch::optim::Optimizer;
inline Tensor leaf(std::vector<int64_t> shape) { return torch::rand(shape).requires_grad_(true); }
inline Tensor data(std::vector<int64_t> shape) { return torch::rand(shape); }
inline Tensor randn(std::vector<int64_t> shape) { return torch::randn(shape); }
inline Tensor labels(int64_t n) { return torch::randint(0, 10, {n}); }
template <typename T>
Tensor from_vector(std::vector<T>& values, std::vector<int64_t> shape) {
  return torch::from_blob(values.data(), shape, torch::dtype<T>()).clone();
}
inline void set_threads(int n) { torch::set_num_threads(n); }
inline void manual_seed(uint64_t seed) { torch::manual_seed(seed); }
inline Model mlp(const Widths& w) {
  using namespace torch::nn;
  return Sequential(Linear(w[0], w[1]), ReLU(), Linear(w[1], w[2]), ReLU(), Linear(w[2], w[3]));
}
inline Model cnn() {
  using namespace torch::nn;
  return Sequential(Conv2d(Conv2dOptions(1, 16, 3).padding(1)), ReLU(), MaxPool2d(2),
                    Conv2d(Conv2dOptions(16, 32, 3).padding(1)), ReLU(), MaxPool2d(2), Flatten(),
                    Linear(32 * 7 * 7, 128), ReLU(), Linear(128, 10));
}
// torchvision's BasicBlock: two 3x3 convolutions with batch norm, in-place ReLUs (as torchvision),
// and a 1x1 projection of the shortcut when the shape changes.
struct BasicBlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Sequential downsample{nullptr};
  BasicBlockImpl(int64_t in, int64_t out, int64_t stride) {
    using namespace torch::nn;
    conv1 = register_module("conv1", Conv2d(Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    bn1 = register_module("bn1", BatchNorm2d(out));
    conv2 = register_module("conv2", Conv2d(Conv2dOptions(out, out, 3).padding(1).bias(false)));
    bn2 = register_module("bn2", BatchNorm2d(out));
    if (stride != 1 || in != out)
      downsample = register_module(
          "downsample", Sequential(Conv2d(Conv2dOptions(in, out, 1).stride(stride).bias(false)), BatchNorm2d(out)));
  }
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out));
    out += downsample ? downsample->forward(x) : x;
    return out.relu_();
  }
};
TORCH_MODULE(BasicBlock);
inline Model resnet18() {
  using namespace torch::nn;
  Sequential s(Conv2d(Conv2dOptions(3, 64, 3).padding(1).bias(false)), BatchNorm2d(64), ReLU(ReLUOptions(true)));
  int64_t in = 64;
  for (auto [planes, stride] : {std::pair{64, 1}, std::pair{128, 2}, std::pair{256, 2}, std::pair{512, 2}})
    for (int64_t block = 0; block < 2; ++block) {
      s->push_back(BasicBlock(in, planes, block == 0 ? stride : 1));
      in = planes;
    }
  s->push_back(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1})));
  s->push_back(Flatten());
  s->push_back(Linear(512, 10));
  return s;
}
inline Tensor forward(Model& m, const Tensor& x) { return m->forward(x); }
inline std::unique_ptr<Optimizer> sgd(Model& m, double lr, double momentum, double weight_decay = 0) {
  return std::make_unique<torch::optim::SGD>(
      m->parameters(), torch::optim::SGDOptions(lr).momentum(momentum).weight_decay(weight_decay));
}
inline std::unique_ptr<Optimizer> adam(Model& m, double lr) {
  return std::make_unique<torch::optim::Adam>(m->parameters(), torch::optim::AdamOptions(lr));
}
inline Tensor cross_entropy(const Tensor& x, const Tensor& y) {
  return torch::nn::functional::cross_entropy(x, y);
}
// A pre-norm decoder block: causal self-attention (scaled_dot_product_attention) and a GELU MLP.
struct BlockImpl : torch::nn::Module {
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  torch::nn::Linear c_attn{nullptr}, c_proj{nullptr}, c_fc{nullptr}, mlp_proj{nullptr};
  int64_t heads;
  BlockImpl(int64_t c, int64_t h) : heads(h) {
    ln_1 = register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c})));
    c_attn = register_module("c_attn", torch::nn::Linear(c, 3 * c));
    c_proj = register_module("c_proj", torch::nn::Linear(c, c));
    ln_2 = register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c})));
    c_fc = register_module("c_fc", torch::nn::Linear(c, 4 * c));
    mlp_proj = register_module("mlp_proj", torch::nn::Linear(4 * c, c));
  }
  Tensor forward(Tensor x) {
    const int64_t b = x.size(0), t = x.size(1), c = x.size(2);
    auto qkv = c_attn->forward(ln_1->forward(x)).split(c, 2);
    auto split_heads = [&](const Tensor& y) { return y.view({b, t, heads, c / heads}).transpose(1, 2); };
    Tensor y = torch::scaled_dot_product_attention(split_heads(qkv[0]), split_heads(qkv[1]), split_heads(qkv[2]),
                                                   {}, 0.0, true);
    x = x + c_proj->forward(y.transpose(1, 2).contiguous().view({b, t, c}));
    return x + mlp_proj->forward(torch::gelu(c_fc->forward(ln_2->forward(x))));
  }
};
TORCH_MODULE(Block);
struct GptImpl : torch::nn::Module {
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList blocks;
  torch::nn::LayerNorm ln_f{nullptr};
  torch::nn::Linear lm_head{nullptr};
  explicit GptImpl(const GptShape& s) {
    wte = register_module("wte", torch::nn::Embedding(s.vocab, s.width));
    wpe = register_module("wpe", torch::nn::Embedding(s.block, s.width));
    for (int64_t i = 0; i < s.layers; ++i) blocks->push_back(Block(s.width, s.heads));
    register_module("blocks", blocks);
    ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({s.width})));
    lm_head = register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(s.width, s.vocab).bias(false)));
  }
  Tensor forward(const Tensor& idx) {
    Tensor x = wte->forward(idx) + wpe->forward(torch::arange(idx.size(1)));
    for (const auto& block : *blocks) x = block->as<BlockImpl>()->forward(x);
    return lm_head->forward(ln_f->forward(x));
  }
};
TORCH_MODULE(Gpt);
inline Gpt gpt(const GptShape& s) { return Gpt(s); }
inline Tensor forward(Gpt& m, const Tensor& idx) { return m->forward(idx); }
inline std::unique_ptr<Optimizer> adamw(Gpt& m, double lr) {
  return std::make_unique<torch::optim::AdamW>(m->parameters(), torch::optim::AdamWOptions(lr));
}
inline Tensor tokens(int64_t vocab, std::vector<int64_t> shape) { return torch::randint(0, vocab, shape); }
// The word language model: Embedding -> LSTM -> Linear decoder, logits [T * B, vocab].
struct LstmLm : torch::nn::Module {
  torch::nn::Embedding embedding{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear decoder{nullptr};
  LstmLm(int64_t vocab, int64_t width, int64_t layers)
      : embedding(register_module("embedding", torch::nn::Embedding(vocab, width))),
        lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(width, width).num_layers(layers)))),
        decoder(register_module("decoder", torch::nn::Linear(width, vocab))) {}
  Tensor forward(const Tensor& tokens) {
    Tensor out = std::get<0>(lstm->forward(embedding->forward(tokens)));
    return decoder->forward(out).view({-1, decoder->options.out_features()});
  }
};
using LanguageModel = std::shared_ptr<LstmLm>;
inline LanguageModel lstm_lm(int64_t vocab, int64_t width, int64_t layers) {
  return std::make_shared<LstmLm>(vocab, width, layers);
}
inline Tensor lm_logits(LanguageModel& m, const Tensor& tokens) { return m->forward(tokens); }
inline std::unique_ptr<Optimizer> lm_sgd(LanguageModel& m, double lr) {
  return std::make_unique<torch::optim::SGD>(m->parameters(), torch::optim::SGDOptions(lr));
}
inline void clip_grad_norm(LanguageModel& m, double max_norm) {
  torch::nn::utils::clip_grad_norm_(m->parameters(), max_norm);
}
}  // namespace lib
#else
#include <ember/ember.h>
namespace lib {
using Tensor = ember::Tensor;
using NoGrad = ember::NoGradGuard;
using Model = std::shared_ptr<ember::nn::Module>;
using Optimizer = ember::optim::Optimizer;
inline Tensor leaf(std::vector<int64_t> shape) { return ember::rand(shape).set_requires_grad(); }
inline Tensor data(std::vector<int64_t> shape) { return ember::rand(shape); }
inline Tensor randn(std::vector<int64_t> shape) { return ember::randn(shape); }
inline Tensor labels(int64_t n) { return ember::randint(0, 10, {n}); }
template <typename T>
Tensor from_vector(std::vector<T>& values, std::vector<int64_t> shape) {
  return ember::tensor(values, shape);
}
inline void set_threads(int n) { ember::set_num_threads(n); }
inline void manual_seed(uint64_t seed) { ember::manual_seed(seed); }
inline Model sequential(std::vector<Model> layers) {
  return std::make_shared<ember::nn::Sequential>(std::move(layers));
}
inline Model mlp(const Widths& w) {
  using namespace ember::nn;
  return sequential({std::make_shared<Linear>(LinearOptions{w[0], w[1]}), std::make_shared<ReLU>(),
                     std::make_shared<Linear>(LinearOptions{w[1], w[2]}), std::make_shared<ReLU>(),
                     std::make_shared<Linear>(LinearOptions{w[2], w[3]})});
}
inline Model cnn() {
  using namespace ember::nn;
  auto conv = [](int64_t in, int64_t out) {
    return std::make_shared<Conv2d>(
        Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = 3, .padding = 1});
  };
  return sequential({conv(1, 16), std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2),
                     conv(16, 32), std::make_shared<ReLU>(), std::make_shared<MaxPool2d>(2),
                     std::make_shared<Flatten>(),
                     std::make_shared<Linear>(LinearOptions{32 * 7 * 7, 128}),
                     std::make_shared<ReLU>(), std::make_shared<Linear>(LinearOptions{128, 10})});
}
// torchvision's BasicBlock: two 3x3 convolutions with batch norm, and a 1x1 projection of the
// shortcut when the shape changes.
class BasicBlock : public ember::nn::Module {
 public:
  BasicBlock(int64_t in, int64_t out, int64_t stride) : Module("BasicBlock") {
    using namespace ember::nn;
    auto conv = [](int64_t i, int64_t o, int64_t k, int64_t s) {
      return std::make_shared<Conv2d>(Conv2dOptions{
          .in_channels = i, .out_channels = o, .kernel_size = k, .stride = s, .padding = k / 2, .bias = false});
    };
    conv1_ = register_module("conv1", conv(in, out, 3, stride));
    bn1_ = register_module("bn1", std::make_shared<BatchNorm2d>(out));
    conv2_ = register_module("conv2", conv(out, out, 3, 1));
    bn2_ = register_module("bn2", std::make_shared<BatchNorm2d>(out));
    if (stride != 1 || in != out)
      downsample_ = register_module("downsample", std::make_shared<Sequential>(std::vector<std::shared_ptr<Module>>{
                                                      conv(in, out, 1, stride), std::make_shared<BatchNorm2d>(out)}));
  }
  Tensor forward(const Tensor& x) override {
    Tensor out = ember::relu((*bn1_)((*conv1_)(x)));
    out = (*bn2_)((*conv2_)(out));
    return ember::relu(out + (downsample_ ? (*downsample_)(x) : x));
  }

 private:
  std::shared_ptr<ember::nn::Module> conv1_, bn1_, conv2_, bn2_, downsample_;
};
inline Model resnet18() {
  using namespace ember::nn;
  std::vector<Model> layers{
      std::make_shared<Conv2d>(Conv2dOptions{.in_channels = 3, .out_channels = 64, .kernel_size = 3, .padding = 1, .bias = false}),
      std::make_shared<BatchNorm2d>(64), std::make_shared<ReLU>()};
  int64_t in = 64;
  for (auto [planes, stride] : {std::pair{64, 1}, std::pair{128, 2}, std::pair{256, 2}, std::pair{512, 2}})
    for (int64_t block = 0; block < 2; ++block) {
      layers.push_back(std::make_shared<BasicBlock>(in, planes, block == 0 ? stride : 1));
      in = planes;
    }
  layers.push_back(std::make_shared<AdaptiveAvgPool2d>(ember::Size2(1)));
  layers.push_back(std::make_shared<Flatten>());
  layers.push_back(std::make_shared<Linear>(LinearOptions{512, 10}));
  return sequential(std::move(layers));
}
inline Tensor forward(Model& m, const Tensor& x) { return (*m)(x); }
inline std::unique_ptr<Optimizer> sgd(Model& m, double lr, double momentum, double weight_decay = 0) {
  return std::make_unique<ember::optim::SGD>(
      m->named_parameters(),
      ember::optim::SGDOptions{.lr = lr, .momentum = momentum, .weight_decay = weight_decay});
}
inline std::unique_ptr<Optimizer> adam(Model& m, double lr) {
  return std::make_unique<ember::optim::Adam>(m->named_parameters(),
                                              ember::optim::AdamOptions{.lr = lr});
}
inline Tensor cross_entropy(const Tensor& x, const Tensor& y) {
  return ember::nn::functional::cross_entropy(x, y);
}
// A pre-norm decoder block: causal self-attention (scaled_dot_product_attention) and a GELU MLP.
class Block : public ember::nn::Module {
 public:
  Block(int64_t c, int64_t h) : Module("Block"), heads_(h) {
    using namespace ember::nn;
    ln_1_ = register_module("ln_1", std::make_shared<LayerNorm>(c));
    c_attn_ = register_module("c_attn", std::make_shared<Linear>(LinearOptions{c, 3 * c}));
    c_proj_ = register_module("c_proj", std::make_shared<Linear>(LinearOptions{c, c}));
    ln_2_ = register_module("ln_2", std::make_shared<LayerNorm>(c));
    c_fc_ = register_module("c_fc", std::make_shared<Linear>(LinearOptions{c, 4 * c}));
    mlp_proj_ = register_module("mlp_proj", std::make_shared<Linear>(LinearOptions{4 * c, c}));
  }
  Tensor forward(const Tensor& input) override {
    const int64_t b = input.size(0), t = input.size(1), c = input.size(2);
    auto qkv = ember::split((*c_attn_)((*ln_1_)(input)), c, 2);
    auto split_heads = [&](const Tensor& y) { return y.view({b, t, heads_, c / heads_}).transpose(1, 2); };
    Tensor y = ember::scaled_dot_product_attention(split_heads(qkv[0]), split_heads(qkv[1]), split_heads(qkv[2]),
                                                   Tensor(), 0.0, true);
    Tensor x = input + (*c_proj_)(y.transpose(1, 2).contiguous().view({b, t, c}));
    return x + (*mlp_proj_)(ember::gelu((*c_fc_)((*ln_2_)(x))));
  }

 private:
  int64_t heads_;
  std::shared_ptr<ember::nn::Module> ln_1_, c_attn_, c_proj_, ln_2_, c_fc_, mlp_proj_;
};
class Gpt : public ember::nn::Module {
 public:
  explicit Gpt(const GptShape& s) : Module("Gpt") {
    using namespace ember::nn;
    wte_ = register_module("wte", std::make_shared<Embedding>(EmbeddingOptions{s.vocab, s.width}));
    wpe_ = register_module("wpe", std::make_shared<Embedding>(EmbeddingOptions{s.block, s.width}));
    auto blocks = register_module("blocks", std::make_shared<ModuleList>());
    for (int64_t i = 0; i < s.layers; ++i) blocks->push_back(std::make_shared<Block>(s.width, s.heads));
    blocks_ = blocks;
    ln_f_ = register_module("ln_f", std::make_shared<LayerNorm>(s.width));
    lm_head_ = register_module("lm_head", std::make_shared<Linear>(LinearOptions{s.width, s.vocab, false}));
  }
  Tensor forward(const Tensor& idx) override {
    Tensor x = (*wte_)(idx) + (*wpe_)(ember::arange(idx.size(1)));
    for (const auto& block : blocks_->children()) x = (*block)(x);
    return (*lm_head_)((*ln_f_)(x));
  }

 private:
  std::shared_ptr<ember::nn::Module> wte_, wpe_, ln_f_, lm_head_;
  std::shared_ptr<ember::nn::ModuleList> blocks_;
};
inline Model gpt(const GptShape& s) { return std::make_shared<Gpt>(s); }
inline std::unique_ptr<Optimizer> adamw(Model& m, double lr) {
  return std::make_unique<ember::optim::AdamW>(m->named_parameters(), ember::optim::AdamWOptions{.lr = lr});
}
inline Tensor tokens(int64_t vocab, std::vector<int64_t> shape) { return ember::randint(0, vocab, shape); }
// The word language model: Embedding -> LSTM -> Linear decoder, logits [T * B, vocab]. A
// Sequential: an LSTM in one passes its output sequence on.
using LanguageModel = Model;
inline LanguageModel lstm_lm(int64_t vocab, int64_t width, int64_t layers) {
  using namespace ember::nn;
  return sequential({std::make_shared<Embedding>(EmbeddingOptions{vocab, width, std::nullopt}),
                     std::make_shared<LSTM>(RNNOptions{width, width, layers}),
                     std::make_shared<Linear>(LinearOptions{width, vocab})});
}
inline Tensor lm_logits(LanguageModel& m, const Tensor& tokens) {
  Tensor y = (*m)(tokens);
  return y.reshape({-1, y.size(-1)});
}
inline std::unique_ptr<Optimizer> lm_sgd(LanguageModel& m, double lr) {
  return std::make_unique<ember::optim::SGD>(m->named_parameters(), ember::optim::SGDOptions{.lr = lr});
}
inline void clip_grad_norm(LanguageModel& m, double max_norm) { ember::optim::clip_grad_norm_(m->parameters(), max_norm); }
}  // namespace lib
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs f repeatedly for about `budget` seconds (after 3 warm-up calls) and returns seconds per
// call, the best of kRounds rounds: python_bench.py's time_per_call.
// NB: many short rounds: on 2 cores another process's burst spoils a round at 2 threads, and the
// best of many is then still a clean one.
constexpr int kRounds = 20;
// The Fashion-MNIST epoch: the best of this many, one after the other (python_bench.py's EPOCHS).
constexpr int kEpochs = 3;
// The best round's time per call; a call longer than a round gets one warm-up, and its rounds stop at
// twice the budget after 3 (python_bench.py's time_per_call).
template <typename F>
double time_per_call(F&& f, double budget = 0.5) {
  auto first = Clock::now();
  f();
  const bool slow = seconds_since(first) > budget / kRounds;
  for (int i = 0; i < (slow ? 0 : 2); ++i) f();
  double best = 1e30;
  const auto start = Clock::now();
  for (int round = 0; round < kRounds; ++round) {
    if (slow && round >= 3 && seconds_since(start) > 2 * budget) break;
    int64_t calls = 0;
    auto t0 = Clock::now();
    while (seconds_since(t0) < budget / kRounds) {
      f();
      ++calls;
    }
    best = std::min(best, seconds_since(t0) / static_cast<double>(calls));
  }
  return best;
}

void report(const std::string& name, double value, const char* unit) {
  std::printf("%s %.4g %s\n", name.c_str(), value, unit);
}

// One training step: zero the gradients, forward, cross-entropy, backward, update.
void train_step(lib::Model& model, lib::Optimizer& opt, const lib::Tensor& x,
                const lib::Tensor& y) {
  opt.zero_grad();
  lib::cross_entropy(lib::forward(model, x), y).backward();
  opt.step();
}

// One GPT training step: zero the gradients, forward, cross-entropy over every position, backward,
// update.
template <typename M>
void gpt_step(M& model, lib::Optimizer& opt, const lib::Tensor& idx, const lib::Tensor& targets) {
  opt.zero_grad();
  lib::Tensor logits = lib::forward(model, idx);
  lib::cross_entropy(logits.view({-1, kGpt.vocab}), targets.view({-1})).backward();
  opt.step();
}

// pytorch/examples' word_language_model at its defaults: 200 wide, 2 LSTM layers, batch 20, 35 steps
// of truncated backpropagation, gradients clipped to norm 0.25, plain SGD at lr 20 (no dropout: the
// two libraries' masks differ anyway); a vocabulary of kLmVocab words.
constexpr int64_t kLmVocab = 10000, kLmWidth = 200, kLmLayers = 2, kLmSteps = 35, kLmBatch = 20;

void lm_step(lib::LanguageModel& model, lib::Optimizer& opt, const lib::Tensor& tokens, const lib::Tensor& next) {
  opt.zero_grad();
  lib::cross_entropy(lib::lm_logits(model, tokens), next).backward();
  lib::clip_grad_norm(model, 0.25);
  opt.step();
}

// The payload of a gzipped idx file (Fashion-MNIST's format): the bytes after the header, which is
// a magic number whose last byte counts the dimensions, then one big-endian int32 per dimension.
std::vector<uint8_t> read_idx(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
  gzclose(f);
  if (bytes.size() < 4 || bytes.size() < 4 + 4 * size_t{bytes[3]}) return {};
  return {bytes.begin() + 4 + 4 * bytes[3], bytes.end()};
}

#ifndef BENCH_TORCH
// The cores' peak float32 FMA rate, GFLOP/s: 12 independent chains of fused multiply-adds per
// thread (enough to keep two FMA pipes of 4-cycle latency busy) on `threads` threads, the best of
// 3. No GEMM runs faster: the floor under the GEMM-bound steps (summary.py).
__attribute__((target("avx2,fma"))) float fma_chains_ymm(int64_t iters) {
  __m256 acc[12];
  for (__m256& a : acc) a = _mm256_set1_ps(1.0f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (__m256& a : acc) a = _mm256_fmadd_ps(a, m, c);
  }
  float sum = 0;
  for (__m256& a : acc) sum += _mm256_cvtss_f32(a);
  return sum;
}
__attribute__((target("avx512f"))) float fma_chains_zmm(int64_t iters) {
  __m512 acc[12];
  for (__m512& a : acc) a = _mm512_set1_ps(1.0f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (__m512& a : acc) a = _mm512_fmadd_ps(a, m, c);
  }
  float sum = 0;
  for (__m512& a : acc) sum += _mm512_cvtss_f32(a);
  return sum;
}
double fma_peak(int threads, bool zmm) {
  constexpr int64_t kIters = 20'000'000;
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    auto t0 = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sink[t] = zmm ? fma_chains_zmm(kIters) : fma_chains_ymm(kIters); });
    for (std::thread& t : pool) t.join();
    best = std::min(best, seconds_since(t0));
  }
  return threads * kIters * 12.0 * (zmm ? 16 : 8) * 2 / best / 1e9;
}
#endif

}  // namespace

// The training steps on a shared machine (run.sh starts the competing processes): each library at
// its default thread setting, the mean time per step over kContendedSeconds. NB: the mean, not the
// best round: a stall of a few steps is exactly what contention costs.
constexpr double kContendedSeconds = 3.0;
template <typename F>
double mean_per_call(F&& f) {
  for (int i = 0; i < 3; ++i) f();
  int64_t calls = 0;
  auto t0 = Clock::now();
  while (seconds_since(t0) < kContendedSeconds) {
    f();
    ++calls;
  }
  return seconds_since(t0) / static_cast<double>(calls);
}

int contended() {
  for (auto [name, batch] : {std::pair{"mlp_step_b64", int64_t{64}}, std::pair{"mlp_step_b512", int64_t{512}}}) {
    lib::manual_seed(0);
    lib::Model model = lib::mlp(kMLP);
    for (std::string opt_name : {"sgd", "adam"}) {
      auto opt = opt_name == "sgd" ? lib::sgd(model, 0.01, 0.9) : lib::adam(model, 1e-3);
      lib::Tensor inputs = lib::randn({batch, kMLP[0]}), targets = lib::labels(batch);
      double t = mean_per_call([&] { train_step(model, *opt, inputs, targets); });
      report(std::string(name) + "_" + opt_name, t * 1e3, "ms/step");
    }
  }
  lib::manual_seed(0);
  lib::Model cnn = lib::cnn();
  auto opt = lib::adam(cnn, 1e-3);
  lib::Tensor images = lib::randn({64, 1, 28, 28}), labels = lib::labels(64);
  report("cnn_step_b64_adam", mean_per_call([&] { train_step(cnn, *opt, images, labels); }) * 1e3, "ms/step");
  return 0;
}

int main(int argc, char** argv) {
  // "cpp_bench contended": the training steps at the default thread setting (see contended()).
  if (argc > 1 && std::string(argv[1]) == "contended") return contended();
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  lib::set_threads(threads);

  // Forward only: one multiply of two [4] tensors that require grad (records a node).
  {
    lib::Tensor a = lib::leaf({4}), b = lib::leaf({4});
    constexpr int kOps = 100;
    double t = time_per_call([&] {
      for (int i = 0; i < kOps; ++i) {
        lib::Tensor c = a * b;
      }
    });
    report("op_forward", t / kOps * 1e6, "us/op");
  }
  // Forward + backward: a chain of 64 multiplies, then sum and backward.
  {
    lib::Tensor x = lib::leaf({4}), w = lib::leaf({4});
    constexpr int kOps = 64;
    double t = time_per_call([&] {
      lib::Tensor y = x;
      for (int i = 0; i < kOps; ++i) y = y * w;
      y.sum().backward();
    });
    report("op_forward_backward", t / (kOps + 1) * 1e6, "us/op");
  }
  // A 100,000-op chain: backward time per op (the forward is not timed).
  {
    lib::Tensor x = lib::leaf({1});
    lib::Tensor s = lib::data({1});
    constexpr int kOps = 100000;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
      lib::Tensor y = x;
      for (int i = 0; i < kOps; ++i) y = y * s;
      lib::Tensor loss = y.sum();
      auto t0 = Clock::now();
      loss.backward();
      best = std::min(best, seconds_since(t0));
    }
    report("chain100k_backward", best / kOps * 1e6, "us/op");
  }
  // 1024 x 1024 float32 matmul.
  {
    lib::NoGrad no_grad;
    lib::Tensor a = lib::data({1024, 1024}), b = lib::data({1024, 1024});
    double t = time_per_call([&] { lib::Tensor c = a.matmul(b); }, 1.5);
    report("matmul1024", 2.0 * 1024 * 1024 * 1024 / t / 1e9, "GFLOP/s");
  }
#ifndef BENCH_TORCH  // a property of the machine: reported once, with Ember's results
  report("fma_peak_ymm", fma_peak(threads, false), "GFLOP/s");
  if (__builtin_cpu_supports("avx512f")) report("fma_peak_zmm", fma_peak(threads, true), "GFLOP/s");
#endif
  // The 784-256-128-10 MLP at batch 64 and 512, and the same layers 16 wide at batch 1, where the
  // step is all overhead; SGD (lr 0.01, momentum 0.9) and Adam (lr 1e-3).
  struct StepCase {
    const char* name;
    Widths widths;
    int64_t batch;
  };
  for (auto [name, widths, batch] : {StepCase{"mlp_step_b64", kMLP, 64},
                                     StepCase{"mlp_step_b512", kMLP, 512},
                                     StepCase{"step_overhead", kTiny, 1}}) {
    lib::manual_seed(0);
    lib::Model model = lib::mlp(widths);
    for (std::string opt_name : {"sgd", "adam"}) {
      auto opt = opt_name == "sgd" ? lib::sgd(model, 0.01, 0.9) : lib::adam(model, 1e-3);
      lib::Tensor inputs = lib::randn({batch, widths[0]}), targets = lib::labels(batch);
      double t = time_per_call([&] { train_step(model, *opt, inputs, targets); }, 2.0);
      report(std::string(name) + "_" + opt_name, t * 1e3, "ms/step");
    }
  }
  // The MLP step's eight products alone (forward, weight gradients, the input gradients of all
  // layers but the first), with the step's shapes and layouts: what the step cannot go below with
  // this library's GEMM.
  for (int64_t batch : {64, 512}) {
    lib::NoGrad no_grad;
    const auto [in, hidden1, hidden2, out] = kMLP;
    lib::Tensor x = lib::data({batch, in}), w1 = lib::data({hidden1, in}), w2 = lib::data({hidden2, hidden1}),
                w3 = lib::data({out, hidden2}), h1 = lib::data({batch, hidden1}), h2 = lib::data({batch, hidden2}),
                g1 = lib::data({batch, hidden1}), g2 = lib::data({batch, hidden2}), g3 = lib::data({batch, out});
    double t = time_per_call([&] {
      lib::Tensor products[] = {x.matmul(w1.t()),  h1.matmul(w2.t()), h2.matmul(w3.t()), g3.matmul(w3),
                                g3.t().matmul(h2), g2.matmul(w2),     g2.t().matmul(h1), g1.t().matmul(x)};
    }, 2.0);
    report("mlp_products_b" + std::to_string(batch), t * 1e3, "ms");
  }
  // The CNN of tutorials/fashion_mnist, batch 64, Adam.
  {
    lib::manual_seed(0);
    lib::Model cnn = lib::cnn();
    auto opt = lib::adam(cnn, 1e-3);
    lib::Tensor images = lib::randn({64, 1, 28, 28}), labels = lib::labels(64);
    double t = time_per_call([&] { train_step(cnn, *opt, images, labels); }, 2.0);
    report("cnn_step_b64_adam", t * 1e3, "ms/step");
  }
  // ResNet-18 (torchvision's layout adapted to 32x32 inputs: a 3x3 stem, no max pooling) on
  // 3x32x32 images, batch 32, 10 classes, SGD with momentum and weight decay.
  {
    lib::manual_seed(0);
    lib::Model net = lib::resnet18();
    auto opt = lib::sgd(net, 0.1, 0.9, 5e-4);
    lib::Tensor images = lib::randn({32, 3, 32, 32}), labels = lib::labels(32);
    double t = time_per_call([&] { train_step(net, *opt, images, labels); }, 10.0);
    report("resnet18_step_b32_sgd", t * 1e3, "ms/step");
  }
  // The GPT's training step (kGpt), AdamW lr 3e-4.
  {
    lib::manual_seed(0);
    auto model = lib::gpt(kGpt);
    auto opt = lib::adamw(model, 3e-4);
    lib::Tensor idx = lib::tokens(kGpt.vocab, {kGpt.batch, kGpt.block});
    lib::Tensor targets = lib::tokens(kGpt.vocab, {kGpt.batch, kGpt.block});
    double t = time_per_call([&] { gpt_step(model, *opt, idx, targets); }, 3.0);
    report("gpt_step_b16_adamw", t * 1e3, "ms/step");
  }
#ifndef BENCH_TORCH
  // bench/python_bench.py's GPT, a class written in Python, traced and saved by bench/run.sh, trained
  // here from its program with no Python in the loop (issue 31): against the Python step of the same
  // model (gpt_step_b16_adamw from Python).
  if (const char* program = std::getenv("EMBER_BENCH_GPT_PROGRAM")) {
    std::shared_ptr<ember::jit::TracedModule> model = ember::jit::load(program);
    ember::optim::AdamW opt(model->named_parameters(), {.lr = 3e-4});
    lib::Tensor idx = lib::tokens(kGpt.vocab, {kGpt.batch, kGpt.block});
    lib::Tensor targets = lib::tokens(kGpt.vocab, {kGpt.batch, kGpt.block});
    double t = time_per_call(
        [&] {
          opt.zero_grad();
          ember::nn::functional::cross_entropy(model->forward(idx).view({-1, kGpt.vocab}), targets.view({-1}))
              .backward();
          opt.step();
        },
        3.0);
    report("gpt_step_b16_adamw_program", t * 1e3, "ms/step");
  }
#endif
  // The LSTM language model's training step.
  {
    lib::manual_seed(0);
    lib::LanguageModel lm = lib::lstm_lm(kLmVocab, kLmWidth, kLmLayers);
    auto opt = lib::lm_sgd(lm, 20.0);
    lib::Tensor tokens = lib::tokens(kLmVocab, {kLmSteps, kLmBatch}), next = lib::tokens(kLmVocab, {kLmSteps * kLmBatch});
    double t = time_per_call([&] { lm_step(lm, *opt, tokens, next); }, 2.0);
    report("lstm_lm_step_sgd", t * 1e3, "ms/step");
  }
  // One epoch of the MLP over the 60,000 training images in order, batch 64, SGD with momentum;
  // the images are standardised beforehand, untimed.
  const std::string root = "/usr/share/datasets/fashion-mnist/";
  std::vector<uint8_t> pixels = read_idx(root + "train-images-idx3-ubyte.gz");
  std::vector<uint8_t> classes = read_idx(root + "train-labels-idx1-ubyte.gz");
  if (!pixels.empty() && !classes.empty()) {
    std::vector<float> standardised(pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i)
      standardised[i] = (pixels[i] / 255.0f - 0.2860f) / 0.3530f;
    std::vector<int64_t> targets(classes.begin(), classes.end());
    const auto n = static_cast<int64_t>(targets.size());
    lib::Tensor x = lib::from_vector(standardised, {n, 784}), y = lib::from_vector(targets, {n});
    lib::manual_seed(0);
    lib::Model model = lib::mlp(kMLP);
    auto opt = lib::sgd(model, 0.05, 0.9);
    double best = 1e30;
    for (int epoch = 0; epoch < kEpochs; ++epoch) {
      auto t0 = Clock::now();
      for (int64_t start = 0; start + 64 <= n; start += 64)
        train_step(model, *opt, x.narrow(0, start, 64), y.narrow(0, start, 64));
      best = std::min(best, seconds_since(t0));
    }
    report("mlp_epoch_b64_sgd", best, "s/epoch");
  }
  return 0;
}
