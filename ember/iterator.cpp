#include "ember/iterator.h"

#include <algorithm>
#include <numeric>

namespace ember {

StridedIter StridedIter::make(std::initializer_list<const Tensor*> ops, IntArrayRef shape) {
  StridedIter it;
  it.ntensors = static_cast<int>(ops.size());
  const int nd = static_cast<int>(shape.size());
  it.numel = 1;
  for (int64_t s : shape) it.numel *= s;

  // Fast path: every operand contiguous with exactly this shape is one flat dim.
  bool flat = true;
  for (const Tensor* t : ops)
    flat = flat && t->is_contiguous() && t->dim() == nd && std::equal(shape.begin(), shape.end(), t->sizes().begin());
  if (flat) {
    int k = 0;
    for (const Tensor* t : ops) {
      it.data[k] = static_cast<char*>(t->data_ptr());
      it.dtypes[k] = t->dtype();
      if (it.numel != 1) it.strides[k].push_back(static_cast<int64_t>(t->element_size()));
      ++k;
    }
    if (it.numel != 1) {
      it.shape.push_back(it.numel);
      it.ndim = 1;
    }
    return it;
  }

  // Byte strides per operand, in the operands' (outer-first) dim order; broadcast dims get 0.
  std::array<DimVector, kMaxOperands> st;
  int k = 0;
  for (const Tensor* t : ops) {
    it.data[k] = static_cast<char*>(t->data_ptr());
    it.dtypes[k] = t->dtype();
    const int64_t es = static_cast<int64_t>(t->element_size());
    const int off = nd - static_cast<int>(t->dim());
    st[k] = DimVector(nd, 0);
    for (int d = 0; d < t->dim(); ++d)
      st[k][off + d] = t->sizes()[d] == 1 && shape[off + d] != 1 ? 0 : t->strides()[d] * es;
    ++k;
  }

  // Order dims inner-first by the output's stride (ties: by the inputs'), dropping size-1 dims.
  DimVector perm;
  for (int d = nd - 1; d >= 0; --d)
    if (shape[d] != 1) perm.push_back(d);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    for (int i = 0; i < it.ntensors; ++i) {
      int64_t sa = std::abs(st[i][a]), sb = std::abs(st[i][b]);
      if (sa == 0 || sb == 0) continue;  // a broadcast dim says nothing about order
      if (sa != sb) return sa < sb;
    }
    return false;
  });

  // Merge dim j into the running dim when, for every operand, j continues it.
  for (int64_t d : perm) {
    if (it.ndim > 0) {
      const int64_t prev = it.shape[it.ndim - 1];
      bool merge = true;
      for (int i = 0; i < it.ntensors && merge; ++i) merge = st[i][d] == it.strides[i][it.ndim - 1] * prev;
      if (merge) {
        it.shape[it.ndim - 1] *= shape[d];
        continue;
      }
    }
    it.shape.push_back(shape[d]);
    for (int i = 0; i < it.ntensors; ++i) it.strides[i].push_back(st[i][d]);
    ++it.ndim;
  }
  return it;
}

}  // namespace ember
