"""init_method URLs (env://, tcp://host:port, file://path) turned into a store, a rank and a world size, as
torch.distributed.rendezvous does."""

import os
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from .._C import _distributed as _d

__all__ = ["rendezvous"]

_default_store_timeout = timedelta(seconds=300)


def _env_error(var):
    return ValueError(
        "Error initializing torch.distributed using env:// rendezvous: environment variable "
        "{} expected, but not set".format(var)
    )


def _query_int(query, name, given):
    if given is not None and given >= 0:
        return given
    if name in query:
        return int(query[name][0])
    return -1


def _rank_and_size(query, rank, world_size):
    rank = _query_int(query, "rank", rank)
    world_size = _query_int(query, "world_size", world_size)
    if rank < 0:
        raise ValueError("rank parameter missing")
    if world_size < 0:
        raise ValueError("world size parameter missing")
    return rank, world_size


def rendezvous(url, rank=-1, world_size=-1, timeout=_default_store_timeout):
    """(store, rank, world_size) for the init_method url; a generator like PyTorch's, which yields once."""
    if not isinstance(url, str):
        raise RuntimeError("`url` must be a string. {}: {}".format(type(url), url))
    if not isinstance(rank, int) or not isinstance(world_size, int):
        raise RuntimeError("`rank` and `world_size` must be integers")
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    if parsed.scheme == "env":
        yield _env_rendezvous(rank, world_size, timeout)
    elif parsed.scheme == "tcp":
        rank, world_size = _rank_and_size(query, rank, world_size)
        if not parsed.hostname or parsed.port is None:
            raise ValueError("tcp:// init_method needs host:port, got {!r}".format(url))
        store = _d.TCPStore(parsed.hostname, parsed.port, world_size, rank == 0, timeout)
        yield store, rank, world_size
    elif parsed.scheme == "file":
        rank, world_size = _rank_and_size(query, rank, world_size)
        path = parsed.path if not parsed.netloc else parsed.netloc + parsed.path
        yield _d.FileStore(path, world_size, timeout), rank, world_size
    else:
        raise RuntimeError("No rendezvous handler for {}://".format(parsed.scheme))


def _env_rendezvous(rank, world_size, timeout):
    if rank is None or rank < 0:
        if "RANK" not in os.environ:
            raise _env_error("RANK")
        rank = int(os.environ["RANK"])
    if world_size is None or world_size < 0:
        if "WORLD_SIZE" not in os.environ:
            raise _env_error("WORLD_SIZE")
        world_size = int(os.environ["WORLD_SIZE"])
    for var in ("MASTER_ADDR", "MASTER_PORT"):
        if var not in os.environ:
            raise _env_error(var)
    addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    return _d.TCPStore(addr, port, world_size, rank == 0, timeout), rank, world_size
