#pragma once
// Collects the warnings ember::warn issues while it lives (and keeps them off stderr); the
// handler before it comes back at the end of its scope. Warnings may come from several threads at
// once (ranks run as threads; ember::warn calls the handler outside its lock): the list is locked.
#include <mutex>
#include <string>
#include <vector>

#include "ember/core/warning.h"

namespace ember::testing {

class CaptureWarnings {
 public:
  CaptureWarnings() {
    previous_ = set_warning_handler([this](const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex_);
      messages.push_back(m);
    });
  }
  ~CaptureWarnings() { set_warning_handler(previous_); }
  CaptureWarnings(const CaptureWarnings&) = delete;
  CaptureWarnings& operator=(const CaptureWarnings&) = delete;
  std::vector<std::string> messages;  // read it once the warning threads are done

 private:
  std::mutex mutex_;
  WarningHandler previous_;
};

}  // namespace ember::testing
