// einsum (PyTorch's algorithm): parse the equation; give every operand the same dims in one order of all labels
// (output labels first, then the summed ones), taking diagonals for repeated labels and inserting size-1 dims for
// missing ones; then contract left to right, each pair through one bmm, summing a label as soon as no later
// operand has it. Built from views, sums and bmm, so the gradient comes from theirs.
#include <array>
#include <sstream>
#include <string>

#include "ember/autocast.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"

namespace ember {

namespace {

constexpr int kLetters = 52;  // A-Z then a-z, PyTorch's (and NumPy's) order for the implicit output
constexpr int kEllipsis = -1;

int label_of(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : -2; }
char char_of(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + label - 26); }

// The subscripts of one term: labels, with kEllipsis where "..." stands.
std::vector<int> parse_term(std::string_view eq, size_t begin, size_t end, const std::string& who) {
  std::vector<int> r;
  bool ellipsis = false;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!ellipsis, "einsum(): found '.' for ", who, " for which an ellipsis was already found");
      EMBER_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', "einsum(): found '.' for ", who,
                  " that is not part of any ellipsis");
      ellipsis = true;
      r.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int l = label_of(c);
    EMBER_CHECK(l >= 0, "einsum(): invalid subscript given at index ", i,
                " in the equation string, subscripts must be in [a-zA-Z]");
    r.push_back(l);
  }
  return r;
}

// left (x) right summed over the dims in `summed`, both of one rank; keeps every dim (size 1 where summed).
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<bool>& summed) {
  const int64_t nd = left.dim();
  DimVector lro, lo, sd, ro;
  int64_t lro_size = 1, lo_size = 1, sum_size = 1, ro_size = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const bool sl = left.sizes()[d] != 1, sr = right.sizes()[d] != 1;
    if (summed[d]) {
      if (sl && sr) {
        sd.push_back(d);
        sum_size *= left.sizes()[d];
        continue;
      }
      if (sl) left = sum(left, {{d}}, true);
      if (sr) right = sum(right, {{d}}, true);
      ro.push_back(d);  // now size 1 on both sides
    } else if (sl && sr) {
      lro.push_back(d);
      lro_size *= left.sizes()[d];
    } else if (sl) {
      lo.push_back(d);
      lo_size *= left.sizes()[d];
    } else {
      ro.push_back(d);
      ro_size *= right.sizes()[d];
    }
  }
  // Nothing to contract: a broadcast product, as PyTorch's (the same numbers as a GEMM over one term, without its
  // packing; and it runs for the dtypes that have no GEMM, as complex32).
  if (sd.empty()) return mul(left, right);
  DimVector lperm, rperm, out_shape;
  for (const DimVector* g : {&lro, &lo, &sd, &ro})
    for (int64_t d : *g) lperm.push_back(d);
  for (const DimVector* g : {&lro, &sd, &ro, &lo})
    for (int64_t d : *g) rperm.push_back(d);
  for (int64_t d : lro) out_shape.push_back(left.sizes()[d]);
  for (int64_t d : lo) out_shape.push_back(left.sizes()[d]);
  for (size_t i = 0; i < sd.size(); ++i) out_shape.push_back(1);
  for (int64_t d : ro) out_shape.push_back(right.sizes()[d]);
  const Tensor l = reshape(permute(left, lperm), {{lro_size, lo_size, sum_size}});
  const Tensor r = reshape(permute(right, rperm), {{lro_size, sum_size, ro_size}});
  const Tensor p = reshape(bmm(l, r), out_shape);
  DimVector inverse(nd);
  for (int64_t i = 0; i < nd; ++i) inverse[lperm[i]] = i;
  return permute(p, inverse);
}

}  // namespace

Tensor einsum(std::string_view eq, const std::vector<Tensor>& operands) {
  EMBER_AUTOCAST(autocast::kLowerCuda, einsum, eq, operands);
  EMBER_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  check_same_device("einsum()", operands);
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string_view::npos ? eq.size() : arrow;
  for (size_t i = 0; i < lhs_end; ++i)
    EMBER_CHECK(eq[i] != '-' && eq[i] != '>', "einsum(): invalid subscript given at index ", i,
                " in the equation string, subscripts must be in [a-zA-Z]");

  // ---- the input terms
  std::vector<std::vector<int>> terms;
  for (size_t begin = 0;;) {
    const size_t comma = eq.find(',', begin);
    const size_t end = comma == std::string_view::npos || comma > lhs_end ? lhs_end : comma;
    const size_t i = terms.size();
    EMBER_CHECK(i < operands.size(), "einsum(): fewer operands were provided than were specified in the equation");
    terms.push_back(parse_term(eq, begin, end, "operand " + std::to_string(i)));
    if (end == lhs_end) break;
    begin = end + 1;
  }
  EMBER_CHECK(terms.size() == operands.size(), "einsum(): more operands were provided than specified in the equation");

  // ---- labels of every dim of every operand; ellipsis dims get labels kLetters + j, aligned to the right
  std::array<int, kLetters> count{};
  int64_t ell_num = 0;
  bool any_ellipsis = false;
  std::vector<int64_t> ell_dims(operands.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t labels = 0;
    bool ell = false;
    for (int l : terms[i]) {
      if (l == kEllipsis)
        ell = true;
      else {
        ++labels;
        ++count[l];
      }
    }
    const int64_t nd = operands[i].dim();
    if (ell) {
      EMBER_CHECK(labels <= nd, "einsum(): the number of subscripts in the equation (", labels,
                  ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell_dims[i] = nd - labels;
      ell_num = std::max(ell_num, ell_dims[i]);
      any_ellipsis = true;
    } else {
      EMBER_CHECK(labels == nd, "einsum(): the number of subscripts in the equation (", labels,
                  ") does not match the number of dimensions (", nd, ") for operand ", i, " and no ellipsis was given");
    }
  }

  // ---- the output: its labels in order, then the summed labels; `position` of each label in that order
  std::vector<int> order;
  bool out_ellipsis = false;
  if (arrow != std::string_view::npos) {
    std::array<bool, kLetters> seen{};
    for (int l : parse_term(eq, arrow + 2, eq.size(), "output")) {
      if (l == kEllipsis) {
        out_ellipsis = true;
        for (int64_t j = 0; j < ell_num; ++j) order.push_back(kLetters + static_cast<int>(j));
        continue;
      }
      EMBER_CHECK(count[l] > 0, "einsum(): output subscript ", char_of(l),
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(!seen[l], "einsum(): output subscript ", char_of(l), " appears more than once in the output");
      seen[l] = true;
      order.push_back(l);
    }
  } else {
    out_ellipsis = any_ellipsis;
    for (int64_t j = 0; j < ell_num; ++j) order.push_back(kLetters + static_cast<int>(j));
    for (int l = 0; l < kLetters; ++l)
      if (count[l] == 1) order.push_back(l);
  }
  const int64_t n_out = static_cast<int64_t>(order.size());
  std::vector<int> position(kLetters + ell_num, -1);
  for (int64_t i = 0; i < n_out; ++i) position[order[i]] = static_cast<int>(i);
  for (int l = 0; l < kLetters; ++l)
    if (count[l] > 0 && position[l] < 0) {
      position[l] = static_cast<int>(order.size());
      order.push_back(l);
    }
  if (!out_ellipsis)
    for (int64_t j = 0; j < ell_num; ++j) {
      position[kLetters + j] = static_cast<int>(order.size());
      order.push_back(kLetters + static_cast<int>(j));
    }
  const int64_t nd_all = static_cast<int64_t>(order.size());

  // ---- every operand aligned to `order`
  std::vector<Tensor> ops;
  std::vector<std::vector<bool>> has(operands.size(), std::vector<bool>(nd_all, false));
  for (size_t i = 0; i < operands.size(); ++i) {
    Tensor t = operands[i];
    std::vector<int> labels;
    for (int l : terms[i]) {
      if (l != kEllipsis) {
        labels.push_back(l);
        continue;
      }
      for (int64_t j = 0; j < ell_dims[i]; ++j)
        labels.push_back(kLetters + static_cast<int>(ell_num - ell_dims[i] + j));
    }
    // A repeated label takes the diagonal (which diagonal() moves to the last dim).
    for (bool again = true; again;) {
      again = false;
      for (size_t p = 0; p < labels.size() && !again; ++p)
        for (size_t q = p + 1; q < labels.size() && !again; ++q)
          if (labels[p] == labels[q]) {
            EMBER_CHECK(t.sizes()[p] == t.sizes()[q], "einsum(): subscript ", char_of(labels[p]),
                        " is repeated for operand ", i, " but the sizes don't match, ", t.sizes()[p],
                        " != ", t.sizes()[q]);
            t = diagonal(t, 0, static_cast<int64_t>(p), static_cast<int64_t>(q));
            const int l = labels[p];
            labels.erase(labels.begin() + q);
            labels.erase(labels.begin() + p);
            labels.push_back(l);
            again = true;
          }
    }
    DimVector perm;
    for (int64_t g = 0; g < nd_all; ++g)
      for (size_t d = 0; d < labels.size(); ++d)
        if (position[labels[d]] == g) {
          perm.push_back(static_cast<int64_t>(d));
          has[i][g] = true;
        }
    t = permute(t, perm);
    DimVector shape;
    for (int64_t g = 0, d = 0; g < nd_all; ++g) shape.push_back(has[i][g] ? t.sizes()[d++] : 1);
    ops.push_back(reshape(t, shape));
  }
  for (int64_t g = 0; g < nd_all; ++g) {  // sizes of one label agree (or are 1, which broadcasts)
    int64_t size = 1;
    for (const Tensor& t : ops) {
      const int64_t s = t.sizes()[g];
      if (s == 1) continue;
      if (size != 1 && s != size) {
        std::ostringstream msg;
        for (size_t i = 0; i < ops.size(); ++i)
          msg << " " << shape_str(operands[i].sizes()) << "->" << shape_str(ops[i].sizes());
        fail<Error>("einsum(): operands do not broadcast with remapped shapes (original->remapped):", msg.str());
      }
      size = s;
    }
  }

  // ---- contraction, left to right
  Tensor r = ops[0];
  if (ops.size() == 1) {
    DimVector dims;
    for (int64_t g = n_out; g < nd_all; ++g) dims.push_back(g);
    if (!dims.empty()) r = sum(r, dims, true);
  }
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> summed(nd_all, false);
    for (int64_t g = n_out; g < nd_all; ++g) {
      summed[g] = true;
      for (size_t j = i + 1; j < ops.size(); ++j)
        if (has[j][g]) summed[g] = false;
    }
    r = sumproduct_pair(r, ops[i], summed);
  }
  DimVector out_shape;
  for (int64_t g = 0; g < n_out; ++g) out_shape.push_back(r.sizes()[g]);
  return reshape(r, out_shape);
}

}  // namespace ember
