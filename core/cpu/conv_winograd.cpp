#include "ember/core/cpu/conv_winograd.h"

#include <dnnl.hpp>
#include <omp.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/scratch.h"
#include "ember/core/factory.h"

namespace ember {

namespace {
std::atomic<bool> winograd_enabled{true};
}  // namespace

void set_conv_winograd(bool enabled) { winograd_enabled.store(enabled, std::memory_order_relaxed); }
bool conv_winograd() { return winograd_enabled.load(std::memory_order_relaxed); }

namespace cpu {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// The smallest work worth it, measured forward + backward against im2col on an AVX-512 EPYC
// (bench/README.md): 64 input and output channels per thread (with 32 at 14x14 the transforms cost
// what the multiplies save) and 512 output positions per thread's chunk, below which the weight's
// transform, which every chunk of the batch repeats, outweighs the gain (see partition()).
constexpr int64_t kMinChannels = 64;
constexpr int64_t kMinChunkPositions = 512;
// oneDNN's kernel needs channel counts that are multiples of its 16-float vector.
constexpr int64_t kVector = 16;
// Plans kept before the cache starts over (a model has a few dozen convolution shapes).
constexpr size_t kMaxPlans = 256;

enum class Pass : int64_t { Forward, InputGrad, WeightGrad };

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The geometry of one thread's chunk: mb samples, C input and O output channels, of tensors
// whose channel dims hold c_total and o_total (a chunk of the channels reads and writes strided).
struct Shape {
  int64_t mb, C, H, W, O, oH, oW, ph, pw;
  bool bias;
  int64_t c_total, o_total;
};

// One pass's primitive for one chunk shape, with the reorders between Ember's layouts (NCHW and
// OIHW, strided where a chunk has part of the channels) and the blocked ones the primitive works
// in. Operand 0 is the gradient of the output in the backward passes, the input forward; operand 1
// the weight, or the input in the weight gradient; the result the pass's product.
struct Plan {
  dnnl::primitive conv;
  int arg0, arg1, arg_out;  // DNNL_ARG_*
  memory::desc user0, user1, user_out, md0, md1, md_out;
  std::optional<dnnl::reorder> to0, to1, from_out;  // none where the layouts agree
  memory::desc scratchpad;
};

// Sets the calling thread's OpenMP count to 1 for its lifetime: the chunks are the threads, and
// oneDNN (built on OpenMP in Debian) then starts none; see onednn_sgemm in gemm.cpp.
class SingleOmpThread {
 public:
  SingleOmpThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleOmpThread() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

memory::desc plain(const memory::dims& dims, Tag tag) { return {dims, memory::data_type::f32, tag}; }
memory::desc any(const memory::dims& dims) { return plain(dims, Tag::any); }
// [d0, d1, d2, d3] whose dim 1 is part of one of `total` channels: row-major strides over the whole.
memory::desc strided(const memory::dims& dims, int64_t total) {
  return {dims, memory::data_type::f32, memory::dims{total * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1}};
}

std::optional<dnnl::reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
}

// Throws dnnl::error where oneDNN has no Winograd kernel for the shape or the machine.
std::shared_ptr<const Plan> make_plan(Pass pass, const Shape& s) {
  const memory::dims src{s.mb, s.C, s.H, s.W}, wei{s.O, s.C, 3, 3}, dst{s.mb, s.O, s.oH, s.oW};
  const memory::dims strides{1, 1}, pad_l{s.ph, s.pw}, pad_r{s.oH + 2 - s.H - s.ph, s.oW + 2 - s.W - s.pw};
  const auto alg = dnnl::algorithm::convolution_winograd;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // from Ember's allocator, per call: thread-safe
  using Fwd = dnnl::convolution_forward;
  const memory::desc bias = s.bias ? plain({s.O}, Tag::x) : memory::desc();
  Fwd::primitive_desc fwd(Fwd::desc(dnnl::prop_kind::forward_training, alg, any(src), any(wei), bias, any(dst),
                                    strides, pad_l, pad_r),
                          attr, cpu_engine());
  auto plan = std::make_shared<Plan>();
  const memory::desc nchw_src = strided(src, s.c_total), oihw = strided(wei, s.c_total),
                     nchw_dst = strided(dst, s.o_total);
  switch (pass) {
    case Pass::Forward:
      *plan = {Fwd(fwd), DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, nchw_src, oihw, nchw_dst,
               fwd.src_desc(), fwd.weights_desc(), fwd.dst_desc(), {}, {}, {}, fwd.scratchpad_desc()};
      break;
    case Pass::InputGrad: {
      using Bwd = dnnl::convolution_backward_data;
      Bwd::primitive_desc pd(Bwd::desc(alg, any(src), any(wei), any(dst), strides, pad_l, pad_r), attr, cpu_engine(),
                             fwd);
      *plan = {Bwd(pd), DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC, nchw_dst, oihw, nchw_src,
               pd.diff_dst_desc(), pd.weights_desc(), pd.diff_src_desc(), {}, {}, {}, pd.scratchpad_desc()};
      break;
    }
    case Pass::WeightGrad: {
      using Bwd = dnnl::convolution_backward_weights;
      Bwd::primitive_desc pd(Bwd::desc(alg, any(src), any(wei), any(dst), strides, pad_l, pad_r), attr,
                             cpu_engine(), fwd);
      *plan = {Bwd(pd), DNNL_ARG_DIFF_DST, DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, nchw_dst, nchw_src, oihw,
               pd.diff_dst_desc(), pd.src_desc(), pd.diff_weights_desc(), {}, {}, {},
               pd.scratchpad_desc()};
      break;
    }
  }
  plan->to0 = reorder_between(plan->user0, plan->md0);
  plan->to1 = reorder_between(plan->user1, plan->md1);
  plan->from_out = reorder_between(plan->md_out, plan->user_out);
  return plan;
}

// The plan of a pass and chunk shape, made once; null where oneDNN has no kernel for it.
std::shared_ptr<const Plan> plan_for(Pass pass, const Shape& s) {
  using Key = std::array<int64_t, 13>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Plan>> plans;
  const Key key{static_cast<int64_t>(pass), s.mb, s.C, s.H, s.W, s.O, s.oH, s.oW, s.ph, s.pw, s.bias,
                s.c_total, s.o_total};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= kMaxPlans) plans.clear();
  std::shared_ptr<const Plan> plan;
  try {
    // NB: oneDNN sizes a primitive's thread partition when it creates it, and runs that many
    // OpenMP threads whatever the count at execution: one, as every chunk runs on one thread.
    SingleOmpThread single;
    plan = make_plan(pass, s);
  } catch (const dnnl::error&) {
    // No Winograd kernel here (an AVX2 machine, a padding it does not take): im2col, every time.
  }
  return plans[key] = plan;
}

// Bytes of scratch memory (cpu/scratch.h), as floats.
Tensor scratch_bytes(size_t bytes) { return scratch<float>(static_cast<int64_t>(bytes / sizeof(float)) + 1); }

// Runs a plan on one chunk: operand 0 and the result in Ember's layouts, operand 1 too unless
// op1_blocked says it is already in the plan's (a weight reordered once for all chunks).
void execute(const Plan& plan, float* op0, float* op1, float* result, const float* bias, bool op1_blocked = false) {
  SingleOmpThread single;
  dnnl::stream stream(cpu_engine());
  std::vector<Tensor> buffers;
  auto operand = [&](const memory::desc& user, const memory::desc& md, const std::optional<dnnl::reorder>& to,
                     float* data) {
    memory given(user, cpu_engine(), data);
    if (!to) return given;
    buffers.push_back(scratch_bytes(md.get_size()));
    memory blocked(md, cpu_engine(), buffers.back().data_ptr<float>());
    to->execute(stream, given, blocked);
    return blocked;
  };
  memory m0 = operand(plan.user0, plan.md0, plan.to0, op0);
  memory m1 = op1_blocked ? memory(plan.md1, cpu_engine(), op1) : operand(plan.user1, plan.md1, plan.to1, op1);
  memory user_out(plan.user_out, cpu_engine(), result);
  memory out = user_out;
  if (plan.from_out) {
    buffers.push_back(scratch_bytes(plan.md_out.get_size()));
    out = memory(plan.md_out, cpu_engine(), buffers.back().data_ptr<float>());
  }
  std::unordered_map<int, memory> args{{plan.arg0, m0}, {plan.arg1, m1}, {plan.arg_out, out}};
  if (bias)  // forward only, where operand 1 is the weight [O, C, 3, 3]
    args.emplace(DNNL_ARG_BIAS, memory(plain({plan.user1.dims()[0]}, Tag::x), cpu_engine(), const_cast<float*>(bias)));
  Tensor pad = scratch_bytes(plan.scratchpad.get_size());
  args.emplace(DNNL_ARG_SCRATCHPAD, memory(plan.scratchpad, cpu_engine(), pad.data_ptr<float>()));
  plan.conv.execute(stream, args);
  if (plan.from_out) plan.from_out->execute(stream, out, user_out);
  stream.wait();
}

// The geometry of a convolution that suits Winograd, or none.
std::optional<Shape> suited(IntArrayRef input, IntArrayRef weight, IntArrayRef output, const Conv2dParams& p,
                            DType dtype, bool bias) {
  if (!conv_winograd() || dtype != DType::Float32 || p.groups != 1) return std::nullopt;
  if (weight[2] != 3 || weight[3] != 3 || p.stride.h != 1 || p.stride.w != 1 || p.dilation.h != 1 ||
      p.dilation.w != 1)
    return std::nullopt;
  const int64_t C = input[1], O = weight[0], oH = output[2], oW = output[3];
  if (C < kMinChannels || O < kMinChannels || C % kVector || O % kVector) return std::nullopt;
  if (oH + 2 - input[2] - p.padding.h < 0 || oW + 2 - input[3] - p.padding.w < 0) return std::nullopt;
  return Shape{input[0], C, input[2], input[3], O, oH, oW, p.padding.h, p.padding.w, bias, C, O};
}

// How a pass is cut over threads: into chunks of the batch, or, where a chunk of the batch would
// hold too few output positions, into chunks of the channels the pass produces (output channels;
// input channels for the input gradient), so that each thread transforms only its part of the
// weight. Chunk c of the batch is samples [N * c / chunks, N * (c + 1) / chunks).
struct Partition {
  bool by_channel;
  int64_t chunks;
};

std::optional<Partition> partition(Pass pass, const Shape& s) {
  const int64_t positions = s.oH * s.oW;
  if (s.mb * positions < kMinChunkPositions) return std::nullopt;
  const int64_t threads = available_threads();
  const int64_t batch_chunks = std::max<int64_t>(1, std::min<int64_t>(threads, s.mb));
  if (s.mb / batch_chunks * positions >= kMinChunkPositions) return Partition{false, batch_chunks};
  const int64_t channels = pass == Pass::InputGrad ? s.C : s.O;
  for (int64_t k = threads; k >= 2; --k)
    if (channels % (k * kVector) == 0 && channels / k >= kMinChannels) return Partition{true, k};
  return std::nullopt;  // one thread would lose against im2col on all of them
}

// Chunk c of a partition: its shape, and where its operands and result start, in elements, from
// the tensors' starts (in the batch-cut weight gradient, chunk c > 0 writes a buffer of its own).
struct Chunk {
  Shape shape;
  int64_t op0, op1, out, bias;
};

Chunk chunk(Pass pass, const Shape& s, const Partition& part, int64_t c) {
  const int64_t in_plane = s.H * s.W, out_plane = s.oH * s.oW, kernel = 9;
  Shape cs = s;
  if (!part.by_channel) {
    const int64_t lo = s.mb * c / part.chunks, hi = s.mb * (c + 1) / part.chunks;
    cs.mb = hi - lo;
    const int64_t x = lo * s.C * in_plane, y = lo * s.O * out_plane;
    switch (pass) {
      case Pass::Forward: return {cs, x, 0, y, 0};
      case Pass::InputGrad: return {cs, y, 0, x, 0};
      case Pass::WeightGrad: return {cs, y, x, 0, 0};
    }
  }
  if (pass == Pass::InputGrad) {  // input channels [c0, c0 + C / chunks)
    cs.C = s.C / part.chunks;
    const int64_t c0 = cs.C * c;
    return {cs, 0, c0 * kernel, c0 * in_plane, 0};
  }
  cs.O = s.O / part.chunks;  // output channels [o0, o0 + O / chunks)
  const int64_t o0 = cs.O * c;
  if (pass == Pass::Forward) return {cs, 0, o0 * s.C * kernel, o0 * out_plane, o0};
  return {cs, o0 * out_plane, 0, o0 * s.C * kernel, 0};
}

// The weight in the layout every chunk's plan takes, reordered once for all of them (an undefined
// tensor where it needs no reorder, the chunks take different parts of it or different layouts).
Tensor blocked_weight(const std::vector<std::shared_ptr<const Plan>>& plans, const Partition& part, float* weight) {
  const Plan& first = *plans.front();
  if (part.by_channel || !first.to1) return Tensor();
  for (const auto& plan : plans)
    if (!(plan->md1 == first.md1)) return Tensor();
  SingleOmpThread single;
  dnnl::stream stream(cpu_engine());
  Tensor blocked = scratch_bytes(first.md1.get_size());
  memory given(first.user1, cpu_engine(), weight), to(first.md1, cpu_engine(), blocked.data_ptr<float>());
  first.to1->execute(stream, given, to);
  stream.wait();
  return blocked;
}

// Runs a pass: op0, op1 and out as Plan names them, bias forward only; false, having written
// nothing, where Winograd does not suit.
bool run(Pass pass, const Shape& shape, float* op0, float* op1, float* out, const float* bias) {
  const auto part = partition(pass, shape);
  if (!part) return false;
  std::vector<Chunk> chunks;
  std::vector<std::shared_ptr<const Plan>> plans;
  for (int64_t c = 0; c < part->chunks; ++c) {
    chunks.push_back(chunk(pass, shape, *part, c));
    plans.push_back(plan_for(pass, chunks.back().shape));
    if (!plans.back()) return false;
  }
  // The weight operand is op1 but in the weight gradient; reordered once where every chunk takes it whole.
  const Tensor weight = pass == Pass::WeightGrad ? Tensor() : blocked_weight(plans, *part, op1);
  // The batch-cut weight gradient: each chunk's goes to its own buffer (the first to `out`), added
  // in a fixed order afterwards, so results do not depend on thread timing.
  const bool partial_sums = pass == Pass::WeightGrad && !part->by_channel;
  const int64_t size = shape.O * shape.C * 9;
  std::vector<Tensor> partial;
  if (partial_sums)
    for (int64_t c = 1; c < part->chunks; ++c) partial.push_back(scratch<float>(size));
  auto one = [&](int64_t c) {
    const Chunk& k = chunks[static_cast<size_t>(c)];
    float* dst = partial_sums && c > 0 ? partial[static_cast<size_t>(c - 1)].data_ptr<float>() : out + k.out;
    execute(*plans[static_cast<size_t>(c)], op0 + k.op0, weight.defined() ? weight.data_ptr<float>() : op1 + k.op1,
            dst, bias ? bias + k.bias : nullptr, weight.defined());
  };
  if (part->chunks == 1)
    one(0);
  else
    parallel_for(0, part->chunks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) one(c);
    });
  for (const Tensor& buffer : partial) {
    const float* src = buffer.data_ptr<float>();
    for (int64_t i = 0; i < size; ++i) out[i] += src[i];
  }
  return true;
}

}  // namespace

bool winograd_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Conv2dParams& p) {
  auto shape = suited(input.sizes(), weight.sizes(), out.sizes(), p, input.dtype(), bias.defined());
  return shape && run(Pass::Forward, *shape, input.data_ptr<float>(), weight.data_ptr<float>(), out.data_ptr<float>(),
                      bias.defined() ? bias.data_ptr<float>() : nullptr);
}

bool winograd_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                const Conv2dParams& p) {
  auto shape = suited(grad_input.sizes(), weight.sizes(), grad_out.sizes(), p, grad_out.dtype(), false);
  return shape && run(Pass::InputGrad, *shape, grad_out.data_ptr<float>(), weight.data_ptr<float>(),
                      grad_input.data_ptr<float>(), nullptr);
}

bool winograd_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                 const Conv2dParams& p) {
  auto shape = suited(input.sizes(), grad_weight.sizes(), grad_out.sizes(), p, grad_out.dtype(), false);
  return shape && run(Pass::WeightGrad, *shape, grad_out.data_ptr<float>(), input.data_ptr<float>(),
                      grad_weight.data_ptr<float>(), nullptr);
}

}  // namespace cpu
}  // namespace ember
