"""Random sampling: seeding and Generator streams reproduce exactly; each sampler's output has the
right support, dtype and (with fixed seeds and wide tolerances) the right statistics."""

import math

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, assert_equal, dtype_name, to_np

import ember

N = 100_000

SAMPLERS = {
    "rand": lambda **g: ember.rand(3, 5, **g),
    "randn": lambda **g: ember.randn(3, 5, **g),
    "rand_f64": lambda **g: ember.rand(7, dtype=ember.float64, **g),
    "randint": lambda **g: ember.randint(-5, 100, (4, 4), **g),
    "randperm": lambda **g: ember.randperm(20, **g),
    "normal": lambda **g: ember.normal(2.0, 3.0, (10,), **g),
    "normal_tensors": lambda **g: ember.normal(ember.arange(5.0), ember.ones(5), **g),
    "bernoulli": lambda **g: ember.bernoulli(ember.full((20,), 0.5), **g),
    "multinomial": lambda **g: ember.multinomial(ember.tensor([1.0, 2.0, 3.0, 4.0]), 10, True, **g),
    "multinomial_norepl": lambda **g: ember.multinomial(ember.ones(10), 10, **g),
    "rand_like": lambda **g: ember.rand_like(ember.zeros(3, 3), **g),
    "randn_like": lambda **g: ember.randn_like(ember.zeros(3, 3), **g),
    "randint_like": lambda **g: ember.randint_like(ember.zeros(9), 0, 1000, **g),
    "uniform_": lambda **g: ember.empty(4, 4).uniform_(-1, 1, **g),
    "normal_": lambda **g: ember.empty(4, 4).normal_(1, 2, **g),
    "bernoulli_": lambda **g: ember.empty(20).bernoulli_(0.5, **g),
    "random_": lambda **g: ember.empty(9, dtype=ember.int64).random_(0, 1000, **g),
}
# the *_like functions take no generator= in PyTorch 1.13
NO_GENERATOR = {"rand_like", "randn_like", "randint_like"}


@pytest.mark.parametrize("name", SAMPLERS)
def test_manual_seed_reproduces_every_sampler(name):
    f = SAMPLERS[name]
    ember.manual_seed(1234)
    a = f().tolist()
    b = f().tolist()
    ember.manual_seed(1234)
    assert f().tolist() == a
    assert f().tolist() == b
    assert a != b  # the stream moves on
    ember.manual_seed(4321)
    assert f().tolist() != a


@pytest.mark.parametrize("name", [n for n in SAMPLERS if n not in NO_GENERATOR])
def test_generators_are_separate_streams(name):
    f = SAMPLERS[name]
    g = ember.Generator().manual_seed(7)
    a = f(generator=g).tolist()
    # a second generator with the same seed gives the same numbers, whatever the default one does
    h = ember.Generator()
    h.manual_seed(7)
    ember.manual_seed(0)
    ember.rand(100)
    assert f(generator=h).tolist() == a
    # drawing from the default generator does not move g
    state = g.get_state()
    b = f(generator=g).tolist()
    ember.rand(100)
    g.set_state(state)
    assert f(generator=g).tolist() == b


def test_generator_objects():
    g = ember.Generator()
    assert g.manual_seed(5) is g
    assert g.initial_seed() == 5
    assert g.device == ember.device("cpu")
    assert ember.Generator("cpu").device.type == "cpu"
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert ember.manual_seed(11).initial_seed() == 11 and ember.initial_seed() == 11
    assert isinstance(ember.manual_seed(3), ember.Generator)
    # seeds keep their low 64 bits, as PyTorch's
    assert ember.Generator().manual_seed(2**64 + 9).initial_seed() == 9
    assert ember.Generator().manual_seed(-1).initial_seed() == 2**64 - 1


def test_get_state_and_set_state_replay_the_same_numbers():
    g = ember.Generator().manual_seed(99)
    ember.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype is ember.uint8 and state.shape == (16,)
    a = ember.randn(50, generator=g).tolist()
    b = ember.randint(0, 10, (50,), generator=g).tolist()
    assert g.set_state(state) is g
    assert ember.randn(50, generator=g).tolist() == a
    assert ember.randint(0, 10, (50,), generator=g).tolist() == b
    # the state is a copy: drawing does not change a saved state
    assert g.get_state().tolist() != state.tolist()


def test_default_generator_state():
    ember.manual_seed(5)
    state = ember.get_rng_state()
    a = ember.rand(20).tolist()
    ember.rand(5)
    ember.set_rng_state(state)
    assert ember.rand(20).tolist() == a


def test_seed_picks_a_fresh_seed():
    s1 = ember.seed()
    a = ember.rand(10).tolist()
    assert ember.initial_seed() == s1
    ember.manual_seed(s1)
    assert ember.rand(10).tolist() == a


def test_default_generator_is_a_generator_object():
    assert isinstance(ember.default_generator, ember.Generator)


# ---------------------------------------------------------------------------------------- statistics


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_rand_is_uniform_on_0_1(dtype):
    ember.manual_seed(0)
    x = to_np(ember.rand(N, dtype=dtype)).astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.var() - 1 / 12) < 0.005
    counts, _ = np.histogram(x, bins=10, range=(0, 1))
    assert np.all(np.abs(counts - N / 10) < 0.05 * N / 10)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_rand_of_half_types_excludes_1(dtype):
    ember.manual_seed(0)
    assert to_np(ember.rand(N, dtype=dtype)).max() < 1
    assert to_np(ember.empty(N, dtype=dtype).uniform_(0, 1)).max() < 1


def test_rand_float64_uses_more_than_float32_precision():
    ember.manual_seed(0)
    x = to_np(ember.rand(1000, dtype=ember.float64))
    assert np.any(x * 2**24 != np.floor(x * 2**24))
    assert len(np.unique(x)) == 1000


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_randn_is_standard_normal(dtype):
    ember.manual_seed(1)
    x = to_np(ember.randn(N, dtype=dtype)).astype(np.float64)
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    assert abs(np.mean(np.abs(x) < 1) - 0.6827) < 0.01  # the 68% rule
    assert np.all(np.isfinite(x))


def test_normal_with_float_mean_and_std():
    ember.manual_seed(2)
    x = to_np(ember.normal(3.0, 2.0, (N,))).astype(np.float64)
    assert abs(x.mean() - 3) < 0.05 and abs(x.std() - 2) < 0.05
    assert ember.normal(0.0, 1.0, (2, 3)).shape == (2, 3)
    assert ember.normal(0.0, 1.0, size=(4,), dtype=ember.float64).dtype is ember.float64
    assert_equal(ember.normal(5.0, 0.0, (3,)), np.full(3, 5, np.float32))


def test_normal_with_tensor_mean_and_std():
    ember.manual_seed(3)
    mean = ember.tensor([-5.0, 5.0]).view(2, 1).expand(2, N // 2)
    std = ember.tensor([1.0, 3.0]).view(2, 1).expand(2, N // 2)
    x = to_np(ember.normal(mean, std)).astype(np.float64)
    assert x.shape == (2, N // 2)
    assert abs(x[0].mean() + 5) < 0.05 and abs(x[0].std() - 1) < 0.05
    assert abs(x[1].mean() - 5) < 0.1 and abs(x[1].std() - 3) < 0.1
    # tensor mean with float std, and float mean with tensor std
    y = to_np(ember.normal(ember.full((N,), 10.0), 0.5)).astype(np.float64)
    assert abs(y.mean() - 10) < 0.02 and abs(y.std() - 0.5) < 0.02
    z = to_np(ember.normal(-1.0, ember.full((N,), 2.0))).astype(np.float64)
    assert abs(z.mean() + 1) < 0.05 and abs(z.std() - 2) < 0.05
    # broadcasting, and the promoted dtype
    r = ember.normal(ember.zeros(3, 1, dtype=ember.float64), ember.ones(4))
    assert r.shape == (3, 4) and r.dtype is ember.float64
    assert ember.normal(ember.zeros(2, dtype=ember.float16), 1.0).dtype is ember.float16
    assert_equal(ember.normal(ember.arange(4.0), ember.zeros(4)), np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("low, high", [(0, 7), (-3, 4), (10, 11), (-(2**40), -(2**40) + 5)], ids=str)
def test_randint_bounds_and_every_value_hit(low, high):
    ember.manual_seed(4)
    x = to_np(ember.randint(low, high, (20_000,)))
    assert x.dtype == np.int64
    assert x.min() >= low and x.max() < high
    values, counts = np.unique(x, return_counts=True)
    assert values.tolist() == list(range(low, high))
    assert np.all(np.abs(counts - 20_000 / (high - low)) < 0.1 * 20_000 / (high - low))


def test_randint_forms_and_dtypes():
    ember.manual_seed(5)
    x = ember.randint(5, (1000,))  # randint(high, size)
    assert set(to_np(x).tolist()) == {0, 1, 2, 3, 4}
    y = ember.randint(-2, 2, (10, 10), dtype=ember.int8)
    assert y.dtype is ember.int8 and set(to_np(y).ravel()) <= {-2, -1, 0, 1}
    z = ember.randint(0, 3, (100,), dtype=ember.float32)
    assert z.dtype is ember.float32 and set(to_np(z).tolist()) == {0.0, 1.0, 2.0}
    w = ember.randint(low=1, high=4, size=(50,))
    assert set(to_np(w).tolist()) <= {1, 2, 3}
    assert ember.randint(0, 2**62, (1000,)).tolist() != [0] * 1000


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm_is_a_permutation(n):
    ember.manual_seed(6)
    p = to_np(ember.randperm(n))
    assert sorted(p.tolist()) == list(range(n)) and p.dtype == np.int64
    if n >= 10:
        assert p.tolist() != list(range(n))
    assert ember.randperm(n, dtype=ember.int32).dtype is ember.int32


def test_randperm_positions_are_uniform():
    ember.manual_seed(7)
    first = [ember.randperm(4)[0].item() for _ in range(4000)]
    counts = np.bincount(first, minlength=4)
    assert np.all(np.abs(counts - 1000) < 150)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_frequency(p):
    ember.manual_seed(8)
    x = to_np(ember.bernoulli(ember.full((N,), p)))
    assert set(np.unique(x).tolist()) <= {0.0, 1.0}
    assert abs(x.mean() - p) < 0.01
    y = to_np(ember.zeros(N).bernoulli_(p))
    assert abs(y.mean() - p) < 0.01
    z = to_np(ember.bernoulli(ember.zeros(N, dtype=ember.float64), p))
    assert z.dtype == np.float64 and abs(z.mean() - p) < 0.01


def test_bernoulli_with_per_element_probabilities_and_dtypes():
    ember.manual_seed(9)
    probs = ember.tensor([0.0, 0.25, 1.0]).view(3, 1).expand(3, 20_000)
    x = to_np(ember.bernoulli(probs))
    assert x[0].sum() == 0 and x[2].sum() == 20_000 and abs(x[1].mean() - 0.25) < 0.015
    assert ember.bernoulli(ember.full((3,), 0.5, dtype=ember.float16)).dtype is ember.float16
    b = ember.zeros(10_000, dtype=ember.int32).bernoulli_(0.3)
    assert b.dtype is ember.int32 and abs(to_np(b).mean() - 0.3) < 0.02
    assert ember.full((4,), 0.5).bernoulli(generator=ember.Generator().manual_seed(1)).shape == (4,)


def test_multinomial_with_replacement_follows_the_weights():
    ember.manual_seed(10)
    weights = [0.0, 1.0, 3.0, 0.0, 6.0]
    x = to_np(ember.multinomial(ember.tensor(weights), N, replacement=True))
    counts = np.bincount(x, minlength=5) / N
    assert counts[0] == 0 and counts[3] == 0  # zero weights are never drawn
    np.testing.assert_allclose(counts, np.array(weights) / 10, atol=0.01)


def test_multinomial_without_replacement_never_repeats():
    ember.manual_seed(11)
    w = ember.tensor([1.0, 2.0, 0.0, 4.0, 8.0, 16.0])
    for _ in range(200):
        x = ember.multinomial(w, 5).tolist()
        assert len(set(x)) == 5 and 2 not in x
    # all categories drawn: a permutation
    assert sorted(ember.multinomial(ember.ones(10), 10).tolist()) == list(range(10))
    # the heaviest category comes first most often
    firsts = np.bincount([ember.multinomial(w, 2)[0].item() for _ in range(3000)], minlength=6) / 3000
    np.testing.assert_allclose(firsts, w.tolist() / np.sum(w.tolist()), atol=0.03)


def test_multinomial_2d_draws_per_row():
    ember.manual_seed(12)
    probs = ember.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    x = ember.multinomial(probs, 2000, replacement=True)
    assert x.shape == (3, 2000) and x.dtype is ember.int64
    v = to_np(x)
    assert np.all(v[0] == 0) and np.all(v[1] == 2) and set(np.unique(v[2]).tolist()) == {1, 2}
    y = ember.multinomial(probs[2:], 2)
    assert sorted(y[0].tolist()) == [1, 2]
    assert ember.multinomial(ember.ones(4, dtype=ember.float64), 3).shape == (3,)


# -------------------------------------------------------------------------------- in-place samplers

NON_CONTIGUOUS = {
    "transposed": lambda base: base.t(),
    "stepped": lambda base: base[::2, 1::3],
    "column": lambda base: base[:, 2],
}


@pytest.mark.parametrize("layout", NON_CONTIGUOUS)
@pytest.mark.parametrize("op", ["uniform_", "normal_", "bernoulli_"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.float64], ids=dtype_name)
def test_in_place_samplers_fill_every_element_of_a_non_contiguous_view(layout, op, dtype):
    ember.manual_seed(13)
    base = ember.full((60, 40), float("nan"), dtype=dtype)
    view = NON_CONTIGUOUS[layout](base)
    marker = ember.zeros(60, 40, dtype=ember.int8)
    NON_CONTIGUOUS[layout](marker).fill_(1)
    inside = to_np(marker) == 1
    r = {
        "uniform_": lambda: view.uniform_(2, 3),
        "normal_": lambda: view.normal_(5, 0.5),
        "bernoulli_": lambda: view.bernoulli_(0.5),
    }[op]()
    assert r.data_ptr() == view.data_ptr()
    b = to_np(base).astype(np.float64)
    assert not np.any(np.isnan(b[inside]))  # every element of the view was written
    assert np.all(np.isnan(b[~inside]))  # and nothing else
    values = b[inside]
    if op == "uniform_":
        assert values.min() >= 2 and values.max() <= 3 and abs(values.mean() - 2.5) < 0.1
    elif op == "normal_":
        assert abs(values.mean() - 5) < 0.1 and abs(values.std() - 0.5) < 0.1
    else:
        assert set(np.unique(values).tolist()) == {0.0, 1.0}
    assert len(np.unique(values)) > 1


@pytest.mark.parametrize("layout", NON_CONTIGUOUS)
def test_random_on_a_non_contiguous_integer_view(layout):
    ember.manual_seed(14)
    base = ember.full((60, 40), -1, dtype=ember.int64)
    view = NON_CONTIGUOUS[layout](base)
    marker = ember.zeros(60, 40, dtype=ember.int8)
    NON_CONTIGUOUS[layout](marker).fill_(1)
    inside = to_np(marker) == 1
    view.random_(10, 20)
    b = to_np(base)
    assert np.all(b[~inside] == -1)
    assert b[inside].min() >= 10 and b[inside].max() < 20
    assert set(np.unique(b[inside]).tolist()) == set(range(10, 20))


@pytest.mark.parametrize(
    "dtype, high",
    [
        (ember.uint8, 256),
        (ember.int8, 128),
        (ember.int16, 2**15),
        (ember.bool, 2),
        (ember.float16, 2**11 + 1),
        (ember.float32, 2**24 + 1),
    ],
    ids=lambda v: dtype_name(v) if isinstance(v, ember.dtype) else str(v),
)
def test_random_without_bounds_covers_the_dtype(dtype, high):
    ember.manual_seed(15)
    x = to_np(ember.empty(20_000, dtype=dtype).random_()).astype(np.float64)
    assert x.min() >= 0 and x.max() < high
    assert np.all(x == np.floor(x))  # integers, also in floating dtypes
    assert x.max() >= 0.9 * (high - 1)  # the whole range is used
    y = to_np(ember.empty(5000, dtype=dtype).random_(2)).astype(np.int64)
    assert set(y.tolist()) == {0, 1}


def test_uniform_bounds_and_defaults():
    ember.manual_seed(16)
    x = to_np(ember.empty(N).uniform_()).astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    y = to_np(ember.empty(N, dtype=ember.float64).uniform_(-3, 5)).astype(np.float64)
    assert y.min() >= -3 and y.max() < 5 and abs(y.mean() - 1) < 0.05
    z = ember.empty(10).uniform_(2, 2)
    assert_equal(z, np.full(10, 2, np.float32))


def test_requires_grad_and_out_on_samplers():
    assert ember.rand(2, requires_grad=True).requires_grad
    assert ember.randn(2, dtype=ember.float64, requires_grad=True).requires_grad
    out = ember.empty(3, 4)
    ember.manual_seed(17)
    r = ember.randn(3, 4, out=out)
    ember.manual_seed(17)
    assert r.tolist() == out.tolist() == ember.randn(3, 4).tolist()


def test_zero_size_samples():
    assert ember.rand(0).shape == (0,) and ember.randn(2, 0).shape == (2, 0)
    assert ember.randint(0, 5, (0, 3)).shape == (0, 3)
    assert ember.empty(0).uniform_().shape == (0,)
    assert ember.bernoulli(ember.zeros(0)).shape == (0,)


def test_samples_are_independent_across_a_tensor():
    # neighbouring elements are uncorrelated (a Philox stream is not reused across elements)
    ember.manual_seed(18)
    x = to_np(ember.randn(N)).astype(np.float64)
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 0.02
    u = to_np(ember.rand(N, dtype=ember.float64))
    assert abs(np.corrcoef(u[:-4], u[4:])[0, 1]) < 0.02
    assert math.isclose(np.mean(u < 0.5), 0.5, abs_tol=0.01)


# ember.random (torch.random): the top-level functions themselves, and fork_rng.
def test_random_module_names():
    import ember.random as R

    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
        assert getattr(R, name) is getattr(ember, name)
    assert R.default_generator is ember.default_generator
    assert R.Generator is ember.Generator
    assert R.manual_seed(11) is ember.default_generator and R.initial_seed() == 11


def test_fork_rng_restores_state():
    ember.manual_seed(5)
    expected = ember.rand(6).tolist()
    ember.manual_seed(5)
    with ember.random.fork_rng():
        inside = ember.randn(10).tolist()
        ember.manual_seed(123)  # even a reseed inside is undone
        ember.rand(3)
    assert ember.rand(6).tolist() == expected
    assert inside != expected[: len(inside)]


def test_fork_rng_nested_and_devices_iterable():
    ember.manual_seed(9)
    expected = ember.rand(4).tolist()
    ember.manual_seed(9)
    with ember.random.fork_rng(devices=iter([])):
        a = ember.rand(4).tolist()
        with ember.random.fork_rng(devices=[]):
            b = ember.rand(4).tolist()  # continues the outer fork's stream
        assert ember.rand(4).tolist() == b  # the inner fork was undone
    assert a == expected and b != a
    assert ember.rand(4).tolist() == expected


def test_fork_rng_disabled_and_exception():
    ember.manual_seed(2)
    first = ember.rand(3).tolist()
    ember.manual_seed(2)
    with ember.random.fork_rng(enabled=False):
        assert ember.rand(3).tolist() == first
    assert ember.rand(3).tolist() != first  # not forked: the stream moved on
    ember.manual_seed(2)
    with pytest.raises(ValueError):
        with ember.random.fork_rng():
            ember.rand(7)
            raise ValueError("inside")
    assert ember.rand(3).tolist() == first  # restored on the way out of an exception


def test_fork_rng_cuda_devices_need_cuda():
    if ember.cuda.is_available():
        ember.cuda.manual_seed(4)
        expected = ember.rand(5, device="cuda").tolist()
        ember.cuda.manual_seed(4)
        with ember.random.fork_rng(devices=[0]):
            ember.rand(100, device="cuda")
        assert ember.rand(5, device="cuda").tolist() == expected
    else:
        with pytest.raises(RuntimeError):
            with ember.random.fork_rng(devices=[0]):
                pass


def test_fork_rng_warns_once_for_several_devices(monkeypatch):
    import ember.random as R

    states = {0: ember.tensor([1], dtype=ember.uint8), 1: ember.tensor([2], dtype=ember.uint8)}
    restored = []
    monkeypatch.setattr(ember.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(ember.cuda, "get_rng_state", lambda device="cuda": states[device])
    monkeypatch.setattr(ember.cuda, "set_rng_state", lambda state, device="cuda": restored.append((device, state)))
    monkeypatch.setattr(R, "_fork_rng_warned_already", False)
    with pytest.warns(
        UserWarning,
        match="CUDA reports that you have 2 available devices, and you have used "
        "my_fn without explicitly specifying which devices are being used.*'devs'",
    ):
        with R.fork_rng(_caller="my_fn", _devices_kw="devs"):
            pass
    assert [d for d, _ in restored] == [0, 1] and restored[1][1] is states[1]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # only the first use warns
        with R.fork_rng():
            pass
        with R.fork_rng(devices=[1]):
            pass
    assert [d for d, _ in restored] == [0, 1, 0, 1, 1]


# ------------------------------------------------------------------- PyTorch's keyword forms (Note [Python surface])


def test_manual_seed_by_keyword_matches_positional():
    assert ember.manual_seed(seed=3) is ember.default_generator
    a = ember.rand(4)
    ember.manual_seed(3)
    assert_equal(ember.rand(4), to_np(a))
    g = ember.Generator(device="cpu").manual_seed(seed=5)
    assert g.initial_seed() == 5
    state = g.get_state()
    x = ember.rand(3, generator=g)
    assert_equal(ember.rand(3, generator=g.set_state(new_state=state)), to_np(x))
    state = ember.get_rng_state()
    y = ember.randn(2)
    ember.set_rng_state(new_state=state)
    assert_equal(ember.randn(2), to_np(y))


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_size_of_rand_by_keyword(name):
    f = getattr(ember, name)
    a = f(size=(2, 3), generator=ember.Generator().manual_seed(1))
    b = f(2, 3, generator=ember.Generator().manual_seed(1))
    assert a.shape == (2, 3)
    assert_equal(a, to_np(b))


def test_randint_keyword_forms():
    def draw(*args, **kw):
        return ember.randint(*args, generator=ember.Generator().manual_seed(7), **kw)

    ref = to_np(draw(2, 9, (50,)))
    assert ref.min() >= 2 and ref.max() < 9
    assert_equal(draw(low=2, high=9, size=(50,)), ref)
    assert_equal(draw(2, high=9, size=(50,)), ref)
    assert_equal(draw(2, 9, size=(50,)), ref)
    assert_equal(draw(9, size=(50,)), to_np(draw(0, 9, (50,))))
    assert_equal(draw(high=9, size=(50,)), to_np(draw(0, 9, (50,))))


def test_randint_like_keyword_forms():
    x = ember.zeros(200)
    for lo, hi, kw in [(0, 4, dict(high=4)), (2, 6, dict(low=2, high=6)), (0, 3, {})]:
        args = (3,) if not kw else ()
        r = to_np(ember.randint_like(x, *args, **kw))
        assert r.min() >= lo and r.max() < hi and set(r.tolist()) == set(range(lo, hi))
    with pytest.raises(TypeError, match="missing required argument 'high'"):
        ember.randint_like(x)


def test_sampler_keywords():
    out = ember.empty(3)
    r = ember.bernoulli(input=ember.tensor([0.0, 1.0, 1.0]), out=out)
    assert r is out
    assert_equal(out, np.array([0, 1, 1], np.float32))
    assert_equal(ember.bernoulli(ember.zeros(4), p=1.0), np.ones(4, np.float32))
    idx = ember.empty(2, dtype=ember.int64)
    assert ember.multinomial(input=ember.tensor([0.0, 5.0]), num_samples=2, replacement=True, out=idx) is idx
    assert_equal(idx, np.array([1, 1]))
    assert_equal(ember.randperm(n=5).sort().values, np.arange(5))
    assert_equal(ember.poisson(input=ember.zeros(3)), np.zeros(3, np.float32))
    assert_equal(
        ember.binomial(count=ember.tensor([4.0, 4.0]), prob=ember.tensor([0.0, 1.0])), np.array([0, 4], np.float32)
    )
    x = ember.empty(100)
    assert 2 <= float(x.uniform_(**{"from": 2, "to": 3}).min()) and float(x.max()) < 3
    assert 3 <= float(x.random_(**{"from": 3, "to": 5}).min()) and float(x.max()) <= 4
    assert float(x.random_(to=2).max()) <= 1
    assert_equal(ember.zeros(3).bernoulli(p=1.0), np.ones(3, np.float32))
    assert float(x.exponential_(lambd=2.0).min()) >= 0
    g = to_np(x.geometric_(p=0.5))
    assert g.min() >= 1 and (g == np.round(g)).all()
    g = ember.Generator()
    assert_equal(ember.normal(mean=ember.zeros(2), std=ember.zeros(2), generator=g), np.zeros(2, np.float32))
    assert ember.normal(mean=1.0, std=2.0, size=(3,), dtype=ember.float64).dtype is ember.float64
