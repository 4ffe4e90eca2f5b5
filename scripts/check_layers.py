#!/usr/bin/env python3
"""Checks the include layering of ember's C++ tree (docs/architecture.md, "Layers").

Reads every `#include "ember/..."` in ember/, python/src/ and tests/ and prints one line per violation
(file:line: what includes what), exiting 1 if there is any; quiet and 0 otherwise. The rules:
  1. A file may include files of its own layer and of the layers before it in LAYERS, never a later one.
  2. A device's private headers (ember/backend/<device>/) are included only from that device's folder and tests/.
  3. A public header (under ember/, outside detail/ and backend/) includes no other folder's detail/ header.
  4. A public header includes no kernel declarations (ember/backend/kernels/): those are for the ops' sources and
     the backends.
Usage: python3 scripts/check_layers.py [--root DIR]   (DIR: the repository root, by default this script's parent's)
"""

import argparse
import os
import re
import sys

# The layers, lowest first. Each may include itself and the layers before it.
LAYERS = [
    "core",  # Tensor, dtypes, devices, storage, allocators, the kernel registry, the profiler's recorder
    "kernels",  # backend/kernels/: the device kernels' declarations (one slot per kernel)
    "autograd",  # the graph: nodes, grad mode, engine and custom-function API (headers)
    "ops",  # the public ops and their sources; the gradient formulas, which are written with ops
    "serialize",  # checkpoints and safetensors (tensors and state dicts)
    "vision",  # image and IDX files, colour kernels
    "distributed",  # stores and process groups
    "nn.functional",  # torch.nn.functional's ops, and backend/kernels/nn/ (their kernels speak nn's types)
    "nn.modules",  # the C++ frontend's Module classes (and saving/loading a module)
    "optim",  # optimizers and schedulers
    "data",  # datasets, DataLoader, shared memory and collation
    "backend",  # the devices' kernels and glue (cpu, cuda, no_cuda, meta): implement the slots, may use any op
    "top",  # ember/ember.h, the Python bindings and the tests
]

# Which layer a path is in: the first pattern that matches ("*" stays within a folder, "**" crosses folders).
RULES = [
    # Sources of a lower layer's headers that are written with ops: Tensor's op methods, printing, autocast's
    # casts, AMP's unscaling, the autograd engine and formulas, and the profiler naming kernels by their op enums.
    ("ember/tensor.cpp", "ops"),
    ("ember/format.cpp", "ops"),
    ("ember/autocast.cpp", "ops"),
    ("ember/amp.cpp", "ops"),
    ("ember/autograd/*.cpp", "ops"),
    ("ember/profiler/profiler.cpp", "ops"),
    ("ember/ember.h", "top"),
    ("ember/ops.h", "ops"),
    ("ember/*", "core"),
    ("ember/detail/**", "core"),  # element conversions and random formulas the kernels share
    ("ember/profiler/**", "core"),
    ("ember/backend/kernels/nn/**", "nn.functional"),
    ("ember/backend/kernels/**", "kernels"),
    # The elementwise formulas both devices compile (they see the op families' enums).
    ("ember/backend/math/**", "ops"),
    ("ember/backend/cpu/**", "backend"),
    ("ember/backend/cuda/**", "backend"),
    ("ember/backend/no_cuda/**", "backend"),
    ("ember/backend/meta/**", "backend"),
    ("ember/backend/*", "core"),  # the kernel registry, allocators, launch plans, BLAS layout rules
    ("ember/autograd/**", "autograd"),
    # An op family's identities (its table and enum: Note [Op tables]) are vocabulary the kernels' declarations and
    # the formulas share, below both; the ops' functions are the ops layer.
    ("ember/ops/*.def", "core"),
    ("ember/ops/*_op.h", "core"),
    ("ember/ops/**", "ops"),
    ("ember/serialize/**", "serialize"),
    ("ember/vision/**", "vision"),
    ("ember/distributed/**", "distributed"),
    ("ember/nn/functional.h", "nn.functional"),
    ("ember/nn/functional/**", "nn.functional"),
    ("ember/nn/modules.h", "nn.modules"),
    ("ember/nn/modules/**", "nn.modules"),
    ("ember/optim/**", "optim"),
    ("ember/data/**", "data"),
    ("python/src/**", "top"),
    ("tests/**", "top"),
]

# Known violations in files being rewritten elsewhere, each with the reason; an entry whose file exists but no longer
# has the violation is reported too, so that the list only shrinks.
EXCEPTIONS = {
    # The elementwise families (ops/unary.h, binary.h, ternary.h) still declare their enums and kernels in their
    # public headers; once those move to backend/kernels/, these includes point there instead.
    ("ember/autograd/formulas.h", "ember/ops/binary.h"): "the elementwise families' enums",
    ("ember/autograd/formulas.h", "ember/ops/ternary.h"): "the elementwise families' enums",
}

DEVICES = ("cpu", "cuda", "no_cuda", "meta")
ROOTS = ("ember", "python/src", "tests")
SOURCE_EXTS = (".h", ".hpp", ".cuh", ".cpp", ".cc", ".cu")
HEADER_EXTS = (".h", ".hpp", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"(ember/[^"]+)"')


def _compile(pattern):
    out = ""
    for part in re.split(r"(\*\*|\*)", pattern):
        out += ".*" if part == "**" else "[^/]*" if part == "*" else re.escape(part)
    return re.compile(out + r"\Z")


_RULES = [(_compile(p), layer) for p, layer in RULES]
_RANK = {name: i for i, name in enumerate(LAYERS)}


def layer_of(path):
    """The layer of a repository-relative path with forward slashes, or None when no rule names it."""
    for rx, layer in _RULES:
        if rx.match(path):
            return layer
    return None


def _device_of(path):
    parts = path.split("/")
    if len(parts) > 3 and parts[0] == "ember" and parts[1] == "backend" and parts[2] in DEVICES:
        return parts[2]
    return None


def _detail_owner(path):
    """The folder whose detail/ holds path ("ember/ops" for ember/ops/detail/util.h), or None."""
    parts = path.split("/")
    if "detail" in parts[:-1]:
        return "/".join(parts[: parts.index("detail")])
    return None


def _is_public_header(path):
    return (
        path.startswith("ember/")
        and path.endswith(HEADER_EXTS)
        and not path.startswith("ember/backend/")
        and _detail_owner(path) is None
    )


def check_include(src, included):
    """The reasons (possibly none) why `src` may not include `included`; both repository-relative."""
    problems = []
    have, want = layer_of(src), layer_of(included)
    if want is None:
        problems.append(f"includes {included}, which no layer rule names")
    elif have is not None and _RANK[want] > _RANK[have]:
        problems.append(f"layer {have} includes {included} of the higher layer {want}")
    device = _device_of(included)
    if device and _device_of(src) != device and not src.startswith("tests/"):
        problems.append(f"includes {included}, a header private to backend/{device}/")
    if _is_public_header(src):
        owner = _detail_owner(included)
        if owner is not None and owner != os.path.dirname(src):
            problems.append(f"public header includes {included}, a detail header of {owner}/")
        if included.startswith("ember/backend/kernels/"):
            problems.append(f"public header includes the kernel declarations {included}")
    return problems


def source_files(root):
    for top in ROOTS:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def violations(root):
    """One line per violation, as printed."""
    lines, used = [], set()
    for rel in source_files(root):
        if layer_of(rel) is None:
            lines.append(f"{rel}:1: no layer rule names this file (add one to RULES in scripts/check_layers.py)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                included = m.group(1)
                problems = check_include(rel, included)
                if problems and (rel, included) in EXCEPTIONS:
                    used.add((rel, included))
                    continue
                lines.extend(f"{rel}:{lineno}: {p}" for p in problems)
    for src, included in sorted(set(EXCEPTIONS) - used):
        if not os.path.exists(os.path.join(root, src)):
            continue
        lines.append(
            f"{src}:1: the exception for including {included} is no longer needed: remove it from "
            "EXCEPTIONS in scripts/check_layers.py"
        )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        help="the repository root (default: the parent of this script's folder)",
    )
    args = parser.parse_args(argv)
    lines = violations(args.root)
    for line in lines:
        print(line)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
