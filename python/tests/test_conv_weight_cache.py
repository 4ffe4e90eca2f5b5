"""oneDNN's blocked copies of convolution weights kept across calls (Note [Blocked weights] in backend/cpu/dnnl.cpp,
Note [Caches derived from a storage] in ember/storage_watch.h): every way of changing a weight's bytes between two
calls gives the result of the new weight, against a float64 reference computed from the weight's values."""

import numpy as np

import ember
import ember.nn as nn
import ember.nn.functional as F


def _ref(x, w, b=None, **kw):
    return F.conv2d(x.double(), w.detach().double(), None if b is None else b.detach().double(), **kw).numpy()


def _check(got, want):
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-4, atol=1e-4)


def _calls(x, w, n=3, **kw):
    """n inference calls (the second keeps the blocked copy, the third reads it), each against the reference."""
    for _ in range(n):
        with ember.no_grad():
            _check(F.conv2d(x, w, **kw), _ref(x, w, **kw))


def test_in_place_writes_between_calls_are_seen():
    ember.manual_seed(0)
    x, w = ember.randn(1, 32, 6, 6), ember.randn(48, 32, 3, 3)
    _calls(x, w, padding=1)
    for write in (
        lambda: w.mul_(-2.0),
        lambda: w.copy_(ember.randn(48, 32, 3, 3)),
        lambda: w[3].fill_(0.5),
        lambda: w.data.add_(1.0),
        lambda: ember.nn.init.kaiming_uniform_(w),
    ):
        with ember.no_grad():
            write()
        _calls(x, w, padding=1)


def test_views_of_one_storage_are_told_apart():
    """Two weights viewing one flat buffer (offsets differ) and a write to one of them."""
    ember.manual_seed(1)
    flat = ember.randn(2 * 40 * 16 * 9)
    w1, w2 = flat[: 40 * 16 * 9].view(40, 16, 3, 3), flat[40 * 16 * 9 :].view(40, 16, 3, 3)
    x = ember.randn(1, 16, 5, 5)
    for _ in range(2):
        _calls(x, w1, padding=1)
        _calls(x, w2, padding=1)
        with ember.no_grad():
            w2.neg_()


def test_writes_through_numpy_and_from_numpy_are_seen():
    ember.manual_seed(2)
    x, w = ember.randn(1, 16, 4, 4), ember.randn(32, 16, 3, 3)
    _calls(x, w, padding=1)
    w.numpy()[...] *= 3.0  # NumPy writes bump no version: the storage is no longer trusted
    _calls(x, w, padding=1)
    a = np.random.default_rng(3).standard_normal((32, 16, 3, 3)).astype(np.float32)
    wn = ember.from_numpy(a)
    _calls(x, wn, padding=1)
    a[...] = -a
    _calls(x, wn, padding=1)


def test_a_new_weight_at_a_freed_address_is_not_mistaken_for_the_old():
    ember.manual_seed(4)
    x = ember.randn(1, 16, 4, 4)
    for _ in range(6):  # each weight made alike (same size, same version), its memory freed before the next
        w = ember.randn(32, 16, 3, 3)
        _calls(x, w, padding=1)
        del w


def test_training_then_evaluation_sees_every_step():
    """An optimizer step between evaluation passes (versions change) and a frozen layer's backward."""
    ember.manual_seed(5)
    model = nn.Sequential(nn.Conv2d(8, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1))
    model[0].weight.requires_grad_(False)  # frozen: its backward reads the same weight each step
    opt = ember.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
    x = ember.randn(1, 8, 5, 5, requires_grad=True)

    def reference(inp):
        h = F.conv2d(inp.double(), model[0].weight.double(), model[0].bias.detach().double(), padding=1).relu()
        return F.conv2d(h, model[2].weight.detach().double(), model[2].bias.detach().double(), padding=1)

    for _ in range(3):
        for _ in range(3):
            with ember.no_grad():
                _check(model(x), reference(x.detach()).numpy())
        x.grad = None
        out = model(x)
        out.square().sum().backward()
        x64 = x.detach().double().requires_grad_()
        reference(x64).square().sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), rtol=1e-4, atol=1e-3)
        opt.step()
        opt.zero_grad()
