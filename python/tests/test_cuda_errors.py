"""CUDA bad input and the indexing, sorting and spatial kernels on a GPU: mixing devices in one op raises PyTorch's
"Expected all tensors to be on the same device" error before any launch; an index out of range found by a CUDA kernel
raises an IndexError naming the op (at the next wait, Note [Deferred device errors]) and the process keeps working;
the kernels agree with the CPU's (the reference). Everything here needs a GPU and is skipped without one."""

import math
import re

import numpy as np
import pytest

import ember

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a CUDA device")

SAME_DEVICE = re.escape("Expected all tensors to be on the same device, but found at least two devices, ")


def gpu(t):
    return t.to("cuda")


def both(x):
    return x, gpu(x)


def host(t):
    return t.cpu().numpy()


# ---------------------------------------------------------------------------------------------- mixed devices


def _mixed_calls():
    F = ember.nn.functional
    a = ember.randn(4, 4)
    idx = ember.tensor([0, 2])
    img = ember.randn(1, 2, 5, 5)
    w = ember.randn(3, 2, 3, 3)
    return [
        ("add", lambda c: ember.add(a, c(a))),
        ("matmul", lambda c: ember.matmul(a, c(a))),
        ("mm", lambda c: ember.mm(c(a), a)),
        ("bmm", lambda c: ember.bmm(c(a[None]), a[None])),
        ("addmm", lambda c: ember.addmm(a, c(a), c(a))),
        ("linear", lambda c: F.linear(c(a), a)),
        ("conv2d", lambda c: F.conv2d(c(img), w)),
        ("cat", lambda c: ember.cat([a, c(a)])),
        ("stack", lambda c: ember.stack([a, c(a)])),
        ("where", lambda c: ember.where(c(a > 0), a, a)),
        ("index_select", lambda c: ember.index_select(c(a), 0, idx)),
        ("gather", lambda c: ember.gather(c(a), 0, ember.zeros(1, 4, dtype=ember.int64))),
        ("index_add", lambda c: c(a).index_add_(0, idx, a[:2])),
        ("scatter", lambda c: ember.scatter(c(a), 0, ember.zeros(1, 4, dtype=ember.int64), a[:1])),
        ("embedding", lambda c: F.embedding(idx, c(a))),
        ("mse_loss", lambda c: F.mse_loss(c(a), a)),
        ("cross_entropy", lambda c: F.cross_entropy(c(a), idx.repeat(2))),
        ("nll_loss", lambda c: F.nll_loss(a, c(idx.repeat(2)))),
        ("binary_cross_entropy", lambda c: F.binary_cross_entropy(c(a.sigmoid()), a.sigmoid())),
        ("layer_norm", lambda c: F.layer_norm(c(a), (4,), ember.ones(4), ember.zeros(4))),
        ("batch_norm", lambda c: F.batch_norm(c(a), ember.zeros(4), ember.ones(4))),
        ("group_norm", lambda c: F.group_norm(c(img), 1, ember.ones(2))),
        ("grid_sample", lambda c: F.grid_sample(c(img), ember.zeros(1, 2, 2, 2), align_corners=False)),
        ("cdist", lambda c: ember.cdist(c(a), a)),
        ("einsum", lambda c: ember.einsum("ij,jk->ik", c(a), a)),
    ]


@pytest.mark.parametrize("name, call", _mixed_calls(), ids=[n for n, _ in _mixed_calls()])
def test_mixed_devices_raise(name, call):
    with pytest.raises(RuntimeError, match=SAME_DEVICE + r"(cuda:0 and cpu|cpu and cuda:0)!"):
        call(gpu)
    ember.cuda.synchronize()
    assert ember.ones(3, device="cuda").sum().item() == 3  # nothing was launched half-way, the device is fine


# ---------------------------------------------------------------------------------- out-of-range indices on the GPU


@pytest.mark.parametrize(
    "name, call",
    [
        ("index_select", lambda x: ember.index_select(x, 0, gpu(ember.tensor([0, 7])))),
        ("gather", lambda x: ember.gather(x, 0, gpu(ember.tensor([1, 9])))),
        ("take", lambda x: ember.take(x, gpu(ember.tensor([-20])))),
        ("scatter_add", lambda x: x.clone().scatter_add_(0, gpu(ember.tensor([5])), x[:1])),
        ("index_add_", lambda x: x.clone().index_add_(0, gpu(ember.tensor([5])), x[:1])),
        ("index", lambda x: x[gpu(ember.tensor([0, 5]))]),
    ],
    ids=["index_select", "gather", "take", "scatter_add", "index_add", "getitem"],
)
def test_index_out_of_range_on_gpu(name, call):
    x = ember.arange(5.0, device="cuda")
    with pytest.raises(IndexError, match=re.escape(name) + r".*out of bounds"):
        call(x).cpu()  # raised at the wait at the latest
        ember.cuda.synchronize()
    # The process and the device keep working, and the report was consumed.
    y = ember.arange(4.0, device="cuda")
    assert host(ember.index_select(y, 0, gpu(ember.tensor([3, 0])))).tolist() == [3.0, 0.0]
    ember.cuda.synchronize()


def test_bernoulli_probability_out_of_range_on_gpu():
    # p stays on the device (no wait for it at the call): the kernel reports the bad element at the next wait.
    p = ember.tensor([0.5, 1.5, 0.2], device="cuda")
    with pytest.raises(RuntimeError, match=r"bernoulli: expects all elements of p to be in \[0, 1\].*element 1 "):
        ember.bernoulli(p).cpu()
        ember.cuda.synchronize()
    q = ember.tensor([0.0, 1.0], device="cuda")
    assert host(ember.bernoulli(q)).tolist() == [0.0, 1.0]  # the device keeps working; the report was consumed
    ember.cuda.synchronize()


def test_normal_negative_std_on_gpu():
    std = ember.tensor([1.0, -1.0], device="cuda")
    with pytest.raises(RuntimeError, match=r"normal: expects all elements of std >= 0.0.*element 1 "):
        ember.normal(ember.zeros(2, device="cuda"), std).cpu()
        ember.cuda.synchronize()
    assert host(ember.normal(ember.zeros(2, device="cuda"), ember.zeros(2, device="cuda"))).tolist() == [0.0, 0.0]
    ember.cuda.synchronize()


def test_negative_indices_wrap_as_on_the_cpu():
    x, xg = both(ember.arange(10.0))
    i = ember.tensor([-1, -10, 3])
    np.testing.assert_array_equal(host(xg[gpu(i)]), x[i].numpy())
    np.testing.assert_array_equal(host(ember.take(xg, gpu(i))), ember.take(x, i).numpy())


# ---------------------------------------------------------------------------------- indexing kernels agree with CPU

DTYPES = [
    ember.float32,
    ember.float64,
    ember.float16,
    ember.bfloat16,
    ember.int64,
    ember.int32,
    ember.int16,
    ember.int8,
    ember.uint8,
    ember.bool,
]


def _data(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    if dtype == ember.bool:
        return ember.tensor(g.integers(0, 2, shape).astype(bool))
    if dtype in (ember.float32, ember.float64, ember.float16, ember.bfloat16):
        return ember.tensor(g.integers(-4, 5, shape).astype(np.float64)).to(dtype)  # ties on purpose
    return ember.tensor(g.integers(0 if dtype == ember.uint8 else -50, 50, shape)).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gather_scatter_agree(dtype):
    x, xg = both(_data((6, 5), dtype))
    idx = ember.tensor(np.random.default_rng(1).integers(0, 6, (4, 5)))
    np.testing.assert_array_equal(host(ember.gather(xg, 0, gpu(idx))), ember.gather(x, 0, idx).numpy())
    # unique indices per column: the result does not depend on the order of the writes
    perm = ember.stack([ember.randperm(6)[:4] for _ in range(5)], 1)
    src, srcg = both(_data((4, 5), dtype, 2))
    np.testing.assert_array_equal(host(ember.scatter(xg, 0, gpu(perm), srcg)), ember.scatter(x, 0, perm, src).numpy())
    for reduce in ["sum", "prod", "amax", "amin"]:
        if dtype == ember.bool and reduce in ("sum", "prod"):
            continue
        if dtype in (ember.float16, ember.bfloat16) and reduce == "prod":
            continue  # the order of the products differs and rounds differently
        cpu = ember.scatter_reduce(x, 0, idx, src, reduce)
        cuda = ember.scatter_reduce(xg, 0, gpu(idx), srcg, reduce)
        np.testing.assert_allclose(host(cuda.to(ember.float64)), cpu.to(ember.float64).numpy(), rtol=1e-2)


def test_scatter_reduce_nan_as_on_the_cpu():
    x = ember.tensor([1.0, float("nan"), 3.0])
    src = ember.tensor([float("nan"), 5.0, 0.0])
    idx = ember.tensor([0, 1, 2])
    for reduce in ["amax", "amin"]:
        np.testing.assert_array_equal(
            host(ember.scatter_reduce(gpu(x), 0, gpu(idx), gpu(src), reduce)),
            ember.scatter_reduce(x, 0, idx, src, reduce).numpy(),
        )


def test_index_put_accumulate_and_advanced_indexing():
    x, xg = both(ember.zeros(4, 3))
    i, j = ember.tensor([0, 0, 3, 1]), ember.tensor([2, 2, 0, 1])
    v = ember.tensor([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(
        host(xg.index_put((gpu(i), gpu(j)), gpu(v), accumulate=True)), x.index_put((i, j), v, accumulate=True).numpy()
    )
    y, yg = both(ember.arange(60.0).reshape(3, 4, 5))
    np.testing.assert_array_equal(host(yg[gpu(i[:3]), :, gpu(j[:3])]), y[i[:3], :, j[:3]].numpy())
    np.testing.assert_array_equal(host(yg[gpu(y > 30)]), y[y > 30].numpy())


@pytest.mark.parametrize("shape", [(0,), (7,), (3, 4), (2, 3, 4), ()])
def test_nonzero_agrees(shape):
    x, xg = both(_data(shape, ember.float32, 3))
    np.testing.assert_array_equal(host(ember.nonzero(xg)), ember.nonzero(x).numpy())


def test_repeat_interleave_agrees():
    r, rg = both(ember.tensor([2, 0, 3, 1]))
    np.testing.assert_array_equal(host(ember.repeat_interleave(rg)), ember.repeat_interleave(r).numpy())
    x, xg = both(ember.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(host(ember.repeat_interleave(xg, rg, 0)), ember.repeat_interleave(x, r, 0).numpy())


# ---------------------------------------------------------------------------------- sorting kernels agree with CPU


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_agrees_stable(dtype, descending):
    x = _data((3, 50, 4), dtype)
    for dim in (0, 1, 2):
        v, i = ember.sort(x, dim, descending)
        vg, ig = ember.sort(gpu(x), dim, descending)
        np.testing.assert_array_equal(host(ig), i.numpy())  # stable: the same indices
        np.testing.assert_array_equal(host(vg.to(ember.float64)), v.to(ember.float64).numpy())


def test_sort_nan_and_signed_zero_as_on_the_cpu():
    x = ember.tensor([0.0, float("nan"), -0.0, 1.0, float("-inf"), float("nan"), -1.0, float("inf")])
    for t in (ember.float32, ember.float64, ember.float16, ember.bfloat16):
        for desc in (False, True):
            _, i = ember.sort(x.to(t), descending=desc)
            _, ig = ember.sort(gpu(x.to(t)), descending=desc)
            np.testing.assert_array_equal(host(ig), i.numpy())


@pytest.mark.parametrize("largest", [True, False])
def test_topk_agrees(largest):
    x = _data((5, 40), ember.float32)
    x[0, 3] = float("nan")
    v, i = ember.topk(x, 7, 1, largest)
    vg, ig = ember.topk(gpu(x), 7, 1, largest)
    np.testing.assert_array_equal(host(ig), i.numpy())
    np.testing.assert_array_equal(host(vg), v.numpy())


@pytest.mark.parametrize("op", ["kthvalue", "median", "nanmedian", "mode"])
def test_selection_agrees(op):
    x = _data((6, 31), ember.float32)
    x[1, 4] = float("nan")
    x[2, :] = float("nan")
    for dim in (0, 1):
        args = (5, dim) if op == "kthvalue" else (dim,)
        v, i = getattr(ember, op)(x, *args)
        vg, ig = getattr(ember, op)(gpu(x), *args)
        np.testing.assert_array_equal(host(vg), v.numpy())
        np.testing.assert_array_equal(host(ig), i.numpy())
    assert math.isnan(ember.median(gpu(x)).item()) and math.isnan(ember.median(x).item())
    assert ember.nanmedian(gpu(x)).item() == ember.nanmedian(x).item()


def test_unique_agrees():
    x = ember.tensor([3.0, 1.0, float("nan"), 1.0, 2.0, float("nan"), 3.0, 3.0])
    for f in (
        lambda t: ember.unique(t, return_inverse=True, return_counts=True),
        lambda t: ember.unique_consecutive(t, return_inverse=True, return_counts=True),
    ):
        for a, b in zip(f(x), f(gpu(x))):
            np.testing.assert_array_equal(host(b), a.numpy())
    e = ember.unique(gpu(ember.zeros(0)))
    assert tuple(e.shape) == (0,) and str(e.device) == "cuda:0"


# ---------------------------------------------------------------------------------- spatial kernels agree with CPU


@pytest.mark.parametrize(
    "mode, kw",
    [
        ("nearest", {}),
        ("bilinear", {"align_corners": False}),
        ("bicubic", {"align_corners": True}),
        ("area", {}),
        ("bilinear", {"antialias": True, "align_corners": False}),
    ],
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_interpolate_and_its_gradient_agree(mode, kw, dtype):
    x = ember.randn(2, 3, 9, 7, dtype=dtype, requires_grad=True)
    xg = gpu(x.detach()).requires_grad_()
    size = (5, 4) if kw.get("antialias") or mode == "area" else (13, 11)
    y = ember.nn.functional.interpolate(x, size=size, mode=mode, **kw)
    yg = ember.nn.functional.interpolate(xg, size=size, mode=mode, **kw)
    g = ember.randn(*y.shape, dtype=dtype)
    y.backward(g)
    yg.backward(gpu(g))
    tol = 1e-5 if dtype == ember.float32 else 1e-12
    np.testing.assert_allclose(host(yg), y.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(host(xg.grad), x.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_unfold_fold_agree(dtype):
    F = ember.nn.functional
    x = ember.randn(2, 3, 8, 7, dtype=dtype)
    kw = dict(kernel_size=(3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1))
    cols = F.unfold(x, **kw)
    np.testing.assert_array_equal(host(F.unfold(gpu(x), **kw)), cols.numpy())
    back = F.fold(cols, (8, 7), **kw)
    np.testing.assert_allclose(host(F.fold(gpu(cols), (8, 7), **kw)), back.numpy(), rtol=1e-6, atol=1e-6)
