#include "ember/nn/rnn.h"

#include <cmath>
#include <sstream>

#include "ember/core/factory.h"
#include "ember/core/warning.h"
#include "ember/nn/init.h"
#include "ember/ops/ops.h"

namespace ember::nn {
namespace {

// PyTorch's spelling of shapes in the RNN messages: expected (2, 3, 20), got [1, 3, 20].
std::string shape_str(IntArrayRef shape, const char* open, const char* close) {
  std::ostringstream os;
  os << open;
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << close;
  return os.str();
}

void check_options(const std::string& type, RnnCell cell, const RNNOptions& o) {
  EMBER_CHECK_VALUE(o.input_size >= 0, type, ": input_size must be zero or more, got ", o.input_size);
  EMBER_CHECK_VALUE(o.hidden_size > 0, type, ": hidden_size must be greater than zero, got ", o.hidden_size);
  EMBER_CHECK_VALUE(o.num_layers > 0, type, ": num_layers must be greater than zero, got ", o.num_layers);
  EMBER_CHECK_VALUE(o.dropout >= 0 && o.dropout <= 1, type,
                    ": dropout should be a number in range [0, 1] representing the probability of an element "
                    "being zeroed, got ", o.dropout);
  const bool is_rnn = cell == RnnCell::Tanh || cell == RnnCell::Relu;
  EMBER_CHECK_VALUE(is_rnn ? (o.nonlinearity == "tanh" || o.nonlinearity == "relu") : o.nonlinearity == "tanh", type,
                    is_rnn ? ": unknown nonlinearity '" : ": nonlinearity '", o.nonlinearity,
                    is_rnn ? "'. Select from 'tanh' or 'relu'." : "' is an option of RNN only");
  EMBER_CHECK_VALUE(o.proj_size >= 0, type, ": proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK_VALUE(cell == RnnCell::Lstm || o.proj_size == 0, type,
                    ": proj_size argument is only supported for LSTM, not RNN or GRU");
  EMBER_CHECK_VALUE(o.proj_size < o.hidden_size, type, ": proj_size has to be smaller than hidden_size");
  EMBER_CHECK_AS(NotImplementedError, o.proj_size == 0, type, ": proj_size = ", o.proj_size,
                 " (LSTM projections) is not supported");
  if (o.dropout > 0 && o.num_layers == 1)
    warn(detail::str("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                     "num_layers greater than 1, but got dropout=", o.dropout, " and num_layers=", o.num_layers));
}

}  // namespace

RNNBase::RNNBase(std::string type_name, RnnCell cell, RNNOptions options)
    : Module(type_name), cell_(cell), options_(std::move(options)) {
  check_options(type_name, cell, options_);
  const int64_t directions = options_.bidirectional ? 2 : 1, H = options_.hidden_size;
  const int64_t G = rnn_gates(cell) * H;
  for (int64_t layer = 0; layer < options_.num_layers; ++layer) {
    const int64_t in = layer == 0 ? options_.input_size : H * directions;
    for (int64_t dir = 0; dir < directions; ++dir) {
      const std::string suffix = "_l" + std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, DimVector>> entries = {{"weight_ih" + suffix, {G, in}},
                                                               {"weight_hh" + suffix, {G, H}}};
      if (options_.bias) {
        entries.push_back({"bias_ih" + suffix, {G}});
        entries.push_back({"bias_hh" + suffix, {G}});
      }
      for (const auto& [name, shape] : entries) {
        register_parameter(name, empty(shape));
        flat_names_.push_back(name);
      }
    }
  }
  reset_parameters();
}

std::string RNNBase::mode() const {
  switch (cell_) {
    case RnnCell::Tanh: return "RNN_TANH";
    case RnnCell::Relu: return "RNN_RELU";
    case RnnCell::Lstm: return "LSTM";
    case RnnCell::Gru: return "GRU";
  }
  return "";
}

void RNNBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_.hidden_size));
  for (const Tensor& p : parameters(/*recurse=*/false)) init::uniform_(p, -stdv, stdv);
}

std::vector<Tensor> RNNBase::flat_weights() const {
  std::vector<Tensor> out;
  out.reserve(flat_names_.size());
  for (const std::string& name : flat_names_) out.push_back(parameter(name));
  return out;
}

std::string RNNBase::extra_repr() const {
  const RNNOptions& o = options_;
  std::string s = detail::str(o.input_size, ", ", o.hidden_size);
  if (o.proj_size != 0) s += detail::str(", proj_size=", o.proj_size);
  if (o.num_layers != 1) s += detail::str(", num_layers=", o.num_layers);
  if (!o.bias) s += ", bias=False";
  if (o.batch_first) s += ", batch_first=True";
  if (o.dropout != 0) s += detail::str(", dropout=", o.dropout);
  if (o.bidirectional) s += ", bidirectional=True";
  return s;
}

Tensor RNNBase::forward(const Tensor& input) { return run(input, Tensor(), Tensor()).output; }

RNNBase::Result RNNBase::run(const Tensor& input, const Tensor& hx_in, const Tensor& cx_in) {
  const RNNOptions& o = options_;
  const std::string& type = type_name();
  const bool lstm = cell_ == RnnCell::Lstm;
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, type, ": Expected input to be 2D or 3D, got ", input.dim(),
                    "D tensor instead");
  const bool batched = input.dim() == 3;
  for (const Tensor* h : {&hx_in, &cx_in}) {
    if (!h->defined()) continue;
    EMBER_CHECK(h->dim() == input.dim(), type, ": For ", batched ? "batched 3-D" : "unbatched 2-D", " input, ",
                lstm ? "hx and cx" : "hx", " should also be ", input.dim(), "-D but got ", h->dim(), "-D tensor");
  }
  EMBER_CHECK_VALUE(!lstm || hx_in.defined() == cx_in.defined(), type, ": give both h_0 and c_0, or neither");
  const std::vector<Tensor> weights = flat_weights();
  EMBER_CHECK_VALUE(input.dtype() == weights[0].dtype(), type, ": input dtype (", input.dtype(),
                    ") does not match weight dtype (", weights[0].dtype(), "). Convert input: input.to(",
                    weights[0].dtype(), "), or convert model: model.to(", input.dtype(), ")");
  EMBER_CHECK(input.size(-1) == o.input_size, type, ": input.size(-1) must be equal to input_size. Expected ",
              o.input_size, ", got ", input.size(-1));

  const int64_t batch_dim = o.batch_first ? 0 : 1;
  Tensor x = batched ? input : unsqueeze(input, batch_dim);
  Tensor hx = hx_in.defined() && !batched ? unsqueeze(hx_in, 1) : hx_in;
  Tensor cx = cx_in.defined() && !batched ? unsqueeze(cx_in, 1) : cx_in;
  const DimVector state{o.num_layers * (o.bidirectional ? 2 : 1), x.size(batch_dim), o.hidden_size};
  if (!hx.defined()) {
    hx = zeros(state, TensorOptions(input.dtype()).device(input.device()));
    if (lstm) cx = zeros(state, TensorOptions(input.dtype()).device(input.device()));
  }
  EMBER_CHECK(hx.sizes() == IntArrayRef(state), type, ": Expected hidden", lstm ? "[0]" : "", " size ",
              shape_str(state, "(", ")"), ", got ", shape_str(hx.sizes(), "[", "]"));
  if (lstm)
    EMBER_CHECK(cx.sizes() == IntArrayRef(state), type, ": Expected hidden[1] size ", shape_str(state, "(", ")"),
                ", got ", shape_str(cx.sizes(), "[", "]"));

  Result r;
  const bool training = is_training();
  switch (cell_) {
    case RnnCell::Tanh:
      std::tie(r.output, r.h_n) =
          rnn_tanh(x, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional, o.batch_first);
      break;
    case RnnCell::Relu:
      std::tie(r.output, r.h_n) =
          rnn_relu(x, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional, o.batch_first);
      break;
    case RnnCell::Lstm:
      std::tie(r.output, r.h_n, r.c_n) =
          ember::lstm(x, {hx, cx}, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional, o.batch_first);
      break;
    case RnnCell::Gru:
      std::tie(r.output, r.h_n) =
          ember::gru(x, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional, o.batch_first);
      break;
  }
  if (!batched) {
    r.output = squeeze(r.output, batch_dim);
    r.h_n = squeeze(r.h_n, 1);
    if (r.c_n.defined()) r.c_n = squeeze(r.c_n, 1);
  }
  return r;
}

RNN::RNN(RNNOptions options)
    : RNNBase("RNN", options.nonlinearity == "relu" ? RnnCell::Relu : RnnCell::Tanh, options) {}

std::pair<Tensor, Tensor> RNN::forward(const Tensor& input, const Tensor& hx) {
  Result r = run(input, hx, Tensor());
  return {r.output, r.h_n};
}

LSTM::LSTM(RNNOptions options) : RNNBase("LSTM", RnnCell::Lstm, std::move(options)) {}

std::tuple<Tensor, Tensor, Tensor> LSTM::forward(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  Result r = run(input, h0, c0);
  return {r.output, r.h_n, r.c_n};
}

GRU::GRU(RNNOptions options) : RNNBase("GRU", RnnCell::Gru, std::move(options)) {}

std::pair<Tensor, Tensor> GRU::forward(const Tensor& input, const Tensor& hx) {
  Result r = run(input, hx, Tensor());
  return {r.output, r.h_n};
}

}  // namespace ember::nn
