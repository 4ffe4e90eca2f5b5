// Bindings of the matrix products (ops/linalg.h): matmul and the products of fixed rank (mm, bmm, mv, dot, vdot,
// outer/ger, inner) at top level and as Tensor methods (x @ y included), the add* family (beta * input + alpha *
// product) with its in-place methods, einsum, tensordot and chain_matmul; and in ember._C._linalg (ember.linalg)
// matmul, multi_dot, vecdot and cross.
#include <string>
#include <vector>

#include "linalg_common.h"

namespace ember::py {

namespace {

using nb::arg;

std::vector<Tensor> tensors_of(nb::handle h, const char* fn) {
  EMBER_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn,
                   "(): argument 'tensors' must be tuple of Tensors, not ", nb::inst_name(h).c_str());
  std::vector<Tensor> r;
  for (nb::handle item : nb::borrow<nb::sequence>(h)) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(item), fn, "(): expected Tensor as element ", r.size(),
                     " in argument 'tensors', but got ", nb::inst_name(item).c_str());
    r.push_back(nb::cast<Tensor>(item));
  }
  return r;
}

// ---- docstrings

const char* kMatmulDoc = R"(
Returns the matrix product of two tensors, following the rank of each.

- Both 1-D: the dot product (a 0-D tensor).
- Both 2-D: the matrix-matrix product.
- 1-D first, 2-D second: the vector is taken as a row (a 1 is prepended to its shape) and removed from the
  result.
- 2-D first, 1-D second: the matrix-vector product.
- Either at least 3-D (the other at least 1-D): a batched matrix product over the last two dims. The batch dims
  (all but the last two; none for a 1-D or 2-D operand) broadcast, and a 1-D operand is taken as a row (first)
  or a column (second) whose dim is removed from the result. For example, a :math:`(j \times 1 \times n \times
  m)` tensor times a :math:`(k \times m \times p)` tensor gives a :math:`(j \times k \times n \times p)` tensor.

Both operands must have the same dtype (nothing is promoted). float16 and bfloat16 are accumulated in float32 and
rounded once; integer dtypes are supported, bool is not. Differentiable. ``x @ y`` is ``matmul(x, y)``.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> a = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.matmul(a, ember.tensor([1., 1.]))
    tensor([3., 7.])
    >>> ember.matmul(ember.ones(5, 2, 3), ember.ones(3, 4)).shape
    ember.Size([5, 2, 4])
)";

const char* kMmDoc = R"(
Returns the matrix product of the 2-D tensors ``input`` and ``mat2``.

For ``input`` of shape :math:`(n \times m)` and ``mat2`` of shape :math:`(m \times p)` the result has shape
:math:`(n \times p)`. Nothing broadcasts (:func:`ember.matmul` does). Both operands must have the same dtype;
float16 and bfloat16 accumulate in float32. Differentiable.

Args:
    input (Tensor): the first matrix.
    mat2 (Tensor): the second matrix.
    out_dtype (dtype, optional): the result's dtype: the operands' own, or ``ember.float32`` for float16 and
        bfloat16 operands (the float32 sum is then returned without rounding). Positional, as in PyTorch's
        second form ``mm(input, mat2, out_dtype)``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> a = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.mm(a, ember.tensor([[0., 1.], [1., 0.]]))
    tensor([[2., 1.],
            [4., 3.]])
)";

const char* kBmmDoc = R"(
Returns the batched matrix product of the 3-D tensors ``input`` and ``mat2``.

For ``input`` of shape :math:`(b \times n \times m)` and ``mat2`` of shape :math:`(b \times m \times p)` the
result has shape :math:`(b \times n \times p)`, with :math:`\text{out}_i = \text{input}_i \mathbin{@}
\text{mat2}_i`. The batch sizes must be equal (nothing broadcasts; :func:`ember.matmul` does). Both operands must
have the same dtype. Differentiable.

Args:
    input (Tensor): the first batch of matrices.
    mat2 (Tensor): the second batch of matrices.
    out_dtype (dtype, optional): the result's dtype: the operands' own, or ``ember.float32`` for float16 and
        bfloat16 operands. Positional, as in PyTorch's form ``bmm(input, mat2, out_dtype)``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.bmm(ember.ones(10, 3, 4), ember.ones(10, 4, 5)).shape
    ember.Size([10, 3, 5])
)";

const char* kMvDoc = R"(
Returns the product of the matrix ``input`` and the vector ``vec``.

For ``input`` of shape :math:`(n \times m)` and ``vec`` of size :math:`m` the result is a vector of size
:math:`n`. Nothing broadcasts; both operands must have the same dtype. Differentiable.

Args:
    input (Tensor): the matrix.
    vec (Tensor): the vector.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.mv(ember.tensor([[1., 2.], [3., 4.]]), ember.tensor([1., -1.]))
    tensor([-1., -1.])
)";

const char* kDotDoc = R"(
Returns the dot product of the 1-D tensors ``input`` and ``tensor``.

.. math::
    \text{out} = \sum_i \text{input}_i \, \text{tensor}_i

Both must have the same number of elements and the same dtype (nothing broadcasts or is promoted). The result is
a 0-D tensor. Differentiable.

Args:
    input (Tensor): the first vector.
    tensor (Tensor): the second vector.

Keyword args:
    out (Tensor, optional): the output tensor (0-D, of the operands' dtype).

Example::

    >>> ember.dot(ember.tensor([2., 3.]), ember.tensor([2., 1.]))
    tensor(7.)
)";

const char* kVdotDoc = R"(
Returns the dot product of the 1-D tensors ``input`` and ``other``, conjugating ``input``.

.. math::
    \text{out} = \sum_i \overline{\text{input}_i} \, \text{other}_i

ember has no complex dtypes, so this equals :func:`ember.dot`. Both must have the same number of elements and the
same dtype. Differentiable.

Args:
    input (Tensor): the first vector (conjugated).
    other (Tensor): the second vector.

Keyword args:
    out (Tensor, optional): the output tensor (0-D, of the operands' dtype).

Example::

    >>> ember.vdot(ember.tensor([2., 3.]), ember.tensor([2., 1.]))
    tensor(7.)
)";

const char* kOuterDoc = R"(
Returns the outer product of the 1-D tensors ``input`` and ``vec2``.

For ``input`` of size :math:`n` and ``vec2`` of size :math:`m` the result is the :math:`(n \times m)` matrix
:math:`\text{out}_{ij} = \text{input}_i \, \text{vec2}_j`. Both must have the same dtype. Differentiable.

Args:
    input (Tensor): the first vector.
    vec2 (Tensor): the second vector.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.outer(ember.tensor([1., 2.]), ember.tensor([1., 10., 100.]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
)";

const char* kGerDoc = R"(
Returns the outer product of the 1-D tensors ``input`` and ``vec2`` (an older name of :func:`ember.outer`).

Args:
    input (Tensor): the first vector.
    vec2 (Tensor): the second vector.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.
)";

const char* kInnerDoc = R"(
Returns the inner product of ``input`` and ``other`` over their last dimensions.

For 1-D tensors this is the dot product. Otherwise the last dims (of equal size) are contracted and the result
has shape ``input.shape[:-1] + other.shape[:-1]``; a 0-D operand multiplies the other elementwise. Both must have
the same dtype. Differentiable.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.inner(ember.tensor([[1., 2.], [3., 4.]]), ember.tensor([1., 1.]))
    tensor([3., 7.])
)";

const char* kAddmmDoc = R"(
Returns ``beta * input + alpha * (mat1 @ mat2)`` for the matrices ``mat1`` and ``mat2``.

.. math::
    \text{out} = \beta\ \text{input} + \alpha\ (\text{mat1} \mathbin{@} \text{mat2})

For ``mat1`` of shape :math:`(n \times m)` and ``mat2`` of shape :math:`(m \times p)`, ``input`` must broadcast
to :math:`(n \times p)`, the result's shape. With ``beta`` 0 the contents of ``input`` are ignored (NaN and inf
in it do not propagate). ``beta`` and ``alpha`` are numbers, to be integers for integer dtypes. All three
tensors must have the same dtype. Differentiable.

Args:
    input (Tensor): the matrix added.
    mat1 (Tensor): the first matrix multiplied.
    mat2 (Tensor): the second matrix multiplied.
    out_dtype (dtype, optional): the result's dtype: the operands' own, or ``ember.float32`` for float16 and
        bfloat16 operands. Positional, as in PyTorch's form ``addmm(input, mat1, mat2, out_dtype)``.

Keyword args:
    beta (Number, optional): the factor of ``input``. Default: 1.
    alpha (Number, optional): the factor of the product. Default: 1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.addmm(ember.ones(2, 2), ember.eye(2), ember.tensor([[1., 2.], [3., 4.]]), beta=10)
    tensor([[11., 12.],
            [13., 14.]])
)";

const char* kAddmvDoc = R"(
Returns ``beta * input + alpha * (mat @ vec)`` for the matrix ``mat`` and the vector ``vec``.

.. math::
    \text{out} = \beta\ \text{input} + \alpha\ (\text{mat} \mathbin{@} \text{vec})

For ``mat`` of shape :math:`(n \times m)` and ``vec`` of size :math:`m`, ``input`` must broadcast to size
:math:`n`. With ``beta`` 0 the contents of ``input`` are ignored. All three tensors must have the same dtype.
Differentiable.

Args:
    input (Tensor): the vector added.
    mat (Tensor): the matrix multiplied.
    vec (Tensor): the vector multiplied.

Keyword args:
    beta (Number, optional): the factor of ``input``. Default: 1.
    alpha (Number, optional): the factor of the product. Default: 1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.addmv(ember.ones(2), ember.tensor([[1., 2.], [3., 4.]]), ember.tensor([1., 1.]), alpha=2)
    tensor([ 7., 15.])
)";

const char* kAddrDoc = R"(
Returns ``beta * input + alpha * outer(vec1, vec2)``.

.. math::
    \text{out} = \beta\ \text{input} + \alpha\ (\text{vec1} \otimes \text{vec2})

For ``vec1`` of size :math:`n` and ``vec2`` of size :math:`m`, ``input`` must broadcast to :math:`(n \times m)`.
With ``beta`` 0 the contents of ``input`` are ignored. All three tensors must have the same dtype.
Differentiable.

Args:
    input (Tensor): the matrix added.
    vec1 (Tensor): the first vector of the outer product.
    vec2 (Tensor): the second vector of the outer product.

Keyword args:
    beta (Number, optional): the factor of ``input``. Default: 1.
    alpha (Number, optional): the factor of the outer product. Default: 1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.addr(ember.zeros(2, 2), ember.tensor([1., 2.]), ember.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
)";

const char* kBaddbmmDoc = R"(
Returns ``beta * input + alpha * bmm(batch1, batch2)``.

.. math::
    \text{out}_i = \beta\ \text{input}_i + \alpha\ (\text{batch1}_i \mathbin{@} \text{batch2}_i)

For ``batch1`` of shape :math:`(b \times n \times m)` and ``batch2`` of shape :math:`(b \times m \times p)`,
``input`` must broadcast to :math:`(b \times n \times p)`. With ``beta`` 0 the contents of ``input`` are ignored.
All three tensors must have the same dtype. Differentiable.

Args:
    input (Tensor): the batch of matrices added.
    batch1 (Tensor): the first batch of matrices multiplied.
    batch2 (Tensor): the second batch of matrices multiplied.
    out_dtype (dtype, optional): the result's dtype: the operands' own, or ``ember.float32`` for float16 and
        bfloat16 operands. Positional, as in PyTorch's form ``baddbmm(input, batch1, batch2, out_dtype)``.

Keyword args:
    beta (Number, optional): the factor of ``input``. Default: 1.
    alpha (Number, optional): the factor of the products. Default: 1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.baddbmm(ember.zeros(4, 2, 3), ember.ones(4, 2, 5), ember.ones(4, 5, 3), alpha=0.5)[0]
    tensor([[2.5000, 2.5000, 2.5000],
            [2.5000, 2.5000, 2.5000]])
)";

const char* kAddbmmDoc = R"(
Returns ``beta * input + alpha * sum(bmm(batch1, batch2), dim=0)``: a sum of matrix products.

.. math::
    \text{out} = \beta\ \text{input} + \alpha\ \sum_{i} \text{batch1}_i \mathbin{@} \text{batch2}_i

For ``batch1`` of shape :math:`(b \times n \times m)` and ``batch2`` of shape :math:`(b \times m \times p)`,
``input`` must broadcast to :math:`(n \times p)`. With ``beta`` 0 the contents of ``input`` are ignored. All
three tensors must have the same dtype. Differentiable.

Args:
    input (Tensor): the matrix added.
    batch1 (Tensor): the first batch of matrices multiplied.
    batch2 (Tensor): the second batch of matrices multiplied.

Keyword args:
    beta (Number, optional): the factor of ``input``. Default: 1.
    alpha (Number, optional): the factor of the summed products. Default: 1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.addbmm(ember.zeros(2, 3), ember.ones(4, 2, 5), ember.ones(4, 5, 3))
    tensor([[20., 20., 20.],
            [20., 20., 20.]])
)";

const char* kEinsumDoc = R"(
Sums products of the operands' elements over the dimensions named by an Einstein-summation equation.

The equation names each operand's dimensions with letters (``a``-``z``, ``A``-``Z``), the operands separated by
commas, e.g. ``"ij,jk"``. A letter repeated within one operand takes its diagonal; a letter shared by operands
pairs those dimensions (their sizes must match, or be 1 to broadcast). With an explicit output (``"ij,jk->ik"``)
the letters missing from the output are summed over and the output's dims come in the order written; without one,
the output has every letter that appears exactly once, sorted (uppercase before lowercase). ``...`` stands for any
number of leading (or, in the output, broadcast) dims. Operands are contracted left to right through batched matrix
products. Differentiable.

The operands may also be given as one list, ``einsum("ij,jk", [a, b])``, and the equation in PyTorch's sublist
form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])``: each operand followed by a list of ints in ``[0, 52)`` (or
``...``) naming its dims, then optionally the output's list.

Args:
    equation (str): the subscripts.
    operands (Tensor): the tensors to combine.

Example::

    >>> a = ember.arange(6.).reshape(2, 3)
    >>> ember.einsum("ij->ji", a)
    tensor([[0., 3.],
            [1., 4.],
            [2., 5.]])
    >>> ember.einsum("ij,j->i", a, ember.ones(3))
    tensor([ 3., 12.])
    >>> ember.einsum("ii", ember.eye(3))
    tensor(3.)
)";

const char* kTensordotDoc = R"(
Returns the contraction of ``a`` and ``b`` over several dimensions.

With ``dims`` an int :math:`d`, the last :math:`d` dims of ``a`` are contracted with the first :math:`d` of ``b``
(their sizes must match); the result has ``a``'s other dims followed by ``b``'s. With ``dims`` a pair of lists
``([da...], [db...])`` (or a 2-row tensor), dim ``da[i]`` of ``a`` is contracted with dim ``db[i]`` of ``b``.
Both must have the same dtype. Differentiable.

Args:
    a (Tensor): the left operand.
    b (Tensor): the right operand.
    dims (int or tuple of two lists of int): the dims to contract. Default: 2.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> a = ember.arange(6.).reshape(2, 3)
    >>> ember.tensordot(a, ember.ones(3, 4), dims=1)
    tensor([[ 3.,  3.,  3.,  3.],
            [12., 12., 12., 12.]])
    >>> ember.tensordot(a, a, dims=([0, 1], [0, 1]))
    tensor(55.)
)";

const char* kChainMatmulDoc = R"(
Returns the matrix product of the 2-D tensors given, in an order of multiplication that costs the least.

The result equals ``matrices[0] @ matrices[1] @ ... @ matrices[-1]``; the parenthesization is chosen to need the
fewest multiplications. A single matrix is returned as a copy. Deprecated in PyTorch in favour of
:func:`ember.linalg.multi_dot`, which also accepts 1-D first and last operands.

Args:
    matrices (Tensor): two or more 2-D tensors (or one list of them), of one dtype.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.chain_matmul(ember.ones(2, 3), ember.ones(3, 4), ember.ones(4, 1))
    tensor([[12.],
            [12.]])
)";

const char* kMultiDotDoc = R"(
Returns the matrix product of two or more tensors, multiplied in the order that needs the fewest operations.

The result equals ``tensors[0] @ tensors[1] @ ... @ tensors[-1]``. Every tensor must be 2-D except the first and
the last, which may be 1-D: the first is then taken as a row vector and the last as a column vector, and those
dims are removed from the result (as with :func:`ember.matmul`). Nothing broadcasts; all must have the same dtype.
Differentiable.

Args:
    tensors (sequence of Tensor): two or more tensors.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.multi_dot([ember.tensor([1., 2.]), ember.ones(2, 3), ember.tensor([1., 0., 1.])])
    tensor(6.)
)";

const char* kVecdotDoc = R"(
Returns the dot product of the vectors along dimension ``dim`` of ``x`` and ``y``.

.. math::
    \text{out} = \sum_i \overline{x_i} \, y_i

(ember has no complex dtypes: the conjugate changes nothing). ``x`` and ``y`` broadcast against each other; the
result has their broadcast shape without ``dim``. Differentiable.

Args:
    x (Tensor): the first batch of vectors.
    y (Tensor): the second batch of vectors.

Keyword args:
    dim (int, optional): the dimension of the vectors. Default: -1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.vecdot(ember.tensor([[1., 2.], [3., 4.]]), ember.tensor([1., 1.]))
    tensor([3., 7.])
)";

const char* kLinalgCrossDoc = R"(
Returns the cross product of 3-vectors along dimension ``dim`` of ``input`` and ``other``.

``input`` and ``other`` must have the same number of dimensions, with sizes that broadcast, and size 3 in
``dim``. Unlike
:func:`ember.cross`, ``dim`` defaults to the last dimension. Differentiable.

Args:
    input (Tensor): the first batch of vectors.
    other (Tensor): the second batch of vectors.

Keyword args:
    dim (int, optional): the dimension of the vectors. Default: -1.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.cross(ember.tensor([1., 0., 0.]), ember.tensor([0., 1., 0.]))
    tensor([0., 0., 1.])
)";

// ---- the products of two tensors

using ProductFn = Tensor (*)(const Tensor&, const Tensor&);

struct Product {
  const char* name;
  const char* other;         // the second operand's name in ember.<name> and Tensor.<name> as PyTorch parses it
  const char* method_other;  // its name in Tensor.<name>'s documented signature, where PyTorch's docs differ
  ProductFn f;
  const char* doc;
};

// PyTorch's out_dtype form of mm/bmm/addmm/baddbmm: the operands' own dtype changes nothing; float32 for float16 or
// bfloat16 operands returns the float32 accumulation unrounded, computed by upcasting the operands (which is exact).
// Returns whether the operands need the upcast.
bool upcast_for(nb::handle out_dtype, const Tensor& a, const char* fn) {
  const ScalarType dt = to_dtype_required(out_dtype, fn);
  if (dt == a.dtype()) return false;
  EMBER_CHECK(dt == ScalarType::Float32 && (a.dtype() == ScalarType::Float16 || a.dtype() == ScalarType::BFloat16), fn,
              ": out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs");
  return true;
}

Tensor f32(const Tensor& t) { return to(t, ScalarType::Float32); }

// ember.name(input, other, *, out=None) and Tensor.name(other). The Tensor method takes PyTorch's parser's keyword
// too where its documentation names the operand differently (Tensor.matmul(tensor2) / matmul(other=...)).
void def_product(nb::module_& m, nb::handle cls, const Product& p) {
  const std::string fsig = std::string("def ") + p.name + "(input: Tensor, " + p.other +
                           ": Tensor, *, out: Tensor | None = None) -> Tensor";
  m.def(
      p.name,
      [f = p.f, name = p.name](const Tensor& a, const Tensor& b, nb::handle out) {
        return finish_out(f(a, b), out, name);
      },
      arg("input"), arg(p.other), nb::kw_only(), arg("out") = nb::none(), nb::sig(fsig.c_str()), p.doc);
  const std::string mdoc = method_doc(p.doc, p.name);
  auto method = [f = p.f](const Tensor& a, const Tensor& b) { return f(a, b); };
  const char* documented = p.method_other ? p.method_other : p.other;
  cls.attr(p.name) = nb::cpp_function(method, nb::is_method(), nb::scope(cls), nb::name(p.name), arg(documented),
                                      mdoc.c_str());
  if (p.method_other) {
    const std::string alias = parsed_names_doc(std::string("``") + p.other + "`` for ``" + p.method_other + "``");
    cls.attr(p.name) = nb::cpp_function(method, nb::is_method(), nb::scope(cls), nb::name(p.name), arg(p.other),
                                        alias.c_str());
  }
}

// The out_dtype overload of ember.mm and ember.bmm: name(input, mat2, out_dtype, *, out=None).
void def_out_dtype(nb::module_& m, const char* name, ProductFn f) {
  const std::string sig = std::string("def ") + name +
                          "(input: Tensor, mat2: Tensor, out_dtype: dtype, *, out: Tensor | None = None) -> Tensor";
  m.def(
      name,
      [f, name](const Tensor& a, const Tensor& b, nb::handle out_dtype, nb::handle out) {
        const bool up = upcast_for(out_dtype, a, name);
        return finish_out(up ? f(f32(a), f32(b)) : f(a, b), out, name);
      },
      arg("input"), arg("mat2"), arg("out_dtype"), nb::kw_only(), arg("out") = nb::none(), nb::sig(sig.c_str()),
      "The same, returning ``out_dtype``: the operands' own dtype, or float32 for float16 and bfloat16 operands.");
}

using AddFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
using AddInplaceFn = const Tensor& (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);

struct AddProduct {
  const char* name;
  const char* x;
  const char* y;
  AddFn f;
  AddInplaceFn fi;
  const char* doc;
  bool out_dtype;  // PyTorch has the form name(input, x, y, out_dtype, *, beta, alpha, out)
};

// beta * input + alpha * product: ember.name(input, x, y, *, beta=1, alpha=1, out=None), Tensor.name, Tensor.name_.
void def_add(nb::module_& m, nb::handle cls, const AddProduct& p) {
  const char* name = p.name;
  AddFn f = p.f;
  const std::string operands = std::string("(input: Tensor, ") + p.x + ": Tensor, " + p.y + ": Tensor";
  const std::string kw = "*, beta: Number = 1, alpha: Number = 1";
  const std::string fsig = "def " + std::string(name) + operands + ", " + kw + ", out: Tensor | None = None) -> Tensor";
  m.def(
      name,
      [f, name](const Tensor& in, const Tensor& a, const Tensor& b, nb::handle beta, nb::handle alpha, nb::handle out) {
        return finish_out(f(in, a, b, to_scalar(beta, name), to_scalar(alpha, name)), out, name);
      },
      arg("input"), arg(p.x), arg(p.y), nb::kw_only(), arg("beta") = 1, arg("alpha") = 1, arg("out") = nb::none(),
      nb::sig(fsig.c_str()), p.doc);
  if (p.out_dtype) {
    const std::string dsig = "def " + std::string(name) + operands + ", out_dtype: dtype, " + kw +
                             ", out: Tensor | None = None) -> Tensor";
    m.def(
        name,
        [f, name](const Tensor& in, const Tensor& a, const Tensor& b, nb::handle out_dtype, nb::handle beta,
                  nb::handle alpha, nb::handle out) {
          const Scalar be = to_scalar(beta, name), al = to_scalar(alpha, name);
          const Tensor r = upcast_for(out_dtype, a, name) ? f(f32(in), f32(a), f32(b), be, al) : f(in, a, b, be, al);
          return finish_out(r, out, name);
        },
        arg("input"), arg(p.x), arg(p.y), arg("out_dtype"), nb::kw_only(), arg("beta") = 1, arg("alpha") = 1,
        arg("out") = nb::none(), nb::sig(dsig.c_str()),
        "The same, returning ``out_dtype``: the operands' own dtype, or float32 for float16 and bfloat16 operands.");
  }
  const std::string self = std::string("(self, ") + p.x + ": Tensor, " + p.y + ": Tensor, " + kw + ") -> Tensor";
  const std::string msig = "def " + std::string(name) + self;
  const std::string mdoc = method_doc(p.doc, name);
  cls.attr(name) = nb::cpp_function(
      [f, name](const Tensor& in, const Tensor& a, const Tensor& b, nb::handle beta, nb::handle alpha) {
        return f(in, a, b, to_scalar(beta, name), to_scalar(alpha, name));
      },
      nb::is_method(), nb::scope(cls), nb::name(name), arg(p.x), arg(p.y), nb::kw_only(), arg("beta") = 1,
      arg("alpha") = 1, nb::sig(msig.c_str()), mdoc.c_str());
  const std::string iname = std::string(name) + "_";
  const std::string isig = "def " + iname + self;
  const std::string idoc = inplace_doc(name);
  cls.attr(iname.c_str()) = nb::cpp_function(
      [fi = p.fi, name](nb::handle s, const Tensor& a, const Tensor& b, nb::handle beta, nb::handle alpha) {
        fi(nb::cast<const Tensor&>(s), a, b, to_scalar(beta, name), to_scalar(alpha, name));
        return nb::borrow(s);
      },
      nb::is_method(), nb::scope(cls), nb::name(iname.c_str()), arg(p.x), arg(p.y), nb::kw_only(), arg("beta") = 1,
      arg("alpha") = 1, nb::sig(isig.c_str()), idoc.c_str());
}

// einsum's sublist format: einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> "ab,bc->ac".
std::string sublist_equation(const nb::args& args, std::vector<Tensor>& ops) {
  auto term = [](nb::handle list) {
    std::string s;
    nb::handle ellipsis(Py_Ellipsis);
    for (nb::handle item : nb::borrow<nb::sequence>(list)) {
      if (item.is(ellipsis)) {
        s += "...";
        continue;
      }
      const int64_t v = to_int(item, "einsum", "subscript");
      EMBER_CHECK_VALUE(v >= 0 && v < 52,
                        "einsum(): subscript in subscript list is not within the valid range [0, 52)");
      s += static_cast<char>(v < 26 ? 'A' + v : 'a' + v - 26);
    }
    return s;
  };
  std::string eq;
  size_t i = 0;
  for (; i + 1 < args.size(); i += 2) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(args[i]), "einsum(): expected a Tensor operand at position ", i);
    ops.push_back(nb::cast<Tensor>(args[i]));
    if (i) eq += ",";
    eq += term(args[i + 1]);
  }
  if (i < args.size()) eq += "->" + term(args[i]);
  return eq;
}

Tensor einsum_of(const nb::args& args) {
  EMBER_CHECK_TYPE(args.size() >= 1,
                   "einsum(): must specify the equation string and at least one operand, or at "
                   "least one operand and its subscripts list");
  std::vector<Tensor> ops;
  if (!PyUnicode_Check(args[0].ptr())) {
    const std::string eq = sublist_equation(args, ops);
    return einsum(eq, ops);
  }
  const std::string eq = utf8(args[0]);
  if (args.size() == 2 && !nb::isinstance<Tensor>(args[1])) {
    ops = tensors_of(args[1], "einsum");
  } else {
    for (size_t i = 1; i < args.size(); ++i) {
      EMBER_CHECK_TYPE(nb::isinstance<Tensor>(args[i]), "einsum(): operand ", i - 1, " must be a Tensor, not ",
                       nb::inst_name(args[i]).c_str());
      ops.push_back(nb::cast<Tensor>(args[i]));
    }
  }
  return einsum(eq, ops);
}

Tensor tensordot_of(const Tensor& a, const Tensor& b, nb::handle dims) {
  if (PyLong_Check(dims.ptr()) || (nb::isinstance<Tensor>(dims) && nb::cast<const Tensor&>(dims).dim() == 0))
    return tensordot(a, b, to_int(dims, "tensordot", "dims"));
  nb::sequence seq = nb::borrow<nb::sequence>(dims);
  EMBER_CHECK_TYPE(nb::len(seq) == 2, "tensordot(): dims must be an int or a pair of lists of dims");
  auto list = [](nb::handle h) {
    if (PyLong_Check(h.ptr())) return DimVector{to_int(h, "tensordot", "dims")};
    if (nb::isinstance<Tensor>(h)) {
      const Tensor t = contiguous(to(nb::cast<const Tensor&>(h), ScalarType::Int64));
      const int64_t* p = t.data<int64_t>();
      return DimVector(IntArrayRef(p, t.numel()));
    }
    return to_int_list(h, "tensordot", "dims");
  };
  return tensordot(a, b, list(seq[0]), list(seq[1]));
}

void def_operators(nb::handle cls) {
  // x @ y; other types give NotImplemented so Python tries the reflected operator.
  cls.attr("__matmul__") = nb::cpp_function(
      [](const Tensor& a, nb::handle b) -> nb::object {
        if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
        return nb::cast(matmul(a, nb::cast<const Tensor&>(b)));
      },
      nb::is_method(), nb::scope(cls), nb::name("__matmul__"), arg("other").none(),
      nb::sig("def __matmul__(self, other: Tensor) -> Tensor"), "Returns ``self @ other`` (:func:`ember.matmul`).");
  cls.attr("__rmatmul__") = nb::cpp_function(
      [](const Tensor& a, nb::handle b) -> nb::object {
        if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
        return nb::cast(matmul(nb::cast<const Tensor&>(b), a));
      },
      nb::is_method(), nb::scope(cls), nb::name("__rmatmul__"), arg("other").none(),
      nb::sig("def __rmatmul__(self, other: Tensor) -> Tensor"), "Returns ``other @ self`` (:func:`ember.matmul`).");
  cls.attr("__imatmul__") = nb::cpp_function(
      [](nb::handle self, nb::handle b) -> nb::object {
        if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
        const Tensor& t = nb::cast<const Tensor&>(self);
        const Tensor r = matmul(t, nb::cast<const Tensor&>(b));
        EMBER_CHECK(std::ranges::equal(r.sizes(), t.sizes()), "matmul_: the result of shape ", shape_str(r.sizes()),
                    " cannot be written into self of shape ", shape_str(t.sizes()));
        copy_(t, r);
        return nb::borrow(self);
      },
      nb::is_method(), nb::scope(cls), nb::name("__imatmul__"), arg("other").none(),
      nb::sig("def __imatmul__(self, other: Tensor) -> Tensor"),
      "Computes ``self @ other`` and writes it into ``self``, which must have the result's shape.");
}

}  // namespace

void init_linalg_products(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  const Product products[] = {
      {"matmul", "other", "tensor2", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, kMatmulDoc},
      {"mm", "mat2", nullptr, [](const Tensor& a, const Tensor& b) { return mm(a, b); }, kMmDoc},
      {"bmm", "mat2", "batch2", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, kBmmDoc},
      {"mv", "vec", nullptr, [](const Tensor& a, const Tensor& b) { return mv(a, b); }, kMvDoc},
      {"dot", "tensor", "other", [](const Tensor& a, const Tensor& b) { return dot(a, b); }, kDotDoc},
      {"vdot", "other", nullptr, [](const Tensor& a, const Tensor& b) { return vdot(a, b); }, kVdotDoc},
      {"outer", "vec2", nullptr, [](const Tensor& a, const Tensor& b) { return outer(a, b); }, kOuterDoc},
      {"ger", "vec2", nullptr, [](const Tensor& a, const Tensor& b) { return outer(a, b); }, kGerDoc},
      {"inner", "other", nullptr, [](const Tensor& a, const Tensor& b) { return inner(a, b); }, kInnerDoc},
  };
  for (const Product& p : products) def_product(m, cls, p);
  def_out_dtype(m, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); });
  def_out_dtype(m, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  def_operators(cls);

  const AddProduct adds[] = {
      {"addmm", "mat1", "mat2", &addmm, &addmm_, kAddmmDoc, true},
      {"addmv", "mat", "vec", &addmv, &addmv_, kAddmvDoc, false},
      {"addr", "vec1", "vec2", &addr, &addr_, kAddrDoc, false},
      {"baddbmm", "batch1", "batch2", &baddbmm, &baddbmm_, kBaddbmmDoc, true},
      {"addbmm", "batch1", "batch2", &addbmm, &addbmm_, kAddbmmDoc, false},
  };
  for (const AddProduct& p : adds) def_add(m, cls, p);

  m.def(
      "einsum", [](nb::args args) { return einsum_of(args); },
      nb::sig("def einsum(equation: str, /, *operands: Tensor) -> Tensor"), kEinsumDoc);
  m.def(
      "tensordot",
      [](const Tensor& a, const Tensor& b, nb::handle dims, nb::handle out) {
        return finish_out(tensordot_of(a, b, dims), out, "tensordot");
      },
      arg("a"), arg("b"), arg("dims") = 2, arg("out") = nb::none(),
      nb::sig("def tensordot(a: Tensor, b: Tensor, dims: int | tuple[Sequence[int], Sequence[int]] | Tensor = 2, "
              "out: Tensor | None = None) -> Tensor"),
      kTensordotDoc);
  // chain_matmul(*matrices, out=None); one list of matrices is accepted too.
  m.def(
      "chain_matmul",
      [](nb::args matrices, nb::handle out) {
        const std::vector<Tensor> ts = matrices.size() == 1 && !nb::isinstance<Tensor>(matrices[0])
                                           ? tensors_of(matrices[0], "chain_matmul")
                                           : tensors_of(matrices, "chain_matmul");
        return finish_out(chain_matmul(ts), out, "chain_matmul");
      },
      arg("matrices"), arg("out") = nb::none(),
      nb::sig("def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor"), kChainMatmulDoc);

  nb::module_ la = linalg_module(m);
  la.attr("matmul") = m.attr("matmul");
  la.def(
      "multi_dot",
      [](nb::handle tensors, nb::handle out) {
        return finish_out(multi_dot(tensors_of(tensors, "linalg.multi_dot")), out, "linalg.multi_dot");
      },
      arg("tensors"), nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def multi_dot(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor"), kMultiDotDoc);
  la.def(
      "vecdot",
      [](const Tensor& x, const Tensor& y, int64_t dim, nb::handle out) {
        return finish_out(linalg_vecdot(x, y, dim), out, "linalg.vecdot");
      },
      arg("x"), arg("y"), nb::kw_only(), arg("dim") = -1, arg("out") = nb::none(),
      nb::sig("def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor"), kVecdotDoc);
  la.def(
      "cross",
      [](const Tensor& a, const Tensor& b, int64_t dim, nb::handle out) {
        return finish_out(linalg_cross(a, b, dim), out, "linalg.cross");
      },
      arg("input"), arg("other"), nb::kw_only(), arg("dim") = -1, arg("out") = nb::none(),
      nb::sig("def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor"),
      kLinalgCrossDoc);
  publish_linalg(la);
}

}  // namespace ember::py
