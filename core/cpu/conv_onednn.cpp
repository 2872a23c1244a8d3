#include "ember/core/cpu/conv_onednn.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/cpu/conv_winograd.h"
#include "ember/core/cpu/onednn.h"
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

// Winograd's smallest work worth it: 32 input and output channels per thread, 384
// output positions in all (8 samples of 7x7: ResNet's last 3x3 layers at 224x224
// and batch 8, 0.55-0.85x the time of im2col forward and of both gradients at 1
// and 2 threads; 16 samples of 4x4 lose), and 512 per thread's chunk of the
// batch, below which the weight's transform, which every chunk repeats, outweighs
// the gain: then the threads split the channels (see partition()).
// Measured against im2col and the direct kernels: on a full-rate AVX-512 EPYC,
// 32 channels at 14x14 were at parity (bench/README.md); on a Zen 4, whose
// AVX-512 multiplies run at half rate, they win on every plane from 8x8 (a UNet
// decoder's 3x3 layers into 32 channels: 0.4-0.7x the time of the direct kernels
// forward and of im2col's weight gradient).
constexpr int64_t kMinChannels = 32;
constexpr int64_t kMinPositions = 384;
constexpr int64_t kMinChunkPositions = 512;
// A chunk of the channels is a multiple of oneDNN's 16-float vector (Winograd's
// kernel needs it).
constexpr int64_t kVector = 16;
// Plans kept before the cache starts over (a model has a few dozen convolution
// shapes).
constexpr size_t kMaxPlans = 256;

std::atomic<bool> any_kernel{false};

enum class Pass : int64_t { Forward, InputGrad, WeightGrad };

memory::data_type data_type(DType dtype) {
  return dtype == DType::BFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
}

// The geometry of one thread's chunk: mb samples, C input and O output channels
// in `groups` groups, of tensors whose channel dims hold c_total and o_total (a
// chunk of the channels reads and writes strided). H x W is what the
// convolution reads of input planes of plane_h x plane_w: less where a stride
// leaves the last rows or columns unread (oneDNN takes no negative padding).
struct Shape {
  ConvAlgorithm algorithm;
  DType dtype;
  int64_t mb, C, H, W, O, kH, kW, oH, oW, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
  int64_t c_total, o_total, plane_h, plane_w;

  memory::dims src() const { return {mb, C, H, W}; }
  memory::dims dst() const { return {mb, O, oH, oW}; }
  memory::dims weight() const {
    return groups == 1 ? memory::dims{O, C, kH, kW} : memory::dims{groups, O / groups, C / groups, kH, kW};
  }
  // Padding after the last row and column: what the output size leaves of the
  // input.
  memory::dims pad_r() const {
    return {(oH - 1) * sh + (kH - 1) * dh + 1 - H - ph, (oW - 1) * sw + (kW - 1) * dw + 1 - W - pw};
  }
  int64_t weight_numel() const { return O * (C / groups) * kH * kW; }
};

// One pass's primitive for one chunk shape, with the reorders between Ember's
// layouts (NCHW and OIHW, strided where a chunk has part of the channels) and
// the blocked ones the primitive works in. Operand 0 is the gradient of the
// output in the backward passes, the input forward; operand 1 the weight, or
// the input in the weight gradient; the result the pass's product (in the
// weight gradient always float32, summed over chunks and rounded once).
struct Plan {
  dnnl::primitive conv;
  int arg0, arg1, arg_out;  // DNNL_ARG_*
  memory::desc user0, user1, user_out, md0, md1, md_out, bias;
  std::optional<dnnl::reorder> to0, to1,
      from_out;  // none where the layouts agree
  memory::desc scratchpad;
};

// Sets the calling thread's OpenMP count to 1 for its lifetime: the chunks are
// the threads, and oneDNN (built on OpenMP in Debian) then starts none; see
// onednn_sgemm in gemm.cpp.
class SingleOmpThread {
 public:
  SingleOmpThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleOmpThread() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

memory::desc any(const memory::dims& dims, memory::data_type t) { return {dims, t, Tag::any}; }
// An activation [mb, ch, h, w] in a tensor of `total` channels of plane_h x
// plane_w: row-major strides over the whole.
memory::desc activation(const memory::dims& dims, memory::data_type t, int64_t total, int64_t plane_h,
                        int64_t plane_w) {
  return {dims, t, memory::dims{total * plane_h * plane_w, plane_h * plane_w, plane_w, 1}};
}
// The weight as Ember holds it, [O, C / groups, kH, kW]; a chunk of the input
// channels reads it strided.
memory::desc weight_layout(const Shape& s, memory::data_type t) {
  if (s.groups != 1) return {s.weight(), t, Tag::goihw};
  return {s.weight(), t, memory::dims{s.c_total * s.kH * s.kW, s.kH * s.kW, s.kW, 1}};
}

std::optional<dnnl::reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(onednn_engine(), from, onednn_engine(), to));
}

// Refuses oneDNN's reference kernels unless tests allow any.
template <typename PrimitiveDesc>
const PrimitiveDesc& optimised(const PrimitiveDesc& pd) {
  const std::string impl = pd.impl_info_str();
  if (!any_kernel.load(std::memory_order_relaxed) &&
      (impl.rfind("ref", 0) == 0 || impl.find(":ref") != std::string::npos))
    throw dnnl::error(dnnl_unimplemented, "only a reference kernel");
  return pd;
}

// Throws dnnl::error where oneDNN has no (optimised) kernel for the shape or
// the machine.
std::shared_ptr<const Plan> make_plan(Pass pass, const Shape& s) {
  const memory::data_type t = data_type(s.dtype), f32 = memory::data_type::f32;
  const memory::dims strides{s.sh, s.sw}, dilates{s.dh - 1, s.dw - 1}, pad_l{s.ph, s.pw}, pad_r = s.pad_r();
  const auto alg = s.algorithm == ConvAlgorithm::Winograd ? dnnl::algorithm::convolution_winograd
                                                          : dnnl::algorithm::convolution_direct;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // from Ember's allocator, per call:
                                                          // thread-safe
  using Fwd = dnnl::convolution_forward;
  const memory::desc bias = s.bias ? memory::desc({s.O}, t, Tag::x) : memory::desc();
  Fwd::primitive_desc fwd(Fwd::desc(dnnl::prop_kind::forward_training, alg, any(s.src(), t), any(s.weight(), t), bias,
                                    any(s.dst(), t), strides, dilates, pad_l, pad_r),
                          attr, onednn_engine());
  auto plan = std::make_shared<Plan>();
  const memory::desc x = activation(s.src(), t, s.c_total, s.plane_h, s.plane_w), w = weight_layout(s, t),
                     y = activation(s.dst(), t, s.o_total, s.oH, s.oW);
  switch (pass) {
    case Pass::Forward:
      optimised(fwd);
      *plan = {Fwd(fwd),
               DNNL_ARG_SRC,
               DNNL_ARG_WEIGHTS,
               DNNL_ARG_DST,
               x,
               w,
               y,
               fwd.src_desc(),
               fwd.weights_desc(),
               fwd.dst_desc(),
               bias,
               {},
               {},
               {},
               fwd.scratchpad_desc()};
      break;
    case Pass::InputGrad: {
      using Bwd = dnnl::convolution_backward_data;
      Bwd::primitive_desc pd(
          Bwd::desc(alg, any(s.src(), t), any(s.weight(), t), any(s.dst(), t), strides, dilates, pad_l, pad_r), attr,
          onednn_engine(), fwd);
      *plan = {Bwd(optimised(pd)),
               DNNL_ARG_DIFF_DST,
               DNNL_ARG_WEIGHTS,
               DNNL_ARG_DIFF_SRC,
               y,
               w,
               x,
               pd.diff_dst_desc(),
               pd.weights_desc(),
               pd.diff_src_desc(),
               {},
               {},
               {},
               {},
               pd.scratchpad_desc()};
      break;
    }
    case Pass::WeightGrad: {
      using Bwd = dnnl::convolution_backward_weights;
      Bwd::primitive_desc pd(
          Bwd::desc(alg, any(s.src(), t), any(s.weight(), f32), any(s.dst(), t), strides, dilates, pad_l, pad_r), attr,
          onednn_engine(), fwd);
      *plan = {Bwd(optimised(pd)),
               DNNL_ARG_DIFF_DST,
               DNNL_ARG_SRC,
               DNNL_ARG_DIFF_WEIGHTS,
               y,
               x,
               weight_layout(s, f32),
               pd.diff_dst_desc(),
               pd.src_desc(),
               pd.diff_weights_desc(),
               {},
               {},
               {},
               {},
               pd.scratchpad_desc()};
      break;
    }
  }
  plan->to0 = reorder_between(plan->user0, plan->md0);
  plan->to1 = reorder_between(plan->user1, plan->md1);
  plan->from_out = reorder_between(plan->md_out, plan->user_out);
  return plan;
}

// The plan of a pass and chunk shape, made once; null where oneDNN has no
// kernel for it.
std::shared_ptr<const Plan> plan_for(Pass pass, const Shape& s) {
  using Key = std::array<int64_t, 25>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Plan>> plans;
  const Key key{static_cast<int64_t>(pass),
                static_cast<int64_t>(s.algorithm),
                static_cast<int64_t>(s.dtype),
                s.mb,
                s.C,
                s.H,
                s.W,
                s.O,
                s.kH,
                s.kW,
                s.oH,
                s.oW,
                s.sh,
                s.sw,
                s.ph,
                s.pw,
                s.dh,
                s.dw,
                s.groups,
                s.bias,
                s.c_total,
                s.o_total,
                s.plane_h,
                s.plane_w,
                any_kernel.load(std::memory_order_relaxed)};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= kMaxPlans) plans.clear();
  std::shared_ptr<const Plan> plan;
  try {
    // NB: oneDNN sizes a primitive's thread partition when it creates it, and
    // runs that many OpenMP threads whatever the count at execution: one, as
    // every chunk runs on one thread.
    SingleOmpThread single;
    plan = make_plan(pass, s);
  } catch (const dnnl::error&) {
    // No kernel here (Winograd on an AVX2 machine, bfloat16 without its
    // instructions, a padding oneDNN does not take): im2col, every time.
  }
  return plans[key] = plan;
}

// Bytes of scratch memory (cpu/scratch.h).
Tensor scratch_bytes(size_t bytes) { return scratch<float>(static_cast<int64_t>(bytes / sizeof(float)) + 1); }

// Runs a plan on one chunk: operand 0 and the result in Ember's layouts,
// operand 1 too unless op1_blocked says it is already in the plan's (a weight
// reordered once for all chunks).
void execute(const Plan& plan, void* op0, void* op1, void* result, const void* bias, bool op1_blocked = false) {
  SingleOmpThread single;
  dnnl::stream stream(onednn_engine());
  std::vector<Tensor> buffers;
  auto operand = [&](const memory::desc& user, const memory::desc& md, const std::optional<dnnl::reorder>& to,
                     void* data) {
    memory given(user, onednn_engine(), data);
    if (!to) return given;
    buffers.push_back(scratch_bytes(md.get_size()));
    memory blocked(md, onednn_engine(), buffers.back().data_ptr());
    to->execute(stream, given, blocked);
    return blocked;
  };
  memory m0 = operand(plan.user0, plan.md0, plan.to0, op0);
  memory m1 = op1_blocked ? memory(plan.md1, onednn_engine(), op1) : operand(plan.user1, plan.md1, plan.to1, op1);
  memory user_out(plan.user_out, onednn_engine(), result);
  memory out = user_out;
  if (plan.from_out) {
    buffers.push_back(scratch_bytes(plan.md_out.get_size()));
    out = memory(plan.md_out, onednn_engine(), buffers.back().data_ptr());
  }
  std::unordered_map<int, memory> args{{plan.arg0, m0}, {plan.arg1, m1}, {plan.arg_out, out}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(plan.bias, onednn_engine(), const_cast<void*>(bias)));
  Tensor pad = scratch_bytes(plan.scratchpad.get_size());
  args.emplace(DNNL_ARG_SCRATCHPAD, memory(plan.scratchpad, onednn_engine(), pad.data_ptr()));
  plan.conv.execute(stream, args);
  if (plan.from_out) plan.from_out->execute(stream, out, user_out);
  stream.wait();
}

// The geometry of a convolution that suits the algorithm, or none.
std::optional<Shape> suited(ConvAlgorithm algorithm, IntArrayRef input, IntArrayRef weight, IntArrayRef output,
                            const Conv2dParams& p, DType dtype, bool bias) {
  Shape s{algorithm,    dtype,     input[0],  input[1],   input[2],   input[3],    weight[0],   weight[2],
          weight[3],    output[2], output[3], p.stride.h, p.stride.w, p.padding.h, p.padding.w, p.dilation.h,
          p.dilation.w, p.groups,  bias,      input[1],   weight[0],  input[2],    input[3]};
  const memory::dims pad_r = s.pad_r();
  s.H += std::min<int64_t>(pad_r[0], 0);
  s.W += std::min<int64_t>(pad_r[1], 0);
  if (s.H <= 0 || s.W <= 0) return std::nullopt;
  if (algorithm == ConvAlgorithm::Direct) {
    if (s.mb == 0 || s.C == 0 || s.O == 0 || s.oH * s.oW == 0) return std::nullopt;  // im2col's own cases
    if (!onednn_conv_native(dtype) && !(dtype == DType::BFloat16 && any_kernel.load(std::memory_order_relaxed)))
      return std::nullopt;
    return s;
  }
  // oneDNN 2.6's Winograd kernels are AVX-512 only (elsewhere conv_winograd.h has Ember's own).
  if (!conv_winograd() || !onednn_avx512() || dtype != DType::Float32 || s.groups != 1) return std::nullopt;
  if (s.kH != 3 || s.kW != 3 || s.sh != 1 || s.sw != 1 || s.dh != 1 || s.dw != 1) return std::nullopt;
  if (s.C < kMinChannels || s.O < kMinChannels || s.C % kVector || s.O % kVector) return std::nullopt;
  return s;
}

// How a pass is cut over threads: into chunks of the batch, or, where a chunk
// of the batch would be too small (Winograd: too few output positions; direct:
// fewer samples than threads), into chunks of the channels the pass produces
// (output channels; input channels for the input gradient), so that each thread
// transforms only its part of the weight. Chunk c of the batch is samples [N *
// c / chunks, N * (c + 1) / chunks).
struct Partition {
  bool by_channel;
  int64_t chunks;
};

std::optional<Partition> partition(Pass pass, const Shape& s) {
  const bool winograd = s.algorithm == ConvAlgorithm::Winograd;
  const int64_t positions = s.oH * s.oW;
  if (winograd && s.mb * positions < kMinPositions) return std::nullopt;
  const int64_t threads = available_threads();
  const int64_t batch_chunks = std::max<int64_t>(1, std::min<int64_t>(threads, s.mb));
  if (winograd ? batch_chunks == 1 || s.mb / batch_chunks * positions >= kMinChunkPositions
               : s.mb >= threads || s.groups != 1)
    return Partition{false, batch_chunks};
  const int64_t channels = pass == Pass::InputGrad ? s.C : s.O;
  const int64_t min_channels = winograd ? kMinChannels : kVector;
  for (int64_t k = threads; k >= 2; --k)
    if (channels % (k * kVector) == 0 && channels / k >= min_channels) return Partition{true, k};
  if (winograd) return std::nullopt;  // one thread would lose against im2col on all of them
  return Partition{false, batch_chunks};
}

// Chunk c of a partition: its shape, and where its operands and result start,
// in elements, from the tensors' starts (in the batch-cut weight gradient,
// chunk c > 0 writes a buffer of its own).
struct Chunk {
  Shape shape;
  int64_t op0, op1, out, bias;
};

Chunk chunk(Pass pass, const Shape& s, const Partition& part, int64_t c) {
  const int64_t in_plane = s.plane_h * s.plane_w, out_plane = s.oH * s.oW, kernel = s.kH * s.kW;
  Shape cs = s;
  if (!part.by_channel) {
    const int64_t lo = s.mb * c / part.chunks, hi = s.mb * (c + 1) / part.chunks;
    cs.mb = hi - lo;
    const int64_t x = lo * s.C * in_plane, y = lo * s.O * out_plane;
    switch (pass) {
      case Pass::Forward:
        return {cs, x, 0, y, 0};
      case Pass::InputGrad:
        return {cs, y, 0, x, 0};
      case Pass::WeightGrad:
        return {cs, y, x, 0, 0};
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

// The weight in the layout every chunk's plan takes, reordered once for all of
// them (an undefined tensor where it needs no reorder, the chunks take
// different parts of it or different layouts).
Tensor blocked_weight(const std::vector<std::shared_ptr<const Plan>>& plans, const Partition& part, void* weight) {
  const Plan& first = *plans.front();
  if (part.by_channel || !first.to1) return Tensor();
  for (const auto& plan : plans)
    if (!(plan->md1 == first.md1)) return Tensor();
  SingleOmpThread single;
  dnnl::stream stream(onednn_engine());
  Tensor blocked = scratch_bytes(first.md1.get_size());
  memory given(first.user1, onednn_engine(), weight), to(first.md1, onednn_engine(), blocked.data_ptr());
  first.to1->execute(stream, given, to);
  stream.wait();
  return blocked;
}

// Runs a pass: op0, op1 and out as Plan names them, bias forward only; false,
// having written nothing, where the algorithm does not suit.
bool run(Pass pass, const Shape& shape, void* op0, void* op1, void* out, const void* bias) {
  const auto part = partition(pass, shape);
  if (!part) return false;
  std::vector<Chunk> chunks;
  std::vector<std::shared_ptr<const Plan>> plans;
  for (int64_t c = 0; c < part->chunks; ++c) {
    chunks.push_back(chunk(pass, shape, *part, c));
    plans.push_back(plan_for(pass, chunks.back().shape));
    if (!plans.back()) return false;
  }
  const auto item = static_cast<int64_t>(itemsize(shape.dtype));
  auto at = [](void* base, int64_t bytes) { return static_cast<void*>(static_cast<char*>(base) + bytes); };
  // The rows and columns the convolution does not read get no gradient.
  if (pass == Pass::InputGrad && (shape.H < shape.plane_h || shape.W < shape.plane_w))
    std::memset(out, 0, static_cast<size_t>(shape.mb * shape.C * shape.plane_h * shape.plane_w * item));
  // The weight operand is op1 but in the weight gradient; reordered once where
  // every chunk takes it whole.
  const Tensor weight = pass == Pass::WeightGrad ? Tensor() : blocked_weight(plans, *part, op1);
  // The weight gradient is summed in float32: a 16-bit one is rounded from a
  // float32 buffer at the end. Cut by the batch, each chunk's goes to its own
  // buffer (the first to the sum), added in a fixed order afterwards, so
  // results do not depend on thread timing.
  const bool weight_grad = pass == Pass::WeightGrad, partial_sums = weight_grad && !part->by_channel;
  const int64_t size = shape.weight_numel();
  const Tensor wide = weight_grad && shape.dtype != DType::Float32 ? scratch<float>(size) : Tensor();
  float* sum = weight_grad ? (wide.defined() ? wide.data_ptr<float>() : static_cast<float*>(out)) : nullptr;
  std::vector<Tensor> partial;
  if (partial_sums)
    for (int64_t c = 1; c < part->chunks; ++c) partial.push_back(scratch<float>(size));
  auto one = [&](int64_t c) {
    const Chunk& k = chunks[static_cast<size_t>(c)];
    void* dst = weight_grad ? (partial_sums && c > 0 ? partial[static_cast<size_t>(c - 1)].data_ptr<float>()
                                                     : static_cast<void*>(sum + k.out))
                            : at(out, k.out * item);
    execute(*plans[static_cast<size_t>(c)], at(op0, k.op0 * item),
            weight.defined() ? weight.data_ptr() : at(op1, k.op1 * item), dst,
            bias ? at(const_cast<void*>(bias), k.bias * item) : nullptr, weight.defined());
  };
  if (part->chunks == 1)
    one(0);
  else
    parallel_for(0, part->chunks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) one(c);
    });
  for (const Tensor& buffer : partial) {
    const float* src = buffer.data_ptr<float>();
    for (int64_t i = 0; i < size; ++i) sum[i] += src[i];
  }
  if (wide.defined()) {
    auto* dst = static_cast<BFloat16*>(out);
    for (int64_t i = 0; i < size; ++i) dst[i] = BFloat16(sum[i]);
  }
  return true;
}

bool same_dtype(const Tensor& a, const Tensor& b, const Tensor& c) {
  return a.dtype() == b.dtype() && a.dtype() == c.dtype();
}

}  // namespace

bool onednn_conv_native(DType dtype) {
  if (dtype == DType::Float32) return true;
  if (dtype != DType::BFloat16) return false;
  return onednn_native_bf16();
}

void set_onednn_conv_any_kernel(bool allowed) { any_kernel.store(allowed, std::memory_order_relaxed); }

bool onednn_conv2d(ConvAlgorithm algorithm, const Tensor& out, const Tensor& input, const Tensor& weight,
                   const Tensor& bias, const Conv2dParams& p) {
  if (!same_dtype(out, input, weight) || (bias.defined() && bias.dtype() != input.dtype())) return false;
  auto shape = suited(algorithm, input.sizes(), weight.sizes(), out.sizes(), p, input.dtype(), bias.defined());
  if (shape && algorithm == ConvAlgorithm::Winograd && !winograd_product_in_range(input, weight, shape->C))
    return false;
  return shape && run(Pass::Forward, *shape, input.data_ptr(), weight.data_ptr(), out.data_ptr(),
                      bias.defined() ? bias.data_ptr() : nullptr);
}

bool onednn_conv2d_input_grad(ConvAlgorithm algorithm, const Tensor& grad_input, const Tensor& grad_out,
                              const Tensor& weight, const Conv2dParams& p) {
  if (!same_dtype(grad_input, grad_out, weight)) return false;
  auto shape = suited(algorithm, grad_input.sizes(), weight.sizes(), grad_out.sizes(), p, grad_out.dtype(), false);
  if (shape && algorithm == ConvAlgorithm::Winograd && !winograd_product_in_range(grad_out, weight, shape->O))
    return false;
  return shape && run(Pass::InputGrad, *shape, grad_out.data_ptr(), weight.data_ptr(), grad_input.data_ptr(), nullptr);
}

bool onednn_conv2d_weight_grad(ConvAlgorithm algorithm, const Tensor& grad_weight, const Tensor& grad_out,
                               const Tensor& input, const Conv2dParams& p) {
  if (!same_dtype(grad_weight, grad_out, input)) return false;
  auto shape = suited(algorithm, input.sizes(), grad_weight.sizes(), grad_out.sizes(), p, grad_out.dtype(), false);
  if (shape && algorithm == ConvAlgorithm::Winograd && !winograd_weight_grad_in_range(input, grad_out)) return false;
  return shape && run(Pass::WeightGrad, *shape, grad_out.data_ptr(), input.data_ptr(), grad_weight.data_ptr(), nullptr);
}

}  // namespace cpu
}  // namespace ember
