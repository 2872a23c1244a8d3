// The running scans as a CUDA thread runs them along a row (cuda/shared/scan_row.h), against the
// CPU kernel (core/cpu/scan_kernel.cpp): every op and compute dtype, exactly, with ties, NaNs,
// infinities, zeros and integer wrapping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/core/kernels/scan.h"
#include "ember/cuda/shared/scan_row.h"
#include "ember/ember.h"

using namespace ember;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The rows: [rows, n] of values chosen to hit ties, NaNs, infinities and overflow.
std::vector<double> values() {
  return {3,    1,    3, 2,    7,   7, 0,    -1, -1, 5,   // ties and a zero
          NAN,  2,    9, NAN,  -4,  1, 1,    0,  8,  8,   // NaN first, NaN later
          kInf, -kInf, 1, kInf, -kInf, 0, 2,  2,  3,  -2,  // infinities
          100,  200,  50, 120, 77,  3, 250, 255, 2,  4};  // integer products wrap
}

template <typename T>
void check_dtype(DType dtype) {
  const int64_t rows = 4, n = 10;
  std::vector<double> raw = values();
  if (!is_floating(dtype))  // integers hold no NaN or infinity
    for (double& v : raw) v = std::isfinite(v) ? v : 0;
  const Tensor in = tensor(raw, {rows, n}).to(dtype);
  for (ScanOp op : {ScanOp::Cumprod, ScanOp::Logcumsumexp, ScanOp::Cummax, ScanOp::Cummin}) {
    if (op == ScanOp::Logcumsumexp && !is_floating(dtype)) continue;
    SCOPED_TRACE(std::string(detail::op_name(op)) + " " + std::string(dtype_name(dtype)));
    const bool with_indices = op == ScanOp::Cummax || op == ScanOp::Cummin;
    const Tensor want = empty({rows, n}, dtype), want_idx = with_indices ? empty({rows, n}, kInt64) : Tensor();
    scan_stub(DeviceType::CPU, op, want, want_idx, in);
    const T* x = static_cast<const T*>(in.data_ptr());
    std::vector<T> got(static_cast<size_t>(rows * n));
    std::vector<int64_t> idx(static_cast<size_t>(rows * n), -7);
    for (int64_t r = 0; r < rows; ++r)
      cuda::scan_row<T>(op, x + r * n, got.data() + r * n, with_indices ? idx.data() + r * n : nullptr, n);
    const T* w = static_cast<const T*>(want.data_ptr());
    for (int64_t e = 0; e < rows * n; ++e) {
      // Bitwise: NaN where the CPU has NaN, and the same rounding everywhere else.
      ASSERT_EQ(std::memcmp(&got[static_cast<size_t>(e)], &w[e], sizeof(T)), 0)
          << "element " << e << ": " << +got[static_cast<size_t>(e)] << " vs " << +w[e];
      if (with_indices) ASSERT_EQ(idx[static_cast<size_t>(e)], want_idx.data_ptr<int64_t>()[e]) << "index " << e;
    }
  }
}

}  // namespace

TEST(ScanRowTest, EveryOpAndDtypeIsTheCpuKernelsBitForBit) {
  check_dtype<double>(kFloat64);
  check_dtype<float>(kFloat32);
  check_dtype<int64_t>(kInt64);
  check_dtype<int32_t>(kInt32);
  check_dtype<uint8_t>(kUInt8);
}

TEST(ScanRowTest, BoolScannedAsUint8GivesTheCpusBoolResult) {
  // The CUDA kernel scans bool as uint8 0/1: its products and extremes stay 0/1 as bool's would.
  const Tensor in = tensor(std::vector<double>{1, 1, 0, 1, 0, 0, 1, 1}, {2, 4}).to(kBool);
  for (ScanOp op : {ScanOp::Cumprod, ScanOp::Cummax, ScanOp::Cummin}) {
    const bool with_indices = op != ScanOp::Cumprod;
    const Tensor want = empty({2, 4}, kBool), want_idx = with_indices ? empty({2, 4}, kInt64) : Tensor();
    scan_stub(DeviceType::CPU, op, want, want_idx, in);
    const auto* x = static_cast<const uint8_t*>(in.data_ptr());
    uint8_t got[8];
    int64_t idx[8];
    for (int r = 0; r < 2; ++r) cuda::scan_row<uint8_t>(op, x + r * 4, got + r * 4, idx + r * 4, 4);
    for (int e = 0; e < 8; ++e) {
      EXPECT_EQ(got[e], static_cast<const uint8_t*>(want.data_ptr())[e]) << detail::op_name(op) << " " << e;
      if (with_indices) EXPECT_EQ(idx[e], want_idx.data_ptr<int64_t>()[e]) << detail::op_name(op) << " " << e;
    }
  }
}

TEST(ScanRowTest, EmptyRowWritesNothing) {
  double out = 42;
  int64_t idx = 7;
  cuda::scan_row<double>(ScanOp::Cummax, nullptr, &out, &idx, 0);
  EXPECT_EQ(out, 42);
  EXPECT_EQ(idx, 7);
}
