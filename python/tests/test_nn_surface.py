"""The Python surface of the nn ops (python/src/nn_*.cpp, python/ember/nn/functional.py; Note [Python surface]):
every docstring example runs and prints what it shows, the functions bound with nb::cpp_function have their names
(and pickle by name), every keyword form PyTorch accepts gives the positional result and NumPy's value, and the
per-element `weight` of mse_loss, l1_loss and huber_loss (PyTorch >= 2.6) against NumPy."""

import doctest
import inspect
import math
import pickle
import warnings

import numpy as np
import pytest
from conftest import from_np, to_np

import ember
import ember.nn.functional as F

# Callables of nn.functional whose bindings live elsewhere (nn_linalg.cpp, the attention bindings).
_NOT_HERE = {"linear", "bilinear", "scaled_dot_product_attention", "multi_head_attention_forward"}
# The top-level forms and Tensor methods bound in python/src/nn_*.cpp.
TOP_LEVEL = [
    "relu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "threshold",
    "threshold_",
    "rrelu",
    "rrelu_",
    "hardshrink",
    "prelu",
    "softmax",
    "log_softmax",
    "dropout",
    "dropout_",
    "alpha_dropout",
    "alpha_dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "native_dropout",
    "native_dropout_backward",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "poisson_nll_loss",
    "cosine_embedding_loss",
    "margin_ranking_loss",
    "triplet_margin_loss",
    "hinge_embedding_loss",
    "ctc_loss",
    "layer_norm",
    "rms_norm",
    "batch_norm",
    "group_norm",
    "instance_norm",
    "embedding",
    "constant_pad_nd",
    "pixel_shuffle",
    "pixel_unshuffle",
    "cosine_similarity",
    "pairwise_distance",
    "pdist",
    "cdist",
]
METHODS = ["softmax", "log_softmax", "hardshrink", "prelu"]


def _documented():
    out = [
        ("F." + n, getattr(F, n))
        for n in dir(F)
        if not n.startswith("_")
        and n not in _NOT_HERE
        and callable(getattr(F, n))
        and not inspect.ismodule(getattr(F, n))
        and not isinstance(getattr(F, n), type)
    ]
    out += [("ember." + n, getattr(ember, n)) for n in TOP_LEVEL]
    out += [("Tensor." + n, getattr(ember.Tensor, n)) for n in METHODS]
    return out


DOCUMENTED = _documented()


def test_every_nn_callable_is_documented():
    # The first line is a sentence, and the parameters are listed (Args:) or the docstring points to the form that
    # lists them (an in-place or top-level form), as in PyTorch's docstrings.
    import api_surface

    for name, f in DOCUMENTED:
        doc = api_surface.docstring(f)
        assert api_surface.doc_problem(doc) is None, name
        assert "$" not in doc, name  # a template placeholder left over (nn_doc.h's fill)
        params = [p for p in inspect.signature(f).parameters if p != "self"]
        if params and not name.startswith("Tensor."):
            assert "Args:" in doc or ":func:`" in doc, name


@pytest.mark.parametrize(
    "name,f", [d for d in DOCUMENTED if ">>>" in (d[1].__doc__ or "")], ids=lambda v: v if isinstance(v, str) else ""
)
def test_docstring_examples(name, f):
    ember.manual_seed(0)
    test = doctest.DocTestParser().get_doctest(f.__doc__, {"ember": ember, "F": F}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=lambda s: None)
    assert runner.failures == 0, "%s: %d examples print something else" % (name, runner.failures)


NAMED = [
    (F, n)
    for d in (1, 2, 3)
    for n in (
        "conv%dd",
        "conv_transpose%dd",
        "max_pool%dd",
        "max_pool%dd_with_indices",
        "avg_pool%dd",
        "adaptive_avg_pool%dd",
        "adaptive_max_pool%dd",
        "adaptive_max_pool%dd_with_indices",
        "max_unpool%dd",
    )
    for n in [n % d]
]
NAMED += [
    (ember, n)
    for n in (
        "conv1d",
        "conv2d",
        "conv3d",
        "max_pool1d",
        "max_pool2d",
        "max_pool3d",
        "max_pool1d_with_indices",
        "avg_pool1d",
        "adaptive_avg_pool1d",
        "adaptive_max_pool1d",
    )
]


@pytest.mark.parametrize("ns,name", NAMED)
def test_functions_have_their_names_and_pickle_by_name(ns, name):
    f = getattr(ns, name)
    assert f.__name__ == name
    assert f.__module__.startswith("ember._C")
    assert pickle.loads(pickle.dumps(f)) is f


def test_methods_have_their_names():
    for name in METHODS:
        m = ember.Tensor.__dict__[name]
        assert m.__name__ == name and m.__qualname__ == "Tensor." + name
    x = ember.tensor([[1.0, 2.0]])
    assert list(inspect.signature(x.softmax).parameters) == ["dim", "dtype"]


def test_shared_callables():
    # As in PyTorch, torch.conv2d is torch.nn.functional.conv2d; the top-level max_pool2d has no return_indices.
    assert ember.conv2d is F.conv2d and ember.conv_transpose3d is F.conv_transpose3d
    assert ember.avg_pool1d is F.avg_pool1d and ember.adaptive_avg_pool1d is F.adaptive_avg_pool1d
    assert "return_indices" not in inspect.signature(ember.max_pool2d).parameters
    assert "return_indices" in inspect.signature(F.max_pool2d).parameters


def _rand(rng, *shape):
    return rng.standard_normal(shape)


def _np_conv1d(x, w, b, padding):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    k = w.shape[2]
    out = np.empty((x.shape[0], w.shape[0], x.shape[2] - k + 1))
    for i in range(out.shape[2]):
        out[:, :, i] = np.einsum("nck,ock->no", x[:, :, i : i + k], w)
    return out + b[None, :, None]


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_keyword_forms_convolution_and_pooling():
    rng = np.random.default_rng(0)
    xa, wa, ba = _rand(rng, 2, 3, 7), _rand(rng, 4, 3, 3), _rand(rng, 4)
    x, w, b = from_np(xa), from_np(wa), from_np(ba)
    expected = _np_conv1d(xa, wa, ba, 1)
    for r in (
        F.conv1d(x, w, b, 1, 1),
        F.conv1d(input=x, weight=w, bias=b, stride=1, padding=1, dilation=1, groups=1),
        ember.conv1d(x, weight=w, bias=b, padding=[1]),
    ):
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-10, atol=1e-12)
    pooled = xa[:, :, :6].reshape(2, 3, 3, 2)
    v, i = F.max_pool1d(
        input=x, kernel_size=2, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
    )
    np.testing.assert_array_equal(to_np(v), pooled.max(-1))
    np.testing.assert_array_equal(to_np(i), pooled.argmax(-1) + 2 * np.arange(3))
    v2, i2 = ember.max_pool1d_with_indices(input=x, kernel_size=[2])
    assert to_np(v2).tolist() == to_np(v).tolist() and to_np(i2).tolist() == to_np(i).tolist()
    np.testing.assert_allclose(to_np(F.avg_pool1d(input=x, kernel_size=2, count_include_pad=True)), pooled.mean(-1))
    np.testing.assert_allclose(to_np(F.adaptive_avg_pool1d(input=x, output_size=1)), xa.mean(-1, keepdims=True))
    np.testing.assert_allclose(
        to_np(F.max_unpool1d(input=v, indices=i, kernel_size=2, output_size=[6])).max(-1), pooled.max(-1).max(-1)
    )


def test_keyword_forms_activations_and_softmax():
    rng = np.random.default_rng(1)
    xa = _rand(rng, 3, 4)
    x = from_np(xa)
    expected = _np_softmax(xa, 1)
    for r in (
        ember.softmax(x, 1),
        ember.softmax(input=x, dim=1, dtype=ember.float64),
        x.softmax(dim=1),
        F.softmax(input=x, dim=1, _stacklevel=5, dtype=None),
    ):
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-12)
    np.testing.assert_allclose(to_np(x.log_softmax(dim=0)), np.log(_np_softmax(xa, 0)), rtol=1e-12)
    np.testing.assert_allclose(to_np(F.softmin(input=x, dim=1)), _np_softmax(-xa, 1), rtol=1e-12)
    np.testing.assert_allclose(
        to_np(F.leaky_relu(input=x, negative_slope=0.2, inplace=False)), np.where(xa > 0, xa, 0.2 * xa)
    )
    np.testing.assert_allclose(to_np(ember.threshold(input=x, threshold=0.1, value=-5.0)), np.where(xa > 0.1, xa, -5.0))
    np.testing.assert_allclose(to_np(x.hardshrink(lambd=0.3)), np.where(np.abs(xa) > 0.3, xa, 0.0))
    np.testing.assert_allclose(to_np(ember.hardshrink(input=x, lambd=0.3)), np.where(np.abs(xa) > 0.3, xa, 0.0))
    wa = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(to_np(x.prelu(weight=from_np(wa))), np.where(xa > 0, xa, wa * xa))
    np.testing.assert_allclose(
        to_np(ember.celu(input=x, alpha=2.0)), np.maximum(xa, 0) + np.minimum(0, 2.0 * np.expm1(xa / 2.0)), rtol=1e-12
    )
    y = x.clone()
    assert F.elu_(input=y, alpha=1.0) is y
    np.testing.assert_allclose(to_np(y), np.where(xa > 0, xa, np.expm1(xa)), rtol=1e-12)
    # F.elu_ is ATen's elu_, with scale and input_scale.
    y = x.clone()
    F.elu_(y, alpha=0.5, scale=2.0, input_scale=3.0)
    np.testing.assert_allclose(to_np(y), 2.0 * np.where(xa > 0, xa, 0.5 * np.expm1(3.0 * xa)), rtol=1e-12)


def test_rrelu_generator():
    # torch.rrelu and torch.rrelu_ take a generator (PyTorch's ATen signature); F.rrelu has none.
    x = -ember.ones(200, dtype=ember.float64)
    g = ember.Generator()
    g.manual_seed(7)
    a = ember.rrelu(input=x, lower=0.1, upper=0.3, training=True, generator=g)
    g.manual_seed(7)
    b = x.clone()
    assert ember.rrelu_(b, 0.1, 0.3, True, g) is b
    slopes = -to_np(a)
    assert to_np(b).tolist() == to_np(a).tolist()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and len(set(slopes.tolist())) > 100
    assert "generator" not in inspect.signature(F.rrelu).parameters


def test_keyword_forms_dropout():
    x = ember.ones(1000, dtype=ember.float64)
    ember.manual_seed(3)
    a = ember.dropout(x, 0.25, True)
    ember.manual_seed(3)
    b = ember.dropout(input=x, p=0.25, train=True)
    assert to_np(a).tolist() == to_np(b).tolist()
    assert set(np.unique(to_np(a))) <= {0.0, 1 / 0.75}
    assert to_np(F.dropout(input=x, p=0.5, training=False, inplace=False)).tolist() == [1.0] * 1000
    out, mask = ember.native_dropout(input=x, p=0.5, train=False)
    assert bool(mask.all()) and to_np(out).tolist() == [1.0] * 1000
    g = ember.native_dropout_backward(grad_output=x, mask=mask, scale=2.0)
    assert to_np(g).tolist() == [2.0] * 1000


def test_keyword_forms_normalization_and_embedding():
    rng = np.random.default_rng(2)
    xa = _rand(rng, 4, 3, 5)
    x = from_np(xa)
    mean, var = xa.mean(axis=(0, 2), keepdims=True), xa.var(axis=(0, 2), keepdims=True)
    expected = (xa - mean) / np.sqrt(var + 1e-5)
    a = F.batch_norm(
        input=x, running_mean=None, running_var=None, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
    )
    b = ember.batch_norm(
        input=x,
        weight=None,
        bias=None,
        running_mean=None,
        running_var=None,
        training=True,
        momentum=0.1,
        eps=1e-5,
        cudnn_enabled=False,
    )
    for r in (a, b):
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-9, atol=1e-12)
    ln = (xa - xa.mean(-1, keepdims=True)) / np.sqrt(xa.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(
        to_np(ember.layer_norm(input=x, normalized_shape=[5], cudnn_enable=True)), ln, rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(to_np(F.layer_norm(x, normalized_shape=5, eps=1e-5)), ln, rtol=1e-9, atol=1e-12)
    weight = from_np(_rand(rng, 6, 2))
    idx = ember.tensor([[5, 0], [1, 1]])
    e1 = F.embedding(input=idx, weight=weight, padding_idx=None, max_norm=None)
    e2 = ember.embedding(weight=weight, indices=idx, padding_idx=-1)
    np.testing.assert_array_equal(to_np(e1), to_np(weight)[[[5, 0], [1, 1]]])
    np.testing.assert_array_equal(to_np(e2), to_np(e1))
    np.testing.assert_array_equal(to_np(ember.constant_pad_nd(input=from_np([1.0]), pad=[1, 0], value=7)), [7.0, 1.0])


def test_keyword_forms_losses_and_distances():
    rng = np.random.default_rng(4)
    xa, ya = _rand(rng, 5, 3), _rand(rng, 5, 3)
    x, y = from_np(xa), from_np(ya)
    np.testing.assert_allclose(float(F.mse_loss(input=x, target=y, reduction="sum")), ((xa - ya) ** 2).sum())
    t = from_np(np.array([1.0, -1.0, 1.0, 1.0, -1.0]))
    cos = (xa * ya).sum(1) / np.linalg.norm(xa, axis=1) / np.linalg.norm(ya, axis=1)
    expected = np.where(to_np(t) > 0, 1 - cos, np.maximum(0, cos - 0.1)).mean()
    np.testing.assert_allclose(
        float(ember.cosine_embedding_loss(input1=x, input2=y, target=t, margin=0.1, reduction=1)), expected, rtol=1e-10
    )
    np.testing.assert_allclose(
        float(F.cosine_embedding_loss(input1=x, input2=y, target=t, margin=0.1)), expected, rtol=1e-10
    )
    d = np.linalg.norm(xa[:, None, :] - ya[None, :, :], axis=-1)
    for mode in (None, "use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"):
        np.testing.assert_allclose(to_np(ember.cdist(x1=x, x2=y, p=2.0, compute_mode=mode)), d, rtol=1e-9)
    assert inspect.signature(ember.cdist).parameters["compute_mode"].default == "use_mm_for_euclid_dist_if_necessary"
    np.testing.assert_allclose(
        to_np(ember.pairwise_distance(x1=x, x2=y, p=1.0, eps=0.0, keepdim=True)),
        np.abs(xa - ya).sum(1, keepdims=True),
        rtol=1e-12,
    )


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_weighted_elementwise_losses(name, reduction):
    rng = np.random.default_rng(5)
    xa, ya, wa = _rand(rng, 4, 3), _rand(rng, 4, 3), rng.uniform(0.1, 2.0, (4, 3))
    per = {
        "mse_loss": (xa - ya) ** 2,
        "l1_loss": np.abs(xa - ya),
        "huber_loss": np.where(np.abs(xa - ya) < 0.7, 0.5 * (xa - ya) ** 2, 0.7 * (np.abs(xa - ya) - 0.35)),
    }[name]
    loss = per * wa
    # PyTorch: 'mean' divides by the sum of the weights, except huber_loss, which takes the plain mean.
    expected = {
        "none": loss,
        "sum": loss.sum(),
        "mean": loss.mean() if name == "huber_loss" else loss.sum() / wa.sum(),
    }[reduction]
    kwargs = {"delta": 0.7} if name == "huber_loss" else {}
    r = getattr(F, name)(from_np(xa), from_np(ya), reduction=reduction, weight=from_np(wa), **kwargs)
    np.testing.assert_allclose(to_np(r), expected, rtol=1e-12)
    unweighted = getattr(F, name)(from_np(xa), from_np(ya), reduction=reduction, weight=None, **kwargs)
    np.testing.assert_allclose(
        to_np(unweighted), {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction], rtol=1e-12
    )


def test_weighted_losses_gradient_and_errors():
    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    w = ember.tensor([1.0, 3.0], dtype=ember.float64)
    F.mse_loss(x, ember.zeros(2, dtype=ember.float64), weight=w).backward()
    assert to_np(x.grad).tolist() == pytest.approx([2 * 1 * 1 / 4, 2 * 2 * 3 / 4])
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        F.l1_loss(ember.ones(3), ember.ones(3), weight=ember.ones(2))
    with pytest.raises(TypeError, match="weight"):
        F.huber_loss(ember.ones(3), ember.ones(3), weight=1.0)
    # The legacy arguments still choose the reduction with a weight.
    with pytest.warns(UserWarning, match="reduction='sum'"):
        r = F.mse_loss(ember.ones(2), ember.zeros(2), size_average=False, weight=ember.full((2,), 2.0))
    assert math.isclose(float(r), 4.0)
