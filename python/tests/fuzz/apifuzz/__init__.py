"""The Python API fuzzer (docs/fuzzing.md): calls every public callable with mutated arguments in worker processes and
reports the calls that kill a worker (with a minimized reproducer) or hang. `python python/tests/fuzz/api.py --help`.

  targets.py   the callables fuzzed, their parameters, and the denylist (with why)
  values.py    argument specs: generated from a parameter's name, annotation and default; rendered as Python source;
               simplified for minimization
  calls.py     one call: its arguments, its source, its simpler variants
  pool.py      the worker processes: one call at a time, a death or a hang noticed and attributed
  worker.py    the worker's main loop (runs in the child)
  minimize.py  shrinking a crashing call (or the history that led to it)
  harness.py   the run: generate, dispatch, count, report
"""
