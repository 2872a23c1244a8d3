#include "ember/core/cpu/onednn.h"

namespace ember::cpu {
namespace {

// Whether oneDNN's effective ISA (its CPU detection under DNNL_MAX_CPU_ISA) includes `isa`.
bool effective_isa_has(dnnl::cpu_isa isa) {
  const auto have = static_cast<unsigned>(dnnl::get_effective_cpu_isa()), want = static_cast<unsigned>(isa);
  return (have & want) == want;
}

}  // namespace

const dnnl::engine& onednn_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

bool onednn_native_bf16() {
  static const bool native = effective_isa_has(dnnl::cpu_isa::avx512_core_bf16);
  return native;
}

bool onednn_avx512() {
  static const bool avx512 = effective_isa_has(dnnl::cpu_isa::avx512_core);
  return avx512;
}

}  // namespace ember::cpu
