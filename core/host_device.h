#pragma once
// EMBER_HOST_DEVICE marks a function that compiles for the host and, under nvcc, for the device
// too: the headers shared by the CPU side and the CUDA kernels (core/philox.h, cuda/shared/) use
// it, so one definition of Philox or of an op's math serves both, and host tests check it.
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

// `#pragma unroll` for loops in such functions (the host compiler does not know it).
#if defined(__CUDA_ARCH__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif
