#pragma once
// Collects the warnings ember::warn issues while it lives (and keeps them off stderr); the
// handler before it comes back at the end of its scope.
#include <string>
#include <vector>

#include "ember/core/warning.h"

namespace ember::testing {

class CaptureWarnings {
 public:
  CaptureWarnings() {
    previous_ = set_warning_handler([this](const std::string& m) { messages.push_back(m); });
  }
  ~CaptureWarnings() { set_warning_handler(previous_); }
  CaptureWarnings(const CaptureWarnings&) = delete;
  CaptureWarnings& operator=(const CaptureWarnings&) = delete;
  std::vector<std::string> messages;

 private:
  WarningHandler previous_;
};

}  // namespace ember::testing
