#pragma once
// The recurrent cells' kinds and gate counts (core/kernels/rnn.h), apart from the tensor headers so
// that the CUDA kernels (cuda/shared/rnn_cell_unit.h, compiled by nvcc) share them.
#include <cstdint>

namespace ember {

/// The cell a recurrent layer repeats.
enum class RnnCell : uint8_t { Tanh, Relu, Lstm, Gru };

/// Gate blocks of H columns each in the cell's weight rows: G = rnn_gates(cell) * H.
constexpr int64_t rnn_gates(RnnCell cell) {
  return cell == RnnCell::Lstm ? 4 : cell == RnnCell::Gru ? 3 : 1;
}

/// Columns per hidden unit the forward keeps for the backward (the workspace is [B, W * H]): the
/// LSTM's activated i, f, g, o; the GRU's r, z, n and hn; nothing for Tanh and Relu, whose
/// backward reads h.
constexpr int64_t rnn_workspace_gates(RnnCell cell) {
  return cell == RnnCell::Lstm || cell == RnnCell::Gru ? 4 : 0;
}

}  // namespace ember
