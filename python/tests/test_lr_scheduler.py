"""ember.optim.lr_scheduler: learning-rate sequences against closed forms and against PyTorch's own
sequences (fixtures/lr_sequences.json, written by fixtures/make_lr_sequences.py with PyTorch 1.13),
state_dict round trips, warnings and error paths."""

import bisect
import copy
import json
import math
import os
import pickle
import re
import warnings

import pytest

import ember
from ember.optim import lr_scheduler as L
from ember.optim import swa_utils

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "lr_sequences.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)["cases"]

TOL = dict(rel=1e-12, abs=1e-15)

# ----------------------------------------------------------------------------------------------------
# Optimizers: ember.optim.SGD and Adam; a minimal Optimizer subclass where a test needs an optimizer
# without momentum/betas or a step() that only counts its calls.


class StandInOptimizer(ember.optim.Optimizer):
    """An ember.optim.Optimizer whose step() only counts its calls."""

    def __init__(self, params, defaults):
        super().__init__(params, defaults)
        self.calls = 0

    def step(self, closure=None):
        self.calls += 1


def _groups(lrs):
    return [{"params": [ember.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs]


def make_optimizer(lrs=(0.1,), kind="sgd", momentum=0.0):
    groups = _groups(lrs)
    if kind == "adam":
        return ember.optim.Adam(groups, lr=lrs[0])
    return ember.optim.SGD(groups, lr=lrs[0], momentum=momentum)


def make_plain_optimizer(lrs=(0.1,)):
    """An optimizer whose defaults have neither momentum nor betas (like Adagrad)."""
    return StandInOptimizer(_groups(lrs), {"lr": lrs[0]})


def lrs_of(opt):
    return [g["lr"] for g in opt.param_groups]


def momenta_of(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def run(opt, sched, steps, metrics=None):
    """lr per group after construction and after each optimizer.step(); scheduler.step() pair."""
    out = [lrs_of(opt)]
    for i in range(steps):
        opt.step()
        if metrics is not None:
            sched.step(metrics[i])
        else:
            sched.step()
        out.append(lrs_of(opt))
    return out


def column(seq, g=0):
    return [row[g] for row in seq]


# ----------------------------------------------------------------------------------------------------
# Building the fixture's cases with ember (the names of functions as in make_lr_sequences.py)

FUNCTIONS = {
    "warmup10": lambda e: min(1.0, (e + 1) / 10),
    "exp095": lambda e: 0.95**e,
    "every3": lambda e: 0.8 if e % 3 == 0 else 1.0,
    "half_pow": lambda x: 0.5**x,
    "inv_sqrt": lambda x: 1.0 / math.sqrt(x + 1.0),
}

CLASSES = {name: getattr(L, name) for name in L.__all__}
CLASSES["SWALR"] = swa_utils.SWALR


def _resolve(kwargs):
    out = dict(kwargs)
    for key in ("lr_lambda", "scale_fn"):
        if key in out:
            v = out[key]
            out[key] = [FUNCTIONS[x] for x in v] if isinstance(v, list) else FUNCTIONS[v]
    return out


def build(spec, opt):
    if "composite" in spec:
        children = [CLASSES[c["scheduler"]](opt, **_resolve(c["kwargs"])) for c in spec["children"]]
        if spec["composite"] == "SequentialLR":
            return L.SequentialLR(opt, children, milestones=spec["milestones"])
        return L.ChainedScheduler(children)
    return CLASSES[spec["scheduler"]](opt, **_resolve(spec["kwargs"]))


def make_case(spec):
    opt = make_optimizer(spec["lrs"], spec["optimizer"], spec["momentum"])
    return opt, build(spec, opt)


def n_steps(spec):
    return len(spec["metrics"]) if "metrics" in spec else spec["steps"]


# Keys of PyTorch 1.13's state dicts that recent PyTorch (and ember) store differently: OneCycleLR keeps
# the name of the annealing function (_anneal_func_type), CyclicLR rebuilds its scale function on load.
_KEYS_CHANGED_SINCE_113 = {"anneal_func", "_scale_fn_ref"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_matches_pytorch(name):
    ref = CASES[name]
    spec = ref["spec"]
    opt, sched = make_case(spec)
    seq, moms = [lrs_of(opt)], [momenta_of(opt)]
    metrics = spec.get("metrics")
    for i in range(n_steps(spec)):
        opt.step()
        sched.step(metrics[i]) if metrics is not None else sched.step()
        seq.append(lrs_of(opt))
        moms.append(momenta_of(opt))
        assert sched.get_last_lr() == seq[-1]
    # the same float arithmetic in the same order: bit-for-bit PyTorch's values
    assert seq == ref["lr"]
    if "momentum" in ref:
        assert moms == ref["momentum"]

    state = sched.state_dict()
    assert set(ref["state_keys"]) - _KEYS_CHANGED_SINCE_113 <= set(state)
    for key, want in ref["state_values"].items():
        if key in _KEYS_CHANGED_SINCE_113:
            continue
        got = state[key]
        if isinstance(want, float) or (isinstance(want, list) and want and isinstance(want[0], float)):
            assert got == pytest.approx(want, **TOL), key
        else:
            assert got == want, key


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_dict_round_trip(name):
    """Save after k steps, load into a fresh optimizer and scheduler, continue: the same sequence."""
    spec = CASES[name]["spec"]
    n = n_steps(spec)
    k = n // 2
    metrics = spec.get("metrics")

    opt, sched = make_case(spec)
    straight = run(opt, sched, n, metrics)

    opt1, sched1 = make_case(spec)
    first = run(opt1, sched1, k, metrics)
    saved = pickle.loads(pickle.dumps(sched1.state_dict()))  # plain data only
    groups = copy.deepcopy([{k2: v for k2, v in g.items() if k2 != "params"} for g in opt1.param_groups])

    opt2, sched2 = make_case(spec)
    for g2, g in zip(opt2.param_groups, groups):  # what optimizer.load_state_dict does to the groups
        g2.update(g)
    sched2.load_state_dict(saved)
    rest = [lrs_of(opt2)]
    for i in range(k, n):
        opt2.step()
        sched2.step(metrics[i]) if metrics is not None else sched2.step()
        rest.append(lrs_of(opt2))
    resumed = first + rest[1:]
    assert rest[0] == first[-1]
    for got, want in zip(resumed, straight):
        assert got == pytest.approx(want, **TOL)


# ----------------------------------------------------------------------------------------------------
# Closed forms


def closed(sched_factory, lrs, steps, formula, **opt_kwargs):
    opt = make_optimizer(lrs, **opt_kwargs)
    sched = sched_factory(opt)
    seq = run(opt, sched, steps)
    for t, row in enumerate(seq):
        for g, base in enumerate(lrs):
            assert row[g] == pytest.approx(formula(base, t), rel=1e-10, abs=1e-13), (t, g)
    return opt, sched, seq


def test_lambda_lr_closed_form():
    fns = [lambda e: 1.0 / (1 + e), lambda e: (e % 4) * 0.25 + 0.5]
    opt = make_optimizer((0.1, 0.3))
    seq = run(opt, L.LambdaLR(opt, fns), 30)
    for t, row in enumerate(seq):
        assert row == pytest.approx([0.1 / (1 + t), 0.3 * ((t % 4) * 0.25 + 0.5)], **TOL)


def test_multiplicative_lr_closed_form():
    closed(
        lambda o: L.MultiplicativeLR(o, lambda e: 1.0 - 0.01 * e),
        (0.2, 0.05),
        40,
        lambda b, t: b * math.prod(1.0 - 0.01 * k for k in range(1, t + 1)),
    )


def test_step_lr_closed_form():
    closed(lambda o: L.StepLR(o, step_size=6, gamma=0.7), (0.1, 0.4), 50, lambda b, t: b * 0.7 ** (t // 6))


def test_multistep_lr_closed_form():
    ms = [3, 10, 10, 25]
    closed(lambda o: L.MultiStepLR(o, ms, gamma=0.5), (1.0,), 40, lambda b, t: b * 0.5 ** sum(1 for m in ms if m <= t))


def test_constant_lr_closed_form():
    closed(
        lambda o: L.ConstantLR(o, factor=0.3, total_iters=7), (0.1, 0.5), 30, lambda b, t: b * (0.3 if t < 7 else 1.0)
    )


def test_linear_lr_closed_form():
    closed(
        lambda o: L.LinearLR(o, start_factor=0.1, end_factor=0.6, total_iters=12),
        (0.1, 0.5),
        40,
        lambda b, t: b * (0.1 + 0.5 * min(t, 12) / 12),
    )


def test_exponential_lr_closed_form():
    closed(lambda o: L.ExponentialLR(o, gamma=0.9), (0.1,), 60, lambda b, t: b * 0.9**t)


@pytest.mark.parametrize("power", [1.0, 2.0, 0.5])
def test_polynomial_lr_closed_form(power):
    closed(
        lambda o: L.PolynomialLR(o, total_iters=25, power=power),
        (0.1, 0.2),
        40,
        lambda b, t: b * (1 - min(t, 25) / 25) ** power,
    )


@pytest.mark.parametrize("T_max,eta_min", [(10, 0.0), (10, 0.002), (7, 0.01), (50, 0.0)])
def test_cosine_annealing_closed_form(T_max, eta_min):
    # the recursive form follows the closed form through several half-periods
    closed(
        lambda o: L.CosineAnnealingLR(o, T_max=T_max, eta_min=eta_min),
        (0.1, 0.05),
        100,
        lambda b, t: eta_min + (b - eta_min) * (1 + math.cos(math.pi * t / T_max)) / 2,
    )


def _sgdr(base, t, T_0, T_mult, eta_min):
    T_i = T_0
    while t >= T_i:
        t -= T_i
        T_i *= T_mult
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t / T_i)) / 2


@pytest.mark.parametrize("T_0,T_mult,eta_min", [(5, 1, 0.0), (4, 2, 0.001), (2, 3, 0.0)])
def test_cosine_warm_restarts_closed_form(T_0, T_mult, eta_min):
    closed(
        lambda o: L.CosineAnnealingWarmRestarts(o, T_0=T_0, T_mult=T_mult, eta_min=eta_min),
        (0.1, 0.3),
        80,
        lambda b, t: _sgdr(b, t, T_0, T_mult, eta_min),
    )


def test_cosine_warm_restarts_fractional_epochs():
    opt = make_optimizer((0.1,))
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.0)
    iters = 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fractional epoch is not the deprecated form here
        for epoch in range(12):
            for i in range(iters):
                e = epoch + i / iters
                sched.step(e)
                # period n starts at 3 * (2**n - 1)
                n = int(math.floor(math.log2(e / 3 + 1) + 1e-12))
                start, T_i = 3 * (2**n - 1), 3 * 2**n
                want = 0.1 * (1 + math.cos(math.pi * (e - start) / T_i)) / 2
                assert lrs_of(opt)[0] == pytest.approx(want, rel=1e-10, abs=1e-13)
    assert sched.last_epoch == 11
    # a plain step() adds one epoch to T_cur (11.75 - 9 + 1, in the period [9, 21)), as PyTorch does
    sched.step()
    assert sched.last_epoch == 12
    assert lrs_of(opt)[0] == pytest.approx(0.1 * (1 + math.cos(math.pi * 3.75 / 12)) / 2, rel=1e-12)


def _triangle(t, up, down):
    """Fraction of the way from base to max at batch t of a cycle of `up` rising and `down` falling steps."""
    p = t % (up + down)
    return p / up if p <= up else (up + down - p) / down


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic_lr_closed_form_with_momentum(mode):
    up, down, gamma = 5, 3, 0.95
    opt = make_optimizer((0.5, 0.5), momentum=0.9)
    sched = L.CyclicLR(
        opt,
        base_lr=[0.01, 0.02],
        max_lr=[0.1, 0.3],
        step_size_up=up,
        step_size_down=down,
        mode=mode,
        gamma=gamma,
        base_momentum=0.8,
        max_momentum=0.95,
    )
    seq, moms = [lrs_of(opt)], [momenta_of(opt)]
    for _ in range(60):
        opt.step()
        sched.step()
        seq.append(lrs_of(opt))
        moms.append(momenta_of(opt))
    for t in range(61):
        cycle = t // (up + down) + 1
        scale = {"triangular": 1.0, "triangular2": 0.5 ** (cycle - 1), "exp_range": gamma**t}[mode]
        h = _triangle(t, up, down) * scale
        assert seq[t] == pytest.approx([0.01 + 0.09 * h, 0.02 + 0.28 * h], **TOL)
        assert moms[t] == pytest.approx([0.95 - 0.15 * h] * 2, **TOL)


def test_cyclic_lr_cycles_adam_beta1():
    opt = make_optimizer((0.001,), kind="adam")
    sched = L.CyclicLR(opt, base_lr=0.001, max_lr=0.01, step_size_up=4, base_momentum=0.85, max_momentum=0.95)
    assert opt.param_groups[0]["max_momentum"] == 0.95 and opt.param_groups[0]["base_momentum"] == 0.85
    for t in range(1, 30):
        opt.step()
        sched.step()
        h = _triangle(t, 4, 4)
        beta1, beta2 = opt.param_groups[0]["betas"]
        assert lrs_of(opt)[0] == pytest.approx(0.001 + 0.009 * h, **TOL)
        assert beta1 == pytest.approx(0.95 - 0.1 * h, **TOL)
        assert beta2 == 0.999
        assert "momentum" not in opt.param_groups[0]


def _cos_anneal(start, end, pct):
    return end + (start - end) * (1 + math.cos(math.pi * pct)) / 2


def _one_cycle(t, total, max_lr, pct_start, div, final_div, three_phase, anneal, m_lo, m_hi):
    lo = max_lr / div
    floor = lo / final_div
    a = pct_start * total - 1
    if three_phase:
        b = 2 * pct_start * total - 2
        phases = [(0, a, lo, max_lr, m_hi, m_lo), (a, b, max_lr, lo, m_lo, m_hi), (b, total - 1, lo, floor, m_hi, m_hi)]
    else:
        phases = [(0, a, lo, max_lr, m_hi, m_lo), (a, total - 1, max_lr, floor, m_lo, m_hi)]
    for i, (s, e, l0, l1, mo0, mo1) in enumerate(phases):
        if t <= e or i == len(phases) - 1:
            p = (t - s) / (e - s)
            return anneal(l0, l1, p), anneal(mo0, mo1, p)


@pytest.mark.parametrize("anneal_strategy", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_one_cycle_closed_form(anneal_strategy, three_phase, kind):
    total = 60
    anneal = _cos_anneal if anneal_strategy == "cos" else (lambda a, b, p: a + (b - a) * p)
    opt = make_optimizer((0.1,), kind=kind, momentum=0.9)
    sched = L.OneCycleLR(
        opt,
        max_lr=0.4,
        total_steps=total,
        pct_start=0.3,
        anneal_strategy=anneal_strategy,
        div_factor=20.0,
        final_div_factor=50.0,
        three_phase=three_phase,
        base_momentum=0.8,
        max_momentum=0.9,
    )
    g = opt.param_groups[0]
    assert g["initial_lr"] == 0.4 / 20 and g["max_lr"] == 0.4 and g["min_lr"] == 0.4 / 20 / 50
    for t in range(total):
        if t:
            opt.step()
            sched.step()
        lr, m = _one_cycle(t, total, 0.4, 0.3, 20.0, 50.0, three_phase, anneal, 0.8, 0.9)
        assert lrs_of(opt)[0] == pytest.approx(lr, **TOL), t
        assert momenta_of(opt)[0] == pytest.approx(m, **TOL), t
        if kind == "adam":
            assert g["betas"][1] == 0.999
    # the schedule's end points
    assert lrs_of(opt)[0] == pytest.approx(0.4 / 20 / 50, **TOL)
    assert momenta_of(opt)[0] == pytest.approx(0.9, **TOL)


def test_one_cycle_epochs_and_steps_per_epoch():
    opt = make_optimizer((0.1,), momentum=0.9)
    sched = L.OneCycleLR(opt, max_lr=0.1, epochs=3, steps_per_epoch=10)
    assert sched.total_steps == 30
    seq = run(opt, sched, 29)
    assert seq[-1][0] == pytest.approx(0.1 / 25 / 1e4, **TOL)
    assert max(column(seq)) == pytest.approx(0.1, **TOL)
    assert column(seq).index(max(column(seq))) == 8  # pct_start * 30 - 1


def test_one_cycle_past_total_steps_raises():
    opt = make_optimizer((0.1,), momentum=0.9)
    sched = L.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    run(opt, sched, 10)  # step 10 (one past the end of the cycle) is still allowed, as in PyTorch
    with pytest.raises(ValueError, match="Tried to step 11 times. The specified number of total steps is 10"):
        sched.step()


def test_step_with_epoch_uses_closed_form_and_warns():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(7)
    assert lrs_of(opt) == pytest.approx([0.1 * 0.5**2], **TOL)
    assert sched.last_epoch == 7
    opt = make_optimizer((0.2,))
    sched = L.CosineAnnealingLR(opt, T_max=10)
    opt.step()
    with pytest.warns(UserWarning, match="deprecated where possible"):
        sched.step(4)
    assert lrs_of(opt)[0] == pytest.approx(0.1 * (1 + math.cos(math.pi * 0.4)), **TOL)


# torch.optim.lr_scheduler's _get_closed_form_lr, written out in Python as PyTorch writes it; ember's multiply the
# initial lr by a factor from C++ (ember/optim/scheduler.h, lr_factor, which the C++ schedulers use too). They must
# agree bit for bit, integer and fractional epochs (step(epoch)) alike, and keep a tensor initial lr a tensor.
PYTORCH_CLOSED_FORMS = [
    (lambda o: L.StepLR(o, step_size=3, gamma=0.7), lambda s, b: b * s.gamma ** (s.last_epoch // s.step_size)),
    (lambda o: L.StepLR(o, step_size=0.1, gamma=2.0), lambda s, b: b * s.gamma ** (s.last_epoch // s.step_size)),
    (
        lambda o: L.MultiStepLR(o, [6, 2, 6, 11], gamma=0.3),
        lambda s, b: b * s.gamma ** bisect.bisect_right(sorted(s.milestones.elements()), s.last_epoch),
    ),
    (
        lambda o: L.ConstantLR(o, factor=0.3, total_iters=7),
        lambda s, b: b * (s.factor + (s.last_epoch >= s.total_iters) * (1 - s.factor)),
    ),
    (
        lambda o: L.LinearLR(o, start_factor=0.1, end_factor=0.6, total_iters=12),
        lambda s, b: (
            b * (s.start_factor + (s.end_factor - s.start_factor) * min(s.total_iters, s.last_epoch) / s.total_iters)
        ),
    ),
    (lambda o: L.ExponentialLR(o, gamma=0.9), lambda s, b: b * s.gamma**s.last_epoch),
    (
        lambda o: L.PolynomialLR(o, total_iters=25, power=1.7),
        lambda s, b: b * (1.0 - min(s.total_iters, s.last_epoch) / s.total_iters) ** s.power,
    ),
    (
        lambda o: L.CosineAnnealingLR(o, T_max=9, eta_min=0.01),
        lambda s, b: s.eta_min + (b - s.eta_min) * ((1 + math.cos(math.pi * s.last_epoch / s.T_max)) / 2),
    ),
]


@pytest.mark.parametrize("k", range(len(PYTORCH_CLOSED_FORMS)))
def test_closed_forms_are_pytorchs_bit_for_bit(k):
    factory, formula = PYTORCH_CLOSED_FORMS[k]
    opt = make_optimizer((0.1, 0.37))
    sched = factory(opt)
    for epoch in [0, 1, 2, 3, 5, 6, 7, 11, 12, 24, 25, 40, 0.5, 2.25, 6.75, 1e-3]:
        sched.last_epoch = epoch
        assert sched._get_closed_form_lr() == [formula(sched, b) for b in sched.base_lrs], epoch
    sched.base_lrs = [ember.tensor(0.1, dtype=ember.float64)]
    sched.last_epoch = 4
    got = sched._get_closed_form_lr()[0]
    assert isinstance(got, ember.Tensor) and got.item() == formula(sched, 0.1)


# ----------------------------------------------------------------------------------------------------
# ReduceLROnPlateau


def test_reduce_on_plateau_scripted():
    opt = make_optimizer((1.0, 0.1))
    sched = L.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, cooldown=2, min_lr=[0.1, 0.03])
    assert sched.get_last_lr() == [1.0, 0.1]
    metrics = [5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]
    # row i is the lr after metrics[i - 1]: a reduction on the 2nd bad epoch (patience 1), then 2 epochs
    # of cooldown in which bad epochs do not count; min_lr stops group 1 at 0.03 and group 0 at 0.1
    want = [[1.0, 0.1]] * 4 + [[0.5, 0.05]] * 4 + [[0.25, 0.03]] * 4 + [[0.125, 0.03]] * 4 + [[0.1, 0.03]] * 3
    got = run(opt, sched, len(metrics), metrics)
    assert got == [pytest.approx(w, **TOL) for w in want]
    assert sched.best == 3 and sched.last_epoch == len(metrics)


def test_reduce_on_plateau_modes_and_thresholds():
    def reduced_at(mode, threshold_mode, threshold, metrics):
        opt = make_optimizer((1.0,))
        sched = L.ReduceLROnPlateau(
            opt, mode=mode, factor=0.1, patience=0, threshold=threshold, threshold_mode=threshold_mode
        )
        seq = run(opt, sched, len(metrics), metrics)
        return [t for t in range(1, len(seq)) if seq[t][0] < seq[t - 1][0]]

    # rel: an improvement must beat best * (1 - threshold) (min) or best * (1 + threshold) (max)
    assert reduced_at("min", "rel", 0.1, [10.0, 9.5, 8.9, 8.5]) == [2, 4]
    assert reduced_at("max", "rel", 0.1, [10.0, 10.5, 11.1, 12.0]) == [2, 4]
    # abs: best - threshold / best + threshold
    assert reduced_at("min", "abs", 0.5, [10.0, 9.6, 9.4, 9.0]) == [2, 4]
    assert reduced_at("max", "abs", 0.5, [10.0, 10.4, 10.6, 11.0]) == [2, 4]


def test_reduce_on_plateau_eps_and_tensor_metric():
    opt = make_optimizer((1e-7,))
    sched = L.ReduceLROnPlateau(opt, patience=0, factor=0.5, eps=1e-7)
    run(opt, sched, 5, [ember.tensor(1.0)] * 5)  # a 0-dim tensor metric works like a float
    assert lrs_of(opt) == [1e-7]  # the change (5e-8) is below eps: ignored


def test_reduce_on_plateau_new_param_group():
    opt = make_optimizer((1.0,))
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.2)
    opt.param_groups.append(dict(opt.param_groups[0], params=[ember.zeros(1)], lr=3.0))
    run(opt, sched, 2, [1.0, 1.0])  # a scalar min_lr extends to the new group
    assert lrs_of(opt) == pytest.approx([0.2, 0.3], **TOL)
    sched.step(1.0)
    assert lrs_of(opt) == pytest.approx([0.2, 0.2], **TOL)
    opt = make_optimizer((1.0,))
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.2])
    opt.param_groups.append(dict(opt.param_groups[0], params=[ember.zeros(1)], lr=3.0))
    sched.step(1.0)
    with pytest.raises(RuntimeError, match="The number of param groups in the `optimizer` \\(2\\) differs"):
        sched.step(1.0)


# ----------------------------------------------------------------------------------------------------
# Compositions


def test_chained_scheduler_docstring_example():
    opt = make_optimizer((1.0,))
    sched = L.ChainedScheduler([L.ConstantLR(opt, factor=0.1, total_iters=2), L.ExponentialLR(opt, gamma=0.9)])
    seq = column(run(opt, sched, 6))
    assert seq == pytest.approx([0.1, 0.09, 0.81, 0.729, 0.6561, 0.59049, 0.531441], **TOL)
    assert sched.get_last_lr() == pytest.approx([0.531441], **TOL)


def test_sequential_lr_warmup_then_cosine():
    opt = make_optimizer((0.1, 0.4))
    warm = L.LinearLR(opt, start_factor=0.25, total_iters=4)
    cos = L.CosineAnnealingLR(opt, T_max=16, eta_min=0.001)
    sched = L.SequentialLR(opt, [warm, cos], milestones=[4])
    seq = run(opt, sched, 30)
    for t, row in enumerate(seq):
        for g, base in enumerate((0.1, 0.4)):
            if t < 4:
                want = base * (0.25 + 0.75 * t / 4)
            else:
                want = 0.001 + (base - 0.001) * (1 + math.cos(math.pi * (t - 4) / 16)) / 2
            assert row[g] == pytest.approx(want, rel=1e-10, abs=1e-13), (t, g)
    assert sched.get_last_lr() == seq[-1]


def test_sequential_lr_nested_chained():
    """A ChainedScheduler inside a SequentialLR (recent PyTorch): SequentialLR's start steps the chain, whose
    step() advances every member, so the ExponentialLR factor is already applied at epoch 0."""
    opt = make_optimizer((1.0,))
    inner = L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=3), L.ExponentialLR(opt, gamma=0.9)])
    step = L.StepLR(opt, step_size=2, gamma=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the chain's members see their first step() before optimizer.step()
        sched = L.SequentialLR(opt, [inner, step], milestones=[5])
    seq = column(run(opt, sched, 9))
    first = [(0.5 if t < 3 else 1.0) * 0.9 ** (t + 1) for t in range(5)]
    second = [0.1 ** ((t - 5) // 2) for t in range(5, 10)]
    assert seq == pytest.approx(first + second, **TOL)


def test_composition_errors():
    opt, other = make_optimizer(), make_optimizer()
    with pytest.raises(
        ValueError,
        match="Sequential Schedulers expects number of schedulers provided to be one "
        "more than the number of milestone points, but got number of schedulers "
        "2 and the number of milestones to be equal to 2",
    ):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(opt, 3)], milestones=[2, 4])
    with pytest.raises(ValueError, match="SequentialLR expects all schedulers to belong to the same optimizer"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(other, 3)], milestones=[2])
    with pytest.raises(ValueError, match="ChainedScheduler expects all schedulers to belong to the same optimizer"):
        L.ChainedScheduler([L.StepLR(opt, 2), L.StepLR(other, 3)])
    with pytest.raises(ValueError, match="SequentialLR does not support `ReduceLROnPlateau`"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.ReduceLROnPlateau(opt)], milestones=[2])
    with pytest.raises(ValueError, match="ChainedScheduler expects at least one scheduler"):
        L.ChainedScheduler([])
    with pytest.raises(ValueError, match="SequentialLR expects at least one scheduler"):
        L.SequentialLR(opt, [], milestones=[])
    with pytest.raises(TypeError, match="ChainedScheduler at index 1 should have `optimizer` as its attribute"):
        L.ChainedScheduler([L.StepLR(opt, 2), object()], optimizer=opt)


# ----------------------------------------------------------------------------------------------------
# Parameter groups, initial_lr, resuming, state_dict details


def test_initial_lr_and_base_lrs():
    opt = make_optimizer((0.1, 0.2))
    sched = L.ExponentialLR(opt, gamma=0.5)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.2]
    assert sched.base_lrs == [0.1, 0.2] and sched.last_epoch == 0 and sched.get_last_lr() == [0.1, 0.2]
    run(opt, sched, 2)
    # a second scheduler keeps the initial_lr the first one recorded
    sched2 = L.StepLR(opt, step_size=1, gamma=1.0)
    assert sched2.base_lrs == [0.1, 0.2]


def test_resume_with_last_epoch():
    opt = make_optimizer((0.1,))
    with pytest.raises(
        KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when resuming an optimizer"
    ):
        L.StepLR(opt, step_size=2, last_epoch=4)
    opt.param_groups[0]["initial_lr"] = 0.8
    opt.param_groups[0]["lr"] = 0.8 * 0.5**2  # where a StepLR(2, 0.5) stands after epoch 4
    sched = L.StepLR(opt, step_size=2, gamma=0.5, last_epoch=4)
    assert sched.last_epoch == 5 and sched.base_lrs == [0.8]
    seq = column(run(opt, sched, 6))
    assert seq == pytest.approx([0.8 * 0.5 ** (t // 2) for t in range(5, 12)], **TOL)
    # resuming ExponentialLR leaves the lr as it is at construction (recent PyTorch's behaviour)
    opt = make_optimizer((0.1,))
    opt.param_groups[0]["initial_lr"] = 1.0
    sched = L.ExponentialLR(opt, gamma=0.5, last_epoch=3)
    assert lrs_of(opt) == [0.1]


class _Scale:
    """A callable object: LambdaLR saves its __dict__ in the state dict."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate**epoch


def test_lambda_state_dict_saves_callable_objects_only():
    opt = make_optimizer((0.1, 0.2))
    sched = L.LambdaLR(opt, [lambda e: 1.0, _Scale(0.5)])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [None, {"rate": 0.5}]
    assert "optimizer" not in state
    opt2 = make_optimizer((0.1, 0.2))
    fresh = L.LambdaLR(opt2, [lambda e: 1.0, _Scale(0.9)])
    fresh.load_state_dict(state)
    assert fresh.lr_lambdas[1].rate == 0.5
    assert "lr_lambdas" in state  # load_state_dict leaves the caller's dict as it was
    opt3 = make_optimizer((0.1,))
    mult = L.MultiplicativeLR(opt3, _Scale(0.9))
    assert mult.state_dict()["lr_lambdas"] == [{"rate": 0.9}]


def test_cyclic_state_dict_custom_scale_fn():
    opt = make_optimizer((0.1,), momentum=0.9)
    sched = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=_Scale(0.8))
    state = sched.state_dict()
    assert state["_scale_fn_custom"] == {"rate": 0.8} and "_scale_fn_ref" not in state
    opt = make_optimizer((0.1,), momentum=0.9)
    sched = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9)
    state = pickle.loads(pickle.dumps(sched.state_dict()))
    assert state["_scale_fn_custom"] is None and state["scale_mode"] == "iterations"


def test_state_dict_keys_like_pytorch():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3)
    assert set(sched.state_dict()) >= {
        "step_size",
        "gamma",
        "base_lrs",
        "last_epoch",
        "_step_count",
        "_get_lr_called_within_step",
        "_last_lr",
    }
    opt = make_optimizer((0.1,))
    plateau = L.ReduceLROnPlateau(opt)
    assert set(plateau.state_dict()) >= {
        "factor",
        "min_lrs",
        "patience",
        "cooldown",
        "cooldown_counter",
        "mode",
        "threshold",
        "threshold_mode",
        "best",
        "num_bad_epochs",
        "mode_worse",
        "eps",
        "last_epoch",
        "_last_lr",
    }


# ----------------------------------------------------------------------------------------------------
# Warnings and the optimizer.step wrapper


def test_warns_when_scheduler_steps_before_optimizer():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        sched.step()


def test_no_warning_in_the_right_order():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            opt.step()
            sched.step()
    assert opt._opt_called is True


def test_warns_when_optimizer_step_is_replaced():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3)
    opt.step = lambda: None
    with pytest.warns(UserWarning, match="Seems like `optimizer.step\\(\\)` has been overridden"):
        sched.step()


def test_optimizer_step_wrapped_once_and_still_runs():
    opt = make_plain_optimizer((0.1,))
    L.StepLR(opt, step_size=3)
    L.ExponentialLR(opt, gamma=0.9)
    assert opt.step._wrapped_by_lr_sched is True
    assert not hasattr(opt.step.__wrapped__, "_wrapped_by_lr_sched")  # not wrapped twice
    opt.step()
    opt.step()
    assert opt.calls == 2 and opt._opt_called is True


def test_wrapped_sgd_step_updates_parameters():
    opt = make_optimizer((0.5,))
    sched = L.StepLR(opt, step_size=1, gamma=0.1)
    p = opt.param_groups[0]["params"][0]
    for _ in range(3):
        p.grad = ember.ones(2)
        opt.step()
        sched.step()
    # lr 0.5, 0.05, 0.005 applied in turn
    assert p.tolist() == pytest.approx([-0.555, -0.555], rel=1e-6)


def test_get_lr_outside_step_warns():
    opt = make_optimizer((0.1,))
    sched = L.StepLR(opt, step_size=3)
    with pytest.warns(
        UserWarning, match="To get the last learning rate computed by the scheduler, please use `get_last_lr\\(\\)`."
    ):
        sched.get_lr()


def test_verbose_is_deprecated_but_prints(capsys):
    opt = make_optimizer((0.1,))
    with pytest.warns(UserWarning, match="The verbose parameter is deprecated"):
        sched = L.StepLR(opt, step_size=1, gamma=0.5, verbose=True)
    opt.step()
    sched.step()
    assert capsys.readouterr().out.splitlines() == [
        "Adjusting learning rate of group 0 to 1.0000e-01.",
        "Adjusting learning rate of group 0 to 5.0000e-02.",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L.StepLR(make_optimizer(), step_size=1)  # no warning without the argument


def test_lr_scheduler_alias():
    assert issubclass(L._LRScheduler, L.LRScheduler)
    for name in ["LambdaLR", "StepLR", "OneCycleLR", "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"]:
        assert issubclass(getattr(L, name), L.LRScheduler)


# ----------------------------------------------------------------------------------------------------
# Errors (PyTorch's exception types and messages)


@pytest.mark.parametrize(
    "make",
    [
        lambda o: L.StepLR(o, 2),
        lambda o: L.LambdaLR(o, lambda e: 1.0),
        lambda o: L.MultiplicativeLR(o, lambda e: 1.0),
        lambda o: L.CyclicLR(o, 0.1, 1.0),
        lambda o: L.OneCycleLR(o, 0.1, total_steps=10),
        lambda o: L.ReduceLROnPlateau(o),
        lambda o: swa_utils.SWALR(o, 0.1),
    ],
)
def test_not_an_optimizer(make):
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        make([{"params": [], "lr": 0.1}])
    with pytest.raises(TypeError, match="is not an Optimizer"):
        make(ember.nn.Linear(2, 2))


def test_wrong_length_lists():
    opt = make_optimizer((0.1, 0.2), momentum=0.9)
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
        L.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 3$"):
        L.MultiplicativeLR(opt, [lambda e: 1.0] * 3)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "base_lr must have the same length as optimizer.param_groups. base_lr has 3 values, param_groups has 2."
        ),
    ):
        L.CyclicLR(opt, [0.1, 0.1, 0.1], 1.0)
    with pytest.raises(ValueError, match="max_lr must have the same length"):
        L.CyclicLR(opt, 0.1, [1.0])
    with pytest.raises(ValueError, match="base_momentum must have the same length"):
        L.CyclicLR(opt, 0.1, 1.0, base_momentum=[0.8])
    with pytest.raises(ValueError, match="max_lr must have the same length"):
        L.OneCycleLR(opt, [0.1], total_steps=10)
    with pytest.raises(ValueError, match="max_momentum must have the same length"):
        L.OneCycleLR(opt, 0.1, total_steps=10, max_momentum=(0.9, 0.9, 0.9))
    with pytest.raises(ValueError, match="^expected 2 min_lrs, got 3$"):
        L.ReduceLROnPlateau(opt, min_lr=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        swa_utils.SWALR(opt, swa_lr=[0.1])


def test_one_cycle_argument_errors():
    opt = make_optimizer((0.1,), momentum=0.9)
    msg = re.escape("You must define either total_steps OR (epochs AND steps_per_epoch)")
    with pytest.raises(ValueError, match=msg):
        L.OneCycleLR(opt, 0.1)
    with pytest.raises(ValueError, match=msg):
        L.OneCycleLR(opt, 0.1, epochs=3)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        L.OneCycleLR(opt, 0.1, total_steps=0)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 10.0"):
        L.OneCycleLR(opt, 0.1, total_steps=10.0)
    with pytest.raises(ValueError, match="Expected positive integer epochs, but got -1"):
        L.OneCycleLR(opt, 0.1, epochs=-1, steps_per_epoch=3)
    with pytest.raises(ValueError, match="Expected positive integer steps_per_epoch, but got 0"):
        L.OneCycleLR(opt, 0.1, epochs=2, steps_per_epoch=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 1.5"):
        L.OneCycleLR(opt, 0.1, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        L.OneCycleLR(opt, 0.1, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with `cycle_momentum`"):
        L.OneCycleLR(make_plain_optimizer(), 0.1, total_steps=10)
    L.OneCycleLR(make_plain_optimizer(), 0.1, total_steps=10, cycle_momentum=False)


def test_other_argument_errors():
    opt = make_optimizer((0.1,), momentum=0.9)
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        L.ConstantLR(opt, factor=1.5)
    with pytest.raises(
        ValueError, match="Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
    ):
        L.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between 0 and 1."):
        L.LinearLR(opt, end_factor=1.2)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        L.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 1.5"):
        L.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
    with pytest.raises(ValueError, match="Expected float or int eta_min"):
        L.CosineAnnealingWarmRestarts(opt, T_0=2, eta_min="0")
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        L.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1)
    with pytest.raises(ValueError, match="^mode is invalid and scale_fn is None$"):
        L.CyclicLR(opt, 0.1, 1.0, mode="sine")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with `cycle_momentum`"):
        L.CyclicLR(make_plain_optimizer(), 0.1, 1.0)
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        L.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="^mode sideways is unknown!$"):
        L.ReduceLROnPlateau(opt, mode="sideways")
    with pytest.raises(ValueError, match="^threshold mode pct is unknown!$"):
        L.ReduceLROnPlateau(opt, threshold_mode="pct")
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        L.MultiplicativeLR(opt, 0.5)


def test_tensor_lr_is_updated_in_place():
    """A group whose lr is a 0-dim tensor keeps that tensor; the scheduler fills it (recent PyTorch)."""
    opt = make_optimizer((0.1,))
    lr = ember.tensor(0.1, dtype=ember.float64)
    opt.param_groups[0]["lr"] = lr
    sched = L.CosineAnnealingLR(opt, T_max=8, eta_min=0.01)
    initial = opt.param_groups[0]["initial_lr"]
    assert isinstance(initial, ember.Tensor) and initial is not lr  # a copy, not an alias
    for t in range(1, 20):
        opt.step()
        sched.step()
        assert opt.param_groups[0]["lr"] is lr
        want = 0.01 + 0.09 * (1 + math.cos(math.pi * t / 8)) / 2
        assert lr.item() == pytest.approx(want, rel=1e-10, abs=1e-13)
    assert initial.item() == 0.1
