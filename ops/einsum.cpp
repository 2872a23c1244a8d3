#include "ember/ops/einsum.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ember/core/shape.h"
#include "ember/ops/autocast.h"
#include "ember/ops/reduce.h"

namespace ember {
namespace {

constexpr int kLetters = 52;  // A-Z, then a-z: the implicit output's order

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  return -1;
}

char letter_of(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26)); }

// One side of the equation: the labels of a term in order, kEllipsis standing for its "...".
constexpr int kEllipsis = -1;
struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
};

// Parses the subscripts of one term from equation[begin, end); `who` names it in errors
// ("operand 1", "output").
Term parse_term(const std::string& eq, size_t begin, size_t end, const std::string& who) {
  Term term;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK_VALUE(!term.has_ellipsis, "einsum(): found '.' for ", who, " for which an ellipsis was already found");
      EMBER_CHECK_VALUE(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', "einsum(): found '.' for ", who,
                        " that is not part of any ellipsis");
      term.has_ellipsis = true;
      term.labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    EMBER_CHECK_VALUE(label_of(c) >= 0, "einsum(): invalid subscript given at index ", i,
                      " in the equation string, subscripts must be in [a-zA-Z]");
    term.labels.push_back(label_of(c));
  }
  return term;
}

// An operand with one dim per aligned label (kLetters + the ellipsis dims), size 1 where it has
// none; `position` maps a label to its aligned dim.
Tensor align(Tensor t, const Term& term, int64_t num_ellipsis, const std::vector<int64_t>& position,
             int64_t rank, size_t which) {
  const int64_t named = static_cast<int64_t>(term.labels.size()) - (term.has_ellipsis ? 1 : 0);
  if (term.has_ellipsis) {
    EMBER_CHECK_VALUE(named <= t.dim(), "einsum(): the number of subscripts in the equation (", named,
                      ") is more than the number of dimensions (", t.dim(), ") for operand ", which);
  } else {
    EMBER_CHECK_VALUE(named == t.dim(), "einsum(): the number of subscripts in the equation (", named,
                      ") does not match the number of dimensions (", t.dim(), ") for operand ", which,
                      " and no ellipsis was given");
  }
  // Each dim's label id: letters 0..51, the ellipsis dims kLetters + e (aligned from the right).
  std::vector<int64_t> ids;
  const int64_t covered = t.dim() - named;
  for (int label : term.labels) {
    if (label != kEllipsis) {
      ids.push_back(label);
      continue;
    }
    for (int64_t e = 0; e < covered; ++e) ids.push_back(kLetters + num_ellipsis - covered + e);
  }
  // A label repeated within the operand: its diagonal (moved last).
  for (size_t p = 0; p < ids.size(); ++p) {
    for (size_t q = p + 1; q < ids.size(); ++q) {
      if (ids[q] != ids[p]) continue;
      EMBER_CHECK_VALUE(t.size(static_cast<int64_t>(p)) == t.size(static_cast<int64_t>(q)), "einsum(): subscript ",
                        letter_of(static_cast<int>(ids[p])), " is repeated for operand ", which,
                        " but the sizes don't match, ", t.size(static_cast<int64_t>(q)), " != ",
                        t.size(static_cast<int64_t>(p)));
      t = diagonal(t, 0, static_cast<int64_t>(p), static_cast<int64_t>(q));
      const int64_t label = ids[p];
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(q));
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(p));
      ids.push_back(label);
      p = static_cast<size_t>(-1);  // restart: positions moved
      break;
    }
  }
  // Permute the dims into aligned order, then view with size-1 dims for the missing labels.
  std::vector<int64_t> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return position[static_cast<size_t>(ids[static_cast<size_t>(a)])] < position[static_cast<size_t>(ids[static_cast<size_t>(b)])];
  });
  t = permute(t, order);
  DimVector shape(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < order.size(); ++i)
    shape[static_cast<size_t>(position[static_cast<size_t>(ids[static_cast<size_t>(order[i])])])] = t.size(static_cast<int64_t>(i));
  return reshape(t, shape);
}

// a and b (aligned) contracted over `summed` dims (size > 1 in both), as one bmm: the dims both
// have (batch), a's own (left), the summed ones, b's own (right). The result is aligned, with size
// 1 on the summed dims.
Tensor contract(Tensor a, Tensor b, const std::vector<bool>& keep) {
  const int64_t rank = a.dim();
  DimVector batch, left, summed, right, rest;
  for (int64_t d = 0; d < rank; ++d) {
    const bool ha = a.size(d) != 1, hb = b.size(d) != 1;
    if (!keep[static_cast<size_t>(d)]) {
      // A dim no one needs later: sum it where only one operand has it.
      if (ha && hb) {
        summed.push_back(d);
        continue;
      }
      // NB: back in the operand's dtype (an integer sum is int64), which bmm needs both to share.
      if (ha) a = sum(a, {d}, true).to(a.dtype());
      if (hb) b = sum(b, {d}, true).to(b.dtype());
      rest.push_back(d);
    } else if (ha && hb) {
      batch.push_back(d);
    } else if (ha) {
      left.push_back(d);
    } else if (hb) {
      right.push_back(d);
    } else {
      rest.push_back(d);
    }
  }
  auto size_of = [](const Tensor& t, const DimVector& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= t.size(d);
    return n;
  };
  auto joined = [](std::initializer_list<const DimVector*> parts) {
    DimVector out;
    for (const DimVector* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  const int64_t B = size_of(a, batch), M = size_of(a, left), K = size_of(a, summed), N = size_of(b, right);
  Tensor lhs = reshape(permute(a, joined({&batch, &left, &summed, &right, &rest})), {B, M, K});
  Tensor rhs = reshape(permute(b, joined({&batch, &summed, &right, &left, &rest})), {B, K, N});
  // [B, M, N] back to aligned order: batch, left and right keep their sizes, the rest are 1.
  DimVector order = joined({&batch, &left, &right, &summed, &rest});
  DimVector shape;
  for (int64_t d : batch) shape.push_back(a.size(d));
  for (int64_t d : left) shape.push_back(a.size(d));
  for (int64_t d : right) shape.push_back(b.size(d));
  shape.resize(static_cast<size_t>(rank), 1);
  DimVector inverse(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) inverse[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  return permute(reshape(bmm(lhs, rhs), shape), inverse);
}

}  // namespace

Tensor impl_einsum(std::string_view equation, const std::vector<Tensor>& tensors) {
  if (autocast::applies("einsum", tensors))
    return autocast::run("einsum", tensors, [&](const autocast::Cast& cast) { return einsum(equation, cast(tensors)); });
  const std::string eq(equation);
  EMBER_CHECK_VALUE(!tensors.empty(), "einsum(): must specify the equation string and at least one operand");
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK_TYPE(tensors[i].dtype() == tensors[0].dtype(), "einsum(): operands must share a dtype, got ",
                     tensors[0].dtype(), " (operand 0) and ", tensors[i].dtype(), " (operand ", i, ")");
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string::npos ? eq.size() : arrow;
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = std::min(eq.find(',', begin), lhs_end);
    EMBER_CHECK_VALUE(terms.size() < tensors.size(),
                      "einsum(): fewer operands were provided than specified in the equation");
    terms.push_back(parse_term(eq, begin, comma, "operand " + std::to_string(terms.size())));
    if (comma >= lhs_end) break;
    begin = comma + 1;
  }
  EMBER_CHECK_VALUE(terms.size() == tensors.size(),
                    "einsum(): more operands were provided than specified in the equation");

  // The ellipsis dims: as many as the operand with most of them covers.
  int64_t num_ellipsis = 0;
  std::array<int64_t, kLetters> count{};
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t named = 0;
    for (int label : terms[i].labels) {
      if (label == kEllipsis) continue;
      ++count[static_cast<size_t>(label)];
      ++named;
    }
    if (terms[i].has_ellipsis) num_ellipsis = std::max(num_ellipsis, tensors[i].dim() - named);
  }

  // The output's labels (ids: letters 0..51, ellipsis dims kLetters + e).
  std::vector<int64_t> out_ids;
  if (arrow != std::string::npos) {
    Term out = parse_term(eq, arrow + 2, eq.size(), "output");
    std::array<bool, kLetters> seen{};
    for (int label : out.labels) {
      if (label == kEllipsis) {
        for (int64_t e = 0; e < num_ellipsis; ++e) out_ids.push_back(kLetters + e);
        continue;
      }
      EMBER_CHECK_VALUE(!seen[static_cast<size_t>(label)], "einsum(): output subscript ", letter_of(label),
                        " appears more than once in the output");
      EMBER_CHECK_VALUE(count[static_cast<size_t>(label)] > 0, "einsum(): output subscript ", letter_of(label),
                        " does not appear in the equation for any input operand");
      seen[static_cast<size_t>(label)] = true;
      out_ids.push_back(label);
    }
  } else {
    for (int64_t e = 0; e < num_ellipsis; ++e) out_ids.push_back(kLetters + e);
    for (int label = 0; label < kLetters; ++label)
      if (count[static_cast<size_t>(label)] == 1) out_ids.push_back(label);
  }

  // Aligned order: the output's labels, then the summed ones.
  const int64_t ids = kLetters + num_ellipsis;
  std::vector<int64_t> position(static_cast<size_t>(ids), -1);
  int64_t rank = 0;
  for (int64_t id : out_ids) position[static_cast<size_t>(id)] = rank++;
  for (int64_t id = 0; id < ids; ++id) {
    const bool used = id >= kLetters || count[static_cast<size_t>(id)] > 0;
    if (used && position[static_cast<size_t>(id)] < 0) position[static_cast<size_t>(id)] = rank++;
  }
  std::vector<Tensor> ops;
  for (size_t i = 0; i < tensors.size(); ++i)
    ops.push_back(align(tensors[i], terms[i], num_ellipsis, position, rank, i));

  // Sizes must agree or be 1 (which broadcasts), dim by dim.
  std::vector<int64_t> extent(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    for (int64_t id = 0; id < ids; ++id) {
      const int64_t d = position[static_cast<size_t>(id)];
      if (d < 0) continue;
      const int64_t size = ops[i].size(d), seen = extent[static_cast<size_t>(d)];
      if (size == 1) continue;
      if (id < kLetters) {
        EMBER_CHECK_VALUE(seen == 1 || seen == size, "einsum(): subscript ", letter_of(static_cast<int>(id)), " has size ",
                          size, " for operand ", i, " which does not broadcast with previously seen size ", seen);
      } else {
        EMBER_CHECK_VALUE(seen == 1 || seen == size, "einsum(): dimension ", id - kLetters,
                          " covered by ellipsis in operand ", i, " has size ", size,
                          " which does not broadcast with previously seen ellipsis with size ", seen,
                          " for the respective dimension");
      }
      extent[static_cast<size_t>(d)] = size;
    }
  }

  // Left to right: a dim is kept while the output or a later operand needs it.
  const int64_t out_rank = static_cast<int64_t>(out_ids.size());
  Tensor result = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> keep(static_cast<size_t>(rank), false);
    for (int64_t d = 0; d < rank; ++d) {
      keep[static_cast<size_t>(d)] = d < out_rank;
      for (size_t j = i + 1; j < ops.size() && !keep[static_cast<size_t>(d)]; ++j)
        keep[static_cast<size_t>(d)] = ops[j].size(d) != 1;
    }
    result = contract(result, ops[i], keep);
  }
  DimVector summed;
  for (int64_t d = out_rank; d < rank; ++d)
    if (result.size(d) != 1) summed.push_back(d);
  if (!summed.empty()) result = sum(result, summed, true);
  DimVector shape;
  for (int64_t d = 0; d < out_rank; ++d) shape.push_back(result.size(d));
  result = reshape(result, shape);
  // NB: as PyTorch's, a label summed out gives a new tensor even where its size is 1 (an in-place op on
  // einsum('ij->', x) of a [1, 1] x wrote into x); only a relabelling of one operand is a view of it.
  if (rank > out_rank && result.storage() == tensors[0].storage()) result = result.clone();
  return result;
}

}  // namespace ember
