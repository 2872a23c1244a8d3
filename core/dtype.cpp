#include "ember/core/dtype.h"

#include <Eigen/Core>
#include <atomic>
#include <string>

#include "ember/core/error.h"

namespace ember {

Half::Half(float value) : bits(Eigen::numext::bit_cast<uint16_t>(Eigen::half(value))) {}
Half::operator float() const {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
}
BFloat16::BFloat16(float value)
    : bits(Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(value))) {}
BFloat16::operator float() const {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Complex64: return "complex64";
    case DType::Complex128: return "complex128";
  }
  return "unknown";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (dtype_name(static_cast<DType>(i)) == name) return static_cast<DType>(i);
  if (name == "BOOL") return DType::Bool;
  if (name == "U8") return DType::UInt8;
  if (name == "I8") return DType::Int8;
  if (name == "I16") return DType::Int16;
  if (name == "I32") return DType::Int32;
  if (name == "I64") return DType::Int64;
  if (name == "F16") return DType::Float16;
  if (name == "BF16") return DType::BFloat16;
  if (name == "F32") return DType::Float32;
  if (name == "F64") return DType::Float64;
  if (name == "C64") return DType::Complex64;
  return std::nullopt;
}

std::optional<DType> complex_dtype(DType t) {
  if (t == DType::Float32) return DType::Complex64;
  if (t == DType::Float64) return DType::Complex128;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // A complex operand decides, at the precision of the wider float part (as PyTorch:
  // complex64 with float64 is complex128).
  if (is_complex(a) || is_complex(b)) {
    DType part = promote_types(is_complex(a) ? real_dtype(a) : a, is_complex(b) ? real_dtype(b) : b);
    return part == DType::Float64 ? DType::Complex128 : DType::Complex64;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa != fb) return fa ? a : b;  // a float operand decides
  if (fa) {
    // float16 with bfloat16 has no common 16-bit type: PyTorch uses float32.
    if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  // uint8 with int8: neither holds the other's range, so both go to int16 (as in PyTorch).
  if ((a == DType::UInt8 && b == DType::Int8) || (a == DType::Int8 && b == DType::UInt8)) return DType::Int16;
  return itemsize(a) >= itemsize(b) ? a : b;
}

void check_compute_dtype(DType t, const char* op) {
  EMBER_CHECK_TYPE(t != DType::Int8 && t != DType::Int16, op, ": dtype ", t,
                   " is a storage type here; convert with to(int32), to(int64) or to(float32) first");
  EMBER_CHECK_TYPE(!is_complex(t), op, ": dtype ", t,
                   " is a storage type here; compute on view_as_real(t), a ", real_dtype(t),
                   " view with a trailing dim of 2");
}

void check_floating_compute(DType t, const char* op) {
  if (is_floating(t)) return;
  check_compute_dtype(t, op);
  EMBER_CHECK_TYPE(false, op, ": expected a floating point tensor, got ", t);
}

namespace detail {
void kernel_dtype_error(DType t, const char* op, bool floating_only) {
  EMBER_CHECK(t != DType::Float16 && t != DType::BFloat16, op, ": this kernel has no ", t,
              " code; register it through widened<> (core/kernels/widen.h)");
  if (floating_only) check_floating_compute(t, op);
  check_compute_dtype(t, op);
  EMBER_CHECK(false, op, ": no kernel for dtype ", t);
  __builtin_unreachable();
}
}  // namespace detail

namespace {
std::atomic<DType> g_default_dtype{DType::Float32};
}  // namespace

DType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(DType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype), "set_default_dtype: only floating-point types are supported as the default "
                   "type, got ", dtype);
  g_default_dtype.store(dtype, std::memory_order_relaxed);
}

std::string_view torch_type_name(DType t) {
  switch (t) {
    case kBool:
      return "Bool";
    case kUInt8:
      return "Byte";
    case kInt8:
      return "Char";
    case kInt16:
      return "Short";
    case kInt32:
      return "Int";
    case kInt64:
      return "Long";
    case kFloat16:
      return "Half";
    case kBFloat16:
      return "BFloat16";
    case kFloat32:
      return "Float";
    case kFloat64:
      return "Double";
    default:
      return dtype_name(t);
  }
}

}  // namespace ember
