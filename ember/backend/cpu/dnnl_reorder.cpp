// Note [Reorders as copies]
// oneDNN's reorders between ember's plain tensors and a primitive's blocked layouts are slow where they matter most:
// its generic `jit:uni` reorder moves a weight into OIhw16i16o at about 19 GB/s, so ResNet-18's CIFAR training step
// (batch 32) spent 14 of its 48 ms of oneDNN time in them (three per weight and step: into the forward's and the
// backward-data's layouts, and the weight gradient back), and padded activations (72 channels in blocks of 16)
// went at 24 GB/s against 65 for whole blocks. A layout with at most one block per dim is a strided view of its
// buffer: OIhw16i16o is [O/16, 16, I/16, 16, h, w] with strides (16 I h w, 1, 256 h w, 16, 256 w, 256). The plain
// tensor, split alike, is another view, so the reorder is ember's copy between the two, which runs as tiled
// register transposes (Note [Transposing copies] in copy.cpp) on ember's threads. A dim padded to whole blocks is
// copied as its whole blocks and then its last, partial one, and the padding of an input is zeroed, as oneDNN
// requires. Layouts with two blocks of one dim (the 16-bit formats' OIhw8i16o2i) keep oneDNN's reorder, and so do
// activations in whole channel blocks while ember's pool is busy with other pieces of the work: there oneDNN's
// `jit:blk` kernel is faster on one thread (a 256x56x56 activation in ResNet-50: 80 us against 114), while a copy
// run alone at two threads has the pool; also where the workers have not been arriving (expected_threads(), Note
// [Intra-op parallelism]: beside a busy process the copy would run on the caller alone). Measured in one process,
// alternating (2 threads unless said; reorders as copies where oneDNN's kernel is generic, and also where it is
// `jit:blk` and the copy runs alone, against oneDNN's reorders everywhere): MobileNetV3-L b1 6.83 against 7.43 ms, at 1
// thread 7.27 against 7.72; ResNet-50 b1 27.7 against 28.2; ResNet-18's CIFAR training step 34.9 against 36.2; the
// demo's CNN step 9.20 against 9.25.
#include "ember/backend/cpu/dnnl_reorder.h"

#include <array>
#include <optional>
#include <vector>

#include "ember/ops.h"

namespace ember::dnnl_cpu {

using dnnl::memory;

namespace {

// A dim of a blocked layout: its size, its block (1: not blocked), and the strides of the block index and of the
// position within a block, in elements.
struct Dim {
  int64_t size, block, outer, inner;
};

std::optional<std::vector<Dim>> blocked_dims(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.offset0 != 0 || d.extra.flags != 0) return std::nullopt;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  std::vector<Dim> dims(static_cast<size_t>(d.ndims));
  for (int i = 0; i < d.ndims; ++i) {
    if (d.dims[i] <= 0) return std::nullopt;
    dims[static_cast<size_t>(i)] = {d.dims[i], 1, b.strides[i], 0};
  }
  int64_t stride = 1;
  for (int k = b.inner_nblks - 1; k >= 0; --k) {  // the last block is the innermost
    Dim& x = dims[static_cast<size_t>(b.inner_idxs[k])];
    if (x.block != 1) return std::nullopt;
    x.block = b.inner_blks[k];
    x.inner = stride;
    stride *= x.block;
  }
  for (int i = 0; i < d.ndims; ++i) {
    const Dim& x = dims[static_cast<size_t>(i)];
    if (d.padded_dims[i] != (x.size + x.block - 1) / x.block * x.block) return std::nullopt;
  }
  return dims;
}

void push2(DimVector& v, int64_t a, int64_t b) {
  v.push_back(a);
  v.push_back(b);
}

ScalarType scalar_type(memory::data_type t) {
  switch (t) {
    case memory::data_type::f32: return ScalarType::Float32;
    case memory::data_type::bf16: return ScalarType::BFloat16;
    default: return ScalarType::Float16;
  }
}

}  // namespace

bool copyable(const memory::desc& user, const memory::desc& inner) {
  const auto dt = user.data_type();
  if (dt != inner.data_type() ||
      (dt != memory::data_type::f32 && dt != memory::data_type::bf16 && dt != memory::data_type::f16))
    return false;
  const auto u = blocked_dims(user), b = blocked_dims(inner);
  if (!u || !b || u->size() != b->size()) return false;
  for (size_t i = 0; i < u->size(); ++i)
    if ((*u)[i].block != 1 || (*u)[i].size != (*b)[i].size) return false;
  return true;
}

Tensor blocked_buffer(const memory::desc& md) {
  const ScalarType t = scalar_type(md.data_type());
  return empty({static_cast<int64_t>(md.get_size() / element_size(t))}, TensorOptions(t));
}

void copy_blocked(const memory::desc& user, const Tensor& t, const memory::desc& inner, const Tensor& blocked,
                  bool to_blocked) {
  const std::vector<Dim> u = *blocked_dims(user), b = *blocked_dims(inner);
  const size_t n = b.size();
  // Per dim, its whole blocks and its partial last one: (first block, blocks, positions per block).
  std::vector<std::array<std::array<int64_t, 3>, 2>> ranges(n);
  std::vector<int> nranges(n, 0), pick(n, 0);
  for (size_t d = 0; d < n; ++d) {
    const int64_t whole = b[d].size / b[d].block, tail = b[d].size % b[d].block;
    if (whole > 0) ranges[d][static_cast<size_t>(nranges[d]++)] = {0, whole, b[d].block};
    if (tail > 0) ranges[d][static_cast<size_t>(nranges[d]++)] = {whole, 1, tail};
  }
  for (;;) {  // every combination of ranges
    DimVector sizes, bs, us;
    int64_t boff = 0, uoff = t.storage_offset();
    for (size_t d = 0; d < n; ++d) {
      const auto [first, blocks, per] = ranges[d][static_cast<size_t>(pick[d])];
      if (b[d].block == 1) {
        sizes.push_back(b[d].size);
        bs.push_back(b[d].outer);
        us.push_back(u[d].outer);
        continue;
      }
      push2(sizes, blocks, per);
      push2(bs, b[d].outer, b[d].inner);
      push2(us, b[d].block * u[d].outer, u[d].outer);
      boff += first * b[d].outer;
      uoff += first * b[d].block * u[d].outer;
    }
    const Tensor bv = as_strided(blocked, sizes, bs, boff), uv = as_strided(t, sizes, us, uoff);
    (to_blocked ? bv : uv).copy_(to_blocked ? uv : bv);
    size_t d = 0;
    while (d < n && ++pick[d] == nranges[d]) pick[d++] = 0;
    if (d == n) break;
  }
  if (!to_blocked) return;
  for (size_t p = 0; p < n; ++p) {  // zeros in the padding of each padded dim p, across the others' whole extent
    const int64_t tail = b[p].size % b[p].block;
    if (tail == 0) continue;
    DimVector sizes, bs;
    for (size_t d = 0; d < n; ++d) {
      if (b[d].block == 1) {
        sizes.push_back(b[d].size);
        bs.push_back(b[d].outer);
      } else {
        push2(sizes, d == p ? 1 : (b[d].size + b[d].block - 1) / b[d].block, d == p ? b[d].block - tail : b[d].block);
        push2(bs, b[d].outer, b[d].inner);
      }
    }
    as_strided(blocked, sizes, bs, b[p].size / b[p].block * b[p].outer + tail * b[p].inner).zero_();
  }
}

}  // namespace ember::dnnl_cpu
