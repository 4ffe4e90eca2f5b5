"""A short tour of ember's tensor core: creation, views sharing memory, dtypes, random numbers."""

import ember

x = ember.arange(6.0).view(2, 3).t()
print("x =", x)
print("contiguous:", x.is_contiguous(), "strides:", x.stride(), "shape:", x.shape)

base = ember.zeros(3, 4)
base[1] = 5.0  # basic indexing returns views; assignment writes through
base[:, ::2] = ember.tensor([1.0, 2.0])
print("base =", base)

print("dtype inference:", ember.tensor([1, 2]).dtype, ember.tensor([1, 2.5]).dtype, ember.tensor([True]).dtype)
print("int32 tensor with 2.5 ->", ember.result_type(ember.tensor([1], dtype=ember.int32), 2.5))
print("float16 tensor with 1.0 ->", ember.result_type(ember.tensor([1.0], dtype=ember.float16), 1.0))

ember.manual_seed(0)
a = ember.rand(3)
ember.manual_seed(0)
print("same seed, same numbers:", a.tolist() == ember.rand(3).tolist())
print("randn:", ember.randn(2, 3, dtype=ember.float64))
print("a permutation:", ember.randperm(8))
print("cuda available:", ember.cuda.is_available())

# Autograd: the graph is recorded as ops run; the engine and the formulas are C++.
w = ember.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (w * w).sin()
print("y =", y)
y.backward(ember.ones(3))
print("dy/dw = 2 w cos(w^2):", w.grad)
(g,) = ember.autograd.grad((w * w * w).exp(), w, ember.ones(3), create_graph=True)
print("a second derivative through create_graph:", ember.autograd.grad(g, w, ember.ones(3))[0])
