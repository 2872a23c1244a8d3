// Tensor::str (declared in core/tensor.h): PyTorch's printout, with `ember.` for `torch.`. It lives
// in autograd because the printout names the grad_fn.
//
// The rules, as PyTorch applies them:
// - Every element of a tensor shares one width and one notation, chosen from the elements shown (a
//   complex tensor's real and imaginary parts each get their own). Floating point: all shown finite
//   non-zero values whole -> `1.` form; else fixed with `precision` decimals; scientific when the
//   largest magnitude is over 1e8 or more than 1000 times the smallest (or, for non-whole values, the
//   smallest is under 1e-4). sci_mode overrides the choice unless no value is finite and non-zero.
// - Past `threshold` elements, each dim shows its first and last `edgeitems` entries around `...`.
// - A row wraps to stay within `linewidth`; nested dims are separated by blank lines, one per dim
//   below the outermost, and indented under the opening bracket.
// - Suffixes: device (not cpu), size (empty, or edgeitems == 0), dtype (not the default one, int64,
//   bool or the default complex one; for an empty tensor: not the default dtype), grad_fn or
//   requires_grad. A suffix that would pass `linewidth` starts a new line.
// A CPU tensor is read in place (a CUDA one from its host copy); a summarized tensor converts only the
// elements it shows.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/autograd/print_options.h"
#include "ember/core/copy.h"
#include "ember/core/tensor.h"

namespace ember {
namespace {

PrintOptions options;

std::string printf_string(const char* format, int64_t precision, double v) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, static_cast<int>(precision), v);
  return buffer;
}

// Python's format of a non-finite float: nan (whatever its sign), inf, -inf.
std::string non_finite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

std::string pad_left(std::string text, int64_t width) {
  if (static_cast<int64_t>(text.size()) < width) text.insert(0, static_cast<size_t>(width) - text.size(), ' ');
  return text;
}

// The width and notation of every element of one real tensor (or of a complex one's real or imaginary
// parts), chosen from the elements shown.
struct Column {
  enum class Kind { Integer, Bool, Floating } kind;
  bool whole = true;  // floating: every shown finite value is a whole number: `3.`
  bool scientific = false;
  int64_t width = 1;

  Column(Kind k, const std::vector<double>& shown) : kind(k) {
    const int64_t precision = options.precision;
    if (kind == Kind::Integer) return;  // measured by the Printer from the int64 values, exact past 2^53
    if (kind == Kind::Bool) {
      for (double v : shown) width = std::max<int64_t>(width, static_cast<int64_t>(bool_text(v).size()));
      return;
    }
    std::vector<double> finite;
    for (double v : shown)
      if (std::isfinite(v) && v != 0) finite.push_back(v);
    if (finite.empty()) return;  // NB: PyTorch applies sci_mode only past here: zeros print `0.` even then
    double smallest = INFINITY, largest = 0;
    for (double v : finite) {
      whole = whole && v == std::ceil(v);
      smallest = std::min(smallest, std::fabs(v));
      largest = std::max(largest, std::fabs(v));
    }
    scientific = largest / smallest > 1000.0 || largest > 1.0e8 || (!whole && smallest < 1.0e-4);
    if (options.sci_mode) scientific = *options.sci_mode;  // NB: before the width, which follows it
    for (double v : finite) {
      const std::string text = scientific ? printf_string("%.*e", precision, v)
                               : whole    ? printf_string("%.*f", 0, v) + "."
                                          : printf_string("%.*f", precision, v);
      width = std::max<int64_t>(width, static_cast<int64_t>(text.size()));
    }
  }

  static std::string bool_text(double v) { return v != 0 ? "True" : "False"; }

  std::string format(double v) const {  // a bool or floating element (integers: Printer::element)
    if (kind == Kind::Bool) return pad_left(bool_text(v), width);
    if (!std::isfinite(v)) return pad_left(non_finite(v), width);
    if (scientific) return pad_left(printf_string("%.*e", options.precision, v), width);
    if (whole) return pad_left(printf_string("%.*f", 0, v) + ".", width);
    return pad_left(printf_string("%.*f", options.precision, v), width);
  }
};

// Reads the elements of a (host) tensor in place by their row-major position: a summarized tensor
// converts only the elements it shows.
class Printer {
 public:
  explicit Printer(const Tensor& t)
      : host_(t.device().is_cpu() ? t.detach() : copy_as(t.detach(), t.dtype(), Device())),
        sizes_(t.sizes().begin(), t.sizes().end()) {
    complex_ = is_complex(t.dtype());
    integer_ = t.dtype() != kBool && is_integral(t.dtype());
    const Column::Kind kind = t.dtype() == kBool ? Column::Kind::Bool
                              : integer_         ? Column::Kind::Integer
                                                 : Column::Kind::Floating;
    summarize_ = static_cast<double>(t.numel()) > options.threshold;
    std::vector<int64_t> shown;
    shown_positions(0, 0, shown);
    std::vector<double> reals, imags;
    for (int64_t i : shown) {
      if (integer_) continue;  // measured below from their int64 values
      reals.push_back(real_at(i));
      if (complex_) imags.push_back(imag_at(i));
    }
    real_.emplace(kind, reals);
    if (complex_) imag_column_.emplace(Column::Kind::Floating, imags);
    if (integer_)  // NB: from the int64 values, exact past 2^53
      for (int64_t i : shown)
        real_->width = std::max<int64_t>(real_->width, static_cast<int64_t>(std::to_string(int_at(i)).size()));
  }

  std::string body(int64_t indent) const { return nested(0, 0, indent); }

 private:
  int64_t dims() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t row_size(int64_t dim) const {  // elements per entry of dim, row-major
    int64_t n = 1;
    for (int64_t d = dim + 1; d < dims(); ++d) n *= sizes_[static_cast<size_t>(d)];
    return n;
  }
  int64_t edge() const { return options.edgeitems; }

  // The storage offset (in elements, from the data pointer) of the element at row-major position i.
  int64_t offset_of(int64_t i) const {
    int64_t offset = 0;
    for (int64_t d = dims() - 1; d >= 0; --d) {
      const int64_t n = sizes_[static_cast<size_t>(d)];
      offset += (i % n) * host_.stride(d);
      i /= n;
    }
    return offset;
  }
  template <typename To>
  To read(int64_t i) const {
    return visit_dtype(host_.dtype(), [&]<typename T>(type_tag<T>) {
      return convert<To>(static_cast<const T*>(host_.data_ptr())[offset_of(i)]);
    });
  }
  double real_at(int64_t i) const { return complex_ ? read<std::complex<double>>(i).real() : read<double>(i); }
  double imag_at(int64_t i) const { return read<std::complex<double>>(i).imag(); }
  int64_t int_at(int64_t i) const { return read<int64_t>(i); }

  // The positions of the elements the printout shows (all of them unless summarized).
  void shown_positions(int64_t dim, int64_t base, std::vector<int64_t>& out) const {
    if (dims() == 0) {
      out.push_back(0);
      return;
    }
    const int64_t n = sizes_[static_cast<size_t>(dim)], step = row_size(dim);
    const bool cut = summarize_ && n > 2 * edge();
    if (dim + 1 == dims()) {
      // NB: a[-0:] is all of a: with edgeitems 0 a row's format comes from every element (PyTorch's)
      for (int64_t i = 0; i < n; ++i)
        if (!cut || edge() == 0 || i < edge() || i >= n - edge()) out.push_back(base + i);
      return;
    }
    if (summarize_ && edge() == 0) return;
    for (int64_t i = 0; i < n; ++i)
      if (!cut || i < edge() || i >= n - edge()) shown_positions(dim + 1, base + i * step, out);
  }

  int64_t item_width() const {
    // NB: PyTorch's budget per element: its width and ", "; a complex one adds the imaginary part's and one more
    const int64_t width = real_->width + 2;
    return complex_ ? width + imag_column_->width + 1 : width;
  }

  std::string element(int64_t i) const {
    if (integer_) return pad_left(std::to_string(int_at(i)), real_->width);
    if (!complex_) return real_->format(real_at(i));
    std::string real = real_->format(real_at(i)), imag = imag_column_->format(imag_at(i)) + "j";
    imag.erase(0, imag.find_first_not_of(' '));
    return imag[0] == '+' || imag[0] == '-' ? real + imag : real + "+" + imag;
  }

  std::string row(int64_t base, int64_t n, int64_t indent) const {
    const double room = static_cast<double>(options.linewidth - indent) / static_cast<double>(item_width());
    const int64_t per_line = std::max<int64_t>(1, static_cast<int64_t>(std::floor(room)));
    std::vector<std::string> items;
    if (summarize_ && edge() == 0) {
      items.push_back("...");
    } else if (summarize_ && n > 2 * edge()) {
      for (int64_t i = 0; i < edge(); ++i) items.push_back(element(base + i));
      items.push_back(" ...");
      for (int64_t i = n - edge(); i < n; ++i) items.push_back(element(base + i));
    } else {
      for (int64_t i = 0; i < n; ++i) items.push_back(element(base + i));
    }
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i)
        out += i % static_cast<size_t>(per_line) ? ", " : ",\n" + std::string(static_cast<size_t>(indent) + 1, ' ');
      out += items[i];
    }
    return out + "]";
  }

  std::string nested(int64_t dim, int64_t base, int64_t indent) const {
    if (dims() == 0) return element(0);
    const int64_t n = sizes_[static_cast<size_t>(dim)];
    if (dim + 1 == dims()) return row(base, n, indent);
    const int64_t step = row_size(dim);
    std::vector<std::string> parts;
    if (summarize_ && n > 2 * edge()) {
      for (int64_t i = 0; i < edge(); ++i) parts.push_back(nested(dim + 1, base + i * step, indent + 1));
      parts.push_back("...");
      for (int64_t i = n - edge(); i < n; ++i) parts.push_back(nested(dim + 1, base + i * step, indent + 1));
    } else {
      for (int64_t i = 0; i < n; ++i) parts.push_back(nested(dim + 1, base + i * step, indent + 1));
    }
    const std::string separator = "," + std::string(static_cast<size_t>(dims() - dim - 1), '\n') +
                                  std::string(static_cast<size_t>(indent) + 1, ' ');
    std::string out = "[";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
    return out + "]";
  }

  Tensor host_;
  std::vector<int64_t> sizes_;
  bool complex_ = false, integer_ = false, summarize_ = false;
  std::optional<Column> real_, imag_column_;
};

std::string size_tuple(IntArrayRef sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + (sizes.size() == 1 ? ",)" : ")");
}

std::string with_suffixes(const std::string& text, const std::vector<std::string>& suffixes, int64_t indent) {
  // NB: PyTorch counts the last line as 1 longer than it is (2 without a newline); kept, so suffixes
  // wrap where PyTorch's do.
  const size_t newline = text.rfind('\n');
  int64_t last_line =
      static_cast<int64_t>(text.size()) - (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  std::string out = text;
  for (const std::string& suffix : suffixes) {
    const auto length = static_cast<int64_t>(suffix.size());
    if (last_line + length + 2 > options.linewidth) {
      out += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line = indent + length;
    } else {
      out += ", " + suffix;
      last_line += length + 2;
    }
  }
  return out + ")";
}

}  // namespace

const PrintOptions& print_options() { return options; }

void set_print_options(std::optional<int64_t> precision, std::optional<double> threshold,
                       std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                       std::optional<std::string_view> profile, std::optional<bool> sci_mode) {
  if (profile == "default") options = {4, 1000, 3, 80, options.sci_mode};
  if (profile == "short") options = {2, 1000, 2, 80, options.sci_mode};
  if (profile == "full") options = {4, INFINITY, 3, 80, options.sci_mode};
  if (precision) options.precision = *precision;
  if (threshold) options.threshold = *threshold;
  if (edgeitems) options.edgeitems = *edgeitems;
  if (linewidth) options.linewidth = *linewidth;
  options.sci_mode = sci_mode;
}

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (!device().is_cpu()) suffixes.push_back("device='" + device().str() + "'");
  const DType fallback = default_dtype();
  const DType fallback_complex = fallback == kFloat64 ? kComplex128 : kComplex64;
  std::ostringstream name;
  name << "dtype=ember." << dtype();
  std::string body;
  if (numel() == 0) {
    if (dim() != 1) suffixes.push_back("size=" + size_tuple(sizes()));
    if (dtype() != fallback) suffixes.push_back(name.str());
    body = "[]";
  } else {
    if (print_options().edgeitems == 0) suffixes.push_back("size=" + size_tuple(sizes()));
    if (dtype() != fallback && dtype() != fallback_complex && dtype() != kInt64 && dtype() != kBool)
      suffixes.push_back(name.str());
    body = Printer(*this).body(indent);
  }
  if (const auto node = grad_fn())
    suffixes.push_back(std::string("grad_fn=<") + node->name() + ">");
  else if (requires_grad())
    suffixes.push_back("requires_grad=True");
  return with_suffixes(prefix + body, suffixes, indent);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace ember
