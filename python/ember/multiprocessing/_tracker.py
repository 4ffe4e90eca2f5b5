"""The file_system strategy's segment tracker (Note [Named segments] in ember/data/shared_memory.cpp).

One small process per process tree. Every process connects to it over a Unix socket (abstract namespace) named
by $EMBER_SHM_TRACKER, reports the segments it creates ("R name") and the ones it unlinked ("U name"); when a
process's connection closes (it exited or was killed), the tracker unlinks the names that process created and
nobody unlinked. It exits when its last client is gone. It is started in its own session and orphaned at once,
so that it is nobody's child process and a Ctrl-C in the terminal does not reach it.
"""

import os
import socket
import subprocess
import sys
import threading

from .. import _C

_ENV = "EMBER_SHM_TRACKER"
_lock = threading.Lock()

_TRACKER_SOURCE = r"""
import os, selectors, socket, sys
if os.fork():
    os._exit(0)  # the launcher exits; the tracker is reparented and is nobody's child
try:
    from _posixshmem import shm_unlink
except ImportError:
    def shm_unlink(name):
        os.unlink("/dev/shm" + name)
srv = socket.socket(fileno=int(sys.argv[1]))
sel = selectors.DefaultSelector()
sel.register(srv, selectors.EVENT_READ)
owned, owner, pending = {}, {}, {}
seen = False
while True:
    events = sel.select(timeout=None if seen else 30.0)
    if not events and not seen:
        break  # nobody ever connected
    for key, _ in events:
        if key.fileobj is srv:
            conn, _ = srv.accept()
            sel.register(conn, selectors.EVENT_READ)
            owned[conn], pending[conn] = set(), b""
            seen = True
            continue
        conn = key.fileobj
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        if not data:
            for name in owned.pop(conn):
                owner.pop(name, None)
                try:
                    shm_unlink(name)
                except OSError:
                    pass
            pending.pop(conn)
            sel.unregister(conn)
            conn.close()
            continue
        lines = (pending[conn] + data).split(b"\n")
        pending[conn] = lines.pop()
        for line in lines:
            op, _, name = line.decode("utf-8", "replace").partition(" ")
            if op == "R":
                owned[conn].add(name)
                owner[name] = conn
            elif op == "U":
                o = owner.pop(name, None)
                if o is not None:
                    owned[o].discard(name)
    if seen and not owned:
        break
"""


def _reachable(address):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + address)
        return True
    except OSError:
        return False
    finally:
        s.close()


def ensure_running():
    """Starts the tracker unless this process tree has a live one, and connects this process to it."""
    with _lock:
        address = os.environ.get(_ENV)
        if not address or not _reachable(address):
            address = "ember-shm-tracker-%d-%s" % (os.getpid(), os.urandom(6).hex())
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                srv.bind("\0" + address)
                srv.listen(128)
                launcher = subprocess.Popen(
                    [sys.executable, "-c", _TRACKER_SOURCE, str(srv.fileno())],
                    pass_fds=[srv.fileno()],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                launcher.wait()
            finally:
                srv.close()  # the tracker holds its own copy; connections queue until it accepts them
            os.environ[_ENV] = address
        _C._shm_connect_tracker()
