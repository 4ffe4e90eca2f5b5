"""ember.utils.checkpoint: activation checkpointing, as torch.utils.checkpoint.

The forward runs under no_grad and keeps only the inputs; the backward runs the function again with grad mode
on (with the forward's RNG state when preserve_rng_state) and backpropagates through that graph.
Note [Checkpoint without saved-tensor hooks]: ember has no saved-tensor hooks, so both use_reentrant=True and
False are one autograd.Function whose backward calls ember.autograd.backward re-entrantly (PyTorch's reentrant
variant). use_reentrant=False adds what users choose it for: keyword arguments, and gradients for the parameters
the function uses even when no input requires grad (a dummy input that requires grad keeps the node in the
graph). Both work under ember.autograd.grad (the inputs' gradients are returned), but the parameters the function
captures get theirs accumulated into .grad, as in PyTorch's reentrant variant. Only the CPU RNG state is replayed
until ember.cuda has get_rng_state/set_rng_state.
"""

import warnings

from .. import _C
from .._C import Tensor
from ..autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential"]


def detach_variable(inputs):
    """Detaches each tensor of the tuple, keeping its requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: " + type(inputs).__name__)
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad_(inp.requires_grad)
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def _cuda_devices(args):
    """The CUDA devices of the tensor arguments, where ember.cuda can save their RNG state."""
    from .. import cuda

    if not hasattr(cuda, "get_rng_state"):
        return []
    return sorted({a.device.index or 0 for a in args if isinstance(a, Tensor) and a.device.type == "cuda"})


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        return CheckpointFunction._forward(ctx, run_function, preserve_rng_state, args, False)

    @staticmethod
    def _forward(ctx, run_function, preserve_rng_state, args, allow_no_grad_outputs):
        ctx.allow_no_grad_outputs = allow_no_grad_outputs
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            from .. import cuda, get_rng_state

            ctx.fwd_cpu_state = get_rng_state()
            ctx.fwd_devices = _cuda_devices(args)
            ctx.fwd_device_states = [cuda.get_rng_state(d) for d in ctx.fwd_devices]
        # Tensors unpacked from saved_tensors do not carry requires_grad: remember it here.
        ctx.input_requires_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        return run_function(*args)  # Function.apply runs forward with grad mode off

    @staticmethod
    def backward(ctx, *args):
        from .. import autograd, cuda, get_rng_state, set_rng_state

        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        # Replay the forward's RNG state, and put back the surrounding state afterwards.
        if ctx.preserve_rng_state:
            cpu_state = get_rng_state()
            device_states = [cuda.get_rng_state(d) for d in ctx.fwd_devices]
            set_rng_state(ctx.fwd_cpu_state)
            for d, s in zip(ctx.fwd_devices, ctx.fwd_device_states):
                cuda.set_rng_state(s, d)
        try:
            detached_inputs = tuple(
                x.detach().requires_grad_(r) if isinstance(x, Tensor) else x
                for x, r in zip(inputs, ctx.input_requires_grad)
            )
            with autograd.enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        finally:
            if ctx.preserve_rng_state:
                set_rng_state(cpu_state)
                for d, s in zip(ctx.fwd_devices, device_states):
                    cuda.set_rng_state(s, d)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for out, g in zip(outputs, args):
            if isinstance(out, Tensor) and out.requires_grad:
                outputs_with_grad.append(out)
                args_with_grad.append(g)
        if not outputs_with_grad:
            if ctx.allow_no_grad_outputs:
                return (None, None) + (None,) * len(detached_inputs)
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


class _NonReentrantCheckpointFunction(CheckpointFunction):
    """use_reentrant=False: the last argument is a dummy tensor that requires grad (see the Note above)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        return CheckpointFunction._forward(ctx, lambda *a: run_function(*a[:-1]), preserve_rng_state, args, True)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """Runs function(*args, **kwargs) without keeping its intermediate tensors; the backward recomputes them."""
    if use_reentrant is None:
        warnings.warn(
            "ember.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "use_reentrant=False is recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    # PyTorch's non-reentrant options, accepted at their defaults only
    if kwargs.pop("context_fn", None) is not None or kwargs.pop("debug", False):
        raise NotImplementedError("ember.utils.checkpoint: context_fn and debug are not supported")
    if kwargs.pop("determinism_check", "default") not in ("default", "none"):
        raise ValueError("determinism_check should be one of 'default', 'none'")
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        if _C.is_grad_enabled():
            check_backward_validity(args)
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    run = (lambda *a: function(*a, **kwargs)) if kwargs else function
    if not _C.is_grad_enabled():
        return run(*args)
    from .. import empty

    dummy = empty(0, requires_grad=True)
    return _NonReentrantCheckpointFunction.apply(run, preserve_rng_state, *args, dummy)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs the functions (or an nn.Sequential) in order, in `segments` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "ember.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
            "differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    from .. import nn

    if isinstance(functions, getattr(nn, "Sequential", ())):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # the last chunk is not checkpointed: its graph is needed right away
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
