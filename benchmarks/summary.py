"""The summary table scripts/bench prints at the end: per benchmark, the geometric mean of ember's time over
PyTorch's best configuration's, the worst case, and how many cases ember is slower on. Run by scripts/bench with the
file the benchmarks appended their rows to (EMBER_BENCH_SUMMARY)."""

import json
import math
import sys


def main(path):
    with open(path) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    if not runs:
        print("summary: no benchmark compared with PyTorch")
        return
    print(f"\nsummary: ember (2 threads) / PyTorch {runs[0]['torch']}'s best configuration (below 1.00: ember faster)")
    print(f"{'benchmark':<18}{'cases':>6}{'geo. mean':>11}{'worst':>8}  {'worst case':<34}{'slower on':>10}")
    for run in runs:
        ratios = [r["ember"] / r["torch"] for r in run["rows"]]
        worst = max(range(len(ratios)), key=ratios.__getitem__)
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        slower = sum(r > 1.0 for r in ratios)
        print(
            f"{run['benchmark']:<18}{len(ratios):>6}{geo:>11.2f}{ratios[worst]:>8.2f}  "
            f"{run['rows'][worst]['case']:<34}{slower:>10}"
        )


if __name__ == "__main__":
    main(sys.argv[1])
