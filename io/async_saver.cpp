#include "ember/io/async_saver.h"

#include <exception>
#include <string>
#include <utility>

#include "ember/core/warning.h"

namespace ember::io {

AsyncSaver::~AsyncSaver() {
  if (!write_.valid()) return;
  try {
    write_.get();
  } catch (const std::exception& e) {
    ember::warn(std::string("io::AsyncSaver: a background save failed and nobody called wait(): ") +
                e.what());
  }
}

void AsyncSaver::submit(const Value& value, std::function<void(const Value&)> write) {
  wait();
  Value copy = snapshot_.take(value);
  write_ = std::async(std::launch::async,
                      [copy = std::move(copy), write = std::move(write)] { write(copy); });
}

void AsyncSaver::save(const Value& value, const std::string& path, const SaveOptions& options) {
  submit(value, [path, options](const Value& copy) { io::save(copy, path, options); });
}

void AsyncSaver::wait() {
  if (!write_.valid()) return;
  std::future<void> write = std::move(write_);  // collected once, even when it threw
  write.get();
}

}  // namespace ember::io
