#include "ember/backend/cpu/convert.h"

#include <array>

#include "ember/backend/cpu/half_convert.h"
#include "ember/detail/convert.h"

namespace ember::cpu {
namespace {

// float32 <-> bfloat16/float16, contiguous: the vectorized conversions (Note [Vectorized 16-bit conversion]).
template <class From, class To>
bool fast(const char* src, char* dst, int64_t n) {
  if constexpr (sizeof(From) + sizeof(To) == 6 && std::is_floating_point_v<From> != std::is_floating_point_v<To>)
    return convert_contiguous(scalar_type_of<From>, scalar_type_of<To>, src, dst, n);
  else
    return false;
}

template <class From, class To>
void load(const char* src, int64_t stride, char* dst, int64_t n) {
  To* d = reinterpret_cast<To*>(dst);
  if (stride == 0) {
    const To v = convert<To>(*reinterpret_cast<const From*>(src));
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  } else if (stride == sizeof(From)) {
    if (fast<From, To>(src, dst, n)) return;
    const From* s = reinterpret_cast<const From*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(*reinterpret_cast<const From*>(src + i * stride));
  }
}

template <class From, class To>
void store(const char* src, char* dst, int64_t stride, int64_t n) {
  const From* s = reinterpret_cast<const From*>(src);
  if (stride == sizeof(To)) {
    if (fast<From, To>(src, dst, n)) return;
    To* d = reinterpret_cast<To*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<To*>(dst + i * stride) = convert<To>(s[i]);
  }
}

template <class Fn, template <class, class> class Impl>
struct Table {
  std::array<std::array<Fn, kNumScalarTypes>, kNumScalarTypes> fns{};
  Table() {
    for (int a = 0; a < kNumScalarTypes; ++a)
      for (int b = 0; b < kNumScalarTypes; ++b)
        fns[a][b] = dispatch_any(static_cast<ScalarType>(a), [&](auto x) {
          return dispatch_any(static_cast<ScalarType>(b),
                              [&](auto y) -> Fn { return &Impl<decltype(x), decltype(y)>::run; });
        });
  }
};

template <class From, class To>
struct LoadImpl {
  static void run(const char* src, int64_t stride, char* dst, int64_t n) { load<From, To>(src, stride, dst, n); }
};
template <class From, class To>
struct StoreImpl {
  static void run(const char* src, char* dst, int64_t stride, int64_t n) { store<From, To>(src, dst, stride, n); }
};

}  // namespace

LoadFn load_fn(ScalarType from, ScalarType to) {
  static const Table<LoadFn, LoadImpl> t;
  return t.fns[static_cast<int>(from)][static_cast<int>(to)];
}

StoreFn store_fn(ScalarType from, ScalarType to) {
  static const Table<StoreFn, StoreImpl> t;
  return t.fns[static_cast<int>(from)][static_cast<int>(to)];
}

}  // namespace ember::cpu
