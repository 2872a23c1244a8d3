#pragma once
// Mini-batches over a pair of tensors whose first dimension indexes the samples, in order or
// shuffled each epoch by the loader's own Generator, with an epoch position that a checkpoint can
// restore mid-epoch.
//
//   data::DataLoader loader(images, labels, {.batch_size = 64, .shuffle = true, .seed = 7});
//   ts.generators["data"] = &loader.generator();      // io::TrainingState saves it by name
//   for (int64_t epoch = 0; epoch < epochs; ++epoch) {
//     loader.start_epoch();
//     while (auto batch = loader.next()) train_on(batch->inputs, batch->targets);
//   }
//   // or by steps, the epochs rolling over by themselves, and the loader saved whole with the run:
//   ts.loaders["train"] = &loader;                      // its generator, epoch and position
//   for (; step < steps; ++step) train_on(loader.next_batch());
//
// NB: exact resume. The order of an epoch is drawn at start_epoch() from a copy of generator(),
// and generator() itself advances past that draw only when the next epoch starts, so during an
// epoch generator() holds the state the epoch's order was drawn from. A checkpoint therefore
// needs only that generator and position(): restore the generator (io::TrainingState does it by
// name) and call resume_epoch(position), on a new loader or on the same one, which redraws the
// same order and goes on with the same batch. (Setting the generator between epochs is also
// fine: start_epoch() takes a generator changed from outside as it is.)
#include <cstdint>
#include <optional>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::data {

struct DataLoaderOptions {
  int64_t batch_size = 1;
  /// Draw a new order at every epoch's start (else the samples come in index order).
  bool shuffle = false;
  /// Leave out the last batch of an epoch when it is smaller than batch_size.
  bool drop_last = false;
  /// The seed of the loader's generator.
  uint64_t seed = 0;
};

class DataLoader {
 public:
  /// A mini-batch: contiguous copies of the selected rows (first dimension = batch).
  struct Batch {
    Tensor inputs;
    Tensor targets;
  };

  /// Batches over inputs [N, ...] and targets [N, ...] (CPU tensors of any dtype; they are kept,
  /// made contiguous, not copied when already so). Throws ValueError for differing N, N == 0 or
  /// batch_size < 1.
  DataLoader(Tensor inputs, Tensor targets, DataLoaderOptions options);

  /// Begins the next epoch at its first batch, drawing its order (shuffle) after the previous
  /// epoch's draw.
  void start_epoch();
  /// Continues, from batch `next_batch` (0 to num_batches()), the epoch whose order generator()
  /// draws now: a resumed run restores generator() and passes the saved position(). Throws
  /// IndexError naming the batch when it is out of range.
  void resume_epoch(int64_t next_batch);
  /// The next batch of the current epoch, or nullopt once the epoch is over (or none started).
  std::optional<Batch> next();
  /// The next batch of the run: starts the next epoch when the current one is over (or none has
  /// started), so a loop counted in steps needs no epoch loop. ValueError when an epoch has no
  /// batch (drop_last with fewer samples than batch_size).
  Batch next_batch();

  /// Where a run is in the data, as a checkpoint keeps it (io::TrainingState's `loaders`, with
  /// generator()): epochs started so far and the index of the next batch of the last one.
  struct Progress {
    int64_t epochs = 0;
    int64_t position = 0;
  };
  Progress progress() const { return {epochs_, position_}; }
  /// Continues from `p`, with generator() restored to the state saved with it: the epoch under
  /// way redraws the same order and goes on at the same batch (an epoch that was over stays over,
  /// and the next one draws what it would have drawn). IndexError for a position outside the epoch.
  void resume(const Progress& p);
  /// Epochs started so far (start_epoch() and next_batch() count them; resume() restores it).
  int64_t epochs() const { return epochs_; }

  /// Samples (N).
  int64_t size() const { return inputs_.size(0); }
  /// Batches per epoch: ceil(N / batch_size), or floor with drop_last.
  int64_t num_batches() const;
  /// The index in the current epoch of the batch next() returns next.
  int64_t position() const { return position_; }
  /// The current epoch's order of sample indices (int64 [N]).
  const Tensor& order() const { return order_; }
  const DataLoaderOptions& options() const { return options_; }
  /// The generator the epoch orders are drawn from; save and restore it by name with
  /// io::TrainingState (see the NB above).
  Generator& generator() { return generator_; }

 private:
  Tensor inputs_;
  Tensor targets_;
  DataLoaderOptions options_;
  Generator generator_;
  Tensor order_;
  /// Draws the epoch's order from a copy of generator_ (shuffle) and starts it at `first_batch`.
  void begin(int64_t first_batch);
  int64_t position_ = 0;
  int64_t epochs_ = 0;
  bool in_epoch_ = false;
  /// generator_'s state when the current epoch's order was drawn, and after that draw.
  Generator::State epoch_start_{};
  Generator::State after_draw_{};
  bool drawn_ = false;
};

}  // namespace ember::data
