"""ember.optim.swa_utils: AveragedModel (SWA / EMA) against NumPy running averages, update_bn against
BatchNorm statistics computed by hand, SWALR against its closed form (PyTorch's own SWALR sequences are
checked in test_lr_scheduler.py from fixtures/lr_sequences.json)."""

import copy
import math
import re
import warnings

import numpy as np
import pytest
from conftest import from_np, to_np
from test_lr_scheduler import lrs_of, make_optimizer, run

import ember
from ember import nn
from ember.optim import swa_utils
from ember.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)


def _net(dtype=ember.float64):
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)).to(dtype)


def _perturb(model, rng):
    """Give every parameter of `model` new random values (what training would do between updates)."""
    with ember.no_grad():
        for p in model.parameters():
            p.copy_(from_np(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))


def _snapshot(tensors):
    return [to_np(t).astype(np.float64) for t in tensors]


def test_swa_default_average(rng):
    model = _net()
    swa = AveragedModel(model)
    history = []
    for _ in range(6):
        _perturb(model, rng)
        history.append(_snapshot(model.parameters()))
        swa.update_parameters(model)
        want = [np.mean([h[i] for h in history], axis=0) for i in range(len(history[0]))]
        for got, w in zip(_snapshot(swa.module.parameters()), want):
            np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-14)
    assert swa.n_averaged.item() == 6 and swa.n_averaged.dtype == ember.int64
    # the average is a separate copy: the source model keeps its own values
    assert all(
        not np.array_equal(a, b) for a, b in zip(_snapshot(swa.module.parameters()), _snapshot(model.parameters()))
    )


@pytest.mark.parametrize("how", ["multi", "single", "lambda"])
def test_ema(rng, how):
    decay = 0.8
    fns = {
        "multi": dict(multi_avg_fn=get_ema_multi_avg_fn(decay)),
        "single": dict(avg_fn=get_ema_avg_fn(decay)),
        "lambda": dict(avg_fn=lambda avg, cur, n: decay * avg + (1 - decay) * cur),
    }
    model = _net(ember.float32)
    ema = AveragedModel(model, **fns[how])
    ref = None
    for _ in range(5):
        _perturb(model, rng)
        cur = _snapshot(model.parameters())
        ref = cur if ref is None else [decay * r + (1 - decay) * c for r, c in zip(ref, cur)]
        ema.update_parameters(model)
        for got, w in zip(_snapshot(ema.module.parameters()), ref):
            np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)
    assert ema.n_averaged.item() == 5


def test_swa_multi_avg_fn_matches_swa_avg_fn(rng):
    model = _net()
    a = AveragedModel(model, multi_avg_fn=get_swa_multi_avg_fn())
    b = AveragedModel(model, avg_fn=get_swa_avg_fn())
    for _ in range(4):
        _perturb(model, rng)
        a.update_parameters(model)
        b.update_parameters(model)
    for x, y in zip(_snapshot(a.parameters()), _snapshot(b.parameters())):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)


def test_multi_avg_fns_on_integer_tensors():
    avg = [ember.tensor([10, 20, -7], dtype=ember.int64)]
    cur = [ember.tensor([13, 29, 5], dtype=ember.int64)]
    get_swa_multi_avg_fn()(avg, cur, ember.tensor(2))
    # float result (10 + 3/3, 20 + 9/3, -7 + 12/3) truncated into the integer tensor, as PyTorch's copy_ does
    assert avg[0].tolist() == [11, 23, -3] and avg[0].dtype == ember.int64
    avg = [ember.tensor([10, 20], dtype=ember.int64)]
    get_ema_multi_avg_fn(0.5)(avg, [ember.tensor([13, 25], dtype=ember.int64)], 1)
    assert avg[0].tolist() == [11, 22]


def test_buffers_copied_without_use_buffers(rng):
    model = _net()
    swa = AveragedModel(model)
    model.train()
    for _ in range(3):
        _perturb(model, rng)
        model(from_np(rng.standard_normal((8, 3))))  # moves the BatchNorm running stats
        swa.update_parameters(model)
        bn, bn_swa = model[1], swa.module[1]
        np.testing.assert_array_equal(to_np(bn_swa.running_mean), to_np(bn.running_mean))
        np.testing.assert_array_equal(to_np(bn_swa.running_var), to_np(bn.running_var))
        assert bn_swa.num_batches_tracked.item() == bn.num_batches_tracked.item()


def test_use_buffers_averages_buffers(rng):
    model = _net()
    swa = AveragedModel(model, use_buffers=True)
    means, tracked = [], []
    model.train()
    for _ in range(4):
        _perturb(model, rng)
        model(from_np(rng.standard_normal((8, 3))))
        means.append(to_np(model[1].running_mean))
        tracked.append(model[1].num_batches_tracked.item())
        swa.update_parameters(model)
    np.testing.assert_allclose(to_np(swa.module[1].running_mean), np.mean(means, axis=0), rtol=1e-12, atol=1e-14)
    # num_batches_tracked (int64) is averaged too: 1, 2, 3, 4 -> running integer average with truncation
    want = tracked[0]
    for n, t in enumerate(tracked[1:], start=1):
        want = int(want + (t - want) / (n + 1))
    assert swa.module[1].num_batches_tracked.item() == want
    # with use_buffers the averaged model's own `parameters()` include the module's parameters
    assert len(list(swa.parameters())) == len(list(model.parameters()))


def test_state_dict_keys_and_round_trip(rng):
    model = _net()
    swa = AveragedModel(model)
    _perturb(model, rng)
    swa.update_parameters(model)
    _perturb(model, rng)
    swa.update_parameters(model)
    state = swa.state_dict()
    assert list(state)[0] == "n_averaged"
    assert set(state) == {"n_averaged"} | {"module." + k for k in model.state_dict()}
    fresh = AveragedModel(_net())
    fresh.load_state_dict(state)
    assert fresh.n_averaged.item() == 2
    for x, y in zip(_snapshot(fresh.parameters()), _snapshot(swa.parameters())):
        np.testing.assert_array_equal(x, y)


def test_forward_uses_averaged_copy(rng):
    model = nn.Linear(3, 2).to(ember.float64)
    swa = AveragedModel(model)
    swa.update_parameters(model)
    w0, b0 = to_np(model.weight), to_np(model.bias)
    _perturb(model, rng)
    swa.update_parameters(model)
    w = (w0 + to_np(model.weight)) / 2
    b = (b0 + to_np(model.bias)) / 2
    x = rng.standard_normal((5, 3))
    np.testing.assert_allclose(to_np(swa(from_np(x))), x @ w.T + b, rtol=1e-12)


def test_update_does_not_record_autograd(rng):
    model = _net()
    swa = AveragedModel(model)
    swa.update_parameters(model)
    _perturb(model, rng)
    swa.update_parameters(model)
    for p in swa.parameters():
        assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_averaging_argument_errors():
    with pytest.raises(
        ValueError, match=re.escape("Invalid decay value 1.5 provided. Please provide a value in [0,1] range.")
    ):
        get_ema_multi_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value -0.1 provided"):
        get_ema_avg_fn(-0.1)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        AveragedModel(nn.Linear(2, 2), avg_fn=get_swa_avg_fn(), multi_avg_fn=get_swa_multi_avg_fn())


# ----------------------------------------------------------------------------------------------------
# update_bn


def _bn_reference(batches, transform):
    """Running stats after one cumulative-average pass (momentum=None): the mean over batches of each
    batch's mean and unbiased variance per channel."""
    means, variances = [], []
    for x in batches:
        h = transform(x)
        means.append(h.mean(axis=0))
        variances.append(h.var(axis=0, ddof=1))
    return np.mean(means, axis=0), np.mean(variances, axis=0)


@pytest.mark.parametrize("as_tuples", [False, True])
def test_update_bn_linear_bn(rng, as_tuples):
    model = _net()
    lin = model[0]
    bn = model[1]
    bn.momentum = 0.3
    with ember.no_grad():
        bn.running_mean.fill_(5.0)  # stale statistics, to be replaced
        bn.running_var.fill_(9.0)
    batches = [rng.standard_normal((n, 3)) * 2 + 1 for n in (8, 5, 11)]
    loader = [(from_np(x), from_np(np.zeros(len(x)))) if as_tuples else from_np(x) for x in batches]
    model.eval()
    update_bn(loader, model)
    w, b = to_np(lin.weight), to_np(lin.bias)
    mean, var = _bn_reference(batches, lambda x: x @ w.T + b)
    np.testing.assert_allclose(to_np(bn.running_mean), mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_np(bn.running_var), var, rtol=1e-10, atol=1e-12)
    assert bn.num_batches_tracked.item() == 3
    assert bn.momentum == 0.3 and not model.training and not bn.training


def test_update_bn_conv_features(rng):
    bn = nn.BatchNorm2d(3).to(ember.float64)
    model = nn.Sequential(bn)
    batches = [rng.standard_normal((4, 3, 5, 6)) for _ in range(4)]
    model.train()
    update_bn([from_np(x) for x in batches], model)
    # BatchNorm2d: statistics over (N, H, W) per channel
    mean, var = _bn_reference(batches, lambda x: x.transpose(0, 2, 3, 1).reshape(-1, 3))
    np.testing.assert_allclose(to_np(bn.running_mean), mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_np(bn.running_var), var, rtol=1e-10, atol=1e-12)
    assert model.training and bn.momentum == 0.1


def test_update_bn_on_averaged_model(rng):
    model = _net()
    swa = AveragedModel(model)
    for _ in range(3):
        _perturb(model, rng)
        swa.update_parameters(model)
    batches = [rng.standard_normal((6, 3)) for _ in range(3)]
    update_bn([from_np(x) for x in batches], swa)
    lin = swa.module[0]
    w, b = to_np(lin.weight), to_np(lin.bias)
    mean, var = _bn_reference(batches, lambda x: x @ w.T + b)
    np.testing.assert_allclose(to_np(swa.module[1].running_mean), mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_np(swa.module[1].running_var), var, rtol=1e-10, atol=1e-12)


def test_update_bn_without_batchnorm_does_nothing(rng):
    calls = []

    class Probe(nn.Module):
        def forward(self, x):
            calls.append(x)
            return x

    model = Probe()
    model.eval()
    update_bn([from_np(rng.standard_normal((2, 2)))], model)
    assert calls == [] and not model.training  # no BatchNorm: the loader is not even read


# ----------------------------------------------------------------------------------------------------
# SWALR


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_closed_form(strategy):
    anneal = 6
    alpha = (lambda t: (1 - math.cos(math.pi * t)) / 2) if strategy == "cos" else (lambda t: t)
    opt = make_optimizer((0.5, 0.2))
    sched = SWALR(opt, swa_lr=[0.05, 0.1], anneal_epochs=anneal, anneal_strategy=strategy)
    assert [g["swa_lr"] for g in opt.param_groups] == [0.05, 0.1]
    seq = run(opt, sched, 15)
    for t, row in enumerate(seq):
        a = alpha(min(1.0, t / anneal))
        assert row == pytest.approx([0.05 * a + 0.5 * (1 - a), 0.1 * a + 0.2 * (1 - a)], rel=1e-12), t


def test_swalr_after_another_schedule():
    """SWALR picks up from whatever lr the optimizer has when it starts (here after a decay)."""
    opt = make_optimizer((1.0,))
    from ember.optim.lr_scheduler import ExponentialLR

    decay = ExponentialLR(opt, gamma=0.5)
    run(opt, decay, 3)  # lr 0.125
    sched = SWALR(opt, swa_lr=0.025, anneal_epochs=4, anneal_strategy="linear")
    seq = [r[0] for r in run(opt, sched, 6)]
    assert seq == pytest.approx([0.125 + (0.025 - 0.125) * min(1, t / 4) for t in range(7)], rel=1e-12)


def test_swalr_state_dict_round_trip():
    opt = make_optimizer((0.5,))
    sched = SWALR(opt, swa_lr=0.05, anneal_epochs=5)
    run(opt, sched, 2)
    state = sched.state_dict()
    assert "anneal_func" not in state and state["_anneal_strategy"] == "cos"
    saved_lr = lrs_of(opt)
    opt2 = make_optimizer((0.5,))
    fresh = SWALR(opt2, swa_lr=0.05, anneal_epochs=5, anneal_strategy="linear")
    opt2.param_groups[0]["lr"] = saved_lr[0]
    fresh.load_state_dict(copy.deepcopy(state))
    assert fresh.anneal_func(0.5) == pytest.approx(0.5) and fresh._anneal_strategy == "cos"
    want = run(opt, sched, 5)
    got = run(opt2, fresh, 5)
    assert got == want


def test_swalr_errors():
    opt = make_optimizer((0.5,))
    with pytest.raises(ValueError, match="anneal_strategy must by one of 'cos' or 'linear', instead got exp"):
        SWALR(opt, 0.05, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        SWALR(opt, 0.05, anneal_epochs=-1)
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got 2.5"):
        SWALR(opt, 0.05, anneal_epochs=2.5)


def test_swalr_get_lr_outside_step_warns():
    opt = make_optimizer((0.5,))
    sched = SWALR(opt, 0.05)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_module_exports():
    assert set(swa_utils.__all__) == {
        "AveragedModel",
        "update_bn",
        "SWALR",
        "get_ema_multi_avg_fn",
        "get_swa_multi_avg_fn",
        "get_ema_avg_fn",
        "get_swa_avg_fn",
    }
