#include "ember/core/dispatch.h"

namespace ember {
namespace {

std::vector<StubEntry>& stubs() {
  static auto* s = new std::vector<StubEntry>;  // filled by static initialisers, in any order
  return *s;
}

}  // namespace

const std::vector<StubEntry>& all_stubs() { return stubs(); }

namespace detail {
bool list_stub(const char* name, bool (*has)(DeviceType)) {
  stubs().push_back({name, has});
  return true;
}
}  // namespace detail

}  // namespace ember
