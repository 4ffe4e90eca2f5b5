// Norms (ops/norm.cpp): torch.linalg's vector_norm, matrix_norm and norm, the legacy torch.norm, renorm and dist.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// ---- vector norms; dims empty = all dims.
// torch.linalg.vector_norm: ord 0 counts non-zeros, +-inf is the max/min of |x|, else sum(|x|^ord)^(1/ord).
Tensor linalg_vector_norm(const Tensor& x, double ord = 2, IntArrayRef dims = {}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
// torch.norm with a number p (the legacy op: integer inputs need dtype, empty reductions give 0).
Tensor norm(const Tensor& x, double p, IntArrayRef dims = {}, bool keepdim = false,
            std::optional<ScalarType> dtype = {});
// torch.norm with p = "fro" (at most 2 dims); "nuc" raises NotImplementedError.
Tensor norm(const Tensor& x, std::string_view p = "fro", IntArrayRef dims = {}, bool keepdim = false);

// ---- matrix norms
// ord: 'fro', 'nuc', +-inf, +-1, +-2 over the two dims `dim`.
Tensor linalg_matrix_norm(const Tensor& A, double ord, IntArrayRef dim = {{-2, -1}}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {{-2, -1}},
                          bool keepdim = false, std::optional<ScalarType> dtype = {});
// torch.linalg.norm: a vector norm over one dim (or all of them when ord and dim are not given), a matrix norm
// over two dims (or a 2-d input with ord given and dim not).
Tensor linalg_norm(const Tensor& A, std::optional<double> ord, std::optional<DimVector> dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = {});
Tensor linalg_norm(const Tensor& A, std::string_view ord, std::optional<DimVector> dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = {});

// ---- built on the norms
Tensor renorm(const Tensor& t, double p, int64_t dim, double maxnorm);
Tensor dist(const Tensor& a, const Tensor& b, double p = 2);

}  // namespace ember
