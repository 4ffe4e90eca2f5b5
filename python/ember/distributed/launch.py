"""python -m ember.distributed.launch: the deprecated launcher, kept as PyTorch keeps it. It is
ember.distributed.run, except that it passes --local_rank=N to each script unless --use_env is given."""

import sys
import warnings

from .run import get_args_parser, run


def main(args=None):
    argv = sys.argv[1:] if args is None else list(args)
    warnings.warn(
        "The module ember.distributed.launch is deprecated and will be removed in future. Use "
        "ember.distributed.run (torchrun). Note that --use_env is set by default in "
        "ember.distributed.run.",
        FutureWarning,
    )
    parser = get_args_parser()
    parser.add_argument(
        "--use_env",
        "--use-env",
        action="store_true",
        help="read LOCAL_RANK from the environment instead of passing --local_rank",
    )
    ns = parser.parse_args(argv)
    sys.exit(run(ns, pass_local_rank=not ns.use_env))


if __name__ == "__main__":
    main()
