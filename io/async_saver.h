#pragma once
// Saves in the background. save() copies the tensors (io::Snapshot, into buffers reused from save
// to save) and returns; a thread writes the file while training goes on, free to change the
// tensors at once. Saves are written one at a time, in call order: save() first waits for the
// one before it, and wait() for the last one.
//
//   io::AsyncSaver saver;
//   for (int64_t step = 1; ...; ++step) {
//     train_step();
//     if (step % 1000 == 0) saver.save(ts.to_value(), "ckpt.ember");  // blocks for the copy only
//   }
//   saver.wait();   // rethrows a failed write
//
// A write that fails or is cut short by a crash leaves the previous file whole (io::save is
// atomic). Its error is thrown by the next wait() or save(); an error nobody collected is
// reported with ember::warn when the saver is destroyed.
#include <functional>
#include <future>
#include <string>

#include "ember/io/serialize.h"
#include "ember/io/snapshot.h"
#include "ember/io/value.h"

namespace ember::io {

class AsyncSaver {
 public:
  AsyncSaver() = default;
  AsyncSaver(const AsyncSaver&) = delete;
  AsyncSaver& operator=(const AsyncSaver&) = delete;
  /// Waits for the write in flight.
  ~AsyncSaver();

  /// io::save(value, path, options) in the background, on a copy taken before returning.
  void save(const Value& value, const std::string& path, const SaveOptions& options = {});
  /// The general form: waits for the previous write, copies `value`, then runs write(copy) in the
  /// background (a CheckpointManager's save, a distributed checkpoint's).
  void submit(const Value& value, std::function<void(const Value&)> write);
  /// Blocks until the last write finished; rethrows its error.
  void wait();
  /// Whether a write is in flight or finished without its result collected by wait().
  bool pending() const { return write_.valid(); }

 private:
  Snapshot snapshot_;
  std::future<void> write_;
};

}  // namespace ember::io
