#pragma once
// One dispatch point per op and device. An op declares a stub with its kernel's signature; each
// backend registers its kernel for its device at load time (core/cpu/ for CPU, cuda/ for CUDA), so
// a backend plugs in without touching op definitions.
//
//   // ops/foo.cpp               EMBER_DEFINE_STUB(foo_stub, FooFn);
//   // core/cpu/foo_kernel.cpp   EMBER_REGISTER_KERNEL(foo_stub, DeviceType::CPU, &cpu_foo);
//   // ops/foo.cpp               foo_stub(x.device().type, out, x);
#include "ember/core/backend.h"
#include "ember/core/device.h"
#include "ember/core/error.h"

#include <vector>

namespace ember {

/// A stub's name and whether a device type has a kernel in it: every stub that
/// EMBER_DEFINE_STUB defines is listed, so a test can check that a backend fills them all.
struct StubEntry {
  const char* name;
  bool (*has)(DeviceType);
};
/// Every stub defined in the library, in no particular order.
const std::vector<StubEntry>& all_stubs();

namespace detail {
/// Adds a stub to all_stubs() (EMBER_DEFINE_STUB does it).
bool list_stub(const char* name, bool (*has)(DeviceType));
}  // namespace detail

template <typename Fn>
class DispatchStub {
 public:
  constexpr explicit DispatchStub(const char* name) : name_(name) {}

  Fn get(DeviceType d) const {
    Fn fn = table_[static_cast<int>(d)];
    // A backend library not opened yet registers its kernels when it is (core/backend.h).
    if (fn == nullptr && d != DeviceType::CPU && load_backend(d)) fn = table_[static_cast<int>(d)];
    EMBER_CHECK_AS(NotImplementedError, fn != nullptr, name_, ": no kernel registered for device ",
                   d, backend_built(d) ? "" : " (build with -DEMBER_CUDA=ON)");
    return fn;
  }
  bool has(DeviceType d) const { return table_[static_cast<int>(d)] != nullptr; }
  const char* name() const { return name_; }
  void set(DeviceType d, Fn fn) { table_[static_cast<int>(d)] = fn; }

  template <typename... Args>
  decltype(auto) operator()(DeviceType d, Args&&... args) const {
    return get(d)(std::forward<Args>(args)...);
  }

 private:
  const char* name_;
  Fn table_[kNumDeviceTypes] = {};  // constant-initialised, so registration order is safe
};

}  // namespace ember

#define EMBER_CONCAT_INNER(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_INNER(a, b)
/// Declares a stub in a header: EMBER_DECLARE_STUB(add_stub, AddFn).
#define EMBER_DECLARE_STUB(stub, FnType) extern ::ember::DispatchStub<FnType> stub
/// Defines it in one source file (and lists it in all_stubs()).
#define EMBER_DEFINE_STUB(stub, FnType)                                                                \
  constinit ::ember::DispatchStub<FnType> stub(#stub);                                                 \
  [[maybe_unused]] static const bool EMBER_CONCAT(ember_stub_listed_, __COUNTER__) =                   \
      ::ember::detail::list_stub(#stub, [](::ember::DeviceType d) { return stub.has(d); })
/// Registers a backend's kernel when the library loads.
#define EMBER_REGISTER_KERNEL(stub, device, fn)                                     \
  [[maybe_unused]] static const bool EMBER_CONCAT(ember_registered_, __COUNTER__) = \
      (stub.set(device, fn), true)
