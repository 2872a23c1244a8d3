#pragma once
// Element types. float16 and bfloat16 are compute dtypes as float32 is: kernels compute them in
// float32 and round once (core/kernels/widen.h). int8, int16, complex64 and complex128 are storage
// types: tensors hold them, move them (views, copies, cat, indexing) and convert with to(dtype);
// arithmetic and comparisons on them raise a TypeError naming the dtype. A complex tensor is
// computed on through view_as_real (a float view with a trailing dim of 2).
#include <complex>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>
#include <type_traits>

namespace ember {

// NB: new dtypes go at the end; files and bindings use names, but the numbering stays stable.
enum class DType : uint8_t {
  Bool, UInt8, Int32, Int64, Float16, BFloat16, Float32, Float64, Int8, Int16, Complex64, Complex128
};
inline constexpr int kNumDTypes = 12;

/// IEEE half precision, stored as its bits.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float value);
  explicit operator float() const;
};
/// Brain floating point (the top 16 bits of a float32), stored as its bits.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value);
  explicit operator float() const;
};

/// Bytes per element.
constexpr size_t itemsize(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
    case DType::Int8: return 1;
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Int32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64:
    case DType::Complex64: return 8;
    case DType::Complex128: return 16;
  }
  return 0;
}
constexpr bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
/// float16 or bfloat16: the dtypes kernels compute in float32 and round once.
constexpr bool is_16bit_float(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
constexpr bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
/// Integral, bool included.
constexpr bool is_integral(DType t) { return !is_floating(t) && !is_complex(t); }
/// The real dtype of a complex one's parts (complex64 -> float32); other dtypes map to themselves.
constexpr DType real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
/// The complex dtype whose parts are `t` (float32 -> complex64, float64 -> complex128).
std::optional<DType> complex_dtype(DType t);

/// "float32", "int64", ...: the names PyTorch and safetensors users know.
std::string_view dtype_name(DType t);
/// PyTorch's name of a dtype in its messages: "Float", "Long", "Half" (dtype_name's otherwise).
std::string_view torch_type_name(DType t);
/// Inverse of dtype_name; also accepts safetensors' names ("F32", "BF16", ...).
std::optional<DType> dtype_from_name(std::string_view name);
std::ostream& operator<<(std::ostream& os, DType t);

/// The dtype both operands of a binary op compute in (PyTorch's promotion lattice).
DType promote_types(DType a, DType b);

/// The dtype factories create and Python floats take when none is given: float32 unless
/// set_default_dtype chose another floating dtype (process-wide, as torch.set_default_dtype).
DType default_dtype();
/// Sets it; only floating dtypes (float16, bfloat16, float32, float64), else TypeError.
void set_default_dtype(DType dtype);

template <typename T> struct dtype_of_t;
template <> struct dtype_of_t<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of_t<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct dtype_of_t<int8_t> { static constexpr DType value = DType::Int8; };
template <> struct dtype_of_t<int16_t> { static constexpr DType value = DType::Int16; };
template <> struct dtype_of_t<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct dtype_of_t<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of_t<Half> { static constexpr DType value = DType::Float16; };
template <> struct dtype_of_t<BFloat16> { static constexpr DType value = DType::BFloat16; };
template <> struct dtype_of_t<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of_t<double> { static constexpr DType value = DType::Float64; };
template <> struct dtype_of_t<std::complex<float>> { static constexpr DType value = DType::Complex64; };
template <> struct dtype_of_t<std::complex<double>> { static constexpr DType value = DType::Complex128; };
/// The DType of a C++ element type: dtype_of<float> == DType::Float32.
template <typename T> inline constexpr DType dtype_of = dtype_of_t<T>::value;

template <typename T> struct type_tag { using type = T; };

template <typename T> inline constexpr bool is_complex_v = false;
template <typename T> inline constexpr bool is_complex_v<std::complex<T>> = true;

/// static_cast that also converts to and from Half and BFloat16 (through float) and complex
/// numbers: a real becomes a complex with imaginary part 0, a complex becomes its real part (as
/// PyTorch's to(dtype), which warns; ops/convert.cpp warns), bool is true when either part is not 0.
template <typename To, typename From>
inline To convert(From v) {
  constexpr bool to16 = std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>;
  constexpr bool from16 = std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>;
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) return To(v);
    else if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    else return convert<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    return To(convert<typename To::value_type>(v), 0);
  } else if constexpr (to16) {
    return To(static_cast<float>(v));
  } else if constexpr (from16) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool> &&
                       sizeof(To) < 4) {
    // NB: through int64, as PyTorch does: a float outside an 8- or 16-bit type's range is undefined
    // behaviour in C++, and CPUs and GPUs disagree (x86 wraps, CUDA saturates); this wraps on
    // both (-1.0 -> 255 as uint8).
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

/// Calls f(type_tag<T>{}) with T the C++ type of `t`; `op` names the caller in errors.
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(type_tag<bool>{});
    case DType::UInt8: return f(type_tag<uint8_t>{});
    case DType::Int8: return f(type_tag<int8_t>{});
    case DType::Int16: return f(type_tag<int16_t>{});
    case DType::Int32: return f(type_tag<int32_t>{});
    case DType::Int64: return f(type_tag<int64_t>{});
    case DType::Float16: return f(type_tag<Half>{});
    case DType::BFloat16: return f(type_tag<BFloat16>{});
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    case DType::Complex64: return f(type_tag<std::complex<float>>{});
    case DType::Complex128: return f(type_tag<std::complex<double>>{});
  }
  __builtin_unreachable();
}

/// Throws a TypeError unless `t` is one of the dtypes ops compute in (not int8/int16/complex).
void check_compute_dtype(DType t, const char* op);
/// Throws a TypeError (naming `op` and the dtype) unless `t` is a floating dtype.
void check_floating_compute(DType t, const char* op);

namespace detail {
/// The error of a kernel visit that met a dtype it has no code for: a TypeError for storage
/// dtypes, an internal error for float16/bfloat16 (the kernel should be registered widened).
[[noreturn]] void kernel_dtype_error(DType t, const char* op, bool floating_only);
}  // namespace detail

/// Like visit_dtype for the dtypes kernels compute in: bool, uint8, int32, int64, float32, float64
/// (16-bit floats reach kernels as float32, through core/kernels/widen.h).
template <typename F>
decltype(auto) visit_compute_dtype(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Bool: return f(type_tag<bool>{});
    case DType::UInt8: return f(type_tag<uint8_t>{});
    case DType::Int32: return f(type_tag<int32_t>{});
    case DType::Int64: return f(type_tag<int64_t>{});
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    default: detail::kernel_dtype_error(t, op, false);
  }
}

/// Like visit_dtype for float32 and float64 only.
template <typename F>
decltype(auto) visit_floating_dtype(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    default: detail::kernel_dtype_error(t, op, true);
  }
}

}  // namespace ember

namespace ember {
inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kComplex64 = DType::Complex64;
inline constexpr DType kComplex128 = DType::Complex128;
}  // namespace ember
