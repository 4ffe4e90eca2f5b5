// The matrix products: PyTorch's shape rules and messages, broadcasting of batch dims, and their gradient formula.
// mm, bmm, mv, dot, addmm, baddbmm, addmv, the 1-d cases of matmul and linear all run through product(), one
// kernel call and one graph node each; the rest are compositions of those and of views.
#include "ember/ops/linalg.h"

#include <algorithm>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/blas.h"
#include "ember/backend/kernels/blas.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// The names PyTorch prints for dtypes in some matmul messages (C++ type names: "float != double").
const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "unsigned char";
    case ScalarType::Int8: return "signed char";
    case ScalarType::Int16: return "short int";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "long int";
    case ScalarType::Float16: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    case ScalarType::ComplexHalf: return "c10::complex<c10::Half>";
  }
  return "?";
}

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

// Complex factors count their imaginary parts (1j is neither zero nor one).
bool is_zero(const Scalar& s) {
  return s.is_complex() || s.is_floating() ? s.to_complex() == Complex<double>(0) : s.to_int() == 0;
}
bool is_one(const Scalar& s) {
  return s.is_complex() || s.is_floating() ? s.to_complex() == Complex<double>(1) : s.to_int() == 1;
}

Tensor scaled(const Tensor& t, const Scalar& s) { return is_one(s) ? t : mul(t, s); }

// The factor a gradient takes for a factor s of the forward: its conjugate (Note [Complex gradients]).
Scalar grad_factor(const Scalar& s) { return s.is_complex() ? Scalar(conj(s.to_complex())) : s; }

void check_device(const Tensor& a, const Tensor& b, const char* op) {
  if (b.defined() && a.device() != b.device()) [[unlikely]]
    fail<Error>(op, ": Expected all tensors to be on the same device, but found at least two devices, ", a.device(),
                " and ", b.device(), "!");
}

void check_not_bool(const Tensor& a) {
  if (a.dtype() == ScalarType::Bool) [[unlikely]]
    fail<NotImplementedError>("\"addmm_impl_cpu_\" not implemented for 'Bool'");
}

std::string mat_str(const Tensor& t) { return detail::cat(t.sizes()[t.dim() - 2], "x", t.sizes()[t.dim() - 1]); }

DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().first(t.dim() - 2)); }

// x as the matmul kernel takes it: its matrix dims row- or column-major (copied when neither), its batch dims
// broadcast to `batch` with stride 0 (no copy).
Tensor kernel_operand(const Tensor& x, IntArrayRef batch) {
  const int64_t nd = x.dim(), r = x.sizes()[nd - 2], c = x.sizes()[nd - 1];
  bool trans;
  int64_t ld;
  const Tensor t = blas_layout(r, c, x.strides()[nd - 2], x.strides()[nd - 1], trans, ld) ? x : contiguous(x);
  const int64_t nb = static_cast<int64_t>(batch.size()), lead = nb - (nd - 2);
  DimVector sizes(batch), strides(nb, 0);
  for (int64_t i = 0; i < nd - 2; ++i)
    if (t.sizes()[i] == batch[lead + i]) strides[lead + i] = t.strides()[i];
  sizes.push_back(r);
  sizes.push_back(c);
  strides.push_back(t.strides()[nd - 2]);
  strides.push_back(t.strides()[nd - 1]);
  return make_view(t, sizes, strides, t.storage_offset());
}

// a's batch dims and rows viewed as the rows of one matrix [rows, k], or an undefined tensor when its layout
// does not allow it.
Tensor fold_rows(const Tensor& a) {
  const int64_t nd = a.dim(), k = a.sizes()[nd - 1];
  int64_t rows = 1, row_stride = -1, expect = -1;
  for (int64_t d = nd - 2; d >= 0; --d) {
    const int64_t s = a.sizes()[d];
    rows *= s;
    if (s == 1) continue;
    if (row_stride < 0)
      row_stride = a.strides()[d];
    else if (a.strides()[d] != expect)
      return {};
    expect = a.strides()[d] * s;
  }
  if (row_stride < 0) row_stride = std::max<int64_t>(k, 1);
  bool trans;
  int64_t ld;
  if (!blas_layout(rows, k, row_stride, a.strides()[nd - 1], trans, ld) || (trans && rows > 1)) return {};
  return make_view(a, {{rows, k}}, {{row_stride, a.strides()[nd - 1]}}, a.storage_offset());
}

// out = alpha * (a @ b) + c with c a bias vector [n], added by the BLAS's epilogue where the backend has one
// (backend/kernels/blas.h); false when the case does not fit, having written nothing.
bool product_with_bias(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& beta,
                       const Scalar& alpha, IntArrayRef batch) {
  auto* fn = matmul_bias_kernel.fn[static_cast<int>(out.device().type)];
  if (!fn || b.dim() != 2 || c.dim() != 1 || !is_one(beta)) return false;
  // Its kernel would see resolved copies of conjugate operands; the matmul kernel takes them as they are.
  if (a.is_conj() || b.is_conj() || c.is_conj()) return false;
  const int64_t k = b.sizes()[0], n = b.sizes()[1];
  if (k == 0 || c.sizes()[0] != n || (n > 1 && c.strides()[0] != 1)) return false;
  Tensor a2 = a;
  if (!batch.empty()) {
    a2 = fold_rows(a);
    if (!a2.defined()) a2 = fold_rows(contiguous(a));
  }
  a2 = kernel_operand(a2, {});
  const int64_t rows = a2.sizes()[0];
  return matmul_bias_kernel[out.device()](make_view(out, {{rows, n}}, {{n, 1}}, 0), a2, kernel_operand(b, {}), c,
                                          alpha);
}

// out (of `result` shape, which is prod's shape without the dims of 1-d operands) = beta * c + alpha * (a @ b),
// for a [..., m, k] and b [..., k, n] with broadcasting batch dims. No recording.
Tensor compute_product(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& beta, const Scalar& alpha,
                       IntArrayRef batch, IntArrayRef prod, IntArrayRef result) {
  // 16-bit floats go to the kernel as they are: float32 accumulation, one rounding (oneDNN on the CPU, cuBLAS).
  const ScalarType dt = a.dtype();
  Tensor out = empty(result, TensorOptions(dt).device(a.device()));
  const bool use_c = c.defined() && !is_zero(beta);
  if (out.numel() == 0) return out;
  if (use_c && product_with_bias(out, a, b, c, beta, alpha, batch)) return out;
  if (use_c) copy_into(out, c);
  const Scalar b_eff = use_c ? beta : Scalar(0);
  const int64_t m = prod[prod.size() - 2], n = prod[prod.size() - 1];
  if (!batch.empty() && b.dim() == 2 && m > 0) {
    // b has no batch: one GEMM over all of a's rows (folding a copy of a when its layout needs one; a conjugate view
    // that does not fold, as a.mH, runs as a batch against the broadcast b instead: its copy would be a resolution).
    Tensor a2 = fold_rows(a);
    if (!a2.defined() && !a.is_conj()) a2 = fold_rows(contiguous(a));
    if (a2.defined()) {
      const int64_t rows = a2.sizes()[0];
      matmul_kernel[a.device()](make_view(out, {{rows, n}}, {{n, 1}}, 0), a2, kernel_operand(b, {}), alpha, b_eff);
      return out;
    }
  }
  matmul_kernel[a.device()](make_view(out, prod, contiguous_strides(prod), 0), kernel_operand(a, batch),
                            kernel_operand(b, batch), alpha, b_eff);
  return out;
}

// Whether matrix t is the transpose of a dense row-major matrix (and not itself row-major).
bool transposed_dense(const Tensor& t) {
  return t.dim() == 2 && t.size(0) > 1 && t.size(1) > 1 && t.stride(0) == 1 && t.stride(1) == t.size(0);
}

// The gradients of product()'s node (below): of a, b and c, from the saved a and b.
struct ProductGrad {
  Scalar beta, alpha;
  bool a_vec, b_vec, fold, a_t, b_t;  // a_t, b_t: Note [Gradients in the operand's layout]
  DimVector prod;
  TensorList operator()(FormulaNode& n, TensorList& g) const {
    const Tensor gp = reshape(g[0], prod);
    Tensor A = n.saved_tensor(0), B = n.saved_tensor(1), ga, gb, gc;
    // complex: the gradients multiply by the conjugate transposes (Note [Complex gradients]), conj views that the
    // matmul kernel takes without a copy (Note [Conjugate operands of GEMM] in backend/cpu/blas.cpp)
    if (A.defined()) A = conj(A);
    if (B.defined()) B = conj(B);
    if (A.defined() && a_vec) A = unsqueeze(A, 0);
    if (B.defined() && b_vec) B = unsqueeze(B, -1);
    if (n.needs(0)) {
      ga = a_t ? mT(matmul(B, mT(gp))) : matmul(gp, mT(B));
      ga = scaled(a_vec ? squeeze(ga, -2) : ga, grad_factor(alpha));
    }
    if (n.needs(1)) {
      const Tensor A2 = fold ? reshape(A, {{-1, A.sizes()[A.dim() - 1]}}) : A;
      const Tensor gp2 = fold ? reshape(gp, {{-1, gp.sizes()[gp.dim() - 1]}}) : gp;
      gb = b_t ? mT(matmul(mT(gp2), A2)) : fold ? mm(mT(A2), gp2) : matmul(mT(A2), gp2);
      gb = scaled(b_vec ? squeeze(gb, -1) : gb, grad_factor(alpha));
    }
    if (n.needs(2)) gc = is_zero(beta) ? zeros_like(g[0]) : scaled(g[0], grad_factor(beta));
    return TensorList{ga, gb, gc};
  }
};

// The product of a and b, plus beta * c, with one graph node named `name` (Note [Recording an op]). a_vec: a is
// 1-d, taken as a row [1, k]; b_vec: b is 1-d, taken as a column [k, 1]; their unit dims are dropped from the
// result. c broadcasts to the result's shape. Shapes and dtypes were checked by the caller.
Tensor product(const char* name, const Tensor& a_in, const Tensor& b_in, const Tensor& c, const Scalar& beta,
               const Scalar& alpha, bool a_vec = false, bool b_vec = false) {
  if (a_in.dtype() == ScalarType::ComplexHalf) [[unlikely]] {  // Note [complex32]: PyTorch's kernel names
    const std::string_view n = name;
    fail_complex_half(n == "BmmBackward0"    ? "bmm"
                      : n == "MvBackward0"   ? "addmv_impl_cpu"
                      : n == "DotBackward0"  ? "dot"
                      : n == "VdotBackward0" ? "vdot"
                                             : "addmm_impl_cpu_");
  }
  const bool record = autograd::needs_grad({&a_in, &b_in, &c});
  DimVector batch, prod, result;
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    const Tensor a = a_vec ? unsqueeze(a_in, 0) : a_in;
    const Tensor b = b_vec ? unsqueeze(b_in, -1) : b_in;
    batch = broadcast_shapes(batch_of(a), batch_of(b), "matmul");
    const int64_t m = a.sizes()[a.dim() - 2], n = b.sizes()[b.dim() - 1];
    prod = batch;
    prod.push_back(m);
    prod.push_back(n);
    result = batch;
    if (!a_vec) result.push_back(m);
    if (!b_vec) result.push_back(n);
    out = compute_product(a, b, c, beta, alpha, batch, prod, result);
  }
  if (!record) [[likely]]
    return out;
  // b without batch dims and a with: gb as one GEMM over all of a's rows, rather than a batch summed afterwards.
  const bool fold = b_in.dim() <= 2 && a_in.dim() > 2;
  // Note [Gradients in the operand's layout]
  // A matrix operand that is a transposed view of dense memory (linear's weight.t(), the common case) gets its
  // gradient computed transposed, (g^T a)^T rather than a^T g: the same GEMM with its operands swapped, whose dense
  // result is laid out as the weight itself. Computed as a^T g it was the transpose of the weight's layout, and
  // AccumulateGrad copied it into the weight's (every Linear's weight, every step). Likewise for a.
  const bool a_t = !a_vec && a_in.dim() == 2 && b_in.dim() <= 2 && transposed_dense(a_in);
  const bool b_t = !b_vec && b_in.dim() == 2 && transposed_dense(b_in);
  const ProductGrad grad{beta, alpha, a_vec, b_vec, fold, a_t, b_t, prod};
  auto node = autograd::make_node(name, {&a_in, &b_in, &c},
                                  [grad](FormulaNode& n, TensorList& g) { return grad(n, g); });
  node->save(node->needs(1) ? a_in : Tensor());
  node->save(node->needs(0) ? b_in : Tensor());
  autograd::set_history(out, node);
  return out;
}

void check_mm_dtypes(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected m1 and m2 to have the same dtype, but got: ", cpp_type_name(a.dtype()),
              " != ", cpp_type_name(b.dtype()));
  check_not_bool(a);
}

void check_bmm_dtypes(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", type_label(a.dtype()), " but found ",
              type_label(b.dtype()));
  check_not_bool(a);
}

// input of an add* op: broadcastable to the product's shape, of the product's dtype.
void check_input(const Tensor& input, const Tensor& m, IntArrayRef shape, const char* op) {
  check_device(m, input, op);
  if (!autograd::is_expandable_to(input.sizes(), shape)) expand(input, shape);  // raises expand's message
  EMBER_CHECK(input.dtype() == m.dtype(), "self and mat2 must have the same dtype, but got ", type_label(input.dtype()),
              " and ", type_label(m.dtype()));
}

void check_mm_shapes(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.sizes()[a.dim() - 1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", mat_str(a),
              " and ", mat_str(b), ")");
}

void check_bmm_args(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  check_device(a, b, "bmm");
  check_bmm_dtypes(a, b);
  EMBER_CHECK(b.sizes()[0] == a.sizes()[0] && b.sizes()[1] == a.sizes()[2],
              "Expected size for first two dimensions of batch2 tensor to be: [", a.sizes()[0], ", ", a.sizes()[2],
              "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
}

void check_mv_args(const Tensor& mat, const Tensor& vec, int64_t input_dim) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && input_dim <= 1, "vector + matrix @ vector expected, got ", input_dim,
              ", ", mat.dim(), ", ", vec.dim());
  check_device(mat, vec, "mv");
  check_bmm_dtypes(mat, vec);
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], "size mismatch, got input (", mat.sizes()[0], "), mat (", mat_str(mat),
              "), vec (", vec.sizes()[0], ")");
}

Tensor dot_impl(const Tensor& a, const Tensor& b, const char* op, const char* grad_name) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(), "D tensors");
  check_device(a, b, op);
  EMBER_CHECK(a.dtype() == b.dtype(), op, " : expected both vectors to have same dtype, but found ",
              type_label(a.dtype()), " and ", type_label(b.dtype()));
  check_not_bool(a);
  EMBER_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
              b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
              " elements respectively");
  return product(grad_name, a, b, {}, 0, 1, true, true);
}

// self = f() for the in-place add* ops, f being the out-of-place op on self and the other operands
// (Note [In-place ops]); the result must have self's shape.
template <class F>
const Tensor& inplace(const Tensor& self, const Tensor& x, const Tensor& y, const char* op, F&& f) {
  auto compute = [&] {
    Tensor r = f();
    EMBER_CHECK(std::ranges::equal(r.sizes(), self.sizes()), op, ": the result of shape ", shape_str(r.sizes()),
                " cannot be written into self of shape ", shape_str(self.sizes()));
    return r;
  };
  if (autograd::needs_grad({&self, &x, &y})) return autograd::inplace_with_grad(self, op, compute);
  copy_(self, compute());
  return self;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_PY_DISPATCH(Tensor, "aten.mm.default", a, b);
  EMBER_AUTOCAST(autocast::kLower, mm, a, b);
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  check_device(a, b, "mm");
  check_mm_dtypes(a, b);
  check_mm_shapes(a, b);
  return product("MmBackward0", a, b, {}, 0, 1);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_PY_DISPATCH(Tensor, "aten.bmm.default", a, b);
  EMBER_AUTOCAST(autocast::kLower, bmm, a, b);
  check_bmm_args(a, b);
  return product("BmmBackward0", a, b, {}, 0, 1);
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  EMBER_AUTOCAST(autocast::kLowerCuda, mv, mat, vec);
  check_mv_args(mat, vec, 1);
  return product("MvBackward0", mat, vec, {}, 0, 1, false, true);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, dot, a, b);
  return dot_impl(a, b, "dot", "DotBackward0");
}
Tensor vdot(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, vdot, a, b);
  return dot_impl(conj(a), b, "vdot", "VdotBackward0");  // sum(conj(a) * b): the kernel's dotc, no copy
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  EMBER_PY_DISPATCH(Tensor, "aten.matmul.default", a, b);
  EMBER_AUTOCAST(autocast::kLower, matmul, a, b);
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da >= 1 && db >= 1, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
              "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 2 && db == 2) return mm(a, b);
  check_device(a, b, "matmul");
  const int64_t ka = a.sizes()[da - 1], kb = b.sizes()[db == 1 ? 0 : db - 2];
  if (da == 1 && db == 2) {
    check_mm_dtypes(a, b);
    EMBER_CHECK(ka == kb, "mat1 and mat2 shapes cannot be multiplied (1x", ka, " and ", mat_str(b), ")");
    return product("MmBackward0", a, b, {}, 0, 1, true, false);
  }
  if (da >= 3 && db <= 2) {  // folded into one matrix product, as PyTorch
    check_mm_dtypes(a, b);
    EMBER_CHECK(ka == kb, "mat1 and mat2 shapes cannot be multiplied (", a.numel() / std::max<int64_t>(ka, 1), "x", ka,
                " and ", kb, "x", db == 1 ? 1 : b.sizes()[1], ")");
    return product("MmBackward0", a, b, {}, 0, 1, false, db == 1);
  }
  check_bmm_dtypes(a, b);
  const DimVector batch = broadcast_shapes(a.sizes().first(std::max<int64_t>(da - 2, 0)),
                                           b.sizes().first(std::max<int64_t>(db - 2, 0)), "matmul");
  if (ka != kb) {
    int64_t count = 1;
    for (int64_t s : batch) count *= s;
    fail<Error>("Expected size for first two dimensions of batch2 tensor to be: [", count, ", ", ka, "] but got: [",
                count, ", ", kb, "].");
  }
  return product("BmmBackward0", a, b, {}, 0, 1, da == 1, db == 1);
}

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  EMBER_PY_DISPATCH(Tensor, "aten.addmm.default", input, m1, m2, beta, alpha);
  EMBER_AUTOCAST(autocast::kLower, addmm, input, m1, m2, beta, alpha);
  EMBER_CHECK(m1.dim() == 2, "mat1 must be a matrix, got ", m1.dim(), "-D tensor");
  EMBER_CHECK(m2.dim() == 2, "mat2 must be a matrix, got ", m2.dim(), "-D tensor");
  check_device(m1, m2, "addmm");
  EMBER_CHECK(m1.dtype() == m2.dtype(),
              "expected mat1 and mat2 to have the same dtype, but got: ", cpp_type_name(m1.dtype()),
              " != ", cpp_type_name(m2.dtype()));
  check_not_bool(m1);
  check_mm_shapes(m1, m2);
  check_input(input, m1, {{m1.sizes()[0], m2.sizes()[1]}}, "addmm");
  return product("AddmmBackward0", m1, m2, input, beta, alpha);
}

Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(autocast::kLowerCuda, addmv, input, mat, vec, beta, alpha);
  check_mv_args(mat, vec, input.dim());
  check_input(input, mat, {{mat.sizes()[0]}}, "addmv");
  return product("AddmvBackward0", mat, vec, input, beta, alpha, false, true);
}

Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(autocast::kLowerCuda, addr, input, v1, v2, beta, alpha);
  EMBER_CHECK(v1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", v1.dim(), "-D");
  EMBER_CHECK(v2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", v2.dim(), "-D");
  check_device(v1, v2, "addr");
  check_input(input, v1, {{v1.numel(), v2.numel()}}, "addr");
  Tensor prod = scaled(outer(v1, v2), alpha);
  if (is_zero(beta)) return prod;  // input is ignored, NaN included
  return add(prod, scaled(input, beta));
}

Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(autocast::kLower, baddbmm, input, b1, b2, beta, alpha);
  check_bmm_args(b1, b2);
  check_input(input, b1, {{b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]}}, "baddbmm");
  return product("BaddbmmBackward0", b1, b2, input, beta, alpha);
}

Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(autocast::kLower, addbmm, input, b1, b2, beta, alpha);
  EMBER_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(b1.sizes()[0] == b2.sizes()[0], "batch1 and batch2 must have same number of batches, got ", b1.sizes()[0],
              " and ", b2.sizes()[0]);
  EMBER_CHECK(b1.sizes()[2] == b2.sizes()[1], "Incompatible matrix sizes for bmm (", mat_str(b1), " and ", mat_str(b2),
              ")");
  check_device(b1, b2, "addbmm");
  check_bmm_dtypes(b1, b2);
  // The sum over the batch of b1[i] @ b2[i] is one product along the concatenated inner dims.
  const int64_t nb = b1.sizes()[0], m = b1.sizes()[1], k = b1.sizes()[2], n = b2.sizes()[2];
  return addmm(input, reshape(permute(b1, {{1, 0, 2}}), {{m, nb * k}}), reshape(b2, {{nb * k, n}}), beta, alpha);
}

namespace {

// addmm_ with nothing to record on a dense row-major float matrix: the GEMM accumulates into self (BLAS's beta), where
// the out-of-place product copied self into a new [m, n] and the result back. The fused LSTM's recurrent step (Note
// [Fused CPU LSTM], batch 20, 256 wide, two threads) spent 7 of its 72 us on those two copies. False when the case does
// not fit, having done nothing.
bool addmm_in_place(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  const ScalarType dt = self.dtype();
  if (dispatch::enabled() || autocast::is_enabled(self.device().type) || autograd::needs_grad({&self, &m1, &m2}))
    return false;
  if ((dt != ScalarType::Float32 && dt != ScalarType::Float64) || m1.dtype() != dt || m2.dtype() != dt) return false;
  if (self.dim() != 2 || m1.dim() != 2 || m2.dim() != 2 || self.is_conj() || !self.is_contiguous()) return false;
  if (m1.device() != self.device() || m2.device() != self.device() || self.device().is_meta() ||
      !matmul_kernel.fn[static_cast<int>(self.device().type)])
    return false;
  const int64_t m = m1.size(0), k = m1.size(1), n = m2.size(1);
  if (m2.size(0) != k || self.size(0) != m || self.size(1) != n || self.numel() == 0) return false;
  if (may_overlap(self, m1) || may_overlap(self, m2)) return false;
  matmul_kernel[self.device()](self, kernel_operand(m1, {}), kernel_operand(m2, {}), alpha, beta);
  self.bump_version();
  return true;
}

}  // namespace

const Tensor& addmm_(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  if (addmm_in_place(self, m1, m2, beta, alpha)) return self;
  return inplace(self, m1, m2, "addmm_", [&] { return addmm(self, m1, m2, beta, alpha); });
}
const Tensor& addmv_(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) {
  return inplace(self, mat, vec, "addmv_", [&] { return addmv(self, mat, vec, beta, alpha); });
}
const Tensor& addr_(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  return inplace(self, v1, v2, "addr_", [&] { return addr(self, v1, v2, beta, alpha); });
}
const Tensor& baddbmm_(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                       const Scalar& alpha) {
  return inplace(self, b1, b2, "baddbmm_", [&] { return baddbmm(self, b1, b2, beta, alpha); });
}
const Tensor& addbmm_(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  return inplace(self, b1, b2, "addbmm_", [&] { return addbmm(self, b1, b2, beta, alpha); });
}

Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  EMBER_CHECK(b.dim() == 1, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  return mul(unsqueeze(a, 1), b);
}

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return mul(a, b);
  EMBER_CHECK(a.sizes()[a.dim() - 1] == b.sizes()[b.dim() - 1],
              "inner() the last dimension must match on both input tensors but got shapes ", shape_str(a.sizes()),
              " and ", shape_str(b.sizes()));
  return tensordot(a, b, {{-1}}, {{-1}});
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, tensordot, a, b, dims);
  EMBER_CHECK(dims >= 0, "tensordot expects dims >= 0, but got dims=", dims);
  EMBER_CHECK(dims <= a.dim() && dims <= b.dim(), "tensordot expects dims < ndim_a or ndim_b, but got dims=", dims);
  DimVector da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(a.dim() - dims + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_AUTOCAST(autocast::kPromoteCuda, tensordot, a, b, dims_a, dims_b);
  EMBER_CHECK(dims_a.size() == dims_b.size(), "both dimension lists should have same length");
  check_device(a, b, "tensordot");
  SmallVector<bool, 8> ca(std::max<int64_t>(a.dim(), 1), false), cb(std::max<int64_t>(b.dim(), 1), false);
  DimVector pa, pb, out_shape;
  int64_t k = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t x = wrap_dim(dims_a[i], a.dim(), "tensordot"), y = wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK(a.sizes()[x] == b.sizes()[y], "contracted dimensions need to match, but first has size ", a.sizes()[x],
                " in dim ", x, " and second has size ", b.sizes()[y], " in dim ", y);
    EMBER_CHECK(!ca[x] && !cb[y], "tensordot: a dim appears more than once in the contracted dims");
    ca[x] = cb[y] = true;
    k *= a.sizes()[x];
  }
  int64_t ra = 1, rb = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!ca[d]) {
      pa.push_back(d);
      out_shape.push_back(a.sizes()[d]);
      ra *= a.sizes()[d];
    }
  for (size_t i = 0; i < dims_a.size(); ++i) pa.push_back(wrap_dim(dims_a[i], a.dim(), "tensordot"));
  for (size_t i = 0; i < dims_b.size(); ++i) pb.push_back(wrap_dim(dims_b[i], b.dim(), "tensordot"));
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!cb[d]) {
      pb.push_back(d);
      out_shape.push_back(b.sizes()[d]);
      rb *= b.sizes()[d];
    }
  Tensor r = mm(reshape(permute(a, pa), {{ra, k}}), reshape(permute(b, pb), {{k, rb}}));
  return reshape(r, out_shape);
}

Tensor multi_dot(const std::vector<Tensor>& ts) {
  EMBER_AUTOCAST(autocast::kLowerCuda, multi_dot, ts);
  const size_t n = ts.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = ts[i].dim();
    if (i == 0)
      EMBER_CHECK(d == 1 || d == 2, "multi_dot(): the first tensor must be 1D or 2D but got ", d, "D");
    else if (i == n - 1)
      EMBER_CHECK(d == 1 || d == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", d, "D");
    else
      EMBER_CHECK(d == 2, "multi_dot(): tensor ", i, " must be 2D but got ", d, "D");
    EMBER_CHECK(ts[i].dtype() == ts[0].dtype(), "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
                type_label(ts[0].dtype()), " and tensor ", i, " ", type_label(ts[i].dtype()));
    check_device(ts[0], ts[i], "multi_dot");
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t left = ts[i].sizes()[ts[i].dim() - 1], right = ts[i + 1].sizes()[0];
    EMBER_CHECK(left == right, "multi_dot(): tensors ", i, " and ", i + 1, " with shapes ", shape_str(ts[i].sizes()),
                " and ", shape_str(ts[i + 1].sizes()), " cannot be multiplied");
  }
  // Left to right; matmul gives the 1-d ends their meaning (a row first, a column last).
  Tensor r = matmul(ts[0], ts[1]);
  for (size_t i = 2; i < n; ++i) r = matmul(r, ts[i]);
  return r;
}

Tensor chain_matmul(const std::vector<Tensor>& ms) {
  EMBER_AUTOCAST(autocast::kLowerCuda, chain_matmul, ms);
  EMBER_CHECK(!ms.empty(), "chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : ms) EMBER_CHECK(m.dim() == 2, "Tensor dimension is ", m.dim(), ", expected 2 instead.");
  if (ms.size() == 1) return clone(ms[0]);
  return multi_dot(ms);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_PY_DISPATCH(Tensor, "aten.linear.default", input, weight, bias);
  EMBER_AUTOCAST(autocast::kLower, linear, input, weight, bias);
  EMBER_CHECK(input.dim() >= 1, "linear(): input must be at least 1-D, got a 0-D tensor");
  EMBER_CHECK(weight.dim() == 1 || weight.dim() == 2, "linear(): weight must be 1-D or 2-D, got ", weight.dim(), "-D");
  check_device(input, weight, "linear");
  check_device(input, bias, "linear");
  EMBER_CHECK(input.dtype() == weight.dtype(), "mat1 and mat2 must have the same dtype, but got ",
              type_label(input.dtype()), " and ", type_label(weight.dtype()));
  check_not_bool(input);
  const Tensor wt = weight.dim() == 2 ? t(weight) : weight;  // a recorded view: the gradient reaches weight
  const int64_t k = input.sizes()[input.dim() - 1], kw = wt.sizes()[0];
  const int64_t rows = input.dim() == 1 ? 1 : input.numel() / std::max<int64_t>(k, 1);
  EMBER_CHECK(k == kw, "mat1 and mat2 shapes cannot be multiplied (", rows, "x", k, " and ", kw, "x",
              wt.dim() == 2 ? wt.sizes()[1] : 1, ")");
  DimVector shape(input.sizes().first(input.dim() - 1));
  if (wt.dim() == 2) shape.push_back(wt.sizes()[1]);
  if (bias.defined()) {
    EMBER_CHECK(bias.dtype() == input.dtype(), "linear(): bias of dtype ", type_label(bias.dtype()),
                " does not match the input's ", type_label(input.dtype()));
    if (!autograd::is_expandable_to(bias.sizes(), shape)) expand(bias, shape);  // raises expand's message
  }
  return product(bias.defined() ? "AddmmBackward0" : "MmBackward0", input, wt, bias, 1, 1, input.dim() == 1,
                 wt.dim() == 1);
}

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  EMBER_AUTOCAST(autocast::kPromote, bilinear, x1, x2, weight, bias);
  EMBER_CHECK(x1.dim() == x2.dim(), "bilinear(): input dimensions do not match: got ", x1.dim(), " and ", x2.dim());
  EMBER_CHECK(x1.dim() >= 1, "bilinear(): inputs must be at least 1-D");
  for (int64_t i = 0; i + 1 < x1.dim(); ++i)
    EMBER_CHECK(x1.sizes()[i] == x2.sizes()[i], "bilinear(): input batch dimensions do not match: got ",
                shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  EMBER_CHECK(weight.dim() == 3, "bilinear(): weight must be a 3-D tensor, got ", weight.dim(), "-D");
  const int64_t i1 = x1.sizes()[x1.dim() - 1], i2 = x2.sizes()[x2.dim() - 1];
  const int64_t o = weight.sizes()[0], w1 = weight.sizes()[1], w2 = weight.sizes()[2];
  EMBER_CHECK(i1 == w1, "bilinear(): input1 size does not match weight size: got ", i1, " but expected ", w1);
  EMBER_CHECK(i2 == w2, "bilinear(): input2 size does not match weight size: got ", i2, " but expected ", w2);
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == o),
              "bilinear(): bias size does not match weight size: got ", bias.defined() ? bias.sizes()[0] : 0,
              " but expected ", o);
  // y[n, o] = sum_j (x1[n] @ W[o])[j] * x2[n, j]: one GEMM against W laid out as [i1, o * i2], then a reduction.
  const DimVector batch(x1.sizes().first(x1.dim() - 1));
  const Tensor a = reshape(x1, {{-1, i1}}), b = reshape(x2, {{-1, 1, i2}});
  const Tensor t = reshape(mm(a, reshape(permute(weight, {{1, 0, 2}}), {{i1, o * i2}})), {{-1, o, i2}});
  Tensor y = sum(mul(t, b), {{-1}});
  if (bias.defined()) y = add(y, bias);
  DimVector shape = batch;
  shape.push_back(o);
  return reshape(y, shape);
}

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  EMBER_AUTOCAST(autocast::kLower, linalg_vecdot, x, y, dim);
  check_device(x, y, "linalg.vecdot");
  EMBER_CHECK(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
              type_label(x.dtype()), " and y of type ", type_label(y.dtype()), " instead");
  const Tensor p = mul(conj(x), y);  // sum(conj(x) * y), as PyTorch's (conj of a real x is x)
  return sum(p, {{wrap_dim(dim, p.dim(), "linalg.vecdot")}});
}

}  // namespace ember
