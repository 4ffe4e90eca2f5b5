"""python -m ember.run: runs an unchanged PyTorch program on ember (docs/torch_programs.md).

    python -m ember.run script.py [args...]
    python -m ember.run -m package.module [args...]

Inside the program `torch`, `torch.*`, `torchvision` and `torchvision.*` are ember's modules (Note [torch as an
alias] in _torch_alias.py); everything else is as under `python script.py`: sys.argv, sys.path[0] (the script's
folder, or the current folder with -m) and `__name__ == "__main__"`.
"""

import os
import runpy
import sys

from ._torch_alias import install_as_torch

_USAGE = "usage: python -m ember.run script.py [args...] | -m module [args...]"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install_as_torch()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(f"ember.run: -m needs a module name\n{_USAGE}", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"ember.run: can't open file '{os.path.abspath(script)}': no such file", file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
