"""ember.compile: torch.compile's entry point for an eager-only library."""

import builtins


def compile(  # noqa: A001 (torch.compile's name; the comment stays on this line when formatted)
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend=None,
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    dynamic_shapes=None,
):
    """Optimizes a model or function for execution: in ember, returns `model` unchanged.

    ember has no graph compiler: the eager program runs with the same results (docs/differences.md). The arguments
    are checked as PyTorch checks them, so that a typo still raises; the others are accepted and have no effect.
    Called without `model`, returns a decorator that does the same.

    Args:
        model (Callable, optional): the module or function.

    Keyword args:
        fullgraph (bool): PyTorch's switch to fail on graph breaks (no effect).
        dynamic (bool, optional): PyTorch's dynamic-shape tracing switch (no effect).
        backend (str or Callable, optional): PyTorch's compiler backend (no effect).
        mode (str, optional): ``"default"``, ``"reduce-overhead"``, ``"max-autotune"`` or
            ``"max-autotune-no-cudagraphs"``; another value raises RuntimeError.
        options (dict, optional): backend options; cannot be given with `mode`.
        name (str, optional): a name for the compiled region (no effect).
        disable (bool): turn compilation off (it always is).
        recompile_limit (int, optional): PyTorch's recompilation limit (no effect).
        isolate_recompiles (bool): PyTorch's recompilation-cache switch (no effect).
        dynamic_shapes (optional): PyTorch's dynamic-shape specification (no effect).

    Example::

        >>> f = ember.compile(lambda x: x * 2)
        >>> f(ember.tensor([1.0]))
        tensor([2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        raise RuntimeError(
            "Unrecognized mode=%s, should be one of: default, reduce-overhead, max-autotune, "
            "max-autotune-no-cudagraphs" % mode
        )
    if model is None:
        return lambda m: compile(
            m,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            name=name,
            disable=disable,
            recompile_limit=recompile_limit,
            isolate_recompiles=isolate_recompiles,
            dynamic_shapes=dynamic_shapes,
        )
    if not builtins.callable(model):
        raise RuntimeError("compile: the model must be callable, got %s" % type(model).__name__)
    return model
