// CUDA kernels for conv2d forward and both gradients through cuDNN (its descriptor API: deprecated
// in cuDNN 9 in favour of the graph API, still shipped and complete for 2-D convolution). The
// algorithm of each direction is chosen once per shape, device and dtype (cuDNN's heuristics in
// their order, the first whose workspace can be had) and cached. float32 runs in full precision
// (FMA math, no TF32 tensor-core rounding), as on the CPU. cuDNN pads both sides alike: a
// convolution with a Conv2dParams::extra_padding (padding="same" with an even total, a transposed
// convolution's output_padding) runs on an explicitly padded copy of its input (below). float16
// and bfloat16 run on tensor cores with float32 accumulation where the device has them
// (cuda/shared/tensor_math.h), else on float32 copies rounded once (core/kernels/widen.h).
#include <cudnn.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "ember/core/copy.h"
#include "ember/core/kernels/conv.h"
#include "ember/core/strided.h"
#include "ember/cuda/check.h"
#include "ember/cuda/handles.h"
#include "ember/cuda/native_or_widened.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

enum class Direction : int { Forward, InputGrad, WeightGrad };

// Everything an algorithm choice depends on.
struct ConvKey {
  int device, dtype, direction;
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool operator==(const ConvKey&) const = default;
};
struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t v : {int64_t{k.device}, int64_t{k.dtype}, int64_t{k.direction}, k.n, k.c, k.h, k.w, k.o, k.kh, k.kw,
                      k.sh, k.sw, k.ph, k.pw, k.dh, k.dw, k.groups})
      h = (h ^ static_cast<size_t>(v)) * 1099511628211ull;
    return h;
  }
};
struct ConvAlgo {
  int algo;
  size_t workspace;
};

std::mutex& cache_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::unordered_map<ConvKey, ConvAlgo, ConvKeyHash>& cache() {
  static auto* c = new std::unordered_map<ConvKey, ConvAlgo, ConvKeyHash>;  // never destroyed
  return *c;
}

cudnnDataType_t data_type(DType t) {
  switch (t) {
    case DType::Float16: return CUDNN_DATA_HALF;
    case DType::BFloat16: return CUDNN_DATA_BFLOAT16;
    case DType::Float64: return CUDNN_DATA_DOUBLE;
    default: return CUDNN_DATA_FLOAT;
  }
}

int narrow(int64_t v, const char* what) {
  EMBER_CHECK_AS(NotImplementedError, v < (int64_t{1} << 31), "conv2d: ", what, " ", v,
                 " is past cuDNN's 32-bit sizes");
  return static_cast<int>(v);
}

// The descriptors of one convolution: input x [N, C, H, W], weight [O, C/g, kH, kW], output y.
class Descriptors {
 public:
  Descriptors(const Tensor& x, const Tensor& weight, const Tensor& y, const Conv2dParams& p) {
    EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_));
    EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_));
    EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_));
    EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_));
    const bool f32 = x.dtype() == kFloat32, low = is_16bit_float(x.dtype());
    const cudnnDataType_t t = data_type(x.dtype());
    EMBER_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_, CUDNN_TENSOR_NCHW, t, narrow(x.size(0), "batch"),
                                                 narrow(x.size(1), "channels"), narrow(x.size(2), "height"),
                                                 narrow(x.size(3), "width")));
    EMBER_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_, CUDNN_TENSOR_NCHW, t, narrow(y.size(0), "batch"),
                                                 narrow(y.size(1), "channels"), narrow(y.size(2), "height"),
                                                 narrow(y.size(3), "width")));
    EMBER_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_, t, CUDNN_TENSOR_NCHW, narrow(weight.size(0), "channels"),
                                                 narrow(weight.size(1), "channels"), narrow(weight.size(2), "kernel"),
                                                 narrow(weight.size(3), "kernel")));
    EMBER_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        conv_, narrow(p.padding.h, "padding"), narrow(p.padding.w, "padding"), narrow(p.stride.h, "stride"),
        narrow(p.stride.w, "stride"), narrow(p.dilation.h, "dilation"), narrow(p.dilation.w, "dilation"),
        CUDNN_CROSS_CORRELATION, low ? CUDNN_DATA_FLOAT : t));  // 16-bit data accumulates in float32
    EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv_, narrow(p.groups, "groups")));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(conv_, f32   ? CUDNN_FMA_MATH
                                                         : low ? CUDNN_TENSOR_OP_MATH
                                                               : CUDNN_DEFAULT_MATH));
  }
  ~Descriptors() {
    cudnnDestroyConvolutionDescriptor(conv_);
    cudnnDestroyFilterDescriptor(w_);
    cudnnDestroyTensorDescriptor(y_);
    cudnnDestroyTensorDescriptor(x_);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
};

ConvKey key_of(const Tensor& x, const Tensor& weight, const Conv2dParams& p, Direction d) {
  return {x.device().index, static_cast<int>(x.dtype()), static_cast<int>(d), x.size(0), x.size(1), x.size(2), x.size(3),
          weight.size(0), weight.size(2), weight.size(3), p.stride.h, p.stride.w, p.padding.h, p.padding.w,
          p.dilation.h, p.dilation.w, p.groups};
}

// cuDNN's candidates for a direction (heuristics, best first).
template <typename Perf, typename Query>
std::vector<ConvAlgo> candidates(const Query& query, bool f32) {
  Perf perf[16];
  int count = 0;
  EMBER_CUDNN_CHECK(query(16, &count, perf));
  std::vector<ConvAlgo> out;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    // NB: float32 stays exact: no algorithm that rounds its inputs to TF32 or half.
    if (f32 && (perf[i].mathType == CUDNN_TENSOR_OP_MATH || perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
      continue;
    out.push_back({static_cast<int>(perf[i].algo), perf[i].memory});
  }
  EMBER_CHECK(!out.empty(), "conv2d: cuDNN offers no algorithm for this shape");
  return out;
}

// Runs `run(algo, workspace, bytes)` with the cached algorithm of `key`, or picks one: the first
// candidate whose workspace can be allocated and that runs.
template <typename Run>
void with_algorithm(const ConvKey& key, Device device, const std::vector<ConvAlgo>& (*choices)(const void*),
                    const void* context, const Run& run) {
  std::optional<ConvAlgo> known;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(key);
    if (it != cache().end()) known = it->second;
  }
  auto attempt = [&](const ConvAlgo& a) {
    Tensor ws = a.workspace > 0 ? empty({static_cast<int64_t>(a.workspace)}, TensorOptions(kUInt8).device(device)) : Tensor();
    run(a.algo, ws.defined() ? ws.data_ptr() : nullptr, a.workspace);
  };
  if (known) return attempt(*known);
  const std::vector<ConvAlgo>& options = choices(context);
  for (size_t i = 0; i < options.size(); ++i) {
    try {
      attempt(options[i]);
    } catch (const Error&) {
      if (i + 1 == options.size()) throw;
      continue;  // out of memory for its workspace, or not supported: the next one
    }
    std::lock_guard<std::mutex> lock(cache_mutex());
    cache()[key] = options[i];
    return;
  }
}

// The scaling factors cuDNN takes: double for double data, float for float32 and the 16-bit floats.
struct Scale {
  explicit Scale(DType t) : f32(t != kFloat64) {}
  const void* one() const { return f32 ? static_cast<const void*>(&f1) : &d1; }
  const void* zero() const { return f32 ? static_cast<const void*>(&f0) : &d0; }
  bool f32;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
};

struct Context {
  cudnnHandle_t h;
  const Descriptors* d;
  bool f32;
  mutable std::vector<ConvAlgo> found;
};

// out [N, O, oH, oW] += bias [O] per channel.
void add_bias(cudnnHandle_t h, const Scale& s, cudnnTensorDescriptor_t y, const Tensor& out, const Tensor& bias) {
  cudnnTensorDescriptor_t b = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&b));
  const cudnnStatus_t set = cudnnSetTensor4dDescriptor(b, CUDNN_TENSOR_NCHW, data_type(bias.dtype()), 1,
                                                       narrow(bias.numel(), "channels"), 1, 1);
  const cudnnStatus_t add =
      set == CUDNN_STATUS_SUCCESS ? cudnnAddTensor(h, s.one(), b, bias.data_ptr(), s.one(), y, out.data_ptr()) : set;
  cudnnDestroyTensorDescriptor(b);
  EMBER_CUDNN_CHECK(add);
}

void cuda_conv2d_symmetric(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  check_floating_compute(input.dtype(), "conv2d");
  if (out.numel() == 0) return;
  On on(out);
  const Scale s(input.dtype());
  if (input.numel() == 0 || weight.numel() == 0) {  // an empty sum: the bias alone
    fill_data(out, 0);
    if (!bias.defined()) return;
    cudnnTensorDescriptor_t y = nullptr;
    EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    const cudnnStatus_t set = cudnnSetTensor4dDescriptor(
        y, CUDNN_TENSOR_NCHW, data_type(out.dtype()), narrow(out.size(0), "batch"),
        narrow(out.size(1), "channels"), narrow(out.size(2), "height"), narrow(out.size(3), "width"));
    if (set == CUDNN_STATUS_SUCCESS) {
      try {
        add_bias(cudnn_handle(on.index), s, y, out, bias);
      } catch (...) {
        cudnnDestroyTensorDescriptor(y);
        throw;
      }
    }
    cudnnDestroyTensorDescriptor(y);
    EMBER_CUDNN_CHECK(set);
    return;
  }
  const Descriptors d(input, weight, out, p);
  const Context ctx{cudnn_handle(on.index), &d, input.dtype() == kFloat32, {}};
  with_algorithm(
      key_of(input, weight, p, Direction::Forward), out.device(),
      [](const void* c) -> const std::vector<ConvAlgo>& {
        const auto* x = static_cast<const Context*>(c);
        x->found = candidates<cudnnConvolutionFwdAlgoPerf_t>(
            [&](int n, int* count, cudnnConvolutionFwdAlgoPerf_t* perf) {
              return cudnnGetConvolutionForwardAlgorithm_v7(x->h, x->d->x_, x->d->w_, x->d->conv_, x->d->y_, n, count, perf);
            },
            x->f32);
        return x->found;
      },
      &ctx,
      [&](int algo, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnnConvolutionForward(ctx.h, s.one(), d.x_, input.data_ptr(), d.w_, weight.data_ptr(), d.conv_,
                                                  static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, bytes, s.zero(), d.y_,
                                                  out.data_ptr()));
      });
  if (bias.defined()) add_bias(ctx.h, s, d.y_, out, bias);
}

void cuda_conv2d_input_grad_symmetric(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight, const Conv2dParams& p) {
  check_floating_compute(grad_out.dtype(), "conv2d");
  if (grad_input.numel() == 0) return;
  if (grad_out.numel() == 0 || weight.numel() == 0) return fill_data(grad_input, 0);
  On on(grad_input);
  const Descriptors d(grad_input, weight, grad_out, p);
  const Context ctx{cudnn_handle(on.index), &d, grad_out.dtype() == kFloat32, {}};
  const Scale s(grad_out.dtype());
  with_algorithm(
      key_of(grad_input, weight, p, Direction::InputGrad), grad_input.device(),
      [](const void* c) -> const std::vector<ConvAlgo>& {
        const auto* x = static_cast<const Context*>(c);
        x->found = candidates<cudnnConvolutionBwdDataAlgoPerf_t>(
            [&](int n, int* count, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
              return cudnnGetConvolutionBackwardDataAlgorithm_v7(x->h, x->d->w_, x->d->y_, x->d->conv_, x->d->x_, n, count,
                                                                 perf);
            },
            x->f32);
        return x->found;
      },
      &ctx,
      [&](int algo, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnnConvolutionBackwardData(ctx.h, s.one(), d.w_, weight.data_ptr(), d.y_, grad_out.data_ptr(),
                                                       d.conv_, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws,
                                                       bytes, s.zero(), d.x_, grad_input.data_ptr()));
      });
}

void cuda_conv2d_weight_grad_symmetric(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                             const Conv2dParams& p) {
  check_floating_compute(grad_out.dtype(), "conv2d");
  if (grad_weight.numel() == 0) return;
  if (grad_out.numel() == 0 || input.numel() == 0) return fill_data(grad_weight, 0);
  On on(grad_weight);
  const Descriptors d(input, grad_weight, grad_out, p);
  const Context ctx{cudnn_handle(on.index), &d, grad_out.dtype() == kFloat32, {}};
  const Scale s(grad_out.dtype());
  with_algorithm(
      key_of(input, grad_weight, p, Direction::WeightGrad), grad_weight.device(),
      [](const void* c) -> const std::vector<ConvAlgo>& {
        const auto* x = static_cast<const Context*>(c);
        x->found = candidates<cudnnConvolutionBwdFilterAlgoPerf_t>(
            [&](int n, int* count, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
              return cudnnGetConvolutionBackwardFilterAlgorithm_v7(x->h, x->d->x_, x->d->y_, x->d->conv_, x->d->w_, n,
                                                                   count, perf);
            },
            x->f32);
        return x->found;
      },
      &ctx,
      [&](int algo, void* ws, size_t bytes) {
        EMBER_CUDNN_CHECK(cudnnConvolutionBackwardFilter(ctx.h, s.one(), d.x_, input.data_ptr(), d.y_, grad_out.data_ptr(),
                                                         d.conv_, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws,
                                                         bytes, s.zero(), d.w_, grad_weight.data_ptr()));
      });
}

// ---- extra_padding. cuDNN pads both sides alike, so a convolution with a one-sided part runs on
// an explicitly padded copy of its input, with no padding of cuDNN's own: the rows and columns
// that the output reads, [N, C, (oH - 1) * sH + dH * (kH - 1) + 1, ...], input row r at row
// r + padding.h. NB: not the input cut to H + extra_padding rows: with a negative extra (a
// transposed convolution's output_padding) the output still reads real rows past that edge.

bool has_extra(const Conv2dParams& p) { return p.extra_padding != Size2(0, 0); }

Conv2dParams without_padding(const Conv2dParams& p) {
  Conv2dParams q = p;
  q.padding = Size2(0, 0);
  q.extra_padding = Size2(0, 0);
  return q;
}

// The padded input that output y [N, O, oH, oW] of `weight` reads, empty.
Tensor padded_like(const Tensor& x, const Tensor& weight, const Tensor& y, const Conv2dParams& p) {
  const int64_t h = (y.size(2) - 1) * p.stride.h + p.dilation.h * (weight.size(2) - 1) + 1;
  const int64_t w = (y.size(3) - 1) * p.stride.w + p.dilation.w * (weight.size(3) - 1) + 1;
  return empty({x.size(0), x.size(1), h, w}, TensorOptions(x.dtype()).device(x.device()));
}

// The h x w window of every plane of t at row r, column c (a view).
Tensor window(const Tensor& t, int64_t r, int64_t c, int64_t h, int64_t w) {
  return as_strided_data(t, {t.size(0), t.size(1), h, w}, t.strides(), t.storage_offset() + r * t.stride(2) + c * t.stride(3));
}

// Writes `from` into `to` with from's row 0, column 0 at to's (r, c), as far as they overlap;
// the rest of `to` becomes zero.
void copy_shifted(const Tensor& to, const Tensor& from, int64_t r, int64_t c) {
  const int64_t r0 = std::max<int64_t>(r, 0), r1 = std::min(to.size(2), r + from.size(2));
  const int64_t c0 = std::max<int64_t>(c, 0), c1 = std::min(to.size(3), c + from.size(3));
  if (r0 != 0 || c0 != 0 || r1 != to.size(2) || c1 != to.size(3)) fill_data(to, 0);
  if (to.numel() > 0 && r1 > r0 && c1 > c0)
    copy_data(window(to, r0, c0, r1 - r0, c1 - c0), window(from, r0 - r, c0 - c, r1 - r0, c1 - c0));
}

void cuda_conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  if (!has_extra(p) || out.numel() == 0) return cuda_conv2d_symmetric(out, input, weight, bias, p);
  const Tensor x = padded_like(input, weight, out, p);
  copy_shifted(x, input, p.padding.h, p.padding.w);
  cuda_conv2d_symmetric(out, x, weight, bias, without_padding(p));
}

void cuda_conv2d_input_grad(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight, const Conv2dParams& p) {
  if (!has_extra(p) || grad_out.numel() == 0) return cuda_conv2d_input_grad_symmetric(grad_input, grad_out, weight, p);
  const Tensor g = padded_like(grad_input, weight, grad_out, p);
  cuda_conv2d_input_grad_symmetric(g, grad_out, weight, without_padding(p));
  copy_shifted(grad_input, g, -p.padding.h, -p.padding.w);  // rows no output reads get zero
}

void cuda_conv2d_weight_grad(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                             const Conv2dParams& p) {
  if (!has_extra(p) || grad_out.numel() == 0) return cuda_conv2d_weight_grad_symmetric(grad_weight, grad_out, input, p);
  const Tensor x = padded_like(input, grad_weight, grad_out, p);
  copy_shifted(x, input, p.padding.h, p.padding.w);
  cuda_conv2d_weight_grad_symmetric(grad_weight, grad_out, x, without_padding(p));
}

}  // namespace

EMBER_REGISTER_KERNEL(conv2d_stub, DeviceType::CUDA, (native_or_widened<&cuda_conv2d>));
EMBER_REGISTER_KERNEL(conv2d_input_grad_stub, DeviceType::CUDA, (native_or_widened<&cuda_conv2d_input_grad>));
EMBER_REGISTER_KERNEL(conv2d_weight_grad_stub, DeviceType::CUDA, (native_or_widened<&cuda_conv2d_weight_grad>));

}  // namespace ember::cuda
