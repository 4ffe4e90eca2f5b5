"""ember.optim: every optimizer against a NumPy implementation of its published update and against trajectories
recorded with PyTorch 1.13 (fixtures/optim_trajectories.json); state_dict layout and exact resumption; errors."""

import copy
import json
import math
import os
import warnings

import numpy as np
import pytest

import ember
import ember.optim as optim

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "optim_trajectories.json")


# -- NumPy references: one function per algorithm, state in a dict, written from the papers / PyTorch docs --------


def ref_sgd(p, g, st, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    if momentum:
        st["buf"] = g.copy() if "buf" not in st else momentum * st["buf"] + (1 - dampening) * g
        g = g + momentum * st["buf"] if nesterov else st["buf"]
    return p - lr * g


def ref_adam(
    p, g, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, maximize=False, decoupled=False
):
    b1, b2 = betas
    g = -g if maximize else g
    if decoupled:
        p = p * (1 - lr * weight_decay)
    else:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    v = st["v"]
    if amsgrad:
        st["vmax"] = v = np.maximum(st.get("vmax", 0), v)
    mhat = st["m"] / (1 - b1**t)
    return p - lr * mhat / (np.sqrt(v) / math.sqrt(1 - b2**t) + eps)


def ref_adamw(p, g, st, weight_decay=1e-2, **kw):
    return ref_adam(p, g, st, weight_decay=weight_decay, decoupled=True, **kw)


def ref_rmsprop(p, g, st, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    st["sq"] = alpha * st.get("sq", 0) + (1 - alpha) * g * g
    if centered:
        st["ga"] = alpha * st.get("ga", 0) + (1 - alpha) * g
        avg = np.sqrt(st["sq"] - st["ga"] ** 2) + eps
    else:
        avg = np.sqrt(st["sq"]) + eps
    if momentum > 0:
        st["buf"] = momentum * st.get("buf", 0) + g / avg
        return p - lr * st["buf"]
    return p - lr * g / avg


def ref_adagrad(p, g, st, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    st["sum"] = st.get("sum", initial_accumulator_value) + g * g
    return p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(st["sum"]) + eps)


def ref_adadelta(p, g, st, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False):
    g = -g if maximize else g
    g = g + weight_decay * p
    st["sq"] = rho * st.get("sq", 0) + (1 - rho) * g * g
    delta = np.sqrt(st.get("acc", 0) + eps) / np.sqrt(st["sq"] + eps) * g
    st["acc"] = rho * st.get("acc", 0) + (1 - rho) * delta * delta
    return p - lr * delta


def ref_adamax(p, g, st, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["u"] = np.maximum(b2 * st.get("u", 0), np.abs(g) + eps)
    return p - lr / (1 - b1**t) * st["m"] / st["u"]


def ref_nadam(
    p,
    g,
    st,
    lr=2e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0,
    momentum_decay=4e-3,
    decoupled_weight_decay=False,
    maximize=False,
):
    b1, b2 = betas
    g = -g if maximize else g
    if decoupled_weight_decay:
        p = p * (1 - lr * weight_decay)
    else:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    # PyTorch keeps mu_product in a float32 tensor and multiplies in float32.
    st["prod"] = prod = float(np.float32(st.get("prod", 1.0)) * np.float32(mu))
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    denom = np.sqrt(st["v"] / (1 - b2**t)) + eps
    return p - lr * (1 - mu) / (1 - prod) * g / denom - lr * mu_next / (1 - prod * mu_next) * st["m"] / denom


def ref_radam(
    p, g, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, maximize=False
):
    b1, b2 = betas
    g = -g if maximize else g
    if decoupled_weight_decay:
        p = p * (1 - lr * weight_decay)
    else:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    mhat = st["m"] / (1 - b1**t)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
    if rho_t > 5:
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return p - lr * mhat * rect * math.sqrt(1 - b2**t) / (np.sqrt(st["v"]) + eps)
    return p - lr * mhat


def ref_rprop(p, g, st, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    g = -g if maximize else g
    sign = np.sign(g * st.get("prev", 0.0))
    step = np.clip(st.get("step", lr) * np.where(sign > 0, etas[1], np.where(sign < 0, etas[0], 1.0)), *step_sizes)
    g = np.where(sign < 0, 0.0, g)  # after a sign change: no move, and nothing to compare with next time
    st["prev"], st["step"] = g, step
    return p - np.sign(g) * step


def ref_asgd(p, g, st, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False):
    def f32(x):  # PyTorch keeps eta and mu in float32 tensors
        return float(np.float32(x))

    g = -g if maximize else g
    g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    eta, mu = st.get("eta", f32(lr)), st.get("mu", 1.0)
    p = p * (1 - lambd * eta) - eta * g
    st["ax"] = p.copy() if mu == 1 else st["ax"] + (p - st["ax"]) * mu
    st["eta"], st["mu"] = f32(lr / (1 + lambd * lr * t) ** alpha), f32(1 / max(1, t - t0))
    return p


REFS = {
    "SGD": ref_sgd,
    "Adam": ref_adam,
    "AdamW": ref_adamw,
    "RMSprop": ref_rmsprop,
    "Adagrad": ref_adagrad,
    "Adadelta": ref_adadelta,
    "Adamax": ref_adamax,
    "NAdam": ref_nadam,
    "RAdam": ref_radam,
    "Rprop": ref_rprop,
    "ASGD": ref_asgd,
}

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
    ("ASGD", dict(lr=0.01)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True)),
]


def _ids(configs):
    return [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in configs]


# Shapes include tensors above the kernel's per-thread grain (32768), so that the work of one tensor is split
# across threads and one thread's share spans several tensors.
SHAPES = [(3, 4), (70001,), (5,), (40000,), (1,)]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=_ids(CONFIGS))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_optimizer_matches_numpy_reference(name, kw, dtype):
    rng = np.random.default_rng(1)
    init = [rng.standard_normal(s) for s in SHAPES]
    params = [ember.tensor(x, dtype=dtype, requires_grad=True) for x in init]
    opt = getattr(optim, name)(params, **kw)
    ref = [x.copy() for x in init]
    states = [{} for _ in SHAPES]
    for _ in range(6):
        grads = [rng.standard_normal(s) for s in SHAPES]
        for p, g in zip(params, grads):
            p.grad = ember.tensor(g, dtype=dtype)
        opt.step()
        ref = [REFS[name](r, g, st, **kw) for r, g, st in zip(ref, grads, states)]
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == ember.float32 else dict(rtol=1e-10, atol=1e-12)
    for p, r in zip(params, ref):
        np.testing.assert_allclose(p.detach().numpy(), r, **tol)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adadelta"])
def test_non_contiguous_and_half_parameters_follow_the_same_math(name):
    kw = dict(lr=0.01, momentum=0.9) if name in ("SGD", "RMSprop") else dict()
    rng = np.random.default_rng(2)
    base = rng.standard_normal((4, 6))
    p = ember.tensor(base).t().detach().requires_grad_()  # a non-contiguous leaf
    assert not p.is_contiguous()
    h = ember.tensor(base, dtype=ember.bfloat16, requires_grad=True)
    opt = getattr(optim, name)([p, h], **kw)
    ref, st = base.T.copy(), {}
    ref_h, st_h = h.detach().float().numpy().astype(np.float64), {}
    for _ in range(3):
        g = rng.standard_normal((6, 4))
        p.grad = ember.tensor(g.T.copy()).t()  # non-contiguous gradient
        h.grad = ember.tensor(g.T.copy(), dtype=ember.bfloat16)
        opt.step()
        ref = REFS[name](ref, g, st, **kw)
        ref_h = REFS[name](ref_h, h.grad.float().numpy().astype(np.float64), st_h, **kw)
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    assert (
        h.dtype == ember.bfloat16
        and opt.state[h]["exp_avg" if name == "Adam" else next(k for k in opt.state[h] if k != "step")].dtype
        == ember.bfloat16
    )
    np.testing.assert_allclose(h.detach().float().numpy(), ref_h, rtol=2e-2, atol=2e-2)


def _fixture():
    with open(FIXTURE) as f:
        return json.load(f)


@pytest.mark.parametrize("case", range(len(_fixture()["cases"])))
def test_trajectory_equals_pytorch(case):
    fx = _fixture()
    c = fx["cases"][case]
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in c["kwargs"].items()}
    params = [ember.tensor(x, dtype=ember.float64, requires_grad=True) for x in fx["init"]]
    opt = getattr(optim, c["name"])(params, **kw)
    for step in range(fx["steps"]):
        for p, g in zip(params, fx["grads"][step]):
            p.grad = ember.tensor(g, dtype=ember.float64)
        opt.step()
    for p, want in zip(params, c["final"]):
        np.testing.assert_allclose(p.detach().numpy(), np.array(want), rtol=1e-12, atol=1e-13)


def _rosenbrock(opt, x):
    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    return closure


@pytest.mark.parametrize("ls", [None, "strong_wolfe"])
def test_lbfgs_matches_pytorch_on_rosenbrock(ls):
    want = next(c for c in _fixture()["lbfgs"] if c["line_search_fn"] == ls)
    x = ember.tensor([-1.5, 2.0], dtype=ember.float64, requires_grad=True)
    opt = optim.LBFGS([x], lr=1 if ls else 0.1, max_iter=50, history_size=10, line_search_fn=ls)
    closure = _rosenbrock(opt, x)
    for point in want["trajectory"]:
        opt.step(closure)
        np.testing.assert_allclose(x.detach().numpy(), point, rtol=1e-7, atol=1e-9)
    assert opt.state[x]["func_evals"] == want["func_evals"]
    assert opt.state[x]["n_iter"] == want["n_iter"]


def test_lbfgs_solves_a_quadratic_to_its_closed_form_minimum():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 6))
    A = a @ a.T + 6 * np.eye(6)
    b = rng.standard_normal(6)
    x = ember.zeros(6, dtype=ember.float64, requires_grad=True)
    At, bt = ember.tensor(A), ember.tensor(b)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ (At @ x) - bt @ x
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, b), rtol=1e-6, atol=1e-8)


# -- state_dict --------------------------------------------------------------------------------------------------

# PyTorch 1.13's param-group keys (plus the options newer PyTorch added, which ember follows).
GROUP_KEYS = {
    "SGD": {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable"},
    "Adam": {
        "lr",
        "betas",
        "eps",
        "weight_decay",
        "amsgrad",
        "maximize",
        "foreach",
        "capturable",
        "differentiable",
        "fused",
    },
    "AdamW": {"lr", "betas", "eps", "weight_decay", "amsgrad", "foreach", "maximize", "capturable"},
    "RMSprop": {"lr", "momentum", "alpha", "eps", "centered", "weight_decay", "foreach", "maximize", "differentiable"},
    "Adagrad": {"lr", "lr_decay", "eps", "weight_decay", "initial_accumulator_value", "foreach", "maximize"},
    "Adadelta": {"lr", "rho", "eps", "weight_decay", "maximize", "foreach"},
    "Adamax": {"lr", "betas", "eps", "weight_decay", "foreach", "maximize"},
    "NAdam": {"lr", "betas", "eps", "weight_decay", "momentum_decay", "foreach"},
    "RAdam": {"lr", "betas", "eps", "weight_decay", "foreach"},
    "Rprop": {"lr", "etas", "step_sizes", "foreach", "maximize"},
    "ASGD": {"lr", "lambd", "alpha", "t0", "weight_decay", "foreach", "maximize"},
    "LBFGS": {"lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size", "line_search_fn"},
}
STATE_KEYS = {
    ("SGD", "momentum"): {"momentum_buffer"},
    ("Adam", ""): {"step", "exp_avg", "exp_avg_sq"},
    ("Adam", "amsgrad"): {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
    ("AdamW", ""): {"step", "exp_avg", "exp_avg_sq"},
    ("RMSprop", ""): {"step", "square_avg"},
    ("RMSprop", "centered"): {"step", "square_avg", "momentum_buffer", "grad_avg"},
    ("Adagrad", ""): {"step", "sum"},
    ("Adadelta", ""): {"step", "square_avg", "acc_delta"},
    ("Adamax", ""): {"step", "exp_avg", "exp_inf"},
    ("NAdam", ""): {"step", "mu_product", "exp_avg", "exp_avg_sq"},
    ("RAdam", ""): {"step", "exp_avg", "exp_avg_sq"},
    ("Rprop", ""): {"step", "prev", "step_size"},
    ("ASGD", ""): {"step", "eta", "mu", "ax"},
}
STATE_KW = {
    "momentum": dict(lr=0.1, momentum=0.9),
    "amsgrad": dict(amsgrad=True),
    "centered": dict(centered=True, momentum=0.5),
    "": {},
}


@pytest.mark.parametrize("name", sorted(GROUP_KEYS))
def test_param_group_keys_include_pytorchs(name):
    p = ember.zeros(2, requires_grad=True)
    opt = getattr(optim, name)([p], lr=0.1)
    assert GROUP_KEYS[name] <= set(opt.state_dict()["param_groups"][0]) - {"params"}


@pytest.mark.parametrize("name,variant", sorted(STATE_KEYS))
def test_state_keys_and_step_counter_are_pytorchs(name, variant):
    p = ember.zeros(3, requires_grad=True)
    kw = dict(STATE_KW[variant])
    kw.setdefault("lr", 0.1)
    opt = getattr(optim, name)([p], **kw)
    for _ in range(2):
        p.grad = ember.ones(3)
        opt.step()
    sd = opt.state_dict()
    assert set(sd["state"][0]) == STATE_KEYS[(name, variant)]
    if "step" in sd["state"][0]:
        step = sd["state"][0]["step"]
        assert isinstance(step, ember.Tensor) and step.dim() == 0 and step.dtype == ember.float32
        assert step.item() == 2.0


def test_state_dict_numbers_parameters_across_groups():
    a, b, c = (ember.zeros(2, requires_grad=True) for _ in range(3))
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, c):
        p.grad = ember.ones(2)
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert [g["lr"] for g in sd["param_groups"]] == [0.1, 0.5]
    assert sorted(sd["state"]) == [0, 2]


def _model(seed):
    ember.manual_seed(seed)
    return ember.nn.Sequential(ember.nn.Linear(5, 8), ember.nn.Tanh(), ember.nn.Linear(8, 2))


def _train(model, opt, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = ember.tensor(rng.standard_normal((16, 5)), dtype=ember.float32)
        y = ember.tensor(rng.standard_normal((16, 2)), dtype=ember.float32)
        opt.zero_grad()
        ember.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


RESUME = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("Adadelta", dict()),
    ("Adamax", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01)),
]


@pytest.mark.parametrize("name,kw", RESUME, ids=[r[0] for r in RESUME])
def test_saved_optimizer_resumes_training_exactly(name, kw):
    straight = _model(0)
    opt = getattr(optim, name)(straight.parameters(), **kw)
    _train(straight, opt, 5, seed=10)
    _train(straight, opt, 5, seed=11)

    first = _model(0)
    opt1 = getattr(optim, name)(first.parameters(), **kw)
    _train(first, opt1, 5, seed=10)
    saved_model, saved_opt = copy.deepcopy(first.state_dict()), copy.deepcopy(opt1.state_dict())
    del first, opt1

    resumed = _model(123)  # different initial weights: everything must come from the checkpoint
    resumed.load_state_dict(saved_model)
    opt2 = getattr(optim, name)(resumed.parameters(), **kw)
    opt2.load_state_dict(saved_opt)
    _train(resumed, opt2, 5, seed=11)
    for (k, a), (_, b) in zip(straight.state_dict().items(), resumed.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), k


def test_load_state_dict_copies_state_and_casts_to_the_parameters_dtype():
    p = ember.zeros(3, dtype=ember.float64, requires_grad=True)
    opt = optim.Adam([p])
    sd = {
        "state": {0: {"step": ember.tensor(3.0), "exp_avg": ember.ones(3), "exp_avg_sq": ember.ones(3)}},
        "param_groups": [
            {"lr": 0.5, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False, "params": [0]}
        ],
    }
    opt.load_state_dict(sd)
    st = opt.state[p]
    assert st["exp_avg"].dtype == ember.float64 and st["step"].dtype == ember.float32
    st["exp_avg"].add_(1)
    assert sd["state"][0]["exp_avg"].tolist() == [1.0, 1.0, 1.0]  # the source is not aliased
    # Options missing from an older PyTorch's state dict take the defaults.
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["maximize"] is False
    assert opt.param_groups[0]["params"][0] is p


def test_load_state_dict_errors_leave_the_optimizer_unchanged():
    a, b = ember.zeros(2, requires_grad=True), ember.zeros(3, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    before = opt.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [dict(before["param_groups"][0], params=[0])]})
    bad = {
        "state": {
            0: {"step": ember.tensor(1.0), "exp_avg": ember.zeros(5), "exp_avg_sq": ember.zeros(2)},
            1: {"step": ember.tensor(1.0), "exp_avg": ember.zeros(4), "exp_avg_sq": ember.zeros(3)},
        },
        "param_groups": [dict(before["param_groups"][0], lr=9.0)],
    }
    with pytest.raises(ValueError) as e:
        opt.load_state_dict(bad)
    msg = str(e.value)
    assert "'exp_avg' of parameter 0 has shape [5] but the parameter has shape [2]" in msg
    assert "'exp_avg' of parameter 1 has shape [4] but the parameter has shape [3]" in msg
    assert opt.param_groups[0]["lr"] == 0.1 and len(opt.state) == 0


# -- API behaviour -----------------------------------------------------------------------------------------------


def test_groups_options_and_add_param_group():
    a, b = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
    opt = optim.SGD([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 1.0})
    assert opt.param_groups[1]["momentum"] == 0 and opt.param_groups[1]["params"] == [b]
    a.grad, b.grad = ember.ones(2), ember.ones(2)
    opt.step()
    assert a.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == pytest.approx([0.0, 0.0])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])


def test_parameters_without_gradients_are_left_alone_and_zero_grad():
    a, b = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = ember.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_step_bumps_the_version_so_stale_graphs_fail():
    w = ember.ones(2, requires_grad=True)
    loss = (w * w).sum()  # saves w
    opt = optim.SGD([w], lr=0.1)
    w.grad = ember.ones(2)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_closure_runs_with_grad_and_its_loss_is_returned():
    w = ember.tensor([2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    with ember.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == pytest.approx(1.0)


def test_step_hooks_and_repr():
    w = ember.zeros(1, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    w.grad = ember.ones(1)
    opt.step()
    h1.remove()
    opt.step()
    assert calls == ["pre", "post", "post"]
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n)"
    )


def test_optimizer_pickles_and_deepcopies():
    import pickle

    w = ember.ones(2, requires_grad=True)
    opt = optim.Adam([w], lr=0.1)
    w.grad = ember.ones(2)
    opt.step()
    clone = copy.deepcopy(opt)
    assert clone.state_dict()["state"][0]["exp_avg"].tolist() == opt.state[w]["exp_avg"].tolist()
    again = pickle.loads(pickle.dumps(opt))
    assert again.param_groups[0]["lr"] == 0.1


@pytest.mark.parametrize(
    "make,exc,msg",
    [
        (lambda p: optim.SGD(p, lr=-1), ValueError, "Invalid learning rate: -1"),
        (lambda p: optim.SGD(p, lr=0.1, momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
        (
            lambda p: optim.SGD(p, lr=0.1, nesterov=True),
            ValueError,
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (lambda p: optim.Adam(p, betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
        (lambda p: optim.Adam(p, eps=-1), ValueError, "Invalid epsilon value: -1"),
        (lambda p: optim.AdamW(p, weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
        (lambda p: optim.Adadelta(p, rho=1.5), ValueError, "Invalid rho value: 1.5"),
        (lambda p: optim.Adam(p, differentiable=True), NotImplementedError, "differentiable=True"),
        (lambda p: optim.Rprop(p, lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
        (lambda p: optim.Rprop(p, etas=(1.1, 1.2)), ValueError, "Invalid eta values: 1.1, 1.2"),
        (lambda p: optim.Rprop(p, etas=(0.5, 0.9)), ValueError, "Invalid eta values: 0.5, 0.9"),
        (lambda p: optim.ASGD(p, lr=-1), ValueError, "Invalid learning rate: -1"),
        (lambda p: optim.ASGD(p, weight_decay=-0.5), ValueError, "Invalid weight_decay value: -0.5"),
        (lambda p: optim.LBFGS(p, line_search_fn="armijo"), ValueError, "line_search_fn"),
        (
            lambda p: optim.SGD(p[0], lr=0.1),
            TypeError,
            "should be an iterable of Tensors or dicts, but got ember.FloatTensor",
        ),
        (lambda p: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (
            lambda p: optim.SGD([p[0], 3], lr=0.1),
            TypeError,
            "optimizer can only optimize Tensors, but one of the params is int",
        ),
        (lambda p: optim.SGD([p[0] * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
        (
            lambda p: optim.SGD(p, lr=0.1).add_param_group({"params": {ember.zeros(1, requires_grad=True)}}),
            TypeError,
            "ordered collections",
        ),
        (
            lambda p: optim.LBFGS([{"params": p}, {"params": [ember.zeros(1, requires_grad=True)]}]),
            ValueError,
            "doesn't support per-parameter options",
        ),
    ],
)
def test_constructor_errors(make, exc, msg):
    p = [ember.zeros(2, requires_grad=True)]
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        make(p)


def test_duplicate_parameters_warn():
    p = ember.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)


def test_bad_state_and_gradients_raise_clear_errors():
    p = ember.zeros(3)
    with pytest.raises(
        RuntimeError,
        match=r"adam_step: gradient of parameter 0 has dtype float64 but the "
        r"parameter has dtype float32",
    ):
        ember._C._optim.adam_step(
            [p],
            [ember.zeros(3, dtype=ember.float64)],
            [ember.zeros(3)],
            [ember.zeros(3)],
            [],
            [ember.tensor(0.0)],
            0.1,
            (0.9, 0.999),
            1e-8,
            0.0,
            False,
            False,
            False,
        )
    with pytest.raises(
        RuntimeError,
        match=r"adam_step: exp_avg of parameter 0 has shape \[2\] but the parameter has "
        r"shape \[3\]",
    ):
        ember._C._optim.adam_step(
            [p],
            [ember.zeros(3)],
            [ember.zeros(2)],
            [ember.zeros(3)],
            [],
            [ember.tensor(0.0)],
            0.1,
            (0.9, 0.999),
            1e-8,
            0.0,
            False,
            False,
            False,
        )
    with pytest.raises(RuntimeError, match=r"adam_step: got 1 parameters but 0 step counters"):
        ember._C._optim.adam_step(
            [p],
            [ember.zeros(3)],
            [ember.zeros(3)],
            [ember.zeros(3)],
            [],
            [],
            0.1,
            (0.9, 0.999),
            1e-8,
            0.0,
            False,
            False,
            False,
        )
    p = ember.zeros(3, requires_grad=True)
    q = ember.zeros(2, dtype=ember.int64)
    q.grad = None
    with pytest.raises(TypeError, match="sgd_step: parameter 0 has dtype int64"):
        ember._C._optim.sgd_step([q], [ember.zeros(2, dtype=ember.int64)], [], 0.1, 0, 0, 0, False, False)
    with pytest.raises(RuntimeError, match="lbfgs|closure"):
        optim.LBFGS([p]).step(None)


def test_nan_gradient_propagates_like_pytorch():
    p = ember.zeros(2, requires_grad=True)
    opt = optim.Adamax([p], lr=0.1)
    p.grad = ember.tensor([float("nan"), 1.0])
    opt.step()
    assert math.isnan(p[0].item()) and not math.isnan(p[1].item())


def test_scheduler_facing_attributes():
    p = ember.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.grad = ember.ones(2)
        opt.step()
    assert opt._opt_called is True and opt.defaults["lr"] == 0.1


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_resumes_from_a_pytorch_checkpoint_like_pytorch(name):
    """fixtures/optim_resume.pt: a Linear's state_dict and its optimizer's, saved by torch.save after 3 steps;
    ember loads both and takes the next 3 steps on the same inputs, ending where PyTorch 1.13 ended."""
    fx = _fixture()["resume"]
    ckpt = ember.load(os.path.join(os.path.dirname(FIXTURE), "optim_resume.pt"))[name]
    lin = ember.nn.Linear(3, 2)
    lin.load_state_dict(ckpt["model"])
    kw = {
        "SGD": dict(lr=0.1, momentum=0.9, nesterov=True),
        "Adam": dict(lr=1e-2, amsgrad=True),
        "RMSprop": dict(lr=1e-2, centered=True, momentum=0.5),
    }[name]
    opt = getattr(optim, name)(lin.parameters(), **kw)
    opt.load_state_dict(ckpt["optimizer"])
    for x in fx["inputs"][3:]:
        opt.zero_grad()
        lin(ember.tensor(x)).pow(2).sum().backward()
        opt.step()
    for k, v in lin.state_dict().items():
        np.testing.assert_allclose(v.numpy(), np.array(fx["final"][name][k]), rtol=1e-5, atol=1e-6)
