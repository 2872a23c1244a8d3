#include "ember/core/storage.h"

#include "ember/core/backend.h"
#include "ember/core/error.h"
#include "ember/core/tracing.h"

namespace ember {
namespace {
const Allocator* g_allocators[kNumDeviceTypes] = {};
}  // namespace

void register_allocator(DeviceType type, const Allocator* allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  allocator_ = g_allocators[static_cast<int>(device.type)];
  if (allocator_ == nullptr) {
    check_device(device, "cannot allocate memory");  // opens the backend's library, or says why and throws
    allocator_ = g_allocators[static_cast<int>(device.type)];
    EMBER_CHECK(allocator_ != nullptr, "no allocator registered for ", device);
  }
  data_ = allocator_->allocate(nbytes, device);
  tracing::note_memory(static_cast<int64_t>(nbytes), device);
}

Storage::Storage(void* data, size_t nbytes, Device device, std::shared_ptr<void> owner)
    : data_(data), nbytes_(nbytes), device_(device), owner_(std::move(owner)) {}

Storage::~Storage() { release(); }

void Storage::release() {
  if (!allocator_ || data_ == nullptr) return;
  allocator_->deallocate(data_, nbytes_, device_);
  data_ = nullptr;
  tracing::note_memory(-static_cast<int64_t>(nbytes_), device_);
}

void Storage::reallocate() {
  EMBER_CHECK(allocator_ != nullptr, "Storage::reallocate: the storage borrows its memory");
  if (data_ != nullptr || nbytes_ == 0) return;
  data_ = allocator_->allocate(nbytes_, device_);
  tracing::note_memory(static_cast<int64_t>(nbytes_), device_);
}

}  // namespace ember
