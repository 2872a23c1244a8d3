#include "ember/nn/rnn.h"

#include <cmath>
#include <sstream>

#include "ember/core/autocast.h"
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

std::pair<Tensor, Tensor> RNNBase::states(int64_t batch, const Tensor& input, const Tensor& hx_in,
                                          const Tensor& cx_in) const {
  const RNNOptions& o = options_;
  const bool lstm = cell_ == RnnCell::Lstm;
  EMBER_CHECK_VALUE(!lstm || hx_in.defined() == cx_in.defined(), type_name(), ": give both h_0 and c_0, or neither");
  const DimVector state{o.num_layers * (o.bidirectional ? 2 : 1), batch, o.hidden_size};
  Tensor hx = hx_in, cx = cx_in;
  if (!hx.defined()) {
    hx = zeros(state, TensorOptions(input.dtype()).device(input.device()));
    if (lstm) cx = zeros(state, TensorOptions(input.dtype()).device(input.device()));
  }
  EMBER_CHECK(hx.sizes() == IntArrayRef(state), type_name(), ": Expected hidden", lstm ? "[0]" : "", " size ",
              shape_str(state, "(", ")"), ", got ", shape_str(hx.sizes(), "[", "]"));
  if (lstm)
    EMBER_CHECK(cx.sizes() == IntArrayRef(state), type_name(), ": Expected hidden[1] size ", shape_str(state, "(", ")"),
                ", got ", shape_str(cx.sizes(), "[", "]"));
  return {hx, cx};
}

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
  const std::vector<Tensor> weights = flat_weights();
  check_input(input, weights[0]);

  const int64_t batch_dim = o.batch_first ? 0 : 1;
  Tensor x = batched ? input : unsqueeze(input, batch_dim);
  auto [hx, cx] = states(x.size(batch_dim), input, hx_in.defined() && !batched ? unsqueeze(hx_in, 1) : hx_in,
                         cx_in.defined() && !batched ? unsqueeze(cx_in, 1) : cx_in);
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

RNNBase::PackedResult RNNBase::run(const PackedSequence& input, const Tensor& hx, const Tensor& cx) {
  // The states follow the batch into its sorted order and back.
  auto reorder = [](const Tensor& t, const Tensor& order) {
    return t.defined() && order.defined() ? index_select(t, 1, order) : t;
  };
  Result r = forward_packed(input.data, input.batch_sizes, reorder(hx, input.sorted_indices),
                            reorder(cx, input.sorted_indices));
  return {{r.output, input.batch_sizes, input.sorted_indices, input.unsorted_indices},
          reorder(r.h_n, input.unsorted_indices),
          reorder(r.c_n, input.unsorted_indices)};
}

RNNBase::Result RNNBase::forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx_in,
                                        const Tensor& cx_in) {
  const RNNOptions& o = options_;
  EMBER_CHECK_VALUE(data.dim() == 2, type_name(), ": expected packed data of shape [N, input_size], got ",
                    data.sizes());
  EMBER_CHECK_VALUE(batch_sizes.dim() == 1 && batch_sizes.numel() > 0, type_name(),
                    ": expected a non-empty 1-D batch_sizes, got ", batch_sizes.sizes());
  const std::vector<Tensor> weights = flat_weights();
  check_input(data, weights[0]);
  auto [hx, cx] = states(batch_sizes.to_vector<int64_t>()[0], data, hx_in, cx_in);
  Result r;
  const bool training = is_training();
  switch (cell_) {
    case RnnCell::Tanh:
      std::tie(r.output, r.h_n) =
          rnn_tanh(data, batch_sizes, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional);
      break;
    case RnnCell::Relu:
      std::tie(r.output, r.h_n) =
          rnn_relu(data, batch_sizes, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional);
      break;
    case RnnCell::Lstm:
      std::tie(r.output, r.h_n, r.c_n) = ember::lstm(data, batch_sizes, {hx, cx}, weights, o.bias, o.num_layers,
                                                     o.dropout, training, o.bidirectional);
      break;
    case RnnCell::Gru:
      std::tie(r.output, r.h_n) =
          ember::gru(data, batch_sizes, hx, weights, o.bias, o.num_layers, o.dropout, training, o.bidirectional);
      break;
  }
  return r;
}

void RNNBase::check_input(const Tensor& input, const Tensor& weight) const {
  // NB: under autocast the op casts (ops/autocast.h), as PyTorch's check steps aside there too
  EMBER_CHECK_VALUE(input.dtype() == weight.dtype() || autocast::is_enabled(input.device().type), type_name(), ": input dtype (", input.dtype(),
                    ") does not match weight dtype (", weight.dtype(), "). Convert input: input.to(", weight.dtype(),
                    "), or convert model: model.to(", input.dtype(), ")");
  EMBER_CHECK(input.size(-1) == options_.input_size, type_name(),
              ": input.size(-1) must be equal to input_size. Expected ", options_.input_size, ", got ",
              input.size(-1));
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
