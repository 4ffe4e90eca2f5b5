// Note [Checked size arithmetic]
// Sizes and strides come from users (ember.empty(2**62), as_strided, a pad of 2**62) and from ops that derive
// output shapes from arguments (histogram's bins, fold's kernel area). Multiplied unchecked, they wrap: a
// storage of 2**62 float32 elements asks the allocator for 2**64 = 0 bytes and the kernel that fills it then
// writes past the heap. So every element count and every storage extent is computed here, with overflow checks,
// and nowhere else: the factories (empty_strided, from which every op's output comes), as_strided, resize_,
// pinned and shared memory. TensorImpl checks its numel the same way, so that views (expand) cannot wrap either.
// A byte count must fit in int64, as element offsets times the item size are int64 arithmetic everywhere.
#include "ember/sizes.h"

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

int64_t checked_numel(IntArrayRef size, const char* op) {
  int64_t n = 1;
  for (int64_t s : size) {
    EMBER_CHECK(s >= 0, op, ": Trying to create tensor with negative dimension ", s, ": ", shape_str(size));
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), op, ": the number of elements of shape ", shape_str(size),
                " overflows int64");
  }
  return n;
}

namespace {
[[noreturn, gnu::noinline, gnu::cold]] void overflowed(IntArrayRef size, const IntArrayRef* stride, const char* op) {
  if (stride)
    fail<Error>(op, ": Storage size calculation overflowed with sizes=", shape_str(size),
                " and strides=", shape_str(*stride));
  fail<Error>(op, ": Storage size calculation overflowed with sizes=", shape_str(size));
}
}  // namespace

int64_t storage_nbytes(IntArrayRef size, IntArrayRef stride, int64_t offset, size_t itemsize, const char* op) {
  EMBER_CHECK(size.size() == stride.size(), op, ": mismatch in length of strides and shape (", shape_str(size), " vs ",
              shape_str(stride), ")");
  EMBER_CHECK(offset >= 0, op, ": invalid storage offset ", offset);
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0, op, ": Trying to create tensor with negative dimension ", size[i], ": ", shape_str(size));
    EMBER_CHECK(stride[i] >= 0, op, ": negative strides are not supported, got ", shape_str(stride));
    empty |= size[i] == 0;
  }
  const auto es = static_cast<int64_t>(itemsize);
  int64_t last = offset, nbytes;  // the last element's index, then the bytes up to and including it
  if (empty) return 0;            // as PyTorch's computeStorageNbytes: nothing is read, whatever the offset
  for (size_t i = 0; i < size.size(); ++i) {
    int64_t span;
    if (__builtin_mul_overflow(size[i] - 1, stride[i], &span) || __builtin_add_overflow(last, span, &last))
      overflowed(size, &stride, op);
  }
  if (__builtin_add_overflow(last, 1, &last) || __builtin_mul_overflow(last, es, &nbytes))
    overflowed(size, &stride, op);
  return nbytes;
}

int64_t storage_nbytes(IntArrayRef size, size_t itemsize, const char* op) {
  int64_t n = 1;
  for (int64_t s : size) {
    EMBER_CHECK(s >= 0, op, ": Trying to create tensor with negative dimension ", s, ": ", shape_str(size));
    if (__builtin_mul_overflow(n, s, &n)) overflowed(size, nullptr, op);
  }
  if (__builtin_mul_overflow(n, static_cast<int64_t>(itemsize), &n)) overflowed(size, nullptr, op);
  return n;
}

int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    fail<Error>(op, ": ", what, " overflowed (", a, " * ", b, ")");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    fail<Error>(op, ": ", what, " overflowed (", a, " + ", b, ")");
  return r;
}

}  // namespace ember
