"""Crashes the API fuzzer found (docs/fuzzing.md), each fixed at its root: the minimized reproducer, now an exception
(or a right answer), and the valid inputs beside it still right."""

import pytest

import ember


# Note [Checking pivots] (ember/ops/lu.cpp): getrs/sytrs swap rows by the pivots unchecked. Found as
# `ember.linalg.ldl_solve(randn(4, 4), randint(-1, 2**31, (4,)), randn(4, 4))`: SIGSEGV.
@pytest.mark.parametrize("bad", [[1, 2, 9], [0, 2, 3], [-5, 2, 3], [2**31 - 1, 1, 1]])
def test_lu_solve_rejects_pivots_out_of_range(bad):
    A = ember.randn(3, 3, dtype=ember.float64)
    LU, _ = ember.linalg.lu_factor(A)
    first = next(v for v in bad if not 1 <= v <= 3)
    with pytest.raises(RuntimeError, match="lu_solve: pivots must be between 1 and 3 .* but found %d$" % first):
        ember.linalg.lu_solve(LU, ember.tensor(bad, dtype=ember.int32), ember.randn(3, 2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="pivots must be between 1 and 3"):
        ember.lu_solve(ember.randn(3, 2, dtype=ember.float64), LU, ember.tensor(bad, dtype=ember.int32))


def test_lu_solve_batched_pivots_checked_in_every_matrix():
    A = ember.randn(2, 3, 3, dtype=ember.float64)
    LU, piv = ember.linalg.lu_factor(A)
    B = ember.randn(2, 3, 1, dtype=ember.float64)
    assert ember.allclose(ember.linalg.lu_solve(LU, piv, B), ember.linalg.solve(A, B))
    piv = piv.clone()
    piv[1, 2] = 4
    with pytest.raises(RuntimeError, match="but found 4"):
        ember.linalg.lu_solve(LU, piv, B)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([1, 2, 2**31], "between -3 and 3 and nonzero, .* but found 2147483648"),
        ([0, 1, 2], "but found 0"),
        ([-4, -4, 1], "but found -4"),
        ([-1, -1, -1], "pivot 2 is -1 and the next is missing"),
        ([-1, 2, 3], "pivot 0 is -1 and the next is 2"),
    ],
)
def test_ldl_solve_rejects_malformed_pivots(bad, message):
    S = ember.randn(3, 3, dtype=ember.float64)
    LD, _ = ember.linalg.ldl_factor(S + S.mT)
    with pytest.raises(RuntimeError, match="ldl_solve: .*" + message):
        ember.linalg.ldl_solve(LD, ember.tensor(bad, dtype=ember.int64), ember.randn(3, 2, dtype=ember.float64))


def test_ldl_solve_with_2x2_blocks_still_solves():
    S = ember.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]], dtype=ember.float64)
    LD, piv = ember.linalg.ldl_factor(S)
    assert piv.tolist() == [-3, -3, 3]  # a 2x2 block first: sytrf's negative pair
    B = ember.tensor([[1.0], [2.0], [3.0]], dtype=ember.float64)
    assert ember.allclose(ember.linalg.ldl_solve(LD, piv, B), ember.linalg.solve(S, B))
    assert ember.allclose(ember.linalg.ldl_solve(LD, piv.to(ember.int64), B), ember.linalg.solve(S, B))


# tri_indices (ember/ops/diagonal.cpp) counted in closed form first, then visits only the rows that hold an element.
# Found as `ember.triu_indices(1, 2**31)` running past the fuzzer's timeout (a push_back per index until bad_alloc);
# tril_indices(2**62, 0) looped 2**62 times over empty rows.
def _tri_reference(r, c, o, lower):
    pairs = [(i, j) for i in range(r) for j in range(c) if (j <= i + o if lower else j >= i + o)]
    return [[i for i, _ in pairs], [j for _, j in pairs]]


@pytest.mark.parametrize("lower", [True, False])
def test_tri_indices_match_the_definition(lower):
    f = ember.tril_indices if lower else ember.triu_indices
    for r in range(5):
        for c in range(5):
            for o in range(-6, 7):
                assert f(r, c, o).tolist() == _tri_reference(r, c, o, lower), (r, c, o)
    assert f(3, 4, 1, dtype=ember.int32).dtype == ember.int32


@pytest.mark.parametrize("lower", [True, False])
def test_tri_indices_of_huge_triangles(lower):
    f = ember.tril_indices if lower else ember.triu_indices
    assert f(2**62, 0).shape == (2, 0)
    assert f(0, 2**62).shape == (2, 0)
    assert f(2**62, 0, -(2**63)).shape == (2, 0)
    assert f(5, 5, 2**63 - 1).shape == (2, 25 if lower else 0)
    assert f(5, 5, -(2**63)).shape == (2, 0 if lower else 25)
    with pytest.raises(RuntimeError, match="too many indices for a tensor"):
        f(2**62, 2**62)
    with pytest.raises(RuntimeError, match="out of memory"):
        f(2**40, 2**10, 2**10 if lower else -(2**40))  # every row full: 2**50 indices, 16 PiB
    assert ember.tril_indices(2**62, 1, -(2**62) + 2).tolist() == [[2**62 - 2, 2**62 - 1], [0, 0]]


# Integer + - * wrap around in the unsigned type (ember/backend/math/binary.h, wrap_add): signed overflow was undefined
# behaviour. Found by scripts/sanitize's API fuzz (UBSan) as `t.add_(u, alpha=-2**63)` on int64 and
# `ember.sub(a, b, alpha=2**31 - 1)` on int32. The expected values are PyTorch 2.15's.
def test_integer_arithmetic_wraps_as_pytorchs():
    i64, i32, i8 = ember.int64, ember.int32, ember.int8
    assert ember.tensor([2**63 - 1]).add(ember.tensor([1])).tolist() == [-(2**63)]
    assert ember.tensor([5]).sub(ember.tensor([3]), alpha=-(2**63)).tolist() == [-(2**63) + 5]
    a, b = ember.tensor([7], dtype=i32), ember.tensor([-3], dtype=i32)
    assert ember.sub(a, b, alpha=2**31 - 1).tolist() == [-2147483644]
    assert ember.tensor([2**62], dtype=i64).mul(ember.tensor([4])).tolist() == [0]
    assert ember.tensor([3], dtype=i8).add(ember.tensor([100], dtype=i8), alpha=3).tolist() == [47]
    t = ember.tensor([-(2**63), 2**63 - 1])
    t.add_(ember.tensor([1, 1]), alpha=-(2**63))
    assert t.tolist() == [0, -1]


# polygamma's zeta(n + 1, x) computed n + 1 in int: polygamma(2**31 - 1, x) overflowed (UBSan). At x = 0.5 the value
# (about n! 2**(n+1)) overflows to inf (PyTorch 2.15: nan); at 2.0 n! (inf) times zeta (0) is nan, as in PyTorch.
def test_polygamma_of_the_largest_order():
    r = ember.polygamma(2**31 - 1, ember.tensor([0.5, 2.0])).tolist()
    assert r[0] == float("inf") and r[1] != r[1]
    assert ember.polygamma(3, ember.tensor([2.0], dtype=ember.float64)).item() == pytest.approx(0.4939394022668291)


# histogramdd of a million dimensions (the CI fuzz's seed 203163433): 3 bins each is 3**1048576 elements, which it
# computed as a Python int (minutes) after making a million edge tensors. The count is now checked first, stopping as
# soon as it passes int64.
def test_histogramdd_of_too_many_bins_raises_at_once():
    points = ember.zeros(0, 2**20, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="more than 2\\*\\*63 - 1 elements"):
        ember.histogramdd(points, 3)
    with pytest.raises(RuntimeError, match="more than 2\\*\\*63 - 1 elements"):
        ember.histogramdd(ember.zeros(1, 2), [2**32, 2**32])
    r = ember.histogramdd(ember.tensor([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), [2, 3])
    assert r.hist.shape == (2, 3) and r.hist.sum().item() == 3  # numpy.histogramdd: [[1, 0, 0], [1, 0, 1]]
    assert r.hist.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 1.0]]


# The CPU caching allocator's deallocate runs in destructors: when memory ran out, its free-list bookkeeping threw
# std::bad_alloc there and the process aborted. Found as `ember.unbind_copy` of a [65536, 32769] expanded bfloat16
# tensor under a 4 GiB address space (fuzz seed 144957529): SIGABRT. Now the block goes back to the OS and the
# allocation that failed raises OutOfMemoryError.
_OUT_OF_MEMORY = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import ember
t = ember.randn((1,), dtype=ember.bfloat16).as_strided((65536, 32769), (0, 0))
try:
    ember.unbind_copy(t)
except ember.OutOfMemoryError as e:
    print("OutOfMemoryError", "you tried to allocate" in str(e))
"""


def test_running_out_of_memory_while_freeing_raises_instead_of_aborting():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _OUT_OF_MEMORY], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "OutOfMemoryError True"


# Note [Large blocks are mapped] (ember/backend/cpu/allocator.cpp): after that OutOfMemoryError, the memory of the
# tensors made before it stayed in glibc's heap, mapped though free, and oneDNN's JIT compiler crashed mapping its
# next kernel's code (fuzz seed 66087770: `adaptive_max_pool2d` of a bfloat16 tensor after the unbind_copy above,
# SIGSEGV). Now that memory leaves the address space with its tensors, and the next oneDNN kernel compiles and runs.
_AFTER_OUT_OF_MEMORY = """
import resource
import ember
def mapped():
    return int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) << 10
limit = mapped() + (1 << 30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
t = ember.zeros((1,), dtype=ember.int32).as_strided((65536, 32769), (0, 0))
try:
    ember.unbind_copy(t, 1)
except ember.OutOfMemoryError:
    print("OutOfMemoryError", mapped() < limit - (768 << 20))
x = ember.arange(64.0).reshape(1, 4, 4, 4).to(ember.bfloat16)
print(ember.nn.functional.adaptive_max_pool2d(x, 2).flatten().tolist()[:4])
"""


def test_memory_of_a_failed_op_leaves_the_address_space():
    import os
    import subprocess
    import sys

    env = {**os.environ, "EMBER_CPU_CACHE_MB": "64"}  # the cache keeps its blocks mapped: only up to its cap
    r = subprocess.run(
        [sys.executable, "-c", _AFTER_OUT_OF_MEMORY], capture_output=True, text=True, timeout=300, env=env
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split("\n")[:2] == ["OutOfMemoryError True", "[5.0, 7.0, 13.0, 15.0]"]


# roll walked all 2^k blocks of its k dims, empty ones too: fftshift of a tensor with 25 size-1 dims took 10-60 s
# (fuzz seed 144957529, a timeout). Dims rolled by a multiple of their size are left out now.
def test_roll_over_many_dims_with_zero_shifts():
    import numpy as np

    x = ember.arange(24.0).reshape([1] * 20 + [2, 3, 4])
    got = ember.roll(x, [1] * 20 + [1, 0, 3], list(range(23)))
    want = np.roll(np.arange(24.0).reshape([1] * 20 + [2, 3, 4]), [1] * 20 + [1, 0, 3], list(range(23)))
    np.testing.assert_array_equal(got.numpy(), want)
    t = ember.randn([1] * 25, dtype=ember.float64, requires_grad=True)
    y = ember.fft.ifftshift(t)
    y.sum().backward()
    assert y.item() == t.item() and t.grad.item() == 1.0


# A million views from unbind near the address-space limit: nanobind records each new wrapper from noexcept code, so
# a std::bad_alloc in its hash map's rehash aborted the process (fuzz seed 177540226, SIGABRT). The tuple's memory is
# now asked for first (Note [Many tensors back to Python]), so the call raises MemoryError or succeeds, at any limit.
# The splitting *_copy functions copied their pieces one by one from Python, outside that reservation (fuzz seed
# 72927083: `unbind_copy` of a transposed [1048576, 0] bfloat16 tensor, SIGABRT at a 2000 MiB margin); the copies
# are made in one C++ call now.
_A_MILLION_PIECES = """
import resource, sys
import ember
op, extra = sys.argv[1], int(sys.argv[2]) << 20
t = ember.ones((1 << 20, 0), dtype=ember.bfloat16).requires_grad_().transpose(0, 1)
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))
try:
    r = getattr(ember, op)(t, 1)
    print("ok", len(r) == 1 << 20 and r[7].shape == (0,))
except MemoryError:
    print("MemoryError")
"""


@pytest.mark.parametrize(
    "op, extra_mib",
    [("unbind", m) for m in (250, 300, 400, 550)] + [("unbind_copy", m) for m in (1200, 1900, 2000, 2200)],
)
def test_a_million_pieces_near_the_memory_limit_never_abort(op, extra_mib):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", _A_MILLION_PIECES, op, str(extra_mib)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() in ("ok True", "MemoryError")


# The first storage a process freed built the registry of watched storages (ember/storage_watch.cpp) on the heap; with
# the address space full, that allocation threw in the storage's destructor and aborted the process (fuzz seed
# 152582547: `unbind_copy` of an expanded bfloat16 tensor, SIGABRT). The registry is now built in static memory. Each
# case is a fresh process whose first freed tensor goes while every byte is taken.
_FREE_WHEN_FULL = """
import resource, sys
import numpy as np
import ember
kind = sys.argv[1]
if kind == "plain":
    t = ember.ones(1000)
elif kind == "graph":
    t = (ember.randn(100, requires_grad=True) * 2).exp()[3:].sum()
elif kind == "numpy":
    t = ember.from_numpy(np.ones(100))
else:
    t = ember.randn((1, 4096), dtype=ember.bfloat16).requires_grad_().expand((0, 4096)).unbind(1)
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024 + (256 << 20)
resource.setrlimit(resource.RLIMIT_AS, (size, size))
hog, chunk = [], 1 << 30
while chunk >= 8:
    try:
        hog.append(bytearray(chunk))
    except MemoryError:
        chunk //= 2
del t
hog.clear()
print("freed", ember.ones(3).sum().item())
"""


@pytest.mark.parametrize("kind", ["plain", "graph", "numpy", "views"])
def test_freeing_the_first_tensor_with_no_memory_left(kind):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _FREE_WHEN_FULL, kind], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "freed 3.0"


# Note [Geometries beyond oneDNN] (ember/backend/cpu/conv.cpp): oneDNN indexes taps in 32 bits. Found as
# `conv2d(randn(3, 1, 1), randn(1, 3, 5, 5), padding=2**32, dilation=2**31)`: SIGSEGV in its JIT code. With a
# dilation of at least the input's size, only the kernel's centre tap reads the input (the others fall in the
# padding), so the convolution is the 1x1 convolution by the centre taps: NumPy's einsum is the reference.
@pytest.mark.parametrize("dtype", [ember.float32, ember.bfloat16])
@pytest.mark.parametrize("exp, shape", [(31, (3, 1, 1)), (30, (2, 3, 4, 4)), (24, (2, 3, 4, 4)), (20, (1, 3, 5, 3))])
def test_convolution_of_huge_dilation_and_padding(exp, shape, dtype):
    import numpy as np

    D = 2**exp
    x = ember.randn(*shape).to(dtype).requires_grad_()
    w = ember.randn(2, 3, 5, 5).to(dtype).requires_grad_()
    b = ember.randn(2).to(dtype).requires_grad_()
    y = ember.nn.functional.conv2d(x, w, b, padding=2 * D, dilation=D)
    xn, wn, bn = (t.detach().float().numpy().astype(np.float64) for t in (x, w, b))
    batched = xn.reshape((-1,) + shape[-3:])
    want = np.einsum("oc,nchw->nohw", wn[:, :, 2, 2], batched) + bn[None, :, None, None]
    tol = 1e-5 if dtype == ember.float32 else 2e-2
    np.testing.assert_allclose(y.detach().float().numpy(), want.reshape(y.shape), rtol=tol, atol=tol)
    gy = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
    y.backward(ember.tensor(gy, dtype=dtype))
    gyn = gy.reshape(want.shape)
    gw = np.zeros_like(wn)
    gw[:, :, 2, 2] = np.einsum("nohw,nchw->oc", gyn, batched)
    np.testing.assert_allclose(w.grad.float().numpy(), gw, rtol=tol, atol=tol * np.abs(gw).max())
    gx = np.einsum("oc,nohw->nchw", wn[:, :, 2, 2], gyn).reshape(shape)
    np.testing.assert_allclose(x.grad.float().numpy(), gx, rtol=tol, atol=tol * np.abs(gx).max())
    np.testing.assert_allclose(b.grad.float().numpy(), gyn.sum((0, 2, 3)), rtol=tol, atol=tol)


# oneDNN writes a kernel's machine code when a primitive is made (its sgemm's at the first call) and crashed in its code
# generator when the address space had only a few MiB left (fuzz seed 234468231: the float16 `conv2d` backward,
# SIGSEGV). Room for the code is asked for first now (Note [Room for oneDNN's code]): OutOfMemoryError or a result.
_JIT_NEAR_LIMIT = """
import resource, sys
import ember
kind, margin = sys.argv[1], int(sys.argv[2]) << 10
a = ember.arange(4096.0).reshape(64, 64) / 4096
x = ember.randint(-1, 2**31, (2, 2, 6, 6), dtype=ember.float16).requires_grad_()[1:]
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + margin, size + margin))
try:
    if kind == "sgemm":
        r = (a @ a)[5, 7].item()
        print("ok", abs(r - sum((5 * 64 + k) * (k * 64 + 7) for k in range(64)) / 4096**2) < 1e-3)
    elif kind == "conv16":
        ember.nn.functional.conv2d(x, x).sum().backward()
        print("ok", x.grad.shape == (1, 2, 6, 6))
    else:
        b = a.to(ember.bfloat16)
        print("ok", abs((b @ b).float()[0, 0].item() - (a @ a)[0, 0].item()) < 0.05)
except ember.OutOfMemoryError as e:
    print("OutOfMemoryError", "oneDNN" in str(e) or "allocate" in str(e))
"""


@pytest.mark.parametrize("margin_kib", [0, 2048])
@pytest.mark.parametrize("kind", ["sgemm", "conv16", "bf16_matmul"])
def test_onednn_code_near_the_memory_limit_never_crashes(kind, margin_kib):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", _JIT_NEAR_LIMIT, kind, str(margin_kib)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.strip() in ("ok True", "OutOfMemoryError True")


# ember's thread pool started its workers at the first parallel op; when one could not start (its stack did not fit
# in the address space), the op raised "Resource temporarily unavailable", or, after a first worker had started, the
# process aborted with that worker unjoined. The pool now runs with the workers it could start.
_POOL_NEAR_LIMIT = """
import resource, sys
import ember
ember.set_num_threads(4)
x = ember.arange(1 << 22, dtype=ember.float32)
y = ember.empty(1 << 22)
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024 + (int(sys.argv[1]) << 20)
resource.setrlimit(resource.RLIMIT_AS, (size, size))
ember.mul(x, 2.0, out=y)
print(y[-1].item())
"""


@pytest.mark.parametrize("margin_mib", [1, 12, 20])
def test_thread_pool_runs_with_the_workers_it_could_start(margin_mib):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", _POOL_NEAR_LIMIT, str(margin_mib)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert float(r.stdout.strip()) == 2.0 * ((1 << 22) - 1)
