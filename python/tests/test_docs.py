"""Docs that run: every ```python block of README.md and docs/*.md runs as a complete program (the convention is
docs/contributing.md's "Docs that run").

Each block runs in a fresh interpreter, as the script `__main__`, with a new temporary directory as the working
directory, and must exit 0. A `print(...)` statement whose line ends in a `# -> text` comment must print `text`; a
long output may continue on `# -> ...` lines of their own right after the print. The printed text and the comment's
text are compared with runs of whitespace made one space (none after an opening or before a closing bracket), and
`0x...` in the comment matches any hex address (`<SumBackward0 object at 0x...>`). A print that runs several times
prints the concatenation of its outputs; prints in other processes are not checked.

An HTML comment on the line before the fence marks a block that cannot run here: `<!-- docs-test: needs-gpu -->`
(runs where ember.cuda.is_available()), `<!-- docs-test: needs-processes -->` (a launcher's or several machines'
job), `<!-- docs-test: skip: reason -->`. Blocks that are not programs (shell commands, output, C++) carry another
language tag: ```bash, ```text, ```cpp.

The test ids name the file and the block's index among the page's Python blocks (`docs/nn.md:0`), so
`pytest -v -rs` lists what ran and what was skipped and why. The blocks run concurrently (a pool of interpreters as
wide as the CPU count), each test waiting for its own.
"""

import ast
import concurrent.futures
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

import pytest

import ember

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT = 120  # seconds per block; together they take seconds (keep examples small)

_FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)")
_MARKER = re.compile(r"<!--\s*docs-test:\s*(needs-gpu|needs-processes|skip)\s*(?::\s*(.*?))?\s*-->")
_EXPECT = re.compile(r"#\s*->\s?(.*)$")

# The block runs under runpy as __main__ (multiprocessing's spawn re-imports it like a script); print is wrapped to
# record what each line of the block printed to stdout, by line number, into the JSON file named by argv[2].
_RUNNER = r"""
import builtins, io, json, runpy, sys
path, record = sys.argv[1], sys.argv[2]
out = {}
_print = builtins.print
def print(*args, sep=" ", end="\n", file=None, flush=False):
    frame = sys._getframe(1)
    if file is None and frame.f_code.co_filename == path:
        buf = io.StringIO()
        _print(*args, sep=sep, end=end, file=buf)
        out.setdefault(frame.f_lineno, []).append(buf.getvalue())
    _print(*args, sep=sep, end=end, file=file, flush=flush)
builtins.print = print
try:
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")
finally:
    with open(record, "w") as f:
        json.dump(out, f)
"""


class Block:
    def __init__(self, page, index, line, code, marker):
        self.page, self.index, self.line, self.code, self.marker = page, index, line, code, marker
        self.id = f"{page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name}:{index}"

    def skip_reason(self):
        if self.marker is None:
            return None
        kind, reason = self.marker
        if kind == "needs-gpu":
            return None if ember.cuda.is_available() else "needs-gpu: no CUDA device here"
        if kind == "needs-processes":
            return "needs-processes: several processes launched together" + (f" ({reason})" if reason else "")
        return f"skip: {reason or 'no reason given'}"


def extract_blocks(page):
    """The ```python blocks of a Markdown page, with the docs-test marker on the line before each (if any)."""
    blocks, lines = [], page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = m.group(1), m.group(2), i
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        if lang != "python":
            continue
        prev = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = _MARKER.search(prev)
        marker = (marker.group(1), marker.group(2)) if marker else None
        blocks.append(Block(page, len(blocks), start + 1, "\n".join(body) + "\n", marker))
    return blocks


def expected_outputs(code):
    """[(first line, last line, expected text)] for each `print(...)  # -> text` statement of the block.

    The comment is on one of the statement's lines, or on lines of their own right after it (several such lines
    are joined with a space: long outputs)."""
    comments, own_line = {}, set()
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            m = _EXPECT.match(tok.string)
            if m:
                comments[tok.start[0]] = m.group(1)
                if not tok.line[: tok.start[1]].strip():
                    own_line.add(tok.start[0])
    found = []
    for node in ast.walk(ast.parse(code)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "print"
        ):
            lines = [n for n in range(node.lineno, node.end_lineno + 1) if n in comments]
            n = node.end_lineno + 1
            while n in own_line:
                lines.append(n)
                n += 1
            if lines:
                found.append((node.lineno, node.end_lineno, " ".join(comments.pop(n) for n in lines)))
    assert not comments, f"`# ->` comments on lines {sorted(comments)} that belong to no print(...) statement"
    return sorted(found)


def _normalise(text):
    # One space for each run of whitespace, none inside brackets' edges: "tensor([ 3., 12.])" == "tensor([3., 12.])".
    return re.sub(r"([\[(]) | (?=[\])])", r"\1", " ".join(text.split()))


def matches(printed, expected):
    """Whitespace-insensitive equality; `0x...` in `expected` matches any hex address."""
    parts = [re.escape(p) for p in _normalise(expected).split("0x...")]
    return re.fullmatch("0x[0-9a-fA-F]+".join(parts), _normalise(printed)) is not None


def run_block(block):
    with tempfile.TemporaryDirectory(prefix="ember-docs-") as tmp:
        name = re.sub(r"\W", "_", block.id) + ".py"
        script, record = os.path.join(tmp, name), os.path.join(tmp, name + ".json")
        # Line numbers of the script are those of the block; a traceback names the page's line in the header.
        with open(script, "w") as f:
            f.write(block.code)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _RUNNER, script, record],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired as e:
            return None, f"timed out after {TIMEOUT} s\n{e.stdout}\n{e.stderr}", {}
        printed = {}
        if os.path.exists(record):
            with open(record) as f:
                printed = {int(k): v for k, v in json.load(f).items()}
        return proc.returncode, proc.stdout + proc.stderr, printed


ALL_BLOCKS = [b for page in PAGES for b in extract_blocks(page)]


@pytest.fixture(scope="session")
def _pool(request):
    """Starts every selected block at once (a pool as wide as the CPU count); a test waits for its own."""
    selected = [
        item.callspec.params["block"]
        for item in request.session.items
        if getattr(item, "callspec", None) is not None
        and isinstance(item.callspec.params.get("block"), Block)
        and item.callspec.params["block"].skip_reason() is None
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        yield {b.id: ex.submit(run_block, b) for b in selected}


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(b, id=b.id, marks=[pytest.mark.skip(reason=b.skip_reason())] if b.skip_reason() else [])
        for b in ALL_BLOCKS
    ],
)
def test_block_runs(block, _pool):
    assert check(block, _pool[block.id].result()) == []


def check(block, result):
    """What is wrong with a block's run: its exit status, then each `# ->` print that printed something else."""
    rc, output, printed = result
    where = f"{block.id} (the ```python block at line {block.line} of {block.page.name})"
    if rc != 0:
        return [f"{where} failed (exit {rc}):\n{output}"]
    wrong = []
    for first, last, expected in expected_outputs(block.code):
        lines = [n for n in printed if first <= n <= last]
        got = "".join(text for n in sorted(lines) for text in printed[n])
        if not lines:
            wrong.append(f"{where}: the print at block line {first} did not run")
        elif not matches(got, expected):
            wrong.append(f"{where}, block line {first}: printed\n{got}\nthe comment says\n{expected}")
    return wrong


def test_every_page_has_an_example():
    pages = {p.relative_to(ROOT).as_posix() for p in PAGES if p.name != "README.md"}
    fenced = {
        p.relative_to(ROOT).as_posix()
        for p in PAGES
        if re.search(r"^\s*```(python|cpp)\s*$", p.read_text(), re.MULTILINE)
    }
    assert sorted(pages - fenced) == []


def test_conventions():
    assert matches("<SumBackward1 object at 0x7f3a2c>", "<SumBackward1 object at 0x...>")
    assert matches("tensor([[0., 3.],\n        [1., 4.]])", "tensor([[0., 3.], [1., 4.]])")
    assert not matches("tensor([1.])", "tensor([2.])")
    assert matches("tensor([ 3., 12.]) (1, 0)", "tensor([3., 12.])  ( 1, 0 )")
    code = "x = 1\nprint(x,\n      x)  # -> 1 1\nprint(2)  # a plain comment\nprint(3)\n# -> 3\n    # -> 4\n"
    assert expected_outputs(code) == [(2, 3, "1 1"), (5, 5, "3 4")]
    with pytest.raises(AssertionError, match="belong to no print"):
        expected_outputs("x = 1  # -> 1\n")
    page_text = "<!-- docs-test: skip: downloads -->\n```python\nprint(1)\n```\n```text\nout\n```\n"
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.md"
        page.write_text(page_text)
        (b,) = extract_blocks(page)
    assert b.marker == ("skip", "downloads") and b.code == "print(1)\n" and b.line == 2 and b.id == "page.md:0"
    procs = Block(page, 1, 1, "", ("needs-processes", None))
    assert procs.skip_reason() == "needs-processes: several processes launched together"
    gpu = Block(page, 2, 1, "", ("needs-gpu", None))
    assert (gpu.skip_reason() is None) == ember.cuda.is_available()


def test_runner_checks_prints(tmp_path):
    code = (
        "import sys\n"
        "print('a',\n"
        "      [1,  2])  # -> a [1, 2]\n"
        "for i in range(2):\n"
        "    print(i)  # -> 0 1\n"
        "print(object())  # -> <object object at 0x...>\n"
        "print('x', file=sys.stderr)\n"
        "print(3)  # -> 4\n"
        "if False:\n"
        "    print(5)  # -> 5\n"
    )
    block = Block(tmp_path / "page.md", 0, 1, code, None)
    wrong = check(block, run_block(block))
    assert len(wrong) == 2, wrong
    assert "block line 8: printed\n3\n\nthe comment says\n4" in wrong[0]
    assert "the print at block line 10 did not run" in wrong[1]
    failing = Block(tmp_path / "page.md", 1, 1, "raise SystemExit(3)\n", None)
    assert "failed (exit 3)" in check(failing, run_block(failing))[0]
