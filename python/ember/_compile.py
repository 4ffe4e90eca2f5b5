"""ember.compile: torch.compile's entry point for an eager-only library."""
import builtins



def compile(  # noqa: A001 (after the parenthesis, where the formatter keeps it on the def's line)
        model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    """Returns model unchanged (or, called without it, a decorator that does): ember has no graph compiler, the
    eager program runs with the same results (docs/differences.md). The arguments are checked as PyTorch checks
    them, so a typo still raises."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        raise RuntimeError("Unrecognized mode=%s, should be one of: default, reduce-overhead, max-autotune, "
                           "max-autotune-no-cudagraphs" % mode)
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not builtins.callable(model):
        raise RuntimeError("compile: the model must be callable, got %s" % type(model).__name__)
    return model
