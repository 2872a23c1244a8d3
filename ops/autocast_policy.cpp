// PyTorch's autocast lists (aten/src/ATen/autocast_mode.{h,cpp} of PyTorch 2.x) under Ember's op
// names, for the ops Ember has. The CPU and CUDA lists differ: on the CPU only the GEMM-shaped ops
// go to 16 bits and the losses and linear algebra to float32; CUDA adds the transcendental, norm and
// reduction ops to float32 and a wider promote list.
#include <string>
#include <unordered_map>

#include "ember/ops/autocast.h"

namespace ember::autocast {
namespace {

constexpr const char* kLowerBoth[] = {
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "addmm", "matmul", "mm", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm",
    "scaled_dot_product_attention"};
// NB: on the CPU, PyTorch's LSTM layers take the mkldnn_rnn_layer path, which is on the CPU's list;
// its GRU and RNN layers run their cells, whose inner linear is.
// NB: on the CPU, einsum and tensordot reach PyTorch's list through the bmm and mm they are made of.
constexpr const char* kLowerCpu[] = {"lstm", "rnn_tanh", "rnn_relu", "rnn_tanh_cell", "rnn_relu_cell",
                                     "multi_head_attention_forward", "einsum", "tensordot"};
// PyTorch's CPU GRU and LSTM/GRU cells: their gates' linear in 16 bits, the state's arithmetic in the
// state's dtype, so the result is the state's dtype promoted with the 16-bit one.
constexpr const char* kStateCpu[] = {"gru", "lstm_cell", "gru_cell"};
// Composites whose PyTorch kernel is one op off the CPU lists: no casts, in the inputs' dtypes.
constexpr const char* kKeepCpu[] = {"mv", "dot", "cross", "bilinear", "pad"};
// NB: PyTorch's CUDA RNN layers are cuDNN's, which its autocast casts whole (AutocastRNN.cpp).
constexpr const char* kLowerCuda[] = {
    "addmv", "addr", "einsum", "mv", "chain_matmul", "linalg_multi_dot", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell", "lstm", "gru", "rnn_tanh", "rnn_relu"};

constexpr const char* kFp32Both[] = {
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss",
    "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "poisson_nll_loss", "cdist", "prod"};
constexpr const char* kFp32Cpu[] = {
    "cross_entropy", "binary_cross_entropy", "ctc_loss", "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d",
    "adaptive_max_pool3d", "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "grid_sample", "polar", "quantile", "nanquantile", "stft", "trace", "view_as_complex",
    "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse",
    "geqrf", "qr", "svd", "triangular_solve", "linalg_cond", "linalg_matrix_rank", "linalg_solve",
    "linalg_cholesky", "linalg_cholesky_ex", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh",
    "linalg_inv", "linalg_inv_ex", "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve",
    "linalg_qr", "linalg_svd", "linalg_eig", "linalg_eigh", "linalg_lstsq",
    "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft",
    "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft"};
constexpr const char* kFp32Cuda[] = {
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
    "sinh", "tan", "pow", "softplus", "layer_norm", "rms_norm", "group_norm", "norm", "nuclear_norm",
    "cosine_similarity", "dist", "pdist", "renorm", "logsumexp", "upsample_nearest1d", "upsample_nearest2d",
    "upsample_nearest3d", "upsample_nearest_exact1d", "upsample_nearest_exact2d", "upsample_nearest_exact3d",
    "upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d", "upsample_bicubic2d", "softmax",
    "log_softmax", "cumprod", "cumsum", "linalg_vector_norm", "linalg_matrix_norm", "sum"};

constexpr const char* kPromoteCpu[] = {"stack", "cat", "index_copy"};
constexpr const char* kPromoteCuda[] = {
    "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sample", "index_put",
    "tensordot", "scatter_add"};

struct Policies {
  Policy cpu = Policy::none;
  Policy cuda = Policy::none;
};

const std::unordered_map<std::string, Policies>& table() {
  static const auto* t = [] {
    auto* m = new std::unordered_map<std::string, Policies>();
    auto add = [&](const auto& names, Policy p, bool cpu, bool cuda) {
      for (const char* n : names) {
        if (cpu) (*m)[n].cpu = p;
        if (cuda) (*m)[n].cuda = p;
      }
    };
    add(kLowerBoth, Policy::lower, true, true);
    add(kLowerCpu, Policy::lower, true, false);
    add(kLowerCuda, Policy::lower, false, true);
    add(kStateCpu, Policy::state, true, false);
    add(kKeepCpu, Policy::keep, true, false);
    add(kFp32Both, Policy::fp32, true, true);
    add(kFp32Cpu, Policy::fp32, true, false);
    add(kFp32Cuda, Policy::fp32, false, true);
    add(kPromoteCpu, Policy::promote, true, false);
    add(kPromoteCuda, Policy::promote, false, true);
    return m;
  }();
  return *t;
}

}  // namespace

Policy policy(std::string_view op, DeviceType type) {
  const auto& t = table();
  auto it = t.find(std::string(op));
  if (it == t.end()) return Policy::none;
  return type == DeviceType::CPU ? it->second.cpu : it->second.cuda;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : table()) names.push_back(name);
  return names;
}

}  // namespace ember::autocast
