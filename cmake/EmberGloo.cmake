# Which Gloo API this is. NB: upstream Gloo changed rendezvous::Context::connectFullMesh (and
# PrefixStore) from `Store&` to `std::shared_ptr<Store>` without changing its version number, so
# the version cannot tell them apart: a compile check does. distributed/process_group_gloo.cpp
# reads EMBER_GLOO_SHARED_STORE.
include(CheckCXXSourceCompiles)
get_target_property(ember_gloo_includes gloo INTERFACE_INCLUDE_DIRECTORIES)
set(CMAKE_REQUIRED_INCLUDES ${ember_gloo_includes})
set(CMAKE_REQUIRED_FLAGS -std=c++17)
check_cxx_source_compiles([=[
#include <memory>
#include <gloo/rendezvous/context.h>
void f(gloo::rendezvous::Context& c, std::shared_ptr<gloo::rendezvous::Store> s,
       std::shared_ptr<gloo::transport::Device>& d) { c.connectFullMesh(s, d); }
int main() {}
]=] EMBER_GLOO_SHARED_STORE)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_FLAGS)
if(EMBER_GLOO_SHARED_STORE)
  set(EMBER_GLOO_DEFINITIONS EMBER_GLOO_SHARED_STORE=1)
else()
  set(EMBER_GLOO_DEFINITIONS EMBER_GLOO_SHARED_STORE=0)
endif()
