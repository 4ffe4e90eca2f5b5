// CUDA copy/cast, fill, arange and linspace through the one elementwise launcher (launch.cuh).
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/creation.h"
#include "ember/detail/convert.h"

namespace ember::cuda {

void copy_complex(const Tensor& dst, const Tensor& src);  // complex.cu
void fill_complex(const Tensor& dst, const Scalar& value);

namespace {

template <class T>
struct Identity {
  __device__ T operator()(T x) const { return x; }
};

template <class T>
struct FillFn {
  T v;
  __device__ void operator()(char* const* p) const { *reinterpret_cast<T*>(p[0]) = v; }
};

// Index of the element at p in a contiguous output starting at base.
template <class T>
__device__ int64_t index_of(const char* p, const char* base) {
  return (p - base) / static_cast<int64_t>(sizeof(T));
}

template <class T>
struct ArangeFn {
  char* base;
  double a, s;
  int64_t ia, is;
  __device__ void operator()(char* const* p) const {
    const int64_t i = index_of<T>(p[0], base);
    if constexpr (std::is_integral_v<T>)
      *reinterpret_cast<T*>(p[0]) = convert<T>(ia + i * is);
    else
      *reinterpret_cast<T*>(p[0]) = convert<T>(a + static_cast<double>(i) * s);
  }
};

template <class T>
struct LinspaceFn {
  char* out;
  double start, end, step, base;
  int64_t n;
  bool log_scale;
  __device__ void operator()(char* const* p) const {
    const int64_t i = index_of<T>(p[0], out);
    double v = i < n / 2 ? start + step * static_cast<double>(i) : end - step * static_cast<double>(n - 1 - i);
    if (log_scale) v = pow(base, v);
    *reinterpret_cast<T*>(p[0]) = convert<T>(v);
  }
};

// Element k of the contiguous dst is (i, j) of its matrix; it takes src's element where the triangle keeps it.
template <class T>
struct TriangleFn {
  char* base;
  int64_t rows, cols, diagonal;
  bool lower;
  __device__ void operator()(char* const* p) const {
    const int64_t k = index_of<T>(p[0], base), j = k % cols, i = k / cols % rows;
    const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
    *reinterpret_cast<T*>(p[0]) = keep ? *reinterpret_cast<const T*>(p[1]) : T(0);
  }
};

// One instantiation per destination dtype: a source of another dtype takes the launcher's casting path.
void copy(const Tensor& dst, const Tensor& src) {
  if (is_complex(dst.dtype()) || is_complex(src.dtype())) return copy_complex(dst, src);
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  DeviceGuard g(dst.device().index);
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    gpu_kernel<T, T, 1>(it, Identity<T>{});
  });
}

void fill(const Tensor& dst, const Scalar& value) {
  if (is_complex(dst.dtype())) return fill_complex(dst, value);
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  DeviceGuard g(dst.device().index);
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    launch_elementwise<1>(it, FillFn<T>{value.to<T>()});
  });
}

void arange(const Tensor& dst, const Scalar& start, const Scalar& step) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  DeviceGuard g(dst.device().index);
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    launch_elementwise<1>(it, ArangeFn<T>{static_cast<char*>(dst.data_ptr()), start.to_double(), step.to_double(),
                                          start.to_int(), step.to_int()});
  });
}

void linspace(const Tensor& dst, double start, double end, bool log_scale, double base) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  const int64_t n = dst.numel();
  const double step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0;
  DeviceGuard g(dst.device().index);
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    launch_elementwise<1>(it, LinspaceFn<T>{static_cast<char*>(dst.data_ptr()), start, end, step, base, n, log_scale});
  });
}

void triangle(const Tensor& dst, const Tensor& src, int64_t diagonal, bool lower) {
  if (dst.numel() == 0) return;
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  const int64_t nd = dst.dim();
  DeviceGuard g(dst.device().index);
  dispatch_size(dst.element_size(), [&](auto tag) {
    launch_elementwise<2>(it, TriangleFn<decltype(tag)>{static_cast<char*>(dst.data_ptr()), dst.sizes()[nd - 2],
                                                        dst.sizes()[nd - 1], diagonal, lower});
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(copy, CUDA, copy)
EMBER_REGISTER_KERNEL(triangle, CUDA, triangle)
EMBER_REGISTER_KERNEL(fill, CUDA, fill)
EMBER_REGISTER_KERNEL(arange, CUDA, arange)
EMBER_REGISTER_KERNEL(linspace, CUDA, linspace)

}  // namespace ember::cuda
