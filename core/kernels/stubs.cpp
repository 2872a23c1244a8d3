// Defines every stub that core/kernels/*.h declares, in one place: each backend registers its
// kernels into them when the library loads (NB: constinit, so registration order is safe).
#include "ember/core/kernels/attention.h"
#include "ember/core/kernels/binary.h"
#include "ember/core/kernels/compare.h"
#include "ember/core/kernels/complex.h"
#include "ember/core/kernels/conv.h"
#include "ember/core/kernels/dropout.h"
#include "ember/core/kernels/fft.h"
#include "ember/core/kernels/index.h"
#include "ember/core/kernels/join.h"
#include "ember/core/kernels/linalg.h"
#include "ember/core/kernels/matmul.h"
#include "ember/core/kernels/normalization.h"
#include "ember/core/kernels/optim.h"
#include "ember/core/kernels/pool.h"
#include "ember/core/kernels/reduce.h"
#include "ember/core/kernels/rnn.h"
#include "ember/core/kernels/sampling.h"
#include "ember/core/kernels/scan.h"
#include "ember/core/kernels/softmax.h"
#include "ember/core/kernels/sort.h"
#include "ember/core/kernels/unary.h"

namespace ember {

EMBER_DEFINE_STUB(activation_backward_stub, ActivationBackwardFn);

EMBER_DEFINE_STUB(attention_forward_stub, AttentionForwardFn);
EMBER_DEFINE_STUB(attention_backward_stub, AttentionBackwardFn);

EMBER_DEFINE_STUB(binary_stub, BinaryFn);
EMBER_DEFINE_STUB(add_scaled_stub, AddScaledFn);

EMBER_DEFINE_STUB(compare_stub, CompareFn);
EMBER_DEFINE_STUB(where_stub, WhereFn);

EMBER_DEFINE_STUB(complex_binary_stub, ComplexBinaryFn);
EMBER_DEFINE_STUB(complex_unary_stub, ComplexUnaryFn);

EMBER_DEFINE_STUB(conv2d_stub, Conv2dFn);
EMBER_DEFINE_STUB(conv2d_input_grad_stub, Conv2dInputGradFn);
EMBER_DEFINE_STUB(conv2d_weight_grad_stub, Conv2dWeightGradFn);

EMBER_DEFINE_STUB(dropout_stub, DropoutFn);

EMBER_DEFINE_STUB(fft_stub, FftFn);

EMBER_DEFINE_STUB(index_select_stub, IndexSelectFn);
EMBER_DEFINE_STUB(gather_stub, GatherFn);
EMBER_DEFINE_STUB(scatter_add_stub, ScatterAddFn);
EMBER_DEFINE_STUB(index_add_stub, IndexAddFn);
EMBER_DEFINE_STUB(masked_fill_stub, MaskedFillFn);

EMBER_DEFINE_STUB(cat_stub, CatFn);

EMBER_DEFINE_STUB(svd_stub, SvdFn);
EMBER_DEFINE_STUB(eigh_stub, EighFn);
EMBER_DEFINE_STUB(qr_stub, QrFn);
EMBER_DEFINE_STUB(geqrf_stub, GeqrfFn);
EMBER_DEFINE_STUB(solve_triangular_stub, SolveTriangularFn);
EMBER_DEFINE_STUB(cholesky_stub, CholeskyFn);
EMBER_DEFINE_STUB(lu_factor_stub, LuFactorFn);
EMBER_DEFINE_STUB(lu_solve_stub, LuSolveFn);

EMBER_DEFINE_STUB(argsort_stub, ArgsortFn);
EMBER_DEFINE_STUB(cumsum_stub, CumsumFn);
EMBER_DEFINE_STUB(scan_stub, ScanFn);

EMBER_DEFINE_STUB(multinomial_stub, MultinomialFn);

EMBER_DEFINE_STUB(matmul_stub, MatmulFn);
EMBER_DEFINE_STUB(matmul_bias_stub, MatmulBiasFn);

EMBER_DEFINE_STUB(batch_norm_stats_stub, BatchNormStatsFn);
EMBER_DEFINE_STUB(batch_norm_grad_sums_stub, BatchNormGradSumsFn);
EMBER_DEFINE_STUB(channel_affine_stub, ChannelAffineFn);
EMBER_DEFINE_STUB(layer_norm_stub, LayerNormFn);
EMBER_DEFINE_STUB(layer_norm_backward_stub, LayerNormBackwardFn);

EMBER_DEFINE_STUB(sgd_step_stub, SgdStepFn);
EMBER_DEFINE_STUB(adam_step_stub, AdamStepFn);
EMBER_DEFINE_STUB(rmsprop_step_stub, RmspropStepFn);
EMBER_DEFINE_STUB(adagrad_step_stub, AdagradStepFn);
EMBER_DEFINE_STUB(unscale_stub, UnscaleFn);

EMBER_DEFINE_STUB(max_pool2d_stub, MaxPool2dFn);
EMBER_DEFINE_STUB(max_pool2d_backward_stub, MaxPool2dBackwardFn);
EMBER_DEFINE_STUB(avg_pool2d_stub, AvgPool2dFn);
EMBER_DEFINE_STUB(avg_pool2d_backward_stub, AvgPool2dBackwardFn);

EMBER_DEFINE_STUB(reduce_stub, ReduceFn);
EMBER_DEFINE_STUB(arg_reduce_stub, ArgReduceFn);

EMBER_DEFINE_STUB(rnn_cell_forward_stub, RnnCellForwardFn);
EMBER_DEFINE_STUB(rnn_cell_backward_stub, RnnCellBackwardFn);

EMBER_DEFINE_STUB(softmax_stub, SoftmaxFn);
EMBER_DEFINE_STUB(softmax_backward_stub, SoftmaxBackwardFn);
EMBER_DEFINE_STUB(log_softmax_nll_stub, LogSoftmaxNllFn);
EMBER_DEFINE_STUB(log_softmax_nll_backward_stub, LogSoftmaxNllBackwardFn);

EMBER_DEFINE_STUB(unary_stub, UnaryFn);

}  // namespace ember
