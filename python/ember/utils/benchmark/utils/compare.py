"""Compare (torch.utils.benchmark.Compare): Measurements as one table per label, rows per sub_label (grouped by
thread count), columns per description, optionally trimmed to significant figures and colored."""

import enum
import math

from ember.utils.benchmark.utils import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class _Column:
    """One description's cells: a number format wide enough for the column, as many decimals as the figures
    support when trimming."""

    def __init__(self, grouped_results, time_scale, trim_significant_figures, highlight_warnings):
        self._grouped_results = grouped_results
        flat = [r for g in grouped_results for r in g]
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = [int(math.ceil(math.log10(r.median / time_scale))) if r else None for r in flat]
        unit_digits = max(d for d in leading if d is not None)
        if trim_significant_figures:
            decimals = min(
                max(m.significant_figures - d, 0) for d, m in zip(leading, flat) if m is not None and d is not None
            )
        else:
            decimals = 1
        length = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{length}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        return self._template.format(value, f" (! {spread * 100:.0f}%)" if self._highlight and spread else "")


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize, num_threads):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._num_threads = num_threads
        self._columns = ()

    def as_column_strings(self):
        first = next(r for r in self._results if r is not None)
        env = (f"({first.env})" if self._render_env else "").ljust(self._env_str_len + 4)
        out = ["  " + env + first.as_row_name]
        for m, col in zip(self._results, self._columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                out.append(
                    col.num_to_str(
                        m.median / self._time_scale, m.significant_figures, m.iqr / m.median if m.has_warnings else None
                    )
                )
        return out

    @staticmethod
    def color_segment(segment, value, best):
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, width):
        return [f"{self._num_threads} threads: ".ljust(width, "-")] if self._num_threads is not None else []

    def finalize(self, strings, widths):
        if self._colorize == Colorize.ROWWISE:
            best = [min(r.median for r in self._results if r is not None)] * len(self._columns)
        elif self._colorize == Colorize.COLUMNWISE:
            best = []
            for col in self._columns:
                vals = [r.median for r in col.get_results_for(self._row_group) if r is not None]
                best.append(min(vals) if vals else None)
        else:
            best = [None] * len(self._columns)
        cells = [strings[0].ljust(widths[0])]
        for s, w, r, b in zip(strings[1:], widths[1:], self._results, best):
            s = s.center(w)
            if self._colorize != Colorize.NONE and r is not None and b is not None:
                s = self.color_segment(s, r.median, b)
            cells.append(s)
        return cells


class _Table:
    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        self.results = results
        self.label = results[0].label
        self._highlight = highlight_warnings
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        row_keys = common.ordered_unique([(r.num_threads, r.env, r.as_row_name) for r in results])
        row_keys.sort(key=lambda k: k[:2])  # stable: statement order kept within a thread count and env
        col_keys = common.ordered_unique([r.description for r in results])
        self.column_keys = col_keys
        cells = [[None] * len(col_keys) for _ in row_keys]
        row_pos = {k: i for i, k in enumerate(row_keys)}
        col_pos = {k: i for i, k in enumerate(col_keys)}
        for r in results:
            cells[row_pos[(r.num_threads, r.env, r.as_row_name)]][col_pos[r.description]] = r
        envs = {r.env for r in results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        self.rows, groups = [], []
        prior_threads, prior_env = None, ""
        for (threads, env, _), row in zip(row_keys, cells):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                groups.append([])
            self.rows.append(
                _Row(
                    row,
                    len(groups) - 1,
                    render_env and env != prior_env,
                    env_len,
                    self.time_scale,
                    colorize,
                    threads if new_group else None,
                )
            )
            groups[-1].append(row)
            prior_env = env
        self.columns = tuple(
            _Column(
                [tuple(row[i] for row in g) for g in groups],
                self.time_scale,
                trim_significant_figures,
                highlight_warnings,
            )
            for i in range(len(col_keys))
        )
        for row in self.rows:
            row._columns = self.columns

    def render(self):
        string_rows = [[""] + [str(k) if k is not None else "" for k in self.column_keys]]
        string_rows += [row.as_column_strings() for row in self.rows]
        ncols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (ncols - len(r)))
        widths = [max(len(c) for c in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(c.center(w) for c, w in zip(string_rows[0], widths))]
        width = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines += row.row_separator(width)
            lines.append("  |  ".join(row.finalize(strings, widths)))
        warn = self._highlight and any(r.has_warnings for r in self.results)
        title = (" " + (self.label or "") + " ").center(width - 2, "-")
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warn else ""
        return (
            f"[{title}]\n"
            + "\n".join(lines)
            + f"\n\nTimes are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).\n{note}"
        )


class Compare:
    """Measurements side by side: Compare(results).print()."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = {}
        for r in common.Measurement.merge(self._results):
            by_label.setdefault(r.label, []).append(r)
        return [
            _Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
            for group in by_label.values()
        ]
