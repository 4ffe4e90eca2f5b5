"""Anomaly detection: nodes remember the Python stack that created them; a failing backward formula or one
that returns NaN raises an error naming the forward op and showing that stack."""

from .. import _C


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on inside."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self.prev)
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, restores the previous state on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _C._set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(*self.prev)
        return False


def is_anomaly_enabled():
    return _C.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _C.is_anomaly_check_nan_enabled()
