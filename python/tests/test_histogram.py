"""histogram / histogramdd against numpy.histogram / numpy.histogramdd (counts, weights, density, edges given as
tensors, values on the last edge, NaN, empty and non-contiguous inputs), their argument errors, and
ember.return_types."""

import math
import pickle

import numpy as np
import pytest
from conftest import to_np

import ember


def _close(t, expected, dtype=ember.float64):
    assert t.dtype == dtype
    tol = 1e-12 if dtype == ember.float64 else 1e-5
    np.testing.assert_allclose(to_np(t), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("density", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_int_bins_vs_numpy(dtype, density, weighted):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(7, 9))
    w = rng.uniform(0.1, 2.0, size=a.shape) if weighted else None
    x = ember.tensor(a, dtype=dtype)
    wt = ember.tensor(w, dtype=dtype) if weighted else None
    r = ember.histogram(x, 6, weight=wt, density=density)
    assert isinstance(r, ember.return_types.histogram) and r.hist is r[0] and r.bin_edges is r[1]
    a32 = to_np(x).astype(np.float64)  # the values the op sees
    hist, edges = np.histogram(
        a32, bins=6, weights=None if w is None else to_np(wt).astype(np.float64), density=density
    )
    _close(r.bin_edges, edges, dtype)
    _close(r.hist, hist, dtype)
    r2 = ember.histogram(x, 5, range=(-1.0, 0.5), weight=wt, density=density)
    hist, edges = np.histogram(
        a32, bins=5, range=(-1.0, 0.5), weights=None if w is None else to_np(wt).astype(np.float64), density=density
    )
    _close(r2.bin_edges, edges, dtype)
    _close(r2.hist, hist, dtype)


def test_histogram_edges_tensor_last_edge_and_outside():
    x = ember.tensor([0.0, 1.0, 1.5, 3.0, 3.0, 4.0, -1.0, 2.999], dtype=ember.float64)
    edges = ember.tensor([0.0, 1.0, 2.5, 3.0], dtype=ember.float64)
    r = ember.histogram(x, edges)
    hist, _ = np.histogram(to_np(x), bins=to_np(edges))
    _close(r.hist, hist)
    assert r.hist.tolist() == [1.0, 2.0, 3.0]  # 3.0 (the last edge) twice and 2.999 in the last bin; 4, -1 out
    assert r.bin_edges.tolist() == edges.tolist()
    w = ember.tensor([1, 2, 3, 4, 5, 6, 7, 8], dtype=ember.float64)
    hist, _ = np.histogram(to_np(x), bins=to_np(edges), weights=to_np(w), density=True)
    _close(ember.histogram(x, edges, weight=w, density=True).hist, hist)
    _close(x.histogram(edges).hist, [1.0, 2.0, 3.0])  # the Tensor method
    assert ember.histogram(x, np.int64(3)).hist.tolist() == ember.histogram(x, 3).hist.tolist()  # bins by __index__
    with pytest.raises(TypeError, match="bins"):
        ember.histogram(x, True)


def test_histogram_nan_inf_and_degenerate_ranges():
    x = ember.tensor([1.0, math.nan, 1.5, math.inf])
    r = ember.histogram(x, 2, range=(0.0, 2.0), weight=ember.tensor([1.0, math.nan, 2.0, math.nan]))
    assert r.hist.tolist() == [0.0, 3.0]  # NaN / inf values and their weights are not counted
    with pytest.raises(RuntimeError, match="range \\[nan, nan\\] is not finite"):
        ember.histogram(ember.tensor([1.0, math.nan]), 3)
    with pytest.raises(RuntimeError, match="is not finite"):
        ember.histogram(ember.tensor([1.0, math.inf]), 3)
    with pytest.raises(RuntimeError, match="is not finite"):
        ember.histogram(ember.tensor([1.0]), 3, range=(0.0, math.nan))
    r = ember.histogram(ember.tensor([1.0, 1.0]), 2)  # equal min and max: widened by 0.5 (numpy's rule)
    assert r.bin_edges.tolist() == [0.5, 1.0, 1.5] and r.hist.tolist() == [0.0, 2.0]
    np.testing.assert_allclose(np.histogram(np.array([1.0, 1.0]), 2)[1], [0.5, 1.0, 1.5])
    r = ember.histogram(ember.tensor([1.0, 2.0]), 2, range=(1.0, 1.0))
    assert r.bin_edges.tolist() == [0.5, 1.0, 1.5] and r.hist.tolist() == [0.0, 1.0]
    r = ember.histogram(ember.tensor([]), 2)  # empty: edges over [0, 1]
    assert r.bin_edges.tolist() == [0.0, 0.5, 1.0] and r.hist.tolist() == [0.0, 0.0]
    d = ember.histogram(ember.tensor([1.0, 2.0, 5.0]), 2, range=(10.0, 11.0), density=True).hist
    assert all(math.isnan(v) for v in d.tolist())  # 0 / 0, as PyTorch


def test_histogram_layouts():
    base = ember.tensor(np.arange(24.0).reshape(4, 6), dtype=ember.float32)
    t = base.t()[::2]
    assert not t.is_contiguous()
    _close(ember.histogram(t, 4).hist, np.histogram(to_np(t), 4)[0], ember.float32)
    s = ember.histogram(ember.tensor(2.5), 3)
    assert s.hist.tolist() == [0.0, 1.0, 0.0]
    _close(s.bin_edges, np.histogram(np.array(2.5), 3)[1], ember.float32)
    out = (ember.empty(0), ember.empty(0))
    r = ember.histogram(ember.tensor([0.0, 1.0]), 2, out=out)
    assert r.hist is out[0] and r.bin_edges is out[1] and out[0].tolist() == [1.0, 1.0]


def test_histogram_errors():
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        ember.histogram(ember.tensor([1, 2]), 3)
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        ember.histogram(x.half(), 3)
    for bad in (0, -1):
        with pytest.raises(RuntimeError, match="bins must be > 0, but got {} for dimension 0".format(bad)):
            ember.histogram(x, bad)
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        ember.histogram(x, ember.tensor([0.0]))
    with pytest.raises(TypeError, match="bins"):
        ember.histogram(x, 2.5)
    with pytest.raises(TypeError, match="range"):
        ember.histogram(x, ember.tensor([0.0, 1.0]), range=(0.0, 1.0))
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        ember.histogram(x, 2, range=(3.0, 1.0))
    with pytest.raises(RuntimeError, match="range should have 2 elements, but got 3"):
        ember.histogram(x, 2, range=(1.0, 2.0, 3.0))
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.histogram(x, 2, weight=ember.tensor([1.0, 2.0], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.histogram(x, ember.tensor([0.0, 1.5, 3.0], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="same shape"):
        ember.histogram(x, 2, weight=ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="one dimension"):
        ember.histogram(x, ember.tensor([[0.0, 1.5, 3.0]]))
    with pytest.raises(TypeError, match="Tensor"):
        ember.histogram([1.0], 2)


@pytest.mark.parametrize("density", [False, True])
def test_histogramdd_vs_numpy(density):
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 8, 3))
    w = rng.uniform(0.5, 1.5, size=(5, 8))
    x, wt = ember.tensor(a), ember.tensor(w)
    r = ember.histogramdd(x, [3, 4, 2], weight=wt, density=density)
    assert isinstance(r, ember.return_types.histogramdd) and isinstance(r.bin_edges, tuple)
    hist, edges = np.histogramdd(a.reshape(-1, 3), bins=[3, 4, 2], weights=w.reshape(-1), density=density)
    _close(r.hist, hist)
    for e, ne in zip(r.bin_edges, edges):
        _close(e, ne)
    rng_ = [-1.0, 1.0, -0.5, 0.5, 0.0, 2.0]
    r = ember.histogramdd(x, 3, rng_, density=density)
    hist, edges = np.histogramdd(a.reshape(-1, 3), bins=3, range=[rng_[0:2], rng_[2:4], rng_[4:6]], density=density)
    _close(r.hist, hist)
    edge_ts = [ember.tensor(e, dtype=ember.float64) for e in ([-2.0, 0.0, 2.0], [-1.0, -0.2, 0.1, 3.0], [0.0, 1.0])]
    r = ember.histogramdd(x, edge_ts, weight=wt, density=density)
    hist, _ = np.histogramdd(a.reshape(-1, 3), bins=[to_np(e) for e in edge_ts], weights=w.reshape(-1), density=density)
    _close(r.hist, hist)


def test_histogramdd_last_edge_errors_and_empty():
    x = ember.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    r = ember.histogramdd(x, bins=[ember.tensor([0.0, 1.0, 2.0]), ember.tensor([0.0, 2.0])])
    assert r.hist.tolist() == [[1.0], [3.0]]  # 2.0 is on both last edges: counted in the last bins
    assert ember.histogramdd(ember.zeros(0, 2), 2).hist.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.histogramdd(x[0], 2)
    with pytest.raises(RuntimeError, match="range should have 4 elements, but got 2"):
        ember.histogramdd(x, 2, [0.0, 1.0])
    with pytest.raises(RuntimeError, match="expected 2 sequences of bin edges"):
        ember.histogramdd(x, [ember.tensor([0.0, 1.0, 2.0])])
    with pytest.raises(RuntimeError, match="same shape"):
        ember.histogramdd(x, 2, weight=ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        ember.histogramdd(x, ember.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        ember.histogramdd(ember.tensor([[1, 2]]), 2)


def test_return_types():
    x = ember.tensor([[3.0, 1.0], [2.0, 5.0]])
    cases = {
        "max": x.max(0),
        "min": x.min(1),
        "sort": x.sort(),
        "topk": x.topk(1),
        "kthvalue": x.kthvalue(1),
        "median": x.median(0),
        "mode": x.mode(),
        "aminmax": ember.aminmax(x),
        "cummax": x.cummax(0),
        "frexp": ember.frexp(x),
        "linalg_qr": ember.linalg.qr(x),
        "slogdet": ember.slogdet(x),
    }
    for name, r in cases.items():
        t = getattr(ember.return_types, name)
        assert isinstance(r, t) and t.__module__ == "ember.return_types"
        assert getattr(ember.return_types, name + "_out") is t
        back = pickle.loads(pickle.dumps(r))
        assert type(back) is t and [v.tolist() for v in back] == [v.tolist() for v in r]
    assert "histogram" in ember.return_types.__all__
