// Bindings of the products of tensors built from shape ops (ember/ops/split_stack.h, calculus.h): cross, kron,
// block_diag, cartesian_prod and combinations, with PyTorch's signatures and docstrings (ember.linalg.cross is bound
// in linalg_products.cpp).
#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kCrossDoc = R"(
Returns the cross product of the 3-vectors of ``input`` and ``other`` along ``dim``.

``input`` and ``other`` broadcast together; ``dim`` must have size 3. Without ``dim``, the first dim of size 3 of
the broadcast shape is used (:func:`ember.linalg.cross` uses the last dim instead).

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.
    dim (int, optional): the dim holding the vectors. Default: the first of size 3.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.cross(ember.tensor([1., 0., 0.]), ember.tensor([0., 1., 0.]))
    tensor([0., 0., 1.])
)";

constexpr const char* kKronDoc = R"(
Returns the Kronecker product of ``input`` and ``other``.

For tensors of the same number of dims (the one with fewer gets leading dims of size 1), the result has size
``input.size(i) * other.size(i)`` along dim ``i``: each element of ``input`` scales a copy of ``other``.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.kron(ember.tensor([1, 2]), ember.tensor([1, 10]))
    tensor([ 1, 10,  2, 20])
)";

constexpr const char* kBlockDiagDoc = R"(
Returns the block-diagonal matrix with the given tensors as its blocks.

Each tensor has at most 2 dims (a 0-d tensor is a 1x1 block, a 1-d one a single row); the blocks lie along the
diagonal in order, zeros elsewhere, in the promoted dtype of the blocks.

Args:
    *tensors (Tensor): the blocks.

Example::

    >>> ember.block_diag(ember.tensor([[1, 2]]), ember.tensor([[3], [4]]))
    tensor([[1, 2, 0],
            [0, 0, 3],
            [0, 0, 4]])
)";

constexpr const char* kCartesianProdDoc = R"(
Returns the Cartesian product of the given 1-d tensors, one combination per row.

Like ``itertools.product``: the result has one column per tensor and the rows in lexicographic order. A single
tensor is returned as it is.

Args:
    *tensors (Tensor): 1-d tensors.

Example::

    >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
)";

constexpr const char* kCombinationsDoc = R"(
Returns the ``r``-length combinations of the elements of the 1-d tensor ``input``, one per row.

Like ``itertools.combinations`` (or ``itertools.combinations_with_replacement`` when ``with_replacement`` is true).

Args:
    input (Tensor): a 1-d tensor.
    r (int): the number of elements per combination. Default: ``2``.
    with_replacement (bool): whether an element may repeat in a combination. Default: ``False``.

Example::

    >>> ember.combinations(ember.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
)";

}  // namespace

void init_products(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  auto cross_fn = [](const Tensor& a, const Tensor& b, std::optional<int64_t> dim) { return cross(a, b, dim); };
  def_fn(
      m, "cross",
      [cross_fn](const Tensor& a, const Tensor& b, std::optional<int64_t> dim, nb::handle out) {
        return finish_out(cross_fn(a, b, dim), out, "cross");
      },
      nb::sig(
          "def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("other"), nb::arg("dim") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none(),
      kCrossDoc);
  def_method(cls, "cross", cross_fn, nb::arg("other"), nb::arg("dim") = nb::none(),
             method_doc(kCrossDoc, "cross").c_str());

  auto kron_fn = [](const Tensor& a, const Tensor& b) { return kron(a, b); };
  def_fn(
      m, "kron",
      [kron_fn](const Tensor& a, const Tensor& b, nb::handle out) { return finish_out(kron_fn(a, b), out, "kron"); },
      nb::sig("def kron(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor"), nb::arg("input"),
      nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none(), kKronDoc);
  def_method(cls, "kron", kron_fn, nb::arg("other"), method_doc(kKronDoc, "kron").c_str());

  def_fn(
      m, "block_diag", [](nb::args tensors) { return block_diag(tensor_list(tensors, "block_diag")); },
      nb::sig("def block_diag(*tensors: Tensor) -> Tensor"), kBlockDiagDoc);
  def_fn(
      m, "cartesian_prod", [](nb::args tensors) { return cartesian_prod(tensor_list(tensors, "cartesian_prod")); },
      nb::sig("def cartesian_prod(*tensors: Tensor) -> Tensor"), kCartesianProdDoc);
  def_fn(
      m, "combinations",
      [](const Tensor& t, int64_t r, bool with_replacement) { return combinations(t, r, with_replacement); },
      nb::arg("input"), nb::arg("r") = 2, nb::arg("with_replacement") = false, kCombinationsDoc);
}

}  // namespace ember::py
