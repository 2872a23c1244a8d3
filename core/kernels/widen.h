#pragma once
// float16 and bfloat16 on kernels written for float32. `widened<kernel, outputs...>` is a kernel of
// the same signature that gives `kernel` a float32 copy of each 16-bit float tensor argument and
// rounds the arguments at positions `outputs` (0-based, in the kernel's parameter list) back once
// it returns. That is what PyTorch's CPU kernels do for these dtypes: load, compute in float32
// registers, round once; reductions and normalisations accumulate in float32. It costs a
// conversion pass per operand; a kernel with a native 16-bit path registers itself directly.
//
//   EMBER_REGISTER_KERNEL(unary_stub, DeviceType::CPU, (widened<&cpu_unary, 1>));
//
// Arguments over one memory (an in-place op's out and in) share one copy, so the kernel sees the
// aliasing it was written for. Tensor members of an argument struct are reached through a
// specialisation of WidenArg beside the struct (core/kernels/rnn.h), which names the outputs.
#include <functional>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/small_vector.h"
#include "ember/core/tensor.h"

namespace ember {

namespace detail {

/// The float32 copies of one widened kernel call; narrow() rounds the outputs back.
class Widening {
 public:
  /// t's float32 stand-in: t itself unless it is a defined 16-bit float tensor. A write-only output
  /// (an elementwise kernel's) gets an uninitialised one, filled only if an input shares its memory.
  Tensor widen(const Tensor& t, bool output, bool write_only = false);
  /// Writes each output's float32 values back into the 16-bit tensor, rounding once.
  void narrow();

 private:
  struct Entry {
    Tensor original, wide;
    bool output, filled;
  };
  SmallVector<Entry, 4> entries_;
};

}  // namespace detail

/// How a kernel argument of type T is widened: by default it passes through unchanged.
template <typename T>
struct WidenArg {
  static bool has_16bit(const T&) { return false; }
  template <typename U>
  static U& apply(U& v, detail::Widening&, bool) { return v; }
};
template <>
struct WidenArg<Tensor> {
  static bool has_16bit(const Tensor& t) { return t.defined() && is_16bit_float(t.dtype()); }
  static Tensor apply(const Tensor& t, detail::Widening& w, bool output) { return w.widen(t, output); }
};
template <>
struct WidenArg<std::vector<Tensor>> {
  static bool has_16bit(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts)
      if (WidenArg<Tensor>::has_16bit(t)) return true;
    return false;
  }
  static std::vector<Tensor> apply(const std::vector<Tensor>& ts, detail::Widening& w, bool output) {
    std::vector<Tensor> out;
    out.reserve(ts.size());
    for (const Tensor& t : ts) out.push_back(w.widen(t, output));
    return out;
  }
};

namespace detail {

template <auto kernel, int... outputs>
struct Widened {
  template <typename Fn>
  struct Impl;
  template <typename R, typename... Args>
  struct Impl<R (*)(Args...)> {
    static R run(Args... args) {
      if (!(WidenArg<std::decay_t<Args>>::has_16bit(args) || ...)) return kernel(args...);
      return call(std::index_sequence_for<Args...>{}, args...);
    }

   private:
    static constexpr bool is_output(size_t i) { return ((static_cast<size_t>(outputs) == i) || ...); }
    template <size_t... I>
    static R call(std::index_sequence<I...>, Args... args) {
      Widening w;
      // NB: copies are held by value and other arguments by reference, so each copy outlives the
      // call and a non-const argument (a generator) is the caller's own.
      std::tuple<decltype(WidenArg<std::decay_t<Args>>::apply(args, w, false))...> wide{
          WidenArg<std::decay_t<Args>>::apply(args, w, is_output(I))...};
      if constexpr (std::is_void_v<R>) {
        kernel(std::get<I>(wide)...);
        w.narrow();
      } else {
        R r = kernel(std::get<I>(wide)...);
        w.narrow();
        return r;
      }
    }
  };
  static constexpr auto fn = &Impl<decltype(kernel)>::run;
};

}  // namespace detail

/// `kernel` run on float32 copies of its 16-bit float tensors; see the file comment.
template <auto kernel, int... outputs>
inline constexpr auto widened = detail::Widened<kernel, outputs...>::fn;

namespace detail {

/// Elements per chunk of widened_elementwise: three float32 operands of it stay in L2.
inline constexpr int64_t kWidenChunk = 8192;

/// Whether every defined tensor argument is contiguous with `numel` elements (and one is 16-bit).
bool chunkable(std::initializer_list<const Tensor*> tensors, int64_t& numel);
/// t's elements [begin, begin + len) as a 1-D view (t contiguous), or t itself when undefined.
Tensor chunk_of(const Tensor& t, int64_t begin, int64_t len);
/// parallel_for over chunks of kWidenChunk elements: f(begin, len) for each.
void for_each_chunk(int64_t numel, const std::function<void(int64_t, int64_t)>& f);

template <typename T>
const Tensor* tensor_ptr(const T& v) {
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) return &v;
  else return nullptr;
}
template <typename T>
decltype(auto) chunk_arg(const T& v, int64_t begin, int64_t len) {
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) return chunk_of(v, begin, len);
  else return (v);
}

template <auto kernel, int... outputs>
struct WidenedElementwise {
  template <typename Fn>
  struct Impl;
  template <typename... Args>
  struct Impl<void (*)(Args...)> {
    static void run(Args... args) {
      int64_t numel = -1;
      const std::initializer_list<const Tensor*> tensors{tensor_ptr(args)...};
      if (!chunkable(tensors, numel) || numel < 2 * kWidenChunk)
        return Widened<kernel, outputs...>::fn(args...);
      for_each_chunk(numel, [&](int64_t begin, int64_t len) { chunk(std::index_sequence_for<Args...>{}, begin, len, args...); });
    }

   private:
    static constexpr bool is_output(size_t i) { return ((static_cast<size_t>(outputs) == i) || ...); }
    template <size_t... I>
    static void chunk(std::index_sequence<I...>, int64_t begin, int64_t len, Args... args) {
      Widening w;
      std::tuple<decltype(chunk_arg(args, begin, len))...> parts{chunk_arg(args, begin, len)...};
      std::tuple<decltype(WidenArg<std::decay_t<Args>>::apply(std::get<I>(parts), w, false))...> wide{
          widen_part(std::get<I>(parts), w, I)...};
      kernel(std::get<I>(wide)...);
      w.narrow();
    }
    template <typename T>
    static decltype(auto) widen_part(const T& v, Widening& w, size_t i) {
      if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) return w.widen(v, is_output(i), is_output(i));
      else return WidenArg<std::decay_t<T>>::apply(v, w, is_output(i));
    }
  };
  static constexpr auto fn = &Impl<decltype(kernel)>::run;
};

}  // namespace detail

/// widened for elementwise kernels (every tensor argument of one shape, the outputs written whole):
/// contiguous operands are converted a chunk at a time, in cache, instead of whole.
template <auto kernel, int... outputs>
inline constexpr auto widened_elementwise = detail::WidenedElementwise<kernel, outputs...>::fn;

}  // namespace ember
