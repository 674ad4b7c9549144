#!/usr/bin/env python3
"""One line per GPU search of `run.sh search`: its best time beside cuBLAS and when the search
found it, when its first evaluation ended and what it measured, how busy it kept the GPU, whether any measured time fell below the model's bound, and how well the bound ranked the
candidates (Spearman's rank correlation of bound and time over those that checked ok).

    python3 bench/gpu/search_summary.py COMPARE_JSON RUN_DIR...

COMPARE_JSON is what compare.py wrote for the searches' best candidates (bench_gpu OUT RUN_DIR...):
the best PTX and cuBLAS timed kernel-only, the same way, in the same call. A bound violation is
an evaluation that checked ok in less than its bound divided by 1.02 (the noise the model step
allows), or the best whose kernel-only time is so far below the bound on its work (the bound less
the launch). Prints the lines and writes search_summary.json beside COMPARE_JSON.
"""
import json
import pathlib
import sys

NOISE = 1.02


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0] * len(values)
    for position, i in enumerate(order):
        out[i] = position
    return out


def rank_correlation(xs, ys):
    n = len(xs)
    if n < 3:
        return None
    d2 = sum((a - b) ** 2 for a, b in zip(ranks(xs), ranks(ys)))
    return round(1 - 6 * d2 / (n * (n * n - 1)), 3)


def summarize(run_dir, compared):
    header, evaluations, stats = None, [], None
    for line in (run_dir / "log.jsonl").read_text().splitlines():
        record = json.loads(line)
        kind = record.get("kind")
        if kind == "header":
            header = record
        elif kind == "evaluation":
            evaluations.append(record)
        elif kind == "stats":
            stats = record
    ok = [e for e in evaluations if e["check"] == "ok"]
    best = min(ok, key=lambda e: e["time_ns"]) if ok else None
    violations = [e["id"] for e in ok
                  if e.get("bound_ns") is not None and e["time_ns"] * NOISE < e["bound_ns"]]
    bounded = [e for e in ok if e.get("bound_ns") is not None]
    size = "x".join(str(v) for v in header["sizes"].values())
    case = next((c for c in compared if c["name"].endswith(size) or
                 (header["kernel"] == "axpy" and c["name"].startswith("axpy"))), None)
    # The best timed kernel-only, against the bound on its work (without the launch).
    if case and case.get("below_bound"):
        violations.append(f"{best['id']} (kernel-only {case['sculpt_kernel_us']} us, "
                          f"the bound's work {case['bound_work_us']} us)")
    return {
        "kernel": header["kernel"],
        "size": size,
        "algorithm": header.get("algorithm"),
        "evaluations": len(evaluations),
        "ok": len(ok),
        "best_id": best and best["id"],
        "best_search_us": best and round(best["time_ns"] / 1e3, 2),
        # When the search found it: a search that stalls finds its best early.
        "best_found_s": best and round(best["t"], 1),
        # The first evaluation (MCTS's opening on a GPU): when it ended, its time and its bound.
        "first_s": evaluations and round(evaluations[0]["t"], 1),
        "first_check": evaluations and evaluations[0]["check"],
        "first_us": evaluations and evaluations[0].get("time_ns") and
        round(evaluations[0]["time_ns"] / 1e3, 1),
        "first_bound_us": evaluations and evaluations[0].get("bound_ns") and
        round(evaluations[0]["bound_ns"] / 1e3, 1),
        "best_kernel_us": case and case["sculpt_kernel_us"],
        "cublas_kernel_us": case and case["cublas_kernel_us"],
        "ratio_to_cublas": case and case["ratio"],
        "device_idle_share": stats and round(stats["device_idle_share"], 4),
        "evaluations_per_s": stats and round(stats["evaluations_per_s"], 2),
        "rollouts_per_s": stats and round(stats["rollouts_per_s"], 2),
        "bound_violations": violations,
        "bound_rank_correlation": rank_correlation([e["bound_ns"] for e in bounded],
                                                   [e["time_ns"] for e in bounded]),
    }


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: search_summary.py COMPARE_JSON RUN_DIR...")
    compare_path = pathlib.Path(sys.argv[1])
    compared = json.loads(compare_path.read_text())["cases"] if compare_path.exists() else []
    rows = [summarize(pathlib.Path(d), compared) for d in sys.argv[2:]]
    for r in rows:
        print(f"{r['kernel']} {r['size']}: {r['evaluations']} evaluations ({r['ok']} ok), "
              f"best {r['best_kernel_us']} us kernel-only ({r['best_search_us']} us in the search, "
              f"found after {r['best_found_s']} s; the first evaluation {r['first_check']} "
              f"at {r['first_s']} s, {r['first_us']} us, bound {r['first_bound_us']} us), "
              f"cuBLAS {r['cublas_kernel_us']} us, ratio {r['ratio_to_cublas']}, "
              f"GPU idle {r['device_idle_share']}, {len(r['bound_violations'])} bound violations, "
              f"bound's rank correlation with the times {r['bound_rank_correlation']}")
    (compare_path.parent / "search_summary.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
