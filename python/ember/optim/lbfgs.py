"""L-BFGS with an optional strong-Wolfe line search (PyTorch's LBFGS). The iteration's control flow is scalar
Python; every vector operation (dot products, updates of the flat direction and history) is an ember op."""

import math

import ember

from .optimizer import Optimizer


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to `bounds` (default:
    the interval); the interval's midpoint when the cubic has no minimum (Nocedal & Wright, eq. 3.59)."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2
    d2 = math.sqrt(disc)
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


class _Point:
    """A trial step t with its loss, flat gradient and directional derivative."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, t, d, f0, g0, gtd0, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Finds a step t along d satisfying the strong Wolfe conditions (Nocedal & Wright, algorithms 3.5 and 3.6):
    bracket by extrapolation, then zoom by cubic interpolation. Returns (loss, flat grad, t, evaluations)."""
    d_norm = d.abs().max().item()
    start = _Point(0.0, f0, g0.clone(), gtd0)

    def at(step):
        f, g = evaluate(step)
        return _Point(step, f, g, g.dot(d).item())

    prev, cur = start, at(t)
    evals, it = 1, 0
    bracket, done = None, False
    while it < max_ls:
        if cur.f > f0 + c1 * cur.t * gtd0 or (it > 1 and cur.f >= prev.f):
            bracket = [prev, cur]
            break
        if abs(cur.gtd) <= -c2 * gtd0:
            bracket, done = [cur], True
            break
        if cur.gtd >= 0:
            bracket = [prev, cur]
            break
        nxt = _cubic_min(
            prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd, bounds=(cur.t + 0.01 * (cur.t - prev.t), cur.t * 10)
        )
        prev, cur = cur, at(nxt)
        evals += 1
        it += 1
    if bracket is None:
        bracket = [start, cur]

    # Zoom: shrink [low, high] keeping the lower loss at `low`, until a point satisfies both conditions.
    insufficient = False
    while not done and it < max_ls:
        low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
        a, b = bracket
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        step = _cubic_min(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        lo_t, hi_t = min(a.t, b.t), max(a.t, b.t)
        margin = 0.1 * (hi_t - lo_t)
        if min(hi_t - step, step - lo_t) < margin:
            # Too close to an end: after a second time (or outside), move a margin inside.
            if insufficient or step >= hi_t or step <= lo_t:
                step = hi_t - margin if abs(step - hi_t) < abs(step - lo_t) else lo_t + margin
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        p = at(step)
        evals += 1
        it += 1
        if p.f > f0 + c1 * p.t * gtd0 or p.f >= bracket[low].f:
            bracket[high] = p
        else:
            if abs(p.gtd) <= -c2 * gtd0:
                done = True
            elif p.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = p
    best = min(bracket, key=lambda q: q.f) if len(bracket) > 1 else bracket[0]
    if len(bracket) > 1 and bracket[0].f == bracket[1].f:
        best = bracket[0]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS. `step(closure)` needs a closure that zeroes the gradients, computes the loss, calls
    backward and returns the loss; all parameters form one group."""

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return ember.cat(
            [p.grad.reshape(-1) if p.grad is not None else ember.zeros(p.numel(), dtype=p.dtype) for p in self._params]
        )

    def _add(self, step, direction):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset : offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluate(self, closure):
        with ember.enable_grad():
            return float(closure())

    def step(self, closure):
        if closure is None:
            raise RuntimeError("LBFGS.step requires a closure that re-evaluates the model and returns the loss")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search = group["history_size"], group["line_search_fn"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with ember.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max().item() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                # Update the curvature pairs (skipped when y.s is not positive enough), then the two-loop recursion.
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s).item()
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y).item()
                alphas = [0.0] * len(old_dirs)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    alphas[i] = old_stps[i].dot(q).item() * ro[i]
                    q.add_(old_dirs[i], alpha=-alphas[i])
                d = q * H_diag
                for i in range(len(old_dirs)):
                    beta = old_dirs[i].dot(d).item() * ro[i]
                    d.add_(old_stps[i], alpha=alphas[i] - beta)
                state["al"] = alphas
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss

            t = min(1.0, 1.0 / flat_grad.abs().sum().item()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d).item()
            if gtd > -tolerance_change:
                break

            ls_evals = 0
            if line_search is not None:
                x0 = [p.clone() for p in self._params]

                def evaluate(step):
                    self._add(step, d)
                    f = self._evaluate(closure)
                    g = self._flat_grad()
                    for p, x in zip(self._params, x0):
                        p.copy_(x)
                    return f, g

                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    evaluate, t, d, loss, flat_grad, gtd, tolerance_change=tolerance_change
                )
                self._add(t, d)
                opt_cond = flat_grad.abs().max().item() <= tolerance_grad
            else:
                self._add(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max().item() <= tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if (d * t).abs().max().item() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=H_diag,
            prev_flat_grad=prev_flat_grad,
            prev_loss=prev_loss,
        )
        return orig_loss
