"""Logistic regression by gradient descent, with the gradient written out by hand (autograd comes with
issue 4, matmul with issue 5): every step is broadcasting, elementwise ops and reductions in C++.

Two Gaussian classes in 20 dimensions; prints the loss falling and the held-out accuracy.
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

w = ember.zeros(d)
b = ember.zeros(())
lr = 0.5
start = time.perf_counter()
for step in range(201):
    xs, ys = x[train], labels[train]
    logits = (xs * w).sum(1) + b
    p = ember.sigmoid(logits)
    # Binary cross-entropy and its gradient: dL/dlogits = p - y.
    loss = (ember.nn.functional.softplus(logits) - ys * logits).mean()
    err = p - ys
    w -= lr * (xs * err[:, None]).mean(0)
    b -= lr * err.mean()
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss:.4f}")
elapsed = time.perf_counter() - start

predicted = ((x[test] * w).sum(1) + b) > 0
accuracy = (predicted == labels[test].bool()).float().mean()
cosine = (w * direction).sum() / ember.linalg.vector_norm(w)
print(f"held-out accuracy {accuracy:.3f}; cos(w, true direction) {cosine:.3f}; {elapsed * 1e3:.0f} ms for 201 steps")
assert accuracy > 0.85, "logistic regression failed to learn"
