#pragma once
// A refcounted block of device memory shared by a tensor and all its views. Memory comes from the
// device's registered Allocator, or is borrowed from an owner (a NumPy array, a mapped file) kept
// alive by `owner`. The version counter lives here so that views share it.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ember/core/device.h"

namespace ember {

/// How a backend hands out memory: registered once per device type, given the device (its index
/// picks the GPU). deallocate gets back the size and device the block was allocated with (a
/// caching allocator files the block under them); it never throws: storages are freed from
/// destructors, also at exit.
struct Allocator {
  void* (*allocate)(size_t nbytes, Device device);
  void (*deallocate)(void* ptr, size_t nbytes, Device device) noexcept;
};
/// Registers the allocator for a device type (core/cpu/ does it for CPU).
void register_allocator(DeviceType type, const Allocator* allocator);
/// Whether the CPU allocator keeps freed blocks of 256 KiB and more for reuse
/// (core/cpu/allocator.cpp): false in AddressSanitizer builds, so that ASan sees every use after free.
bool cpu_allocator_caches();

/// The CPU's memory statistics (this process, every thread): bytes held by live storages that the
/// CPU allocator made (borrowed memory, a NumPy array's or a mapped file's, is not counted), and
/// the most held since the start or the last reset_cpu_peak_memory(). Blocks kept in the
/// allocator's cache for reuse count as free, as torch.cuda.memory_allocated counts them.
int64_t cpu_memory_allocated();
int64_t cpu_max_memory_allocated();
/// Starts the peak over from what is held now.
void reset_cpu_peak_memory();

class Storage {
 public:
  /// Allocates `nbytes` on `device` through its allocator; for a device that this build or machine
  /// lacks, an ember::Error that starts "no CUDA device: ".
  Storage(size_t nbytes, Device device);
  /// Borrows `data`; `owner` keeps it alive and is released with the storage.
  Storage(void* data, size_t nbytes, Device device, std::shared_ptr<void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Bumped by every in-place write, so autograd can detect saved tensors that changed.
  uint64_t version() const { return version_; }
  void bump_version() { ++version_; }

  /// Gives the memory back and keeps the object, its size and its version, as PyTorch's
  /// storage.resize_(0): FSDP frees an unsharded parameter after forward while autograd still
  /// holds tensors on it, and reallocate() brings memory back (uninitialised) before backward
  /// reads them. Only storages that own their memory; data() is null in between, and reading a
  /// released storage's tensors is the caller's error.
  void release();
  void reallocate();
  bool is_released() const { return data_ == nullptr && nbytes_ != 0; }

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  Device device_;
  const Allocator* allocator_ = nullptr;  // null when borrowed
  std::shared_ptr<void> owner_;
  uint64_t version_ = 0;
};

}  // namespace ember
