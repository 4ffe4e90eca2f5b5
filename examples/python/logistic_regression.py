"""Logistic regression trained with autograd (matmul comes with issue 5, so the linear layer is a broadcast
product and a sum): every step records the graph in C++, backward runs the C++ engine.

Two Gaussian classes in 20 dimensions; prints the loss falling and the held-out accuracy, and checks the
gradient autograd computes against the closed form dL/dlogits = sigmoid(logits) - y.
"""

import time

import ember

ember.manual_seed(0)
n, d = 20000, 20
direction = ember.randn(d)
direction /= ember.linalg.vector_norm(direction)
labels = ember.randint(0, 2, (n,)).float()
x = ember.randn(n, d) + (labels * 2 - 1)[:, None] * direction * 1.2  # classes at +/-1.2 along `direction`
train, test = slice(0, 16000), slice(16000, n)

w = ember.zeros(d, requires_grad=True)
b = ember.zeros((), requires_grad=True)
lr = 0.5
start = time.perf_counter()
xs, ys = x[train], labels[train]
for step in range(201):
    logits = (xs * w).sum(1) + b
    loss = (ember.nn.functional.softplus(logits) - ys * logits).mean()  # binary cross-entropy
    loss.backward()
    if step == 0:  # autograd agrees with the gradient written out by hand
        err = ember.sigmoid(logits.detach()) - ys
        assert ember.allclose(w.grad, (xs * err[:, None]).mean(0), atol=1e-6)
        assert ember.allclose(b.grad, err.mean(), atol=1e-6)
    with ember.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad = None
    b.grad = None
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
elapsed = time.perf_counter() - start

with ember.no_grad():
    predicted = ((x[test] * w).sum(1) + b) > 0
    accuracy = (predicted == labels[test].bool()).float().mean()
    cosine = (w * direction).sum() / ember.linalg.vector_norm(w)
print(f"held-out accuracy {accuracy:.3f}; cos(w, true direction) {cosine:.3f}; {elapsed * 1e3:.0f} ms for 201 steps")
assert accuracy > 0.85, "logistic regression failed to learn"
