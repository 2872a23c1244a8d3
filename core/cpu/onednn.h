#pragma once
// What the CPU kernels built on oneDNN's primitives share (matmul_onednn.h, conv_onednn.h): one CPU
// engine, and whether the CPU multiplies bfloat16 natively.
#include <dnnl.hpp>

namespace ember::cpu {

/// The CPU engine every oneDNN primitive of Ember's is made and run on.
const dnnl::engine& onednn_engine();

/// Whether oneDNN runs bfloat16 products on native instructions here (AVX512_BF16, or AMX, which
/// implies it); elsewhere Ember widens them to float32.
bool onednn_native_bf16();

/// Whether oneDNN's kernels run on AVX-512 here (its own CPU detection and DNNL_MAX_CPU_ISA cap).
bool onednn_avx512();

}  // namespace ember::cpu
