#include "ember/nn/rnn_cell.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/ops.h"

namespace ember::nn {

RNNCellBase::RNNCellBase(std::string type_name, RnnCell cell, RNNCellOptions options)
    : Module(type_name), cell_(cell), options_(std::move(options)) {
  const RNNCellOptions& o = options_;
  EMBER_CHECK_VALUE(o.input_size >= 0, type_name, ": input_size must be zero or more, got ", o.input_size);
  EMBER_CHECK_VALUE(o.hidden_size > 0, type_name, ": hidden_size must be greater than zero, got ", o.hidden_size);
  const bool is_rnn = cell == RnnCell::Tanh || cell == RnnCell::Relu;
  EMBER_CHECK_VALUE(is_rnn ? (o.nonlinearity == "tanh" || o.nonlinearity == "relu") : o.nonlinearity == "tanh",
                    type_name, is_rnn ? ": unknown nonlinearity: " : ": nonlinearity is an option of RNNCell only: ",
                    o.nonlinearity);
  const int64_t G = rnn_gates(cell) * o.hidden_size;
  register_parameter("weight_ih", empty({G, o.input_size}));
  register_parameter("weight_hh", empty({G, o.hidden_size}));
  if (o.bias) {
    register_parameter("bias_ih", empty({G}));
    register_parameter("bias_hh", empty({G}));
  }
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_.hidden_size));
  for (const Tensor& p : parameters(/*recurse=*/false)) init::uniform_(p, -stdv, stdv);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = detail::str(options_.input_size, ", ", options_.hidden_size);
  if (!options_.bias) s += ", bias=False";
  if (cell_ == RnnCell::Relu) s += ", nonlinearity=relu";
  return s;
}

Tensor RNNCellBase::forward(const Tensor& input) { return run(input, Tensor(), Tensor()).h; }

RNNCellBase::Result RNNCellBase::run(const Tensor& input, const Tensor& hx_in, const Tensor& cx_in) {
  const std::string& type = type_name();
  const bool lstm = cell_ == RnnCell::Lstm;
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, type, ": Expected input to be 1D or 2D, got ", input.dim(),
                    "D instead");
  for (const Tensor* h : {&hx_in, &cx_in}) {
    if (!h->defined()) continue;
    EMBER_CHECK_VALUE(h->dim() == 1 || h->dim() == 2, type, ": Expected ",
                      !lstm ? "hidden" : h == &hx_in ? "hx[0]" : "hx[1]", " to be 1D or 2D, got ", h->dim(),
                      "D instead");
  }
  EMBER_CHECK_VALUE(!lstm || hx_in.defined() == cx_in.defined(), type, ": give both h and c, or neither");
  const bool batched = input.dim() == 2;
  Tensor x = batched ? input : unsqueeze(input, 0);
  auto state = [&](const Tensor& h) {
    if (!h.defined()) return zeros({x.size(0), options_.hidden_size}, TensorOptions(x.dtype()).device(x.device()));
    return batched ? h : unsqueeze(h, 0);
  };
  Tensor hx = state(hx_in), cx = lstm ? state(cx_in) : Tensor();
  const Tensor& w_ih = parameter("weight_ih");
  const Tensor& w_hh = parameter("weight_hh");
  Tensor b_ih = options_.bias ? parameter("bias_ih") : Tensor(), b_hh = options_.bias ? parameter("bias_hh") : Tensor();
  Result r;
  switch (cell_) {
    case RnnCell::Tanh: r.h = rnn_tanh_cell(x, hx, w_ih, w_hh, b_ih, b_hh); break;
    case RnnCell::Relu: r.h = rnn_relu_cell(x, hx, w_ih, w_hh, b_ih, b_hh); break;
    case RnnCell::Lstm: std::tie(r.h, r.c) = lstm_cell(x, {hx, cx}, w_ih, w_hh, b_ih, b_hh); break;
    case RnnCell::Gru: r.h = gru_cell(x, hx, w_ih, w_hh, b_ih, b_hh); break;
  }
  if (!batched) {
    r.h = squeeze(r.h, 0);
    if (r.c.defined()) r.c = squeeze(r.c, 0);
  }
  return r;
}

RNNCell::RNNCell(RNNCellOptions options)
    : RNNCellBase("RNNCell", options.nonlinearity == "relu" ? RnnCell::Relu : RnnCell::Tanh, options) {}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) { return run(input, hx, Tensor()).h; }

LSTMCell::LSTMCell(RNNCellOptions options) : RNNCellBase("LSTMCell", RnnCell::Lstm, std::move(options)) {}

std::pair<Tensor, Tensor> LSTMCell::forward(const Tensor& input, const Tensor& h, const Tensor& c) {
  Result r = run(input, h, c);
  return {r.h, r.c};
}

GRUCell::GRUCell(RNNCellOptions options) : RNNCellBase("GRUCell", RnnCell::Gru, std::move(options)) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) { return run(input, hx, Tensor()).h; }

}  // namespace ember::nn
