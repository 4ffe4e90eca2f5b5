// The C++ API of ember/ops/lu.h, matrix_functions.h and linalg.h's *_ex forms: the LU family reconstructs its input and
// solves, the *_ex forms hand LAPACK's info back, LinAlgError is an Error, and the composed matrix functions meet
// closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ops.h"
#include "ember/ops/lu.h"
#include "test_values.h"

using namespace ember;

namespace {

using ember::testing::values;

void expect_near(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.sizes().size(), b.sizes().size());
  const std::vector<double> x = values(a), y = values(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], tol) << "at " << i;
}

Tensor mat(std::vector<double> v, int64_t rows, int64_t cols) {
  return from_blob_copy(v.data(), ScalarType::Float64, {{rows, cols}}, TensorOptions(ScalarType::Float64));
}

}  // namespace

TEST(LinalgMore, LuReconstructsAndSolves) {
  const Tensor A = mat({2, 1, 1, 0, 4, 3, 3, 1, 8, 7, 9, 5, 6, 7, 9, 8}, 4, 4);
  auto [P, L, U] = linalg_lu(A);
  expect_near(matmul(P, matmul(L, U)), A, 1e-12);
  auto [LU, piv] = linalg_lu_factor(A);
  EXPECT_EQ(piv.dtype(), ScalarType::Int32);
  const Tensor B = mat({1, 2, 3, 4, 5, 6, 7, 8}, 4, 2);
  expect_near(matmul(A, linalg_lu_solve(LU, piv, B)), B, 1e-10);
  expect_near(matmul(transpose(A, 0, 1), linalg_lu_solve(LU, piv, B, true, true)), B, 1e-10);
  auto [P2, L2, U2] = lu_unpack(LU, piv);
  expect_near(P2, P, 0);
}

TEST(LinalgMore, ExFormsAndLinAlgError) {
  const Tensor S = mat({1, 2, 2, 4}, 2, 2);
  auto [inv, info] = linalg_inv_ex(S);
  EXPECT_EQ(info.item<int32_t>(), 2);
  EXPECT_THROW(linalg_inv_ex(S, true), LinAlgError);
  EXPECT_THROW(linalg_inv(S), LinAlgError);
  EXPECT_EQ(std::get<1>(linalg_cholesky_ex(S)).item<int32_t>(), 2);
  EXPECT_EQ(std::get<2>(linalg_lu_factor_ex(S)).item<int32_t>(), 2);
  try {
    linalg_lu_factor(S);
    ADD_FAILURE() << "no error";
  } catch (const LinAlgError&) {
    ADD_FAILURE() << "lu_factor raises a plain RuntimeError, as PyTorch";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("U[2,2] is zero"), std::string::npos) << e.what();
  }
}

TEST(LinalgMore, MatrixFunctions) {
  // exp of a diagonal matrix, of a rotation generator; matrix_rank, cond of a diagonal matrix
  const Tensor D = mat({1, 0, 0, -2}, 2, 2);
  expect_near(linalg_matrix_exp(D), mat({std::exp(1.0), 0, 0, std::exp(-2.0)}, 2, 2), 1e-12);
  const double x = 5.0;
  expect_near(linalg_matrix_exp(mat({0, -x, x, 0}, 2, 2)),
              mat({std::cos(x), -std::sin(x), std::sin(x), std::cos(x)}, 2, 2), 1e-10);
  EXPECT_EQ(linalg_matrix_rank(mat({1, 2, 2, 4}, 2, 2)).item<int64_t>(), 1);
  EXPECT_NEAR(linalg_cond(mat({4, 0, 0, 0.5}, 2, 2)).item<double>(), 8.0, 1e-12);
  EXPECT_NEAR(linalg_cond(mat({4, 0, 0, 0.5}, 2, 2), "fro").item<double>(), std::sqrt(16.25 * 4.0625), 1e-12);
  // householder_product(geqrf(A)) has orthonormal columns and R = Q^T A is upper triangular
  const Tensor A = mat({1, 2, 3, 4, 5, 6, 7, 8, 10}, 3, 3);
  auto [a, tau] = geqrf(A);
  const Tensor Q = linalg_householder_product(a, tau);
  expect_near(matmul(transpose(Q, 0, 1), Q), eye(3, std::nullopt, ScalarType::Float64), 1e-12);
  expect_near(matmul(transpose(Q, 0, 1), A), triu(a), 1e-12);
  // cholesky_solve and cholesky_inverse against the inverse
  const Tensor M = mat({4, 2, 2, 3}, 2, 2), L = linalg_cholesky(M);
  expect_near(cholesky_inverse(L), linalg_inv(M), 1e-12);
  expect_near(cholesky_solve(eye(2, std::nullopt, ScalarType::Float64), L), linalg_inv(M), 1e-12);
}

// Complex input (LAPACK's z routines): a solve meets its right-hand side through real and imaginary parts, the
// determinant and the eigenvalues of closed forms, and the singular values are real.
TEST(LinalgMore, ComplexSolveDetEig) {
  const Tensor A = complex(mat({2, 1, 0, 3}, 2, 2), mat({1, -1, 0.5, 0}, 2, 2));  // [[2+i, 1-i], [0.5i, 3]]
  const Tensor B = complex(mat({1, 2}, 2, 1), mat({0, -1}, 2, 1));
  const Tensor R = sub(matmul(A, linalg_solve(A, B)), B);
  expect_near(view_as_real(R), zeros({{2, 1, 2}}, TensorOptions(ScalarType::Float64)), 1e-12);
  const Tensor det = linalg_det(A);  // (2+i) 3 - (1-i) 0.5i = 5.5 + 2.5i
  EXPECT_EQ(det.dtype(), ScalarType::ComplexDouble);
  expect_near(view_as_real(det), mat({5.5, 2.5}, 1, 2).reshape({{2}}), 1e-12);
  EXPECT_EQ(linalg_svdvals(A).dtype(), ScalarType::Float64);
  auto [L, V] = linalg_eig(mat({0, -1, 1, 0}, 2, 2));  // the rotation by pi/2: eigenvalues +-i
  EXPECT_EQ(L.dtype(), ScalarType::ComplexDouble);
  expect_near(view_as_real(L), mat({0, 1, 0, -1}, 2, 2), 1e-12);
}
