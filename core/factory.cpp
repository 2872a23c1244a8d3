#include "ember/core/factory.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include "ember/core/copy.h"
#include "ember/core/philox.h"
#include "ember/core/philox_run.h"
#include "ember/core/shape.h"
#include "ember/core/tracing.h"

namespace ember {
namespace {

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.set_requires_grad(true);
  return t;
}

// Builds on the CPU then moves: creation is never the hot path on a device.
template <typename Fill>
Tensor make_on_cpu(IntArrayRef shape, const TensorOptions& options, Fill fill) {
  Tensor cpu = empty(shape, TensorOptions(options.dtype()));
  fill(cpu);
  Tensor out = options.device().is_cpu() ? cpu : copy_as(cpu, options.dtype(), options.device());
  return finish(out, options);
}

// A factory called from a traced forward is a node of its program (jit/factory_ops.cpp): replayed,
// it makes a tensor of the sizes it is given then (so zeros(B, H) follows the batch) and draws fresh
// random numbers. NB: not empty(), whose values a kernel outside the recorded ops may fill; not a
// tensor that requires grad (a leaf the program could not train: the tracer names it). A random draw
// passes its generator: one of its own cannot be named in a program (a ValueError).
template <typename Make>
Tensor recorded(std::string_view op, const TensorOptions& options, std::vector<tracing::Arg> args, Make make,
                Generator* gen = nullptr) {
  if (!tracing::recording() || options.requires_grad()) [[likely]]
    return make();
  tracing::arg(gen);
  args.emplace_back(options.dtype());
  args.emplace_back(options.device());
  return tracing::record<Tensor>(op, make, std::move(args));
}

}  // namespace

Tensor make_tensor(std::shared_ptr<Storage> storage, DType dtype, IntArrayRef sizes,
                   IntArrayRef strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes.vec(),
                                             strides.vec(), offset));
}

Tensor empty(IntArrayRef shape, TensorOptions options) {
  int64_t n = numel_of(shape);
  EMBER_CHECK_VALUE(n <= INT64_MAX / static_cast<int64_t>(itemsize(options.dtype())), "empty: shape ",
                    shape, " of ", options.dtype(), " needs more bytes than can be addressed");
  auto storage = std::make_shared<Storage>(static_cast<size_t>(n) * itemsize(options.dtype()),
                                           options.device());
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), options.dtype(), shape.vec(),
                                        contiguous_strides(shape), 0));
  return finish(t, options);
}

Tensor full(IntArrayRef shape, Scalar value, TensorOptions options) {
  return recorded("factory.full", options, {tracing::arg(shape), value}, [&] {
    Tensor t = empty(shape, options.requires_grad(false));
    fill_data(t, value);
    return finish(t, options);
  });
}
Tensor zeros(IntArrayRef shape, TensorOptions options) { return full(shape, 0, options); }
Tensor ones(IntArrayRef shape, TensorOptions options) { return full(shape, 1, options); }
Tensor scalar_tensor(Scalar value, TensorOptions options) { return full({}, value, options); }

Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK_VALUE(st != 0, "arange: step must be nonzero");
  EMBER_CHECK_VALUE((e - s) / st >= 0 || e == s, "arange: start ", start, ", end ", end,
                    " and step ", step, " give a negative length");
  auto n = static_cast<int64_t>(std::ceil((e - s) / st));
  return recorded("factory.arange", options, {start, end, step}, [&] {
    return make_on_cpu({n}, options, [&](Tensor& t) {
      visit_dtype(t.dtype(), [&]<typename T>(type_tag<T>) {
        T* p = static_cast<T*>(t.data_ptr());
        bool integral = !start.is_floating() && !step.is_floating();
        for (int64_t i = 0; i < n; ++i) {
          if (integral)
            p[i] = convert<T>(start.to<int64_t>() + i * step.to<int64_t>());
          else
            p[i] = convert<T>(s + static_cast<double>(i) * st);
        }
      });
    });
  });
}

Tensor linspace(double start, double end, int64_t steps, TensorOptions options) {
  EMBER_CHECK_VALUE(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  return recorded("factory.linspace", options, {start, end, steps}, [&] {
    return make_on_cpu({steps}, options, [&](Tensor& t) {
      Tensor d = empty({steps}, kFloat64);
      double* p = d.data_ptr<double>();
      double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
      // Fill from both ends, as PyTorch does, so the last value is exactly `end`; one step is
      // `start` alone.
      int64_t half = steps == 1 ? 1 : steps / 2;
      if (options.dtype() == kFloat32) {
        // NB: PyTorch's kernel computes in the dtype: float32's step and products (linspace(-1, 1, 4)[1] is
        // -0.333333313, where a float64 detour rounds to -0.333333343), and affine_grid builds on it
        const float lo = static_cast<float>(start), hi = static_cast<float>(end);
        const float fstep = steps > 1 ? (hi - lo) / static_cast<float>(steps - 1) : 0.0f;
        for (int64_t i = 0; i < steps; ++i)
          p[i] = i < half ? lo + fstep * static_cast<float>(i) : hi - fstep * static_cast<float>(steps - 1 - i);
      } else {
        for (int64_t i = 0; i < steps; ++i)
          p[i] = i < half ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - 1 - i);
      }
      copy_data(t, d);
    });
  });
}

Tensor logspace(double start, double end, int64_t steps, double base, TensorOptions options) {
  EMBER_CHECK_VALUE(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  const bool integral = !is_floating(options.dtype()) && !is_complex(options.dtype());
  return recorded("factory.logspace", options, {start, end, steps, base}, [&] {
    return make_on_cpu({steps}, options, [&](Tensor& t) {
      // PyTorch's arithmetic: the bounds rounded to the result's dtype, then (integers) float32 or
      // (floating dtypes) float64 powers, each from the nearer end so that the last is base^end.
      Tensor bounds = copy_as(tensor(std::vector<double>{start, end}), options.dtype(), Device());
      const std::vector<double> b = copy_as(bounds, kFloat64, Device()).to_vector<double>();
      Tensor d = empty({steps}, kFloat64);
      double* p = d.data_ptr<double>();
      const int64_t half = steps / 2;
      if (steps == 1) {
        p[0] = std::pow(base, start);  // PyTorch's: the bound as given
      } else if (integral) {
        const float lo = static_cast<float>(b[0]), hi = static_cast<float>(b[1]), fbase = static_cast<float>(base);
        const float step = (hi - lo) / static_cast<float>(steps - 1);
        for (int64_t i = 0; i < steps; ++i)
          p[i] = std::trunc(std::pow(
              fbase, i < half ? lo + step * static_cast<float>(i) : hi - step * static_cast<float>(steps - 1 - i)));
      } else {
        const double step = (b[1] - b[0]) / static_cast<double>(steps - 1);
        for (int64_t i = 0; i < steps; ++i)
          p[i] = std::pow(
              base, i < half ? b[0] + step * static_cast<double>(i) : b[1] - step * static_cast<double>(steps - 1 - i));
      }
      copy_data(t, d);
    });
  });
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  int64_t cols = m.value_or(n);
  EMBER_CHECK_VALUE(n >= 0 && cols >= 0, "eye: sizes must be non-negative, got ", n, " x ", cols);
  return recorded("factory.eye", options, {n, cols}, [&] {
    return make_on_cpu({n, cols}, options, [&](Tensor& t) {
      fill_data(t, 0);
      Tensor diag = make_tensor(t.storage(), t.dtype(), {std::min(n, cols)}, {cols + 1}, 0);
      fill_data(diag, 1);
    });
  });
}

namespace {

// A complex draw: its (real, imaginary) pairs drawn in the real dtype, as PyTorch's: uniform parts
// in [0, 1) for rand; normal parts of variance 1/2 for randn, so that E|z|^2 = 1.
Tensor complex_draw(IntArrayRef shape, TensorOptions options, Generator* gen, bool normal) {
  const DType real = real_dtype(options.dtype());
  DimVector pair_shape(shape.begin(), shape.end());
  pair_shape.push_back(2);
  Tensor pairs = normal ? randn(pair_shape, TensorOptions(real), gen) : rand(pair_shape, TensorOptions(real), gen);
  if (normal)
    visit_floating_dtype(real, "randn", [&]<typename T>(type_tag<T>) {
      T* p = pairs.data_ptr<T>();
      for (int64_t i = 0; i < pairs.numel(); ++i) p[i] = static_cast<T>(p[i] * std::sqrt(0.5));
    });
  Tensor z = make_tensor(pairs.storage(), options.dtype(), shape, contiguous_strides(shape), 0);
  if (!options.device().is_cpu()) z = copy_as(z, options.dtype(), options.device());
  if (options.requires_grad()) z.set_requires_grad(true);
  return z;
}

}  // namespace

Tensor rand(IntArrayRef shape, TensorOptions options, Generator* gen) {
  if (is_complex(options.dtype())) return complex_draw(shape, options, gen, false);
  Generator& g = gen ? *gen : default_generator();
  return recorded(
      "factory.rand", options, {tracing::arg(shape)},
      [&] {
        return make_on_cpu(shape, options, [&](Tensor& t) {
          if (is_16bit_float(t.dtype())) return copy_data(t, rand(shape, kFloat32, &g));  // drawn as float32
          visit_floating_dtype(t.dtype(), "rand", [&]<typename T>(type_tag<T>) {
            // Generator::uniform_float (one draw) and uniform_double (two, high word first), in bulk
            constexpr int64_t kDraws = std::is_same_v<T, float> ? 1 : 2, kChunk = 1024;
            T* p = static_cast<T*>(t.data_ptr());
            const Generator::State start = g.get_state();
            uint32_t bits[kChunk * kDraws];
            for (int64_t s = 0; s < t.numel(); s += kChunk) {
              const int64_t len = std::min(kChunk, t.numel() - s);
              philox_u32_run(start.seed, start.counter + static_cast<uint64_t>(s * kDraws), bits, len * kDraws);
              for (int64_t j = 0; j < len; ++j) {
                if constexpr (std::is_same_v<T, float>)
                  p[s + j] = uniform_float_of(bits[j]);
                else
                  p[s + j] = uniform_double_of(bits[2 * j], bits[2 * j + 1]);
              }
            }
            g.set_state({start.seed, start.counter + static_cast<uint64_t>(t.numel() * kDraws)});
          });
        });
      },
      gen);
}

Tensor randn(IntArrayRef shape, TensorOptions options, Generator* gen) {
  if (is_complex(options.dtype())) return complex_draw(shape, options, gen, true);
  Generator& g = gen ? *gen : default_generator();
  return recorded(
      "factory.randn", options, {tracing::arg(shape)},
      [&] {
        return make_on_cpu(shape, options, [&](Tensor& t) {
          if (is_16bit_float(t.dtype())) return copy_data(t, randn(shape, kFloat32, &g));  // drawn as float32
          visit_floating_dtype(t.dtype(), "randn", [&]<typename T>(type_tag<T>) {
            T* p = static_cast<T*>(t.data_ptr());
            for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(g.normal());
          });
        });
      },
      gen);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef shape, TensorOptions options, Generator* gen) {
  EMBER_CHECK_VALUE(low < high, "randint: low (", low, ") must be less than high (", high, ")");
  Generator& g = gen ? *gen : default_generator();
  return recorded(
      "factory.randint", options, {low, high, tracing::arg(shape)},
      [&] {
        return make_on_cpu(shape, options, [&](Tensor& t) {
          Tensor d = empty(shape, kInt64);
          int64_t* p = d.data_ptr<int64_t>();
          auto range = static_cast<uint64_t>(high - low);
          for (int64_t i = 0; i < d.numel(); ++i) p[i] = low + static_cast<int64_t>(g.below(range));
          copy_data(t, d);
        });
      },
      gen);
}

Tensor randint_like(const Tensor& t, int64_t low, int64_t high, Generator* gen) {
  return randint(low, high, t.sizes(), TensorOptions(t.dtype()).device(t.device()), gen);
}

Tensor randperm(int64_t n, Generator* gen) {
  EMBER_CHECK_VALUE(n >= 0, "randperm: n must be non-negative, got ", n);
  Generator& g = gen ? *gen : default_generator();
  return recorded(
      "factory.randperm", TensorOptions(kInt64), {n},
      [&] {
        Tensor t = empty({n}, kInt64);
        int64_t* p = t.data_ptr<int64_t>();
        std::iota(p, p + n, int64_t{0});
        for (int64_t i = n - 1; i > 0; --i)  // Fisher-Yates
          std::swap(p[i], p[static_cast<int64_t>(g.below(static_cast<uint64_t>(i + 1)))]);
        return t;
      },
      gen);
}

Tensor empty_like(const Tensor& t) { return empty(t.sizes(), t.options()); }
Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.options()); }
Tensor ones_like(const Tensor& t) { return ones(t.sizes(), t.options()); }
Tensor full_like(const Tensor& t, Scalar value) { return full(t.sizes(), value, t.options()); }
Tensor rand_like(const Tensor& t, Generator* gen) { return rand(t.sizes(), t.options(), gen); }
Tensor randn_like(const Tensor& t, Generator* gen) { return randn(t.sizes(), t.options(), gen); }

template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape, TensorOptions options) {
  EMBER_CHECK_VALUE(numel_of(shape) == static_cast<int64_t>(values.size()), "tensor: ",
                    values.size(), " values do not fill shape ", shape);
  Tensor src = empty(shape, dtype_of<T>);
  if (!values.empty()) std::memcpy(src.data_ptr(), values.data(), values.size() * sizeof(T));
  Tensor out = options.dtype() == src.dtype() && options.device().is_cpu()
                   ? src
                   : copy_as(src, options.dtype(), options.device());
  return finish(out, options);
}

template Tensor tensor(const std::vector<uint8_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int8_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int16_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int32_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int64_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<float>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<double>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<Half>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<BFloat16>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<std::complex<float>>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<std::complex<double>>&, IntArrayRef, TensorOptions);

// std::vector<bool> is packed, so it gets its own copy loop.
template <>
Tensor tensor(const std::vector<bool>& values, IntArrayRef shape, TensorOptions options) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  Tensor t = tensor(bytes, shape, TensorOptions(kUInt8));
  Tensor out = copy_as(t, options.dtype(), options.device());
  return finish(out, options);
}

Tensor from_blob(void* data, IntArrayRef shape, DType dtype, std::shared_ptr<void> owner,
                 IntArrayRef strides, Device device) {
  DimVector st = strides.empty() ? contiguous_strides(shape) : strides.vec();
  EMBER_CHECK_VALUE(st.size() == shape.size(), "from_blob: ", st.size(), " strides for shape ", shape);
  int64_t extent = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    EMBER_CHECK_VALUE(st[i] >= 0, "from_blob: negative stride ", st[i]);
    if (shape[i] == 0) extent = 0;
    if (extent) extent += (shape[i] - 1) * st[i];
  }
  auto storage = std::make_shared<Storage>(data, static_cast<size_t>(extent) * itemsize(dtype),
                                           device, std::move(owner));
  return make_tensor(std::move(storage), dtype, shape, st, 0);
}

}  // namespace ember
