// The recurrent functions of the op table (ops/rnn.h): stacks of layers over a sequence
// (rnn_tanh, rnn_relu, lstm, gru) and single steps (the *_cell ops), all through
// detail::rnn_layer.
#include "ember/ops/rnn.h"

#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/matmul.h"

namespace ember {
namespace {

using detail::RnnLayerResult;

struct StackResult {
  Tensor output, h_n, c_n;
};

void check_same_dtype(const Tensor& input, const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_TYPE(t.dtype() == input.dtype(), op, ": input has dtype ", input.dtype(), " but ", what, " has dtype ",
                   t.dtype());
}

void check_hidden(const Tensor& h, IntArrayRef expected, const char* op, const char* what) {
  EMBER_CHECK_VALUE(h.defined() && h.sizes() == expected, op, ": expected ", what, " of shape ", expected, ", got ",
                    h.defined() ? h.sizes() : IntArrayRef());
}

// Layer after layer, each direction one rnn_layer on the input projection of the whole sequence;
// the directions' outputs are joined along the features, dropout (train only) between layers.
StackResult run_stack(RnnCell cell, const char* op, const Tensor& input, const Tensor& hx, const Tensor& cx,
                      const std::vector<Tensor>& params, bool has_biases, int64_t num_layers, double dropout, bool train,
                      bool bidirectional, bool batch_first, IntArrayRef batch_sizes = {}) {
  EMBER_CHECK_VALUE(num_layers >= 1, op, ": num_layers must be at least 1, got ", num_layers);
  EMBER_CHECK_VALUE(dropout >= 0 && dropout <= 1, op, ": dropout must be in [0, 1], got ", dropout);
  EMBER_CHECK_VALUE(input.dim() == 3, op, ": expected input of 3 dims ([seq_len, batch, input_size], or [batch, "
                    "seq_len, input_size] with batch_first), got ", input.sizes());
  EMBER_CHECK(input.size(batch_first ? 1 : 0) > 0, op, ": Expected sequence length to be larger than 0 in RNN");
  const int64_t D = bidirectional ? 2 : 1, per = has_biases ? 4 : 2;
  const auto expected = static_cast<size_t>(num_layers * D * per);
  EMBER_CHECK_VALUE(params.size() == expected, op, ": expected ", expected, " weights (", per,
                    " per layer and direction), got ", params.size());
  for (const Tensor& p : params) check_same_dtype(input, p, op, "a weight");
  const int64_t B = input.size(batch_first ? 0 : 1), H = params[1].dim() == 2 ? params[1].size(1) : -1;
  const DimVector state_shape{num_layers * D, B, H};
  check_hidden(hx, state_shape, op, cell == RnnCell::Lstm ? "h_0" : "hx");
  check_same_dtype(input, hx, op, "the hidden state");
  if (cell == RnnCell::Lstm) {
    check_hidden(cx, state_shape, op, "c_0");
    check_same_dtype(input, cx, op, "the cell state");
  }

  Tensor layer_input = input;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t dir = 0; dir < D; ++dir) {
      const int64_t index = layer * D + dir;
      const auto k = static_cast<size_t>(index * per);
      const Tensor& w_ih = params[k];
      const int64_t G = params[k + 1].dim() == 2 ? params[k + 1].size(0) : -1;
      EMBER_CHECK_VALUE(w_ih.dim() == 2 && w_ih.size(0) == G && w_ih.size(1) == layer_input.size(2), op,
                        ": weight_ih of layer ", layer, " has shape ", w_ih.sizes(), ", expected [", G, ", ",
                        layer_input.size(2), "] (gate rows as weight_hh's, columns as the layer's input size)");
      Tensor gates_x = matmul(layer_input, w_ih.t());
      RnnLayerResult r = detail::rnn_layer(cell, gates_x, select(hx, 0, index),
                                           cx.defined() ? select(cx, 0, index) : Tensor(), params[k + 1],
                                           has_biases ? params[k + 2] : Tensor(), has_biases ? params[k + 3] : Tensor(),
                                           dir == 1, batch_first, op, batch_sizes);
      outputs.push_back(r.output);
      h_n.push_back(r.h_n);
      if (r.c_n.defined()) c_n.push_back(r.c_n);
    }
    layer_input = D == 2 ? cat(outputs, 2) : outputs[0];
    if (dropout > 0 && train && layer + 1 < num_layers) layer_input = ember::dropout(layer_input, dropout, true);
  }
  return {layer_input, stack(h_n, 0), c_n.empty() ? Tensor() : stack(c_n, 0)};
}

// (output, h_n) of the cells with one state (all but the LSTM).
std::tuple<Tensor, Tensor> single_state(RnnCell cell, const char* op, const Tensor& input, const Tensor& hx,
                                        const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                                        double dropout, bool train, bool bidirectional, bool batch_first) {
  StackResult r = run_stack(cell, op, input, hx, Tensor(), params, has_biases, num_layers, dropout, train,
                            bidirectional, batch_first);
  return {r.output, r.h_n};
}

// A packed batch (data [N, features] of batch_sizes [T], longest sequence first) as the padded
// time-major batch [T, B, features] the layers run on, and back: both one index_select, so the
// gradients flow through.
struct Packing {
  DimVector batch_sizes;
  int64_t T = 0, B = 0;
  Tensor padded_rows;  // [T * B]: for each padded position, its packed row (N: the zero row)
  Tensor packed_rows;  // [N]: for each packed row, its padded position

  Packing(const Tensor& data, const Tensor& sizes, const char* op) {
    EMBER_CHECK_VALUE(data.dim() == 2, op, ": expected packed data of shape [N, input_size], got ", data.sizes());
    EMBER_CHECK_TYPE(sizes.dim() == 1 && sizes.dtype() == kInt64 && sizes.numel() > 0, op,
                     ": batch_sizes must be a non-empty 1-D int64 tensor, got ", sizes.dtype(), " ", sizes.sizes());
    std::vector<int64_t> values = sizes.to_vector<int64_t>();
    batch_sizes.assign(values.begin(), values.end());
    T = static_cast<int64_t>(values.size());
    B = values[0];
    int64_t total = 0;
    for (size_t t = 0; t < values.size(); ++t) {
      EMBER_CHECK_VALUE(values[t] >= 1 && (t == 0 || values[t] <= values[t - 1]), op,
                        ": batch_sizes must be positive and non-increasing (sequences longest first), got ", sizes);
      total += values[t];
    }
    EMBER_CHECK_VALUE(total == data.size(0), op, ": batch_sizes add up to ", total, " steps, but data has ",
                      data.size(0), " rows");
    std::vector<int64_t> padded(static_cast<size_t>(T * B), total), packed;
    packed.reserve(static_cast<size_t>(total));
    for (int64_t t = 0, row = 0; t < T; ++t)
      for (int64_t b = 0; b < values[static_cast<size_t>(t)]; ++b, ++row) {
        padded[static_cast<size_t>(t * B + b)] = row;
        packed.push_back(t * B + b);
      }
    padded_rows = tensor(padded, {T * B});
    packed_rows = tensor(packed, {total});
  }

  Tensor pad(const Tensor& data) const {
    Tensor with_zero = cat({data, zeros({1, data.size(1)}, data.options())}, 0);
    return index_select(with_zero, 0, padded_rows.to(data.device())).reshape({T, B, data.size(1)});
  }
  Tensor pack(const Tensor& padded) const {
    return index_select(padded.reshape({T * B, padded.size(2)}), 0, packed_rows.to(padded.device()));
  }
};

// The stack over a packed batch: run_stack on its padded form, the output packed again.
StackResult run_packed(RnnCell cell, const char* op, const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                       const Tensor& cx, const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                       double dropout, bool train, bool bidirectional) {
  Packing packing(data, batch_sizes, op);
  StackResult r = run_stack(cell, op, packing.pad(data), hx, cx, params, has_biases, num_layers, dropout, train,
                            bidirectional, false, packing.batch_sizes);
  r.output = packing.pack(r.output);
  return r;
}

// One step of a cell: the sequence of one step through rnn_layer.
RnnLayerResult run_cell(RnnCell cell, const char* op, const Tensor& input, const Tensor& hx, const Tensor& cx,
                        const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  // NB: PyTorch's messages and exception (RuntimeError) for the size checks.
  EMBER_CHECK_VALUE(input.dim() == 2, op, ": expected input of shape [batch, input_size], got ", input.sizes());
  EMBER_CHECK(w_ih.dim() == 2 && w_ih.size(1) == input.size(1), op, ": input has inconsistent input_size: got ",
              input.size(1), " expected ", w_ih.dim() == 2 ? w_ih.size(1) : -1);
  const int64_t H = w_hh.dim() == 2 ? w_hh.size(1) : -1;
  for (const Tensor* h : {&hx, &cx}) {
    if (!h->defined() && h == &cx) continue;
    const char* label = h == &hx ? "hidden0" : "hidden1";
    EMBER_CHECK_VALUE(h->dim() == 2, op, ": expected ", label, " of shape [batch, hidden_size], got ", h->sizes());
    EMBER_CHECK(h->size(0) == input.size(0), op, ": Input batch size ", input.size(0), " doesn't match ", label,
                " batch size ", h->size(0));
    EMBER_CHECK(h->size(1) == H, op, ": ", label, " has inconsistent hidden_size: got ", h->size(1), ", expected ", H);
  }
  check_same_dtype(input, w_ih, op, "weight_ih");
  Tensor gates_x = unsqueeze(matmul(input, w_ih.t()), 0);
  return detail::rnn_layer(cell, gates_x, hx, cx, w_hh, b_ih, b_hh, false, false, op);
}

}  // namespace

std::tuple<Tensor, Tensor> impl_rnn_tanh(const Tensor& input, const Tensor& hx, const std::vector<Tensor>& params,
                                         bool has_biases, int64_t num_layers, double dropout, bool train,
                                         bool bidirectional, bool batch_first) {
  if (autocast::applies("rnn_tanh", input))
    return autocast::run("rnn_tanh", {input, hx}, [&](const autocast::Cast& cast) {
      return rnn_tanh(cast(input), cast(hx), cast(params), has_biases, num_layers, dropout, train, bidirectional,
                  batch_first);
    });
  return single_state(RnnCell::Tanh, "rnn_tanh", input, hx, params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> impl_rnn_relu(const Tensor& input, const Tensor& hx, const std::vector<Tensor>& params,
                                         bool has_biases, int64_t num_layers, double dropout, bool train,
                                         bool bidirectional, bool batch_first) {
  if (autocast::applies("rnn_relu", input))
    return autocast::run("rnn_relu", {input, hx}, [&](const autocast::Cast& cast) {
      return rnn_relu(cast(input), cast(hx), cast(params), has_biases, num_layers, dropout, train, bidirectional,
                  batch_first);
    });
  return single_state(RnnCell::Relu, "rnn_relu", input, hx, params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first);
}

std::tuple<Tensor, Tensor, Tensor> impl_lstm(const Tensor& input, const std::vector<Tensor>& hx,
                                             const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                                             double dropout, bool train, bool bidirectional, bool batch_first) {
  if (autocast::applies("lstm", input))
    return autocast::run("lstm", {input}, [&](const autocast::Cast& cast) {
      return lstm(cast(input), cast(hx), cast(params), has_biases, num_layers, dropout, train, bidirectional,
                  batch_first);
    });
  EMBER_CHECK_VALUE(hx.size() == 2, "lstm: expected hx = [h_0, c_0], got ", hx.size(), " tensors");
  EMBER_CHECK_AS(NotImplementedError, hx[0].dim() != 3 || hx[1].dim() != 3 || hx[0].size(2) == hx[1].size(2),
                 "lstm: h_0 of shape ", hx[0].sizes(), " and c_0 of shape ", hx[1].sizes(),
                 " differ in size: projections (proj_size) are not supported");
  StackResult r = run_stack(RnnCell::Lstm, "lstm", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                            bidirectional, batch_first);
  return {r.output, r.h_n, r.c_n};
}

std::tuple<Tensor, Tensor> impl_gru(const Tensor& input, const Tensor& hx, const std::vector<Tensor>& params,
                                    bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
                                    bool batch_first) {
  if (autocast::applies("gru", input))
    return autocast::run("gru", {input, hx}, [&](const autocast::Cast& cast) {
      return gru(cast(input), cast(hx), cast(params), has_biases, num_layers, dropout, train, bidirectional,
                 batch_first);
    });
  return single_state(RnnCell::Gru, "gru", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                      batch_first);
}

std::tuple<Tensor, Tensor> impl_rnn_tanh(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                         const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                                         double dropout, bool train, bool bidirectional) {
  if (autocast::applies("rnn_tanh", data))
    return autocast::run("rnn_tanh", {data, hx}, [&](const autocast::Cast& cast) {
      return rnn_tanh(cast(data), batch_sizes, cast(hx), cast(params), has_biases, num_layers, dropout, train,
                  bidirectional);
    });
  StackResult r = run_packed(RnnCell::Tanh, "rnn_tanh", data, batch_sizes, hx, Tensor(), params, has_biases, num_layers,
                             dropout, train, bidirectional);
  return {r.output, r.h_n};
}

std::tuple<Tensor, Tensor> impl_rnn_relu(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                         const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                                         double dropout, bool train, bool bidirectional) {
  if (autocast::applies("rnn_relu", data))
    return autocast::run("rnn_relu", {data, hx}, [&](const autocast::Cast& cast) {
      return rnn_relu(cast(data), batch_sizes, cast(hx), cast(params), has_biases, num_layers, dropout, train,
                  bidirectional);
    });
  StackResult r = run_packed(RnnCell::Relu, "rnn_relu", data, batch_sizes, hx, Tensor(), params, has_biases, num_layers,
                             dropout, train, bidirectional);
  return {r.output, r.h_n};
}

std::tuple<Tensor, Tensor, Tensor> impl_lstm(const Tensor& data, const Tensor& batch_sizes,
                                             const std::vector<Tensor>& hx, const std::vector<Tensor>& params,
                                             bool has_biases, int64_t num_layers, double dropout, bool train,
                                             bool bidirectional) {
  if (autocast::applies("lstm", data))
    return autocast::run("lstm", {data}, [&](const autocast::Cast& cast) {
      return lstm(cast(data), batch_sizes, cast(hx), cast(params), has_biases, num_layers, dropout, train,
                  bidirectional);
    });
  EMBER_CHECK_VALUE(hx.size() == 2, "lstm: expected hx = [h_0, c_0], got ", hx.size(), " tensors");
  StackResult r = run_packed(RnnCell::Lstm, "lstm", data, batch_sizes, hx[0], hx[1], params, has_biases, num_layers,
                             dropout, train, bidirectional);
  return {r.output, r.h_n, r.c_n};
}

std::tuple<Tensor, Tensor> impl_gru(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                    const std::vector<Tensor>& params, bool has_biases, int64_t num_layers,
                                    double dropout, bool train, bool bidirectional) {
  if (autocast::applies("gru", data))
    return autocast::run("gru", {data, hx}, [&](const autocast::Cast& cast) {
      return gru(cast(data), batch_sizes, cast(hx), cast(params), has_biases, num_layers, dropout, train,
                 bidirectional);
    });
  StackResult r = run_packed(RnnCell::Gru, "gru", data, batch_sizes, hx, Tensor(), params, has_biases, num_layers,
                             dropout, train, bidirectional);
  return {r.output, r.h_n};
}

Tensor impl_rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                          const Tensor& b_ih, const Tensor& b_hh) {
  if (autocast::applies("rnn_tanh_cell", input))
    return autocast::run("rnn_tanh_cell", {input, hx, w_ih, w_hh, b_ih, b_hh}, [&](const autocast::Cast& cast) {
      return rnn_tanh_cell(cast(input), cast(hx), cast(w_ih), cast(w_hh), cast(b_ih), cast(b_hh));
    });
  return run_cell(RnnCell::Tanh, "rnn_tanh_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).h_n;
}

Tensor impl_rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                          const Tensor& b_ih, const Tensor& b_hh) {
  if (autocast::applies("rnn_relu_cell", input))
    return autocast::run("rnn_relu_cell", {input, hx, w_ih, w_hh, b_ih, b_hh}, [&](const autocast::Cast& cast) {
      return rnn_relu_cell(cast(input), cast(hx), cast(w_ih), cast(w_hh), cast(b_ih), cast(b_hh));
    });
  return run_cell(RnnCell::Relu, "rnn_relu_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).h_n;
}

std::tuple<Tensor, Tensor> impl_lstm_cell(const Tensor& input, const std::vector<Tensor>& hx, const Tensor& w_ih,
                                          const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const Tensor cell_state = hx.size() == 2 ? hx[1] : Tensor();
  if (autocast::applies("lstm_cell", input))
    return autocast::run("lstm_cell", {input, cell_state}, [&](const autocast::Cast& cast) {
      return lstm_cell(cast(input), cast(hx), cast(w_ih), cast(w_hh), cast(b_ih), cast(b_hh));
    });
  EMBER_CHECK_VALUE(hx.size() == 2, "lstm_cell: expected hx = [h, c], got ", hx.size(), " tensors");
  RnnLayerResult r = run_cell(RnnCell::Lstm, "lstm_cell", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh);
  return {r.h_n, r.c_n};
}

Tensor impl_gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  if (autocast::applies("gru_cell", input))
    return autocast::run("gru_cell", {input, hx, w_ih, w_hh, b_ih, b_hh}, [&](const autocast::Cast& cast) {
      return gru_cell(cast(input), cast(hx), cast(w_ih), cast(w_hh), cast(b_ih), cast(b_hh));
    });
  return run_cell(RnnCell::Gru, "gru_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).h_n;
}

}  // namespace ember
