#!/usr/bin/env python3
"""Fuzzes the `sculpt` command line as a hostile user would: random subcommands, options and
values (long, deep, wide, malformed, special files), each run as its own process with a time limit.

Every run must end within the limit with exit code 0, 1 or 2, a message on standard error when it
fails, no sanitizer report, and no file of the user's changed (the sentinels below). Run it on a
sanitized build (README.md, "Fuzzing"):

    tests/explorer/fuzz/cli_fuzz.py --sculpt build-fuzz/bin/sculpt --minutes 15 --jobs 2

Findings go to --findings (JSON lines: the arguments, the exit code, the end of standard error),
so that each can be run again by hand.
"""
import argparse
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

KERNELS = ["axpy", "matmul", "mv", "gesummv", "tbmm", "mlp2", "matmul_bias_relu", "nope", ""]
SIZES = ["64", "16x16x16", "8x8x8x8", "1024x1024x1024", "0", "-1", "1x", "x", "64x", "1e3",
         "99999999999999999999", "4294967297x2x2", "2x2", " 64", "64 ", "0x40", "N=64", "N=64,N=2"]
DURATIONS = ["1s", "2s", "0s", "-1s", "1h30", "90", "1e9s", "", "1m", "200ms", "0.5s", "nan s",
             "1s1s1s1s", "9" * 400 + "h"]
NUMBERS = ["0", "1", "2", "3", "-1", "010", "0x10", "1e3", "inf", "nan", "", " ", "2147483648",
           "9223372036854775808", "18446744073709551616", "1.5", "+3", "3 ", "٣", "-0"]
SHARES = ["0", "0.25", "1", "1.5", "-0.1", "nan", "inf", "0x1p-2", "", "1e-400", ".5", "5."]
TC_BODIES = [
    "Y(i) = X(i) * 2",
    "Y(i) +=! X(i, k) where k in 0:N",
    "Y(i) = " + "-" * 70 + "X(i)",
    "Y(i) = " + "(" * 70 + "X(i)" + ")" * 70,
    "Y(i) = " + " + ".join(["X(i)"] * 300),
    "Y(i) = " + " + ".join(["X(i)"] * 24),
    "Y(i) = !X(i) ? 1 : 0",
    "return(i) = X(i)",
    "Y(i) = X(i + 1000000000000)",
    "Y(i) = X(i) / 0",
    "Y(i) = tanh(X(i))",
]


def tc(body, params="float(N) X"):
    return f"def f({params}) -> (Y) {{ {body} }}"


class Scratch:
    """The files the runs use and the sentinels that must stay as they are."""

    def __init__(self, root, sculpt):
        self.root = root
        self.cwd = os.path.join(root, "cwd")
        self.env = dict(os.environ, HOME=os.path.join(root, "home"),
                        XDG_CACHE_HOME=os.path.join(root, "cache"),
                        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86",
                        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
        for d in (self.cwd, self.env["HOME"], self.env["XDG_CACHE_HOME"]):
            os.makedirs(d, exist_ok=True)
        self.run = os.path.join(root, "run")
        subprocess.run([sculpt, "search", "--kernel", "axpy", "--size", "64", "--device", "cpu",
                        "--description", "cpu", "--evals", "4", "--out", self.run],
                       env=self.env, cwd=self.cwd, capture_output=True, timeout=300, check=True)
        # Reading a CPU log measures this machine's CPU once (seconds, longer under the
        # sanitizers) into the cache: measured here, so that no timed run is killed measuring and
        # leaves the next to measure again.
        subprocess.run([sculpt, "bound", self.run], env=self.env, cwd=self.cwd,
                       capture_output=True, timeout=300, check=True)
        with open(os.path.join(self.run, "log.jsonl"), "rb") as f:
            self.log = f.read()
        self.logs = self._damaged_logs()
        self.defs = []
        for i, body in enumerate(TC_BODIES):
            path = os.path.join(root, f"def{i}.tc")
            with open(path, "w") as f:
                f.write(tc(body) + "\n")
            self.defs.append(path)
        self.fifo = os.path.join(root, "fifo")
        os.mkfifo(self.fifo)
        self.link = os.path.join(root, "link")
        os.symlink(os.path.join(root, "link-target"), self.link)
        self.users = os.path.join(root, "users")
        os.makedirs(self.users)
        with open(os.path.join(self.users, "best.c"), "w") as f:
            f.write("mine\n")
        self.outs = 0

    def _damaged_logs(self):
        lines = self.log.split(b"\n")
        variants = {
            "truncated": self.log[:-7],
            "crlf": self.log.replace(b"\n", b"\r\n"),
            "empty": b"",
            "nul": b"\0" * 5000,
            "swapped": b"\n".join([lines[1], lines[0]] + lines[2:]),
            "header-only": lines[0] + b"\n",
            "long": lines[0] + b"\n" + b"[" * 200000 + b"\n",
            "doubled": self.log + self.log,
            "flipped": bytes(b ^ 0x20 if i % 97 == 5 else b for i, b in enumerate(self.log)),
        }
        out = []
        for name, text in variants.items():
            d = os.path.join(self.root, "logs", name)
            os.makedirs(d)
            shutil.copy(os.path.join(self.run, "best.c"), d)
            with open(os.path.join(d, "log.jsonl"), "wb") as f:
                f.write(text)
            out.append(d)
        return out

    def out_path(self):
        self.outs += 1
        return os.path.join(self.root, "outs", str(self.outs))

    def sentinels_intact(self):
        with open(os.path.join(self.users, "best.c")) as f:
            mine = f.read() == "mine\n" and os.listdir(self.users) == ["best.c"]
        return (mine and stat.S_ISFIFO(os.lstat(self.fifo).st_mode)
                and os.path.islink(self.link) and not os.path.exists(self.link + "-target"))


def pick(rng, values):
    return rng.choice(values)


def long_value(rng):
    unit = pick(rng, ["x", "1", "(", "-", "é", "%s", "../", ",", "x=1,"])
    return unit * rng.choice([100, 5000, 60000])


def log_arg(rng, s):
    return pick(rng, [s.run, os.path.join(s.run, "log.jsonl"), "/dev/zero", "/dev/null", s.fifo,
                      s.link, s.users, "/", "", "nonexistent", s.defs[0]] + s.logs)


def out_arg(rng, s):
    return pick(rng, [s.out_path(), s.fifo, s.link, s.users, s.out_path() + "/a/b/c", "",
                      s.defs[0] + "/x", long_value(rng)[:200]])


def search_args(rng, s):
    args = ["search"]
    source = rng.random()
    if source < 0.6:
        args += ["--kernel", pick(rng, KERNELS)]
    elif source < 0.8:
        args += ["--def", pick(rng, s.defs + [s.fifo, "/dev/zero", s.users])]
        if rng.random() < 0.5:
            args += ["--kernel", "f"]
    else:
        args += ["--expr", pick(rng, [tc(pick(rng, TC_BODIES)), long_value(rng), ""])]
    # Work stays small: the stand-in device mostly, few evaluations, short budgets.
    device = pick(rng, ["stand-in"] * 6 + ["cpu", "cuda", "auto", "gpu", ""])
    args += ["--device", device]
    if device == "cpu":
        args += ["--size", pick(rng, ["N=64", "64", "16x16x16", "8x8x8x8"]), "--description",
                 "cpu"]
    elif rng.random() < 0.7:
        args += ["--size", pick(rng, SIZES + [long_value(rng)])]
    # A stand-in search of mlp2 takes 0.4 s an evaluation in an optimized build, ten times that
    # under the sanitizers: the zoo's larger spaces get one evaluation.
    large = any(k in args for k in ("mlp2", "gesummv", "matmul_bias_relu", "tbmm", "f"))
    args += ["--evals", pick(rng, ["1", "0", "-1", "0x1"] if large
                             else ["1", "2", "3", "0", "-1", "0x3", "010"])]
    args += ["--out", out_arg(rng, s)]
    options = [
        lambda: ["--budget", pick(rng, DURATIONS)],
        lambda: ["--threads", pick(rng, NUMBERS + ["4", "256", "257", "100000"])],
        lambda: ["--screen", pick(rng, NUMBERS)],
        lambda: ["--seed", pick(rng, NUMBERS)],
        lambda: ["--cutoff", pick(rng, SHARES + ["4", "0x10"])],
        lambda: ["--local", pick(rng, SHARES)],
        lambda: ["--wide", pick(rng, SHARES)],
        lambda: ["--algorithm", pick(rng, ["mcts", "bb", "random", "", "MCTS", "nope"])],
        lambda: ["--policy", pick(rng, ["tag", "uct", "x", ""])],
        lambda: ["--order", pick(rng, ["dim_kind", "nope", "", ",,,", "dim_kind," * 2000])],
        lambda: ["--resume"],
        lambda: ["--start-from", log_arg(rng, s)] * rng.choice([1, 1, 3, 300]),
        lambda: ["--description", pick(rng, ["sm_90", "h200", "cpu", "", s.defs[0], "/dev/zero",
                                             s.fifo, "nope"])],
        lambda: ["--stand-in-latency", pick(rng, DURATIONS)],
        lambda: [pick(rng, ["--nope", "-x", "--evals", "--", "-"])],
    ]
    for _ in range(rng.randint(0, 4)):
        args += pick(rng, options)()
    return args


def other_args(rng, s):
    command = pick(rng, ["kernels", "estimate", "replay", "report", "bound", "characterize",
                         "nope", "", "--help", "--version"])
    args = [command] if command else []
    if command == "kernels":
        shape = rng.random()
        if shape < 0.3:
            args += [pick(rng, KERNELS)]
        elif shape < 0.7:
            args += ["--def", pick(rng, s.defs + ["/dev/zero", s.fifo, s.users, "nonexistent"])]
        else:
            args += ["--expr", pick(rng, [tc(pick(rng, TC_BODIES)), long_value(rng)])]
        if rng.random() < 0.5:
            args += ["--size", pick(rng, SIZES)]
        if rng.random() < 0.3:
            args += [pick(rng, ["--backbone", "--dependences"])]
    elif command == "estimate":
        kernel = pick(rng, KERNELS)
        args += ["--kernel", kernel, "--samples", pick(rng, ["1", "5", "0", "-1", "0x5", "20"]),
                 "--jobs", pick(rng, ["1", "2", "0", "-1", "100000"])]
        if rng.random() < 0.5:
            args += ["--size", pick(rng, SIZES)]
        # Chen's probes take seconds each on the larger spaces, ten times that under the
        # sanitizers: work asked for, not a hang.
        if kernel == "axpy":
            args += ["--method", pick(rng, ["knuth", "chen", "both", "x"]), "--probes",
                     pick(rng, ["1", "2", "0"])]
        else:
            args += ["--method", pick(rng, ["knuth", "x"])]
        if rng.random() < 0.3:
            args += ["--cut", pick(rng, DURATIONS + ["55.5us"]), "--depth",
                     pick(rng, ["1", "3", "0", "-1", "100000"])]
    elif command in ("replay", "report", "bound"):
        args += [log_arg(rng, s)]
        if command == "replay":
            if rng.random() < 0.4:
                args += pick(rng, [["--best", pick(rng, NUMBERS)], ["--id", pick(rng, NUMBERS)]])
            if rng.random() < 0.4:
                args += ["--emit", pick(rng, ["c", "ptx", "cuda", "x"])]
            if rng.random() < 0.2:
                args += ["--measure", "--device", pick(rng, ["cpu", "cuda", "x"])]
        elif command == "report":
            if rng.random() < 0.6:
                args += ["--out", out_arg(rng, s)]
            if rng.random() < 0.3:
                args += ["--top", pick(rng, NUMBERS + ["1000", "1001"])]
        else:
            if rng.random() < 0.4:
                args += ["--id", pick(rng, NUMBERS)]
            if rng.random() < 0.3:
                args = ["bound", "--kernel", pick(rng, KERNELS), "--size", pick(rng, SIZES)]
            if rng.random() < 0.3:
                args += ["--counts"]
        if rng.random() < 0.2:
            args += ["--description", pick(rng, ["sm_90", "cpu", "", "/dev/zero", s.fifo])]
    elif command == "characterize":
        args += ["--device", pick(rng, ["cpu", "cuda", "x"]), "--quick"]
        if rng.random() < 0.7:
            args += ["--out", out_arg(rng, s)]
    if rng.random() < 0.1:
        args.insert(0, pick(rng, ["-v", "-vv", "--verbose"]))
    return args


def arguments(rng, s):
    """A command line within what Linux passes to a program (128 KiB an argument, 2 MiB in all)."""
    while True:
        args = search_args(rng, s) if rng.random() < 0.5 else other_args(rng, s)
        sizes = [len(a.encode()) + 1 for a in args]
        if sum(sizes) < 1 << 20 and max(sizes, default=0) < 1 << 17:
            return args


SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:", "terminate called", "Segmentation fault")


# `characterize` measures the machine for seconds by design, more under the sanitizers.
MEASURING_TIMEOUT = 120


def check(args, s, sculpt, timeout):
    """Runs one command line: (None, seconds) when it behaved, else (why, seconds)."""
    if "characterize" in args:
        timeout = max(timeout, MEASURING_TIMEOUT)
    start = time.monotonic()
    try:
        p = subprocess.run([sculpt] + args, env=s.env, cwd=s.cwd, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"ran past {timeout} s", timeout
    seconds = time.monotonic() - start
    err = p.stderr.decode(errors="replace")
    if any(mark in err for mark in SANITIZER_MARKS):
        return "a sanitizer report or a crash message", seconds
    if p.returncode not in (0, 1, 2):
        return f"exit code {p.returncode}", seconds
    if p.returncode == 2 and not err.strip():
        return "exit code 2 and no message", seconds
    return None, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sculpt", required=True)
    parser.add_argument("--minutes", type=float, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10)
    parser.add_argument("--findings", default="cli-fuzz-findings.jsonl")
    o = parser.parse_args()
    sculpt = os.path.abspath(o.sculpt)
    root = tempfile.mkdtemp(prefix="sculpt-cli-fuzz-")
    s = Scratch(root, sculpt)
    rng = random.Random(o.seed)
    lock = threading.Lock()
    stats = {"runs": 0, "findings": 0, "slowest": (0.0, [])}
    end = time.monotonic() + 60 * o.minutes

    def worker():
        while time.monotonic() < end:
            with lock:
                args = arguments(rng, s)
            why, seconds = check(args, s, sculpt, o.timeout)
            with lock:
                stats["runs"] += 1
                if seconds > stats["slowest"][0]:
                    stats["slowest"] = (seconds, args)
                if why is None and not s.sentinels_intact():
                    why = "a file of the user's changed"
                if why is not None:
                    stats["findings"] += 1
                    with open(o.findings, "a") as f:
                        f.write(json.dumps({"why": why, "args": args}) + "\n")
                    print(f"finding: {why}: {args[:6]}", file=sys.stderr)

    threads = [threading.Thread(target=worker) for _ in range(o.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds, args = stats["slowest"]
    shown = [a if len(a) < 60 else a[:57] + "..." for a in args]
    print(f"{stats['runs']} command lines in {o.minutes:g} minutes, {stats['findings']} findings; "
          f"slowest {seconds:.1f} s: sculpt {' '.join(shown)}")
    shutil.rmtree(root, ignore_errors=True)
    return 1 if stats["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
