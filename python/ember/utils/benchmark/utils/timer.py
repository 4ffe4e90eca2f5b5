"""Timer (torch.utils.benchmark.Timer): Python's timeit loop around a statement, blocks sized so that the
timer's own overhead is negligible, CUDA synchronized at each reading where a GPU is in use."""

import enum
import timeit

import ember
from ember.utils.benchmark.utils import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """timeit.default_timer, after waiting for queued GPU work where CUDA is available."""
    if ember.cuda.is_available():
        ember.cuda.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """Times `stmt` after `setup` with `globals` (`torch` defaults to ember) on `num_threads` threads.
    blocked_autorange() is the usual entry; timeit(number) times one block."""

    def __init__(
        self,
        stmt="pass",
        setup="pass",
        global_setup="",
        timer=timer,
        globals=None,
        label=None,
        sub_label=None,
        description=None,
        env=None,
        num_threads=1,
        language=Language.PYTHON,
    ):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("Timer: ember times Python statements only (language=Language.PYTHON)")
        if global_setup:
            raise ValueError("global_setup is C++ only.")
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", ember)
        self._language = Language.PYTHON
        # Statements are dedented and stripped as PyTorch does, so that triple-quoted blocks work.
        stmt = _dedent(stmt)
        setup = _dedent(setup)
        self._timer = timer
        self._task_spec = common.TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )
        self._timeit_module = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)

    def _timeit(self, number):
        # Even a zero-iteration call runs once the timer, so that overhead can be measured (as PyTorch does).
        return max(self._timeit_module.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """One block of `number` runs (after a warmup of number // 100), as a Measurement."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))  # warmup
            return common.Measurement(
                number_per_run=number, raw_times=[self._timeit(number=number)], task_spec=self._task_spec
            )

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _threaded_measurement_loop(self, number, time_hook, stop_hook, min_run_time, max_run_time=None, callback=None):
        total_time = 0.0
        can_stop = False
        times = []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total_time < min_run_time or not can_stop:
                time_spent = time_hook()
                times.append(time_spent)
                total_time += time_spent
                if callback:
                    callback(number, time_spent)
                can_stop = stop_hook(times)
                if max_run_time and total_time > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """The smallest power of ten of runs per block whose time dwarfs the timer's overhead."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(5))[2]
            number = 1
            while True:
                time_taken = self._timeit(number)
                if overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000:
                    break
                if time_taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a fixed size, timed until `min_run_time` seconds have been spent; callback(number, time)
        after each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._threaded_measurement_loop(
            number, lambda: self._timeit(number), lambda times: True, min_run_time=min_run_time, callback=callback
        )
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the IQR is below `threshold` of the median (and at least min_run_time, at most
        max_run_time seconds)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            if len(times) > 3:
                m = common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
                return m.meets_confidence(threshold=threshold)
            return False

        times = self._threaded_measurement_loop(
            number, lambda: self._timeit(number), stop_hook, min_run_time, max_run_time, callback=callback
        )
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("Timer.collect_callgrind: ember has no Callgrind support")


def _dedent(code):
    import textwrap

    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()
