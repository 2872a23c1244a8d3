#include "ember/data/data_loader.h"

#include <cstring>
#include <numeric>

#include "ember/core/copy.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"

namespace ember::data {

namespace {

/// out[i] = source[index[i]] along the first dimension; source contiguous.
Tensor gather_rows(const Tensor& source, const int64_t* index, int64_t count) {
  std::vector<int64_t> shape(source.sizes().begin(), source.sizes().end());
  shape[0] = count;
  Tensor out = empty(shape, source.dtype());
  const size_t row = source.numel() / source.size(0) * source.itemsize();
  const auto* src = static_cast<const unsigned char*>(source.data_ptr());
  auto* dst = static_cast<unsigned char*>(out.data_ptr());
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(dst + i * row, src + static_cast<size_t>(index[i]) * row, row);
  return out;
}

}  // namespace

DataLoader::DataLoader(Tensor inputs, Tensor targets, DataLoaderOptions options)
    : options_(options), generator_(options.seed) {
  EMBER_CHECK_VALUE(inputs.defined() && targets.defined(), "DataLoader: inputs and targets must be defined");
  EMBER_CHECK_VALUE(inputs.dim() >= 1 && targets.dim() >= 1,
                    "DataLoader: inputs and targets need a sample dimension, got shapes ",
                    shape_str(inputs.sizes()), " and ", shape_str(targets.sizes()));
  EMBER_CHECK_VALUE(inputs.size(0) == targets.size(0), "DataLoader: inputs have ", inputs.size(0),
                    " samples ", shape_str(inputs.sizes()), " but targets have ", targets.size(0), " ",
                    shape_str(targets.sizes()));
  EMBER_CHECK_VALUE(inputs.size(0) > 0, "DataLoader: no samples");
  EMBER_CHECK_VALUE(options.batch_size >= 1, "DataLoader: batch_size must be >= 1, got ",
                    options.batch_size);
  EMBER_CHECK_VALUE(inputs.device().is_cpu() && targets.device().is_cpu(),
                    "DataLoader: inputs and targets must be CPU tensors");
  inputs_ = contiguous_data(inputs);
  targets_ = contiguous_data(targets);
}

int64_t DataLoader::num_batches() const {
  const int64_t n = size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

void DataLoader::start_epoch() {
  // Step past the previous epoch's draw, unless the generator was set from outside since.
  if (options_.shuffle && drawn_ && generator_.get_state() == epoch_start_) generator_.set_state(after_draw_);
  ++epochs_;
  begin(0);
}

DataLoader::Batch DataLoader::next_batch() {
  if (std::optional<Batch> batch = next()) return std::move(*batch);
  EMBER_CHECK_VALUE(num_batches() > 0, "DataLoader::next_batch: an epoch has no batch (", size(),
                    " samples, batch_size ", options_.batch_size, ", drop_last)");
  start_epoch();
  return *next();
}

void DataLoader::resume(const Progress& p) {
  EMBER_CHECK_VALUE(p.epochs >= 0, "DataLoader::resume: epochs must be non-negative, got ", p.epochs);
  if (p.epochs == 0) {  // nothing started: as a fresh loader
    EMBER_CHECK_INDEX(p.position == 0, "DataLoader::resume: position ", p.position, " before any epoch started");
    epochs_ = 0;
    position_ = 0;
    in_epoch_ = false;
    return;
  }
  resume_epoch(p.position);
  epochs_ = p.epochs;
}

void DataLoader::resume_epoch(int64_t next_batch) {
  EMBER_CHECK_INDEX(next_batch >= 0 && next_batch <= num_batches(), "DataLoader::resume_epoch: batch ",
                    next_batch, " is outside [0, ", num_batches(), "]");
  begin(next_batch);
}

void DataLoader::begin(int64_t first_batch) {
  if (options_.shuffle) {
    epoch_start_ = generator_.get_state();
    Generator draw = generator_;
    order_ = randperm(size(), &draw);
    after_draw_ = draw.get_state();
    drawn_ = true;
  } else if (!order_.defined()) {
    order_ = arange(size());
  }
  position_ = first_batch;
  in_epoch_ = true;
}

std::optional<DataLoader::Batch> DataLoader::next() {
  if (!in_epoch_ || position_ >= num_batches()) {
    in_epoch_ = false;
    return std::nullopt;
  }
  const int64_t start = position_ * options_.batch_size;
  const int64_t count = std::min(options_.batch_size, size() - start);
  const int64_t* index = order_.data_ptr<int64_t>() + start;
  ++position_;
  return Batch{gather_rows(inputs_, index, count), gather_rows(targets_, index, count)};
}

}  // namespace ember::data
