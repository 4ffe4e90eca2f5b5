"""The callables fuzzed: every public callable of the namespaces python/tests/api_surface.py walks (ember, Tensor's
methods, nn.functional, linalg, special, fft), with each overload's parameters, less the denylist below.

A target is called as `ember.<path>(...)`, or as `t0.<name>(...)` on a generated tensor for Tensor's methods.
"""

import inspect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # python/tests
import api_surface  # noqa: E402

import ember  # noqa: E402

# Callables never called, and why. A call that only raises is never a reason: these would block, end the worker, or
# change process-wide state that later calls depend on, so that a crash they set up would not reproduce standalone.
DENYLIST = {
    # Process-wide state (each worker reseeds the global generator before every call, so manual_seed, seed and
    # set_rng_state are fuzzed).
    "torch.set_default_dtype": "process-wide state",
    "torch.set_default_tensor_type": "process-wide state",
    "torch.set_default_device": "process-wide state",
    "torch.set_grad_enabled": "process-wide state (grad mode)",
    "torch.set_num_threads": "process-wide state; n threads are started for real",
    "torch.set_num_interop_threads": "process-wide state",
    "torch.use_deterministic_algorithms": "process-wide state",
    "torch.set_deterministic_debug_mode": "process-wide state",
    "torch.set_printoptions": "process-wide state",
    "torch.set_flush_denormal": "process-wide state (the FPU's flags)",
    "torch.set_float32_matmul_precision": "process-wide state",
    "torch.set_warn_always": "process-wide state",
    "torch.set_anomaly_enabled": "process-wide state",
    "torch.autograd.set_detect_anomaly": "process-wide state",
    "torch.set_autocast_enabled": "process-wide state",
    "torch.set_autocast_dtype": "process-wide state",
    "torch.set_autocast_cpu_enabled": "process-wide state",
    "torch.set_autocast_cpu_dtype": "process-wide state",
    "torch.set_autocast_gpu_dtype": "process-wide state",
    "torch.set_autocast_cache_enabled": "process-wide state",
    "torch.clear_autocast_cache": "process-wide state",
    "torch.set_vital": "process-wide state",
    "torch.inference_mode": "process-wide state when entered without a with",
    # Blocks or waits on something outside the call.
    "torch.compile": "wraps its argument for a later call; nothing to fuzz in the call itself",
}


def qualified(label, name):
    return "%s.%s" % (label, name)


def path_of(label, name):
    """The expression that names the callable ("ember.add", "ember.nn.functional.relu"; Tensor's: just the name)."""
    if label == "Tensor":
        return name
    if label == "torch":
        return "ember." + name
    return "ember.%s.%s" % (label, name)


class Param:
    """One parameter: name, kind (inspect's), annotation (source text, "" when none), default (or `EMPTY`)."""

    EMPTY = inspect.Parameter.empty

    def __init__(self, p):
        self.name = p.name
        self.kind = p.kind
        a = p.annotation
        if a is inspect.Parameter.empty:
            self.annotation = ""
        elif isinstance(a, str):
            self.annotation = a
        else:
            self.annotation = getattr(a, "__name__", None) or repr(a)
            if not isinstance(a, type):
                self.annotation = repr(a)
        self.default = p.default

    @property
    def has_default(self):
        return self.default is not inspect.Parameter.empty


class Target:
    def __init__(self, label, name, overloads):
        self.label = label
        self.name = name
        self.qualname = qualified(label, name)
        self.path = path_of(label, name)
        self.overloads = overloads  # [[Param]]; [[]] with `loose` when nothing is known

    @property
    def method(self):
        return self.label == "Tensor"


def _overloads(obj):
    nb = getattr(obj, "__nb_signature__", None)
    sigs = []
    if nb is not None and len(nb) > 1:
        from ember import _signatures

        for text, _, defaults in nb:
            try:
                sigs.append(_signatures.parse(text, defaults))
            except Exception:  # an overload the parser does not read: the merged signature below stands in
                pass
    if not sigs:
        try:
            sigs = [inspect.signature(obj)]
        except (TypeError, ValueError):
            return [None]
    out = []
    for s in sigs:
        out.append([Param(p) for p in s.parameters.values() if p.name != "self"])
    return out


def _indexing():
    """Tensor's indexing (t[key], t[key] = value), which the surface walk leaves out with the other dunders."""
    key = inspect.Parameter("key", inspect.Parameter.POSITIONAL_ONLY, annotation="index key")
    value = inspect.Parameter("value", inspect.Parameter.POSITIONAL_ONLY, annotation="Tensor | Number")
    return [
        Target("Tensor", "__getitem__", [[Param(key)]]),
        Target("Tensor", "__setitem__", [[Param(key), Param(value)]]),
    ]


def targets():
    """Every fuzzed target, in a fixed order (so a seed gives the same calls)."""
    out = []
    for label, ns in api_surface.spaces():
        for name, obj in api_surface.callables(ns):
            if qualified(label, name) in DENYLIST:
                continue
            out.append(Target(label, name, _overloads(obj)))
    return out + _indexing()


def denied():
    """(qualified name, reason) for each denylisted callable that exists."""
    have = {qualified(label, name) for label, ns in api_surface.spaces() for name, _ in api_surface.callables(ns)}
    return [(k, v) for k, v in sorted(DENYLIST.items()) if k in have]


__all__ = ["DENYLIST", "Param", "Target", "denied", "ember", "targets"]
