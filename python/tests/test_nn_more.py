"""The nn modules and functions added for PyTorch parity: lazy modules (UninitializedParameter / UninitializedBuffer),
RReLU, Softmax2d, GaussianNLLLoss, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool1d/3d, LPPool1d/2d, MaxUnpool1d/3d,
MultiLabelMarginLoss, TripletMarginWithDistanceLoss, channel_shuffle, ember.bilinear, nn.init aliases,
nn.utils.fuse_conv_bn_*, skip_init and stateless.functional_call. Values against formulas written here from the
definitions (NumPy loops over windows for the pools), gradients with gradcheck in float64, and the error paths."""

import copy
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy


def t64(a, grad=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


@pytest.fixture(autouse=True)
def _no_lazy_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Lazy modules are a new feature")
        yield


# -- lazy modules ----------------------------------------------------------------------------------------------------


def test_lazy_linear_infers_in_features_and_becomes_linear():
    m = nn.LazyLinear(4)
    assert is_lazy(m.weight) and isinstance(m.weight, UninitializedParameter) and m.has_uninitialized_params()
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert repr(m.weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        m.weight.shape
    x = ember.randn(3, 7)
    ember.manual_seed(0)
    y = m(x)
    ember.manual_seed(0)
    ref = nn.Linear(7, 4)  # the same initialisation draws, in the same order
    assert type(m) is nn.Linear and type(m.weight) is nn.Parameter and type(m.bias) is nn.Parameter
    assert m.in_features == 7 and tuple(m.weight.shape) == (4, 7) and m.weight.requires_grad
    np.testing.assert_array_equal(m.weight.detach().numpy(), ref.weight.detach().numpy())
    np.testing.assert_array_equal(m.bias.detach().numpy(), ref.bias.detach().numpy())
    np.testing.assert_allclose(
        y.detach().numpy(), x.numpy() @ ref.weight.detach().numpy().T + ref.bias.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    assert not m._forward_pre_hooks  # the initializing hook removed itself


def test_lazy_module_warns_and_works_in_sequential_with_optimizer():
    with pytest.warns(UserWarning, match="Lazy modules are a new feature"):
        nn.LazyLinear(2)
    net = nn.Sequential(
        nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(3, bias=False)
    )
    x = ember.randn(2, 5, 6, 6)
    net(x)
    assert [type(c).__name__ for c in net] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    assert tuple(net[0].weight.shape) == (4, 5, 3, 3) and net[0].in_channels == 5
    assert net[1].num_features == 4 and tuple(net[1].running_mean.shape) == (4,)
    assert tuple(net[4].weight.shape) == (3, 4 * 36) and net[4].bias is None
    opt = ember.optim.SGD(net.parameters(), lr=0.1)
    before = net[4].weight.detach().clone()
    net(x).sum().backward()
    opt.step()
    assert not ember.equal(before, net[4].weight.detach())


def test_optimizer_built_before_the_first_forward():
    m = nn.LazyLinear(2)
    opt = ember.optim.Adam(m.parameters(), lr=0.1)  # holds the uninitialized objects, which become the parameters
    x = ember.randn(4, 3)
    m(x).pow(2).sum().backward()
    before = m.weight.detach().clone()
    opt.step()
    assert opt.param_groups[0]["params"][0] is m.weight and tuple(opt.state[m.weight]["exp_avg"].shape) == (2, 3)
    assert not ember.equal(before, m.weight.detach())


def test_lazy_to_dtype_before_initialization():
    m = nn.LazyLinear(3).double()
    bn = nn.LazyBatchNorm1d().to(ember.float64)
    assert m.weight.dtype == ember.float64 and is_lazy(m.weight)
    assert isinstance(bn.running_mean, UninitializedBuffer) and bn.running_mean.dtype == ember.float64
    m(ember.randn(2, 5, dtype=ember.float64))
    bn(ember.randn(4, 3, dtype=ember.float64))
    assert m.weight.dtype == ember.float64 and bn.weight.dtype == ember.float64
    assert type(bn.running_mean) is ember.Tensor and bn.running_mean.dtype == ember.float64
    # Training statistics: running_mean = 0.9 * 0 + 0.1 * batch mean.
    assert bn.num_batches_tracked.item() == 1


def test_lazy_batchnorm_values_match_batchnorm():
    x = ember.randn(6, 3, 4)
    lazy, ref = nn.LazyBatchNorm1d(momentum=0.3), nn.BatchNorm1d(3, momentum=0.3)
    np.testing.assert_allclose(lazy(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(lazy.running_var.numpy(), ref.running_var.numpy(), rtol=1e-6)
    assert repr(lazy) == "BatchNorm1d(3, eps=1e-05, momentum=0.3, affine=True, track_running_stats=True)"
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.LazyBatchNorm2d()(ember.randn(2, 3))


@pytest.mark.parametrize(
    "cls,shape,channels",
    [
        (nn.LazyInstanceNorm1d, (3, 5, 7), 5),
        (nn.LazyInstanceNorm1d, (5, 7), 5),
        (nn.LazyInstanceNorm2d, (2, 4, 3, 3), 4),
        (nn.LazyInstanceNorm3d, (4, 2, 2, 2), 4),
    ],
)
def test_lazy_instance_norm_channels(cls, shape, channels):
    m = cls()
    y = m(ember.randn(*shape))
    assert m.num_features == channels and tuple(m.weight.shape) == (channels,) and m.affine
    assert m.track_running_stats and tuple(m.running_mean.shape) == (channels,)
    assert tuple(y.shape) == shape


@pytest.mark.parametrize(
    "cls,in_shape,kw,weight",
    [
        (nn.LazyConv1d, (2, 4, 9), dict(kernel_size=3, groups=2), (6, 2, 3)),
        (nn.LazyConv1d, (4, 9), dict(kernel_size=3), (6, 4, 3)),  # unbatched
        (nn.LazyConv3d, (1, 2, 4, 4, 4), dict(kernel_size=2, stride=2), (6, 2, 2, 2, 2)),
        (nn.LazyConvTranspose1d, (2, 4, 5), dict(kernel_size=3, groups=2), (4, 3, 3)),
        (nn.LazyConvTranspose2d, (2, 3, 4, 4), dict(kernel_size=2, stride=2), (3, 6, 2, 2)),
        (nn.LazyConvTranspose3d, (1, 2, 3, 3, 3), dict(kernel_size=1), (2, 6, 1, 1, 1)),
    ],
)
def test_lazy_convolutions_match_their_eager_twins(cls, in_shape, kw, weight):
    x = ember.randn(*in_shape)
    m = cls(6, **kw)
    ember.manual_seed(3)
    y = m(x)
    assert tuple(m.weight.shape) == weight and type(m) is cls.cls_to_become
    ember.manual_seed(3)
    eager = cls.cls_to_become(m.in_channels, 6, **kw)
    np.testing.assert_array_equal(m.weight.detach().numpy(), eager.weight.detach().numpy())
    np.testing.assert_allclose(y.detach().numpy(), eager(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_lazy_conv_errors():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(ember.randn(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(ember.randn(1, 3, 5, 5))


def test_lazy_state_dict_round_trip():
    lazy = nn.LazyLinear(3)
    sd = lazy.state_dict()
    assert all(is_lazy(v) for v in sd.values())
    src = nn.Linear(5, 3)
    lazy.load_state_dict(src.state_dict())  # materializes, then copies
    assert not lazy.has_uninitialized_params()
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), src.weight.detach().numpy())
    x = ember.randn(2, 5)
    np.testing.assert_array_equal(lazy(x).detach().numpy(), src(x).detach().numpy())
    assert type(lazy) is nn.Linear
    # An uninitialized state cannot be loaded into an initialized module.
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        nn.Linear(5, 3).load_state_dict(nn.LazyLinear(3).state_dict())


def test_uninitialized_copy_pickle_and_materialize():
    p = UninitializedParameter(dtype=ember.float64)
    q = copy.deepcopy(p)
    assert type(q) is UninitializedParameter and q.dtype == ember.float64 and q.requires_grad
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is UninitializedParameter and r.requires_grad
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == ember.float64 and p.requires_grad
    b = UninitializedBuffer()
    assert not b.requires_grad
    b.materialize(4, dtype=ember.int64)
    assert type(b) is ember.Tensor and tuple(b.shape) == (4,) and b.dtype == ember.int64
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
        UninitializedBuffer().share_memory_()
    assert nn.parameter.is_lazy(UninitializedBuffer()) and not nn.parameter.is_lazy(ember.ones(1))


def test_copied_and_pickled_lazy_modules_initialize_on_their_own():
    m = nn.LazyLinear(3)
    c = copy.deepcopy(m)
    c(ember.randn(2, 4))
    assert type(c) is nn.Linear and tuple(c.weight.shape) == (3, 4)
    assert type(m) is nn.LazyLinear and is_lazy(m.weight)  # the copy's hooks were its own
    p = pickle.loads(pickle.dumps(m))
    p(ember.randn(2, 6))
    m(ember.randn(2, 5))
    assert tuple(p.weight.shape) == (3, 6) and tuple(m.weight.shape) == (3, 5)
    # A copied hook handle removes the copy's hook only.
    lin = nn.Linear(2, 2)
    handle = lin.register_forward_hook(lambda *a: None)
    lin2 = copy.deepcopy(lin)
    copy.deepcopy(handle).remove()
    assert len(lin._forward_hooks) == 1 and len(lin2._forward_hooks) == 1
    handle.remove()
    assert len(lin._forward_hooks) == 0


def test_lazy_module_not_fully_initialized_raises():
    class Half(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.a = UninitializedParameter()
            self.b = UninitializedParameter()

        def initialize_parameters(self, x):
            self.a.materialize(x.shape)

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="module Half has not been fully initialized"):
        Half()(ember.ones(2))


# -- activations -----------------------------------------------------------------------------------------------------


def test_rrelu_eval_uses_the_mean_slope_and_training_draws_slopes():
    x = np.linspace(-3, 3, 600).reshape(20, 30)
    m = nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)"
    m.eval()
    np.testing.assert_allclose(m(t64(x)).numpy(), np.where(x >= 0, x, 0.2 * x), rtol=1e-12)
    m.train()
    y = m(t64(x)).numpy()
    neg = x < 0
    slopes = y[neg] / x[neg]
    assert np.all(y[~neg] == x[~neg])
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    inplace = t64(x)
    assert nn.RReLU(inplace=True).eval()(inplace) is inplace
    assert repr(nn.RReLU(inplace=True)) == "RReLU(lower=0.125, upper=0.3333333333333333, inplace=True)"
    assert gradcheck(lambda a: F.rrelu(a, 0.1, 0.3, training=False), (t64(x[:2, :5] + 0.01, grad=True),))


def test_softmax2d_over_channels():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(nn.Softmax2d()(t64(x)).numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmax2d()(t64(x[0])).numpy(), (e / e.sum(1, keepdims=True))[0], rtol=1e-12)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(ember.ones(3, 3))


# -- losses ------------------------------------------------------------------------------------------------------------


def gaussian_nll_ref(x, t, var, full, eps, reduction):
    if var.ndim == x.ndim - 1:
        var = var[..., None]
    var = np.maximum(var, eps)
    loss = 0.5 * (np.log(var) + (x - t) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
@pytest.mark.parametrize("full,reduction", [(False, "mean"), (True, "sum"), (True, "none")])
def test_gaussian_nll_loss_from_its_definition(var_shape, full, reduction):
    rng = np.random.default_rng(1)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    var = rng.uniform(0.01, 2, var_shape)
    var.flat[0] = 1e-9  # clamped to eps
    m = nn.GaussianNLLLoss(full=full, eps=1e-3, reduction=reduction)
    got = m(t64(x), t64(t), t64(var)).detach().numpy()
    ref = gaussian_nll_ref(x, t, var if var_shape != (4,) else var, full, 1e-3, reduction)
    np.testing.assert_allclose(got, np.broadcast_to(ref, got.shape) if reduction == "none" else ref, rtol=1e-12)
    assert gradcheck(lambda a, b, v: m(a, b, v), (t64(x, True), t64(t, True), t64(var + 0.5, True)))


def test_gaussian_nll_loss_errors():
    m = nn.GaussianNLLLoss()
    with pytest.raises(ValueError, match="var is of incorrect size"):
        m(ember.ones(4, 3), ember.ones(4, 3), ember.ones(4, 2))
    with pytest.raises(ValueError, match="var has negative entry"):
        m(ember.ones(4, 3), ember.ones(4, 3), -ember.ones(4, 3))


def multilabel_margin_ref(x, y):
    out = []
    for xi, yi in zip(x, y):
        targets = []
        for j in yi:
            if j < 0:
                break
            targets.append(j)
        others = [i for i in range(len(xi)) if i not in targets]
        out.append(sum(max(0.0, 1 - (xi[j] - xi[i])) for j in targets for i in others) / len(xi))
    return np.array(out)


def test_multilabel_margin_loss_from_its_definition():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 4))
    y = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 0, 0, 0], [2, -1, 3, 3], [1, 3, 0, -1]])
    ref = multilabel_margin_ref(x, y)
    yt = ember.tensor(y)
    np.testing.assert_allclose(nn.MultiLabelMarginLoss(reduction="none")(t64(x), yt).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.MultiLabelMarginLoss()(t64(x), yt).item(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(
        nn.MultiLabelMarginLoss(reduction="sum")(t64(x[0]), yt[0]).item(), ref[0] * 1, rtol=1e-12
    )
    assert gradcheck(lambda a: nn.MultiLabelMarginLoss()(a, yt), (t64(x, True),))


def test_nllloss2d_is_nllloss():
    x = F.log_softmax(ember.randn(2, 3, 4, 5), 1)
    t = ember.randint(0, 3, (2, 4, 5))
    m = nn.NLLLoss2d(ignore_index=1, reduction="sum")
    assert isinstance(m, nn.NLLLoss)
    picked = np.take_along_axis(x.numpy(), t.numpy()[:, None], 1)[:, 0]
    np.testing.assert_allclose(m(x, t).item(), -(picked * (t.numpy() != 1)).sum(), rtol=1e-5)


def test_triplet_margin_with_distance_loss():
    rng = np.random.default_rng(3)
    a, p, n = (rng.standard_normal((6, 5)) for _ in range(3))

    def pdist(u, v):  # PairwiseDistance: ||u - v + eps||, eps 1e-6
        return np.linalg.norm(u - v + 1e-6, axis=-1)

    m = nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True, reduction="none")
    d_neg = np.minimum(pdist(a, n), pdist(p, n))
    np.testing.assert_allclose(m(t64(a), t64(p), t64(n)).numpy(), np.maximum(pdist(a, p) - d_neg + 0.5, 0), rtol=1e-10)

    def cosine_distance(u, v):
        return 1 - F.cosine_similarity(u, v)

    m = nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance)

    def cos(u, v):
        return 1 - (u * v).sum(-1) / np.maximum(np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1), 1e-8)

    ref = np.maximum(cos(a, p) - cos(a, n) + 1.0, 0).mean()
    np.testing.assert_allclose(m(t64(a), t64(p), t64(n)).item(), ref, rtol=1e-10)
    assert gradcheck(
        lambda x, y, z: nn.TripletMarginWithDistanceLoss()(x, y, z), (t64(a, True), t64(p, True), t64(n, True))
    )
    assert "(distance_function): PairwiseDistance()" in repr(nn.TripletMarginWithDistanceLoss())
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=0)


# -- pooling -----------------------------------------------------------------------------------------------------------


def out_len(n, k, s, p, ceil):
    num = n + 2 * p - k
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def avg_pool3d_ref(x, k, s, p, ceil, include_pad, divisor=None):
    n, c = x.shape[:2]
    dims = x.shape[2:]
    outs = [out_len(dims[i], k[i], s[i], p[i], ceil) for i in range(3)]
    y = np.zeros((n, c, *outs))
    for o in itertools.product(*[range(v) for v in outs]):
        lo = [o[i] * s[i] - p[i] for i in range(3)]
        hi = [min(lo[i] + k[i], dims[i] + p[i]) for i in range(3)]
        pad_count = np.prod([hi[i] - lo[i] for i in range(3)])
        lo_c = [max(v, 0) for v in lo]
        hi_c = [min(hi[i], dims[i]) for i in range(3)]
        window = x[:, :, lo_c[0] : hi_c[0], lo_c[1] : hi_c[1], lo_c[2] : hi_c[2]]
        count = divisor or (pad_count if include_pad else np.prod([hi_c[i] - lo_c[i] for i in range(3)]))
        y[(slice(None), slice(None), *o)] = window.sum((2, 3, 4)) / count
    return y


@pytest.mark.parametrize(
    "k,s,p,ceil,include_pad,divisor",
    [
        ((2, 2, 2), (2, 2, 2), (0, 0, 0), False, True, None),
        ((3, 2, 3), (2, 1, 2), (1, 0, 1), True, False, None),
        ((3, 3, 2), (2, 2, 1), (1, 1, 0), True, True, None),
        ((2, 2, 2), (1, 1, 1), (0, 0, 0), False, True, 3),
    ],
)
def test_avg_pool3d_against_a_window_loop(k, s, p, ceil, include_pad, divisor):
    x = np.random.default_rng(4).standard_normal((2, 2, 5, 6, 7))
    m = nn.AvgPool3d(k, s, p, ceil_mode=ceil, count_include_pad=include_pad, divisor_override=divisor)
    np.testing.assert_allclose(m(t64(x)).numpy(), avg_pool3d_ref(x, k, s, p, ceil, include_pad, divisor), rtol=1e-12)
    xt = ember.tensor(x[:, :, ::-1].copy()).transpose(3, 4)  # a non-contiguous input
    np.testing.assert_allclose(
        m(xt).numpy(), avg_pool3d_ref(xt.numpy(), k, s, p, ceil, include_pad, divisor), rtol=1e-5, atol=1e-6
    )
    assert repr(nn.AvgPool3d(2)) == "AvgPool3d(kernel_size=2, stride=2, padding=0)"
    assert gradcheck(lambda a: m(a), (t64(x[:1, :1, :4, :4, :4], True),))


def adaptive_ranges(n, o):
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def test_adaptive_avg_pool3d_and_max_pools_against_windows():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 5, 7, 6))
    out = (2, 3, 4)
    avg = np.zeros((2, 3, *out))
    mx = np.zeros((2, 3, *out))
    arg = np.zeros((2, 3, *out), dtype=np.int64)
    for o in itertools.product(*[range(v) for v in out]):
        r = [adaptive_ranges(x.shape[2 + i], out[i])[o[i]] for i in range(3)]
        w = x[:, :, r[0][0] : r[0][1], r[1][0] : r[1][1], r[2][0] : r[2][1]]
        avg[(slice(None), slice(None), *o)] = w.mean((2, 3, 4))
        mx[(slice(None), slice(None), *o)] = w.max((2, 3, 4))
        flat = w.reshape(2, 3, -1).argmax(-1)
        loc = np.unravel_index(flat, w.shape[2:])
        arg[(slice(None), slice(None), *o)] = np.ravel_multi_index(
            (loc[0] + r[0][0], loc[1] + r[1][0], loc[2] + r[2][0]), x.shape[2:]
        )
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d(out)(t64(x)).numpy(), avg, rtol=1e-12)
    v, i = nn.AdaptiveMaxPool3d(out, return_indices=True)(t64(x))
    np.testing.assert_array_equal(v.numpy(), mx)
    np.testing.assert_array_equal(i.numpy(), arg)
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d((None, 3, 2))(t64(x)).shape, (2, 3, 5, 3, 2))
    # 1-d max.
    x1 = rng.standard_normal((2, 3, 10))
    v1, i1 = nn.AdaptiveMaxPool1d(4, return_indices=True)(t64(x1))
    for o, (lo, hi) in enumerate(adaptive_ranges(10, 4)):
        np.testing.assert_array_equal(v1.numpy()[..., o], x1[..., lo:hi].max(-1))
        np.testing.assert_array_equal(i1.numpy()[..., o], x1[..., lo:hi].argmax(-1) + lo)
    assert repr(nn.AdaptiveMaxPool1d(4)) == "AdaptiveMaxPool1d(output_size=4)"
    assert gradcheck(lambda a: nn.AdaptiveMaxPool1d(3)(a), (t64(x1[:1], True),))
    assert gradcheck(lambda a: nn.AdaptiveAvgPool3d(2)(a), (t64(x[:1, :1, :3, :4, :3], True),))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.5])
def test_lp_pool_from_its_definition(p):
    rng = np.random.default_rng(6)
    x = rng.uniform(0.1, 2, (2, 3, 9))
    got = nn.LPPool1d(p, 3, stride=2)(t64(x)).numpy()
    ref = np.stack([(x[..., i : i + 3] ** p).sum(-1) ** (1 / p) for i in range(0, 7, 2)], -1)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    x2 = rng.uniform(0.1, 2, (2, 2, 6, 7))
    got = nn.LPPool2d(p, (2, 3))(t64(x2)).numpy()
    ref = np.zeros((2, 2, 3, 2))
    for i, j in itertools.product(range(3), range(2)):
        ref[..., i, j] = (x2[..., 2 * i : 2 * i + 2, 3 * j : 3 * j + 3] ** p).sum((-1, -2)) ** (1 / p)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert gradcheck(lambda a: F.lp_pool2d(a, p, 2), (t64(x2[:1, :1, :4, :4], True),))


def test_lp_pool_keeps_the_sign_of_odd_power_sums_and_repr():
    # PyTorch's sign(out) * relu(|out|) is out itself: with p = 1 a window summing to -1 gives -1, as in PyTorch.
    x = ember.tensor([[[1.0, -2.0, 3.0, 4.0]]])
    np.testing.assert_allclose(F.lp_pool1d(x, 1, 2).numpy(), [[[-1.0, 7.0]]])
    assert repr(nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"


def test_lp_pool3d_and_infinite_norms():
    rng = np.random.default_rng(8)
    x = rng.uniform(-2, 2, (1, 2, 4, 4, 6))
    win = x.reshape(1, 2, 2, 2, 2, 2, 3, 2).transpose(0, 1, 2, 4, 6, 3, 5, 7).reshape(1, 2, 2, 2, 3, -1)
    got = nn.LPPool3d(3.0, 2)(t64(np.abs(x))).numpy()
    np.testing.assert_allclose(got, (np.abs(win) ** 3).sum(-1) ** (1 / 3), rtol=1e-12)
    # p = inf is the window's maximum of |x|, -inf its minimum (PyTorch's max-pooling shortcut)
    np.testing.assert_array_equal(F.lp_pool3d(t64(x), float("inf"), 2).numpy(), np.abs(win).max(-1))
    np.testing.assert_array_equal(F.lp_pool3d(t64(x), -math.inf, 2).numpy(), np.abs(win).min(-1))
    x1 = rng.uniform(-2, 2, (2, 7))
    np.testing.assert_array_equal(
        F.lp_pool1d(t64(x1), math.inf, 3, 2).numpy(), np.abs(np.stack([x1[:, i : i + 3] for i in (0, 2, 4)], 1)).max(-1)
    )
    with pytest.raises(ValueError, match="norm_type must be a non-zero value, but got 0"):
        F.lp_pool2d(t64(x[0, :, 0]), 0, 2)


@pytest.mark.parametrize("n", [1, 3])
def test_max_unpool_puts_the_maxima_back(n):
    rng = np.random.default_rng(7)
    shape = {1: (2, 3, 10), 3: (1, 2, 4, 6, 4)}[n]
    x = ember.tensor(rng.standard_normal(shape))
    pool = getattr(nn, "MaxPool%dd" % n)(2, return_indices=True)
    unpool = getattr(nn, "MaxUnpool%dd" % n)(2)
    v, i = pool(x)
    y = unpool(v, i).numpy()
    ref = np.zeros(int(np.prod(shape[2:])))
    ref = np.zeros(shape[:2] + (ref.size,))
    np.put_along_axis(ref, i.numpy().reshape(shape[0], shape[1], -1), v.numpy().reshape(shape[0], shape[1], -1), -1)
    np.testing.assert_array_equal(y, ref.reshape(shape))
    assert repr(unpool) == "MaxUnpool%dd(kernel_size=%s, stride=%s, padding=%s)" % (n, (2,) * n, (2,) * n, (0,) * n)
    if n == 1:
        y11 = nn.MaxUnpool1d(2)(v, i, output_size=[11])
        assert tuple(y11.shape) == (2, 3, 11)
        assert gradcheck(lambda a: nn.MaxUnpool1d(2)(a, i), (v.double().requires_grad_(),))


# -- channel shuffle, bilinear, init -----------------------------------------------------------------------------------


def test_channel_shuffle_and_errors():
    x = np.arange(2 * 6 * 2 * 3, dtype=np.float32).reshape(2, 6, 2, 3)
    ref = x.reshape(2, 3, 2, 2, 3).transpose(0, 2, 1, 3, 4).reshape(x.shape)
    np.testing.assert_array_equal(F.channel_shuffle(ember.tensor(x), 3).numpy(), ref)
    np.testing.assert_array_equal(nn.ChannelShuffle(3)(ember.tensor(x)).numpy(), ref)
    nc = ember.tensor(x).transpose(2, 3)
    assert F.channel_shuffle(nc, 2).is_contiguous()
    with pytest.raises(
        RuntimeError,
        match=r"channel_shuffle expects input with > 2 dims, but got input with sizes "
        r"\[2, 4\]",
    ):
        F.channel_shuffle(ember.ones(2, 4), 2)
    with pytest.raises(RuntimeError, match="Number of groups to divide channels in must be positive"):
        F.channel_shuffle(ember.ones(2, 4, 3), 0)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got 4 channels and 3"):
        nn.ChannelShuffle(3)(ember.ones(2, 4, 3))


def test_top_level_bilinear():
    rng = np.random.default_rng(8)
    a, b, w, bias = (
        rng.standard_normal((4, 3)),
        rng.standard_normal((4, 5)),
        rng.standard_normal((2, 3, 5)),
        rng.standard_normal(2),
    )
    ref = np.einsum("ni,oij,nj->no", a, w, b) + bias
    np.testing.assert_allclose(ember.bilinear(t64(a), t64(b), t64(w), t64(bias)).numpy(), ref, rtol=1e-12)


def test_init_dirac_eye_and_deprecated_aliases():
    w = ember.empty(4, 2, 3, 3)
    nn.init.dirac_(w, groups=2)
    ref = np.zeros((4, 2, 3, 3))
    for g in range(2):
        for d in range(2):
            ref[g * 2 + d, d, 1, 1] = 1
    np.testing.assert_array_equal(w.numpy(), ref)
    e = nn.init.eye_(ember.empty(3, 5))
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 5))
    assert nn.init.eye is nn.init.eye_ and nn.init.dirac is nn.init.dirac_ and nn.init.sparse is nn.init.sparse_
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        nn.init.dirac_(ember.empty(2, 2))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.eye_(ember.empty(2, 2, 2))


# -- nn.utils ----------------------------------------------------------------------------------------------------------


def _random_bn(bn):
    with ember.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2)
        bn.weight.normal_()
        bn.bias.normal_()
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval_equals_conv_then_bn(bias):
    conv = nn.Conv2d(3, 4, 3, padding=1, bias=bias).double().eval()
    bn = _random_bn(nn.BatchNorm2d(4).double())
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    x = ember.randn(2, 3, 5, 5, dtype=ember.float64)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    assert fused is not conv and isinstance(fused.weight, nn.Parameter) and fused.bias is not None
    convt = nn.ConvTranspose2d(4, 3, 2, stride=2).double().eval()
    bnt = _random_bn(nn.BatchNorm2d(3).double())
    fused_t = nn.utils.fuse_conv_bn_eval(convt, bnt, transpose=True)
    y = ember.randn(1, 4, 3, 3, dtype=ember.float64)
    np.testing.assert_allclose(fused_t(y).detach().numpy(), bnt(convt(y)).detach().numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_conv_bn_weights_and_linear_bn():
    w, b = ember.randn(4, 2, 3), ember.randn(4)
    rm, rv, g, beta = ember.randn(4), ember.rand(4) + 0.5, ember.randn(4), ember.randn(4)
    fw, fb = nn.utils.fuse_conv_bn_weights(w, b, rm, rv, 1e-5, g, beta)
    scale = g.numpy() / np.sqrt(rv.numpy() + 1e-5)
    np.testing.assert_allclose(fw.detach().numpy(), w.numpy() * scale[:, None, None], rtol=1e-6)
    np.testing.assert_allclose(
        fb.detach().numpy(), (b.numpy() - rm.numpy()) * scale + beta.numpy(), rtol=1e-5, atol=1e-6
    )
    fw, fb = nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1e-5, None, None)
    np.testing.assert_allclose(fb.detach().numpy(), -rm.numpy() / np.sqrt(rv.numpy() + 1e-5), rtol=1e-5)
    lin = nn.Linear(3, 4).eval()
    bn = _random_bn(nn.BatchNorm1d(4))
    x = ember.randn(5, 3)
    np.testing.assert_allclose(
        nn.utils.fuse_linear_bn_eval(lin, bn)(x).detach().numpy(), bn(lin(x)).detach().numpy(), rtol=1e-5, atol=1e-5
    )


def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 3, 4, bias=False)
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (4, 3) and m.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)

    class NoDevice(nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(NoDevice, 2)


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.register_buffer("scale", ember.tensor(2.0))

    def forward(self, x, shift=0.0):
        return self.lin(x) * self.scale + shift


def test_functional_call_swaps_and_restores():
    net = _Net()
    x = ember.randn(4, 3)
    w = ember.randn(2, 3, requires_grad=True)
    b = ember.zeros(2)
    orig_w = net.lin.weight
    y = nn.utils.stateless.functional_call(
        net, {"lin.weight": w, "lin.bias": b, "scale": ember.tensor(3.0)}, (x,), {"shift": 1.0}
    )
    np.testing.assert_allclose(y.detach().numpy(), (x.numpy() @ w.detach().numpy().T) * 3 + 1, rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3 * np.tile(x.numpy().sum(0), (2, 1)), rtol=1e-5)
    assert net.lin.weight is orig_w and net.scale.item() == 2.0 and orig_w.grad is None
    # A single input need not be a tuple; ember.func is the same function; a tuple of dicts merges them.
    y1 = ember.func.functional_call(net, ({"lin.weight": w}, {"lin.bias": b}), x)
    np.testing.assert_allclose(y1.detach().numpy(), (x.numpy() @ w.detach().numpy().T) * 2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        ember.func.functional_call(net, ({"lin.bias": b}, {"lin.bias": b}), x)


def test_functional_call_restores_after_an_error_and_strict():
    net = _Net()
    orig = net.lin.weight
    with pytest.raises(RuntimeError):
        nn.utils.stateless.functional_call(net, {"lin.weight": ember.randn(5, 5)}, (ember.randn(4, 3),))
    assert net.lin.weight is orig
    with pytest.raises(
        RuntimeError,
        match=r"Error\(s\) in reparametrizing for _Net:\n\tUnexpected key\(s\): "
        r"'foo'.\n\tMissing key\(s\): 'lin.bias', 'scale'.",
    ):
        nn.utils.stateless.functional_call(net, {"lin.weight": orig, "foo": orig}, (ember.randn(1, 3),), strict=True)


def test_functional_call_tied_weights():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = Tied()
    x = ember.randn(3, 2)
    eye = ember.eye(2) * 2
    y = nn.utils.stateless.functional_call(m, {"a.weight": eye}, (x,))
    np.testing.assert_allclose(y.numpy(), 4 * x.numpy(), rtol=1e-6)  # both uses replaced
    y = nn.utils.stateless.functional_call(m, {"a.weight": eye}, (x,), tie_weights=False)
    np.testing.assert_allclose(y.detach().numpy(), 2 * x.numpy() @ m.a.weight.detach().numpy().T, rtol=1e-5)
    with pytest.raises(ValueError, match="which are tied"):
        nn.utils.stateless.functional_call(m, {"a.weight": eye, "b.weight": ember.eye(2)}, (x,))


# -- fractional max pooling, adaptive log-softmax ---------------------------------------------------------------------


def frac_starts(u, n_in, n_out, k):
    if n_out == 1:
        return [n_in - k]
    alpha = (n_in - k) / (n_out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(n_out - 1)] + [n_in - k]


def test_fractional_max_pool2d_against_a_window_loop():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 11, 13))
    s = rng.random((2, 3, 2))
    y, idx = F.fractional_max_pool2d(t64(x), (3, 2), output_size=(5, 7), return_indices=True, _random_samples=t64(s))
    for b, c in itertools.product(range(2), range(3)):
        rows = frac_starts(s[b, c, 1], 11, 5, 3)  # sample 1 places the rows, sample 0 the columns (as PyTorch)
        cols = frac_starts(s[b, c, 0], 13, 7, 2)
        for i, j in itertools.product(range(5), range(7)):
            w = x[b, c, rows[i] : rows[i] + 3, cols[j] : cols[j] + 2]
            r, q = np.unravel_index(w.argmax(), w.shape)
            assert y[b, c, i, j].item() == w.max()
            assert idx[b, c, i, j].item() == (rows[i] + r) * 13 + cols[j] + q
    xs = t64(x[:1, :1, :6, :6], True)
    ss = t64(s[:1, :1])
    assert gradcheck(lambda a: F.fractional_max_pool2d(a, 2, output_size=3, _random_samples=ss), (xs,))


def test_fractional_max_pool_matches_pytorchs_sample_order_and_float32_rounding():
    # Recorded with PyTorch 1.13: F.fractional_max_pool2d(arange(100.).reshape(1, 1, 10, 10), 2, output_size=(4, 4),
    # return_indices=True, _random_samples=tensor([[[0.9, 0.1]]])) and the 3-d analogue with samples (0.9, 0.1, 0.3).
    x = ember.arange(100.0).reshape(1, 1, 10, 10)
    _, i = F.fractional_max_pool2d(
        x, 2, output_size=(4, 4), return_indices=True, _random_samples=ember.tensor([[[0.9, 0.1]]])
    )
    assert i.flatten().tolist() == [11, 14, 16, 19, 31, 34, 36, 39, 61, 64, 66, 69, 91, 94, 96, 99]
    x3 = ember.arange(1000.0).reshape(1, 1, 10, 10, 10)
    _, i3 = F.fractional_max_pool3d(
        x3, 2, output_size=(4, 4, 4), return_indices=True, _random_samples=ember.tensor([[[0.9, 0.1, 0.3]]])
    )
    i3 = np.array(i3.flatten().tolist())
    assert sorted(set(i3 // 100 - 1)) == [0, 3, 5, 8]  # time: sample 0
    assert sorted(set(i3 // 10 % 10 - 1)) == [0, 2, 5, 8]  # height: sample 1
    assert sorted(set(i3 % 10 - 1)) == [0, 3, 6, 8]  # width: sample 2


def test_fractional_max_pool_modules_and_errors():
    m = nn.FractionalMaxPool2d(3, output_ratio=0.5)
    assert tuple(m(ember.randn(2, 3, 10, 12)).shape) == (2, 3, 5, 6)
    assert tuple(m(ember.randn(3, 10, 12)).shape) == (3, 5, 6)  # unbatched
    v, i = nn.FractionalMaxPool3d(2, output_size=3, return_indices=True)(ember.randn(1, 2, 6, 6, 6))
    assert tuple(v.shape) == tuple(i.shape) == (1, 2, 3, 3, 3) and i.dtype == ember.int64
    ember.manual_seed(1)
    a = nn.FractionalMaxPool2d(2, output_size=4)(ember.arange(64.0).reshape(1, 1, 8, 8))
    ember.manual_seed(1)
    b = nn.FractionalMaxPool2d(2, output_size=4)(ember.arange(64.0).reshape(1, 1, 8, 8))
    assert ember.equal(a, b)  # the random placement follows the generator
    with pytest.raises(ValueError, match="requires specifying either an output size, or a pooling ratio"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
        nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="fractional_max_pool2d requires specifying either an output_size"):
        F.fractional_max_pool2d(ember.randn(1, 1, 4, 4), 2)
    with pytest.raises(
        RuntimeError, match="fractional_max_pool2d\\(\\): pool height 5 too large relative to input height 7"
    ):
        F.fractional_max_pool2d(ember.randn(2, 3, 7, 9), 5, output_size=(4, 6))
    with pytest.raises(RuntimeError, match="Expected _random_samples to have shape"):
        F.fractional_max_pool2d(ember.randn(2, 3, 7, 9), 2, output_size=3, _random_samples=ember.rand(2, 3, 1))


def test_adaptive_log_softmax_with_loss():
    ember.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0).double()
    assert [tuple(l.weight.shape) for l in m.tail[0]] == [(4, 8), (3, 4)]
    assert [tuple(l.weight.shape) for l in m.tail[1]] == [(2, 8), (4, 2)]
    assert tuple(m.head.weight.shape) == (5, 8) and m.head.bias is None
    rng = np.random.default_rng(10)
    x = rng.standard_normal((6, 8))
    t = ember.tensor([0, 4, 9, 2, 7, 5])
    out = m(t64(x), t)
    # From the definition: head log-softmax for shortlist classes; head's cluster entry + the cluster's log-softmax.
    W = lambda lin: lin.weight.detach().numpy()  # noqa: E731

    def log_softmax(z):
        z = z - z.max(1, keepdims=True)
        return z - np.log(np.exp(z).sum(1, keepdims=True))

    head = log_softmax(x @ W(m.head).T)
    full = [head[:, :3]]
    for c in range(2):
        full.append(log_softmax(x @ W(m.tail[c][0]).T @ W(m.tail[c][1]).T) + head[:, 3 + c : 4 + c])
    full = np.concatenate(full, 1)
    np.testing.assert_allclose(m.log_prob(t64(x)).detach().numpy(), full, rtol=1e-12)
    np.testing.assert_allclose(out.output.detach().numpy(), full[np.arange(6), t.numpy()], rtol=1e-12)
    np.testing.assert_allclose(out.loss.item(), -full[np.arange(6), t.numpy()].mean(), rtol=1e-12)
    assert m.predict(t64(x)).tolist() == full.argmax(1).tolist()
    single = m(t64(x[1]), t[1])
    np.testing.assert_allclose(single.output.item(), full[1, 4], rtol=1e-12)
    xg = t64(x, True)
    assert gradcheck(lambda a: m(a, t).loss, (xg,))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(t64(x[:1]), ember.tensor([10]))
    with pytest.raises(RuntimeError, match="Input and target should have the same size in the batch dimension"):
        m(t64(x), ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        m(t64(x), ember.zeros(6, 2, dtype=ember.int64))


def test_sync_batch_norm_without_a_process_group_is_batch_norm():
    x = ember.randn(4, 3, 5, 2)
    sbn, bn = nn.SyncBatchNorm(3, momentum=0.2), nn.BatchNorm2d(3, momentum=0.2)
    np.testing.assert_allclose(sbn(x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sbn.running_var.numpy(), bn.running_var.numpy(), rtol=1e-6)
    assert tuple(sbn(ember.randn(4, 3)).shape) == (4, 3)  # any number of spatial dimensions
    assert repr(sbn) == "SyncBatchNorm(3, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True)"
    with pytest.raises(ValueError, match="expected at least 2D input"):
        sbn(ember.randn(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(ember.randn(2, 0, 3))
    net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(4))).eval()
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is nn.SyncBatchNorm and type(conv[2][0]) is nn.SyncBatchNorm
    assert conv[1].weight is net[1].weight and conv[1].running_mean is net[1].running_mean
    assert not conv[1].training
