#!/usr/bin/python3
"""Interleaved overhead runs for perf-tests/overhead.sh (see docs/overhead.md).

Every workload runs bare and under each tool, round-robin (bare, tool1, tool2,
..., bare, tool1, ...), so a slow phase of a shared machine hits all of them
alike. A run's wall time is measured around posix_spawn + wait4 here; its peak
RSS is wait4's ru_maxrss (the largest single process of the tree that was
reaped, in KiB). Ratios are per round (tool / bare of the same round); the
table shows their median and min-max.

Valgrind tools run on a reduced size against bare runs of the same reduced
size, interleaved the same way.

The "process starts" group (sh starting 1000 /bin/true) measures what a tool
costs per process image, next to an empty preload library (the floor of any
preload) and issue 12's targets.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time


BIN = None  # directory of the workloads and run_timed


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------
# Running one command sequence


def spawn_wait(argv, env, extra, cwd, out, err, launcher):
    """Runs argv to completion through run_timed; returns (wall s, maxrss KiB, cpu s, status)."""
    res = (out if out != os.devnull else err) + ".timed"
    with open(out, "ab") as fo, open(err, "ab") as fe:
        subprocess.run([launcher, res] + ["%s=%s" % kv for kv in extra.items()] + ["--"] + argv,
                       env=env, cwd=cwd, stdout=fo, stderr=fe)
    with open(res) as fh:
        ns, rss, user, sys_s, status = fh.read().split()
    os.unlink(res)
    return int(ns) / 1e9, int(rss), float(user) + float(sys_s), int(status)


def resolve(prog):
    p = shutil.which(prog) if "/" not in prog else prog
    if not p:
        raise SystemExit("overhead: %s not found" % prog)
    return p


class Tool:
    """How to wrap one command: argv prefix and extra environment."""

    def __init__(self, name, prefix=None, env=None, valgrind=False):
        self.name = name
        self.prefix = prefix or (lambda rundir, i: [])
        self.env = env or (lambda rundir, i: {})
        self.valgrind = valgrind


def run_sequence(tool, steps, base_env, rundir, err=None, out=None):
    launcher = os.path.join(BIN, "run_timed")
    """steps: list of (argv, cwd). Returns summed wall, max rss, summed cpu.
    err, out: where the commands' stderr and stdout go (default: rundir/stderr, rundir/stdout)."""
    wall = cpu = 0.0
    rss = 0
    for i, (argv, cwd) in enumerate(steps):
        full = tool.prefix(rundir, i) + argv
        full[0] = resolve(full[0])
        w, r, c, st = spawn_wait(full, base_env, tool.env(rundir, i), cwd,
                                 out or os.path.join(rundir, "stdout"),
                                 err or os.path.join(rundir, "stderr"), launcher)
        if st != 0:
            log("overhead: %s under %s failed (status %d), see %s" %
                (argv, tool.name, st, rundir))
        wall += w
        cpu += c
        rss = max(rss, r)
    return wall, rss, cpu


# ----------------------------------------------------------------------------
# Parsing what the tools report


def account_records(rundir, kind="process"):
    recs = []
    for f in glob.glob(os.path.join(rundir, "account.jsonl")):
        with open(f) as fh:
            for line in fh:
                line = line.strip()
                if line:
                    recs.append(json.loads(line))
    return [r for r in recs if r.get("kind", "process") == kind]


def account_totals(rundir):
    recs = account_records(rundir)
    t = {k: sum(r.get(k, 0) for r in recs)
         for k in ("malloc_bytes", "malloc_calls", "free_calls", "copied_bytes", "copied_calls",
                   "libc_copied_bytes", "libc_copied_calls", "sampler_cpu_s", "samples")}
    # account run's tree sampler: its CPU is in the tree record, not in the images'.
    t["sampler_cpu_s"] += sum(r.get("sampler_cpu_s", 0) for r in account_records(rundir, "tree"))
    t["tree_samples"] = sum(r.get("samples", 0) for r in account_records(rundir, "tree"))
    t["wall_s"] = sum((r["end_ns"] - r["start_ns"]) / 1e9 for r in recs)
    t["records"] = len(recs)
    return t


def drop_records(rundir):
    """Removes a run's record file once counted (the process-starts runs write
    a thousand records each)."""
    try:
        os.unlink(os.path.join(rundir, "account.jsonl"))
    except FileNotFoundError:
        pass


ANSI = re.compile(r"\x1b\[[0-9;]*m")
MEMUSAGE_LINE = re.compile(r"^\s*(malloc|realloc|calloc|free)\|\s*(\d+)\s+(\d+)?")


def memusage_totals(rundir):
    """Sums the per-process summaries libmemusage.so prints on stderr."""
    t = {"malloc": [0, 0], "realloc": [0, 0], "calloc": [0, 0], "free": [0, 0], "processes": 0}
    with open(os.path.join(rundir, "stderr"), errors="replace") as fh:
        for line in fh:
            line = ANSI.sub("", line)  # libmemusage colours its summary
            if line.startswith("Memory usage summary"):
                t["processes"] += 1
            m = MEMUSAGE_LINE.match(line)
            if m:
                t[m.group(1)][0] += int(m.group(2))
                t[m.group(1)][1] += int(m.group(3) or 0)
    return t


DHAT_TOTAL = re.compile(r"Total:\s+([\d,]+) bytes in ([\d,]+) blocks")


def dhat_totals(rundir):
    with open(os.path.join(rundir, "stderr"), errors="replace") as fh:
        for line in fh:
            m = DHAT_TOTAL.search(line)
            if m:
                return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))
    return None


def workload_says(rundir, key):
    """The workload's own line, e.g. 'malloc_loop calls=.. bytes=..'."""
    if not os.path.exists(os.path.join(rundir, "stdout")):
        return None  # its stdout went elsewhere (git log -p: /dev/null)
    with open(os.path.join(rundir, "stdout"), errors="replace") as fh:
        for line in fh:
            if line.startswith(key):
                return dict(kv.split("=") for kv in line.split()[1:])
    return None


# Issue 12's targets for the process-starts rows: median wall ratio to bare.
START_TARGETS = {"account run": 1.25, "account": 1.5, "account sampling off": 1.3}
# Issue 19's: what one `account run` adds to a short command.
RUN_COST_INVOCATIONS = 100  # `account run -q -- /bin/true` per timed run
LS_REMOTE_INVOCATIONS = 20  # `git ls-remote git://...` per timed run
TRUE_ADDED_MS_TARGET = 2.0
LS_REMOTE_RATIO_TARGET = 1.05


def start_git_daemon(base, env):
    """A git daemon serving `base` on a free port of 127.0.0.1, run bare."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--listen=127.0.0.1",
                             "--port=%d" % port, "--base-path=" + base, "--export-all", base],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return proc, port
        except OSError:
            time.sleep(0.025)
    proc.kill()
    raise SystemExit("overhead: git daemon did not start on port %d" % port)


# ----------------------------------------------------------------------------


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        # Re-render a saved --json file.
        with open(sys.argv[2]) as fh:
            results = json.load(fh)
        order = []
        for x in results:
            if x["tool"] not in order:
                order.append(x["tool"])
        report(results, order)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--bin", required=True, help="directory of the built workloads")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--shim", required=True)
    ap.add_argument("--account", required=True)
    ap.add_argument("--tree", required=True, help="the generated source tree")
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--json", default="", help="write raw results here")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=LIB: also run LD_PRELOAD=LIB (a prototype shim) like account")
    ap.add_argument("--tools", default="",
                    help="comma-separated tool names to keep (default: all present)")
    a = ap.parse_args()
    # Absolute: workloads run in their own directories (git add+commit in its
    # work tree), where a relative LD_PRELOAD or program path is not found
    # (`--build build` ran account run's git rows as status 127).
    a.bin, a.shim, a.account, a.tree, a.work = (
        os.path.abspath(p) for p in (a.bin, a.shim, a.account, a.tree, a.work))
    a.variant = [v.split("=", 1)[0] + "=" + os.path.abspath(v.split("=", 1)[1]) for v in a.variant]
    global BIN
    BIN = a.bin

    scale = 0.4 if a.quick else 1.0
    py = "/usr/bin/python3"
    here = os.path.dirname(os.path.abspath(__file__))
    memusage_so = "/usr/lib/x86_64-linux-gnu/libmemusage.so"
    work = a.work

    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    base_env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    }

    # --- tools -------------------------------------------------------------
    def acct_env(rundir, i):
        return {"LD_PRELOAD": a.shim, "ACCOUNT_OUTPUT": os.path.join(rundir, "account.jsonl")}

    tools = {"bare": Tool("bare")}
    empty_so = os.path.join(a.bin, "libempty_preload.so")
    if os.path.exists(empty_so):
        tools["empty preload"] = Tool("empty preload", env=lambda rundir, i: {"LD_PRELOAD": empty_so})
    tools["account sampling off"] = Tool(
        "account sampling off", env=lambda rundir, i: dict(acct_env(rundir, i), ACCOUNT_SAMPLE_MS="0"))
    tools["account"] = Tool("account", env=acct_env)
    # Issue 17: the same shim without counting the copies libc makes inside itself.
    tools["account libc copies off"] = Tool(
        "account libc copies off",
        env=lambda rundir, i: dict(acct_env(rundir, i), ACCOUNT_LIBC_COPIES="0"))
    tools["account run"] = Tool(
        "account run",
        prefix=lambda rundir, i: [a.account, "run", "-q", "-o",
                                  os.path.join(rundir, "account.jsonl"), "--"])
    # The floor of a sampler: a process that wakes on account run's schedule
    # (5 ms, up to 5 ms late) and does nothing (bench/idle_ticker.cc).
    idle_ticker = os.path.join(a.bin, "idle_ticker")
    if os.path.exists(idle_ticker):
        tools["idle ticker"] = Tool(
            "idle ticker",
            prefix=lambda rundir, i: [idle_ticker, os.path.join(rundir, "account.jsonl"), "5"])
    if os.path.exists(memusage_so):
        tools["memusage"] = Tool("memusage", env=lambda rundir, i: {"LD_PRELOAD": memusage_so})
    if shutil.which("heaptrack"):
        tools["heaptrack"] = Tool(
            "heaptrack",
            prefix=lambda rundir, i: ["heaptrack", "-o", os.path.join(rundir, "heaptrack.%d" % i)])
    if os.path.exists("/usr/bin/time"):
        tools["time -v"] = Tool(
            "time -v",
            prefix=lambda rundir, i: ["/usr/bin/time", "-v", "-o", os.path.join(rundir, "time.%d" % i)])
    if shutil.which("valgrind") and not a.quick:
        tools["dhat"] = Tool(
            "dhat", valgrind=True,
            prefix=lambda rundir, i: ["valgrind", "--tool=dhat",
                                      "--dhat-out-file=" + os.path.join(rundir, "dhat.%d" % i)])
        tools["dhat copy"] = Tool(
            "dhat copy", valgrind=True,
            prefix=lambda rundir, i: ["valgrind", "--tool=dhat", "--mode=copy",
                                      "--dhat-out-file=" + os.path.join(rundir, "dhat.%d" % i)])

    for v in a.variant:
        vname, lib = v.split("=", 1)
        tools[vname] = Tool(vname, env=lambda rundir, i, lib=lib: {
            "LD_PRELOAD": lib, "ACCOUNT_OUTPUT": os.path.join(rundir, "account.jsonl")})
    if a.tools:
        keep = a.tools.split(",") + ["bare"]
        tools = {k: t for k, t in tools.items() if k in keep}

    # --- workloads ---------------------------------------------------------
    def n(x):
        return str(int(x * scale))

    ml = os.path.join(a.bin, "malloc_loop")
    starts = int(n(1000))
    cl = os.path.join(a.bin, "copy_loop")
    repo = os.path.join(work, "git-wt")
    src = os.path.join(work, "git-src")
    dest = os.path.join(work, "git-clone")
    git = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=0"]

    def reset_wt():
        shutil.rmtree(os.path.join(repo, ".git"), ignore_errors=True)
        subprocess.run(["git", "init", "-q", repo], check=True, env=base_env)

    def reset_clone():
        shutil.rmtree(dest, ignore_errors=True)

    # name: (full steps, reduced steps for valgrind or None, setup, tools[, options])
    # options: "stderr" where the commands' stderr goes instead of the run's
    # directory; "drop_records": remove account's records once counted.
    common = ["account"] + [v.split("=", 1)[0] for v in a.variant] + \
        ["memusage", "heaptrack", "time -v"]
    vg = ["dhat", "dhat copy"]
    # Issue 7's sizes: 25 M malloc/free steps and 30 M copies, each 1-5 s bare.
    # The "calls only" rows are the worst case (nothing but the calls) and skip
    # the slowest tools.
    workloads = [
        ("malloc 1 thread", [([ml, n(25e6), "1"], None)], [([ml, n(1e6), "1"], None)],
         None, common + vg),
        ("malloc 2 threads", [([ml, n(25e6), "2"], None)], [([ml, n(1e6), "2"], None)],
         None, common + vg),
        ("memcpy/memmove", [([cl, n(30e6)], None)], [([cl, n(1e6)], None)],
         None, common[:1] + ["account libc copies off"] + common[1:] + vg),
        ("malloc calls only, 1 thread", [([ml, n(100e6), "1", "calls"], None)], None,
         None, common[:-3] + ["memusage", "time -v"]),
        ("malloc calls only, 2 threads", [([ml, n(100e6), "2", "calls"], None)], None,
         None, common[:-3] + ["time -v"]),
        ("memcpy calls only, <= 256 B", [([cl, n(200e6), "256"], None)], None,
         None, common[:-3] + ["memusage", "time -v"]),
        ("git add+commit", [(git + ["add", "-A"], repo),
                            (git + ["commit", "-q", "-m", "tree"], repo)], None,
         reset_wt, ["account", "account run"] + common[1:]),
        ("git clone --no-local", [(git + ["clone", "-q", "--no-local", src, dest], None)], None,
         reset_clone, ["account", "account run", "idle ticker"] + common[1:]),
        # Issue 17: stdio-heavy, every byte of the diff copied into stdout's
        # FILE buffer inside libc (the clone source's one commit, ~50 MiB of
        # patch text, to /dev/null).
        ("git log -p", [(git + ["log", "-p"], src)], None, None,
         ["account", "account libc copies off"] + common[1:-3] + ["memusage", "time -v"],
         {"stdout": os.devnull}),
        ("python3 alloc loop", [([py, os.path.join(here, "py_alloc.py"), n(2000)], None)],
         [([py, os.path.join(here, "py_alloc.py"), n(60)], None)], None, common + vg),
        # Issue 12: what a tool costs per process image. libmemusage (no
        # MEMUSAGE_OUTPUT) prints a summary per process on stderr: discarded.
        # 1000 records a run: counted, then removed.
        ("process starts", [(["sh", os.path.join(here, "starts.sh"), str(starts)], None)], None,
         None, ["empty preload", "memusage", "account sampling off", "account", "account run",
                "idle ticker"] +
         [v.split("=", 1)[0] for v in a.variant if not v.startswith("forward-only=")],
         {"stderr": os.devnull, "drop_records": True}),
        # Issue 19: the cost of one `account run` around a short command.
        ("account run /bin/true", [(["/bin/true"], None)] * RUN_COST_INVOCATIONS, None, None,
         ["account run"], {"drop_records": True}),
        ("git ls-remote", [(git + ["ls-remote", "git://127.0.0.1:{port}/git-src"], None)] *
         LS_REMOTE_INVOCATIONS, None, None, ["account run"], {"drop_records": True,
                                                               "daemon": True}),
    ]
    only = [w for w in a.only.split(",") if w]
    if only:
        # "process-starts" selects "process starts".
        workloads = [w for w in workloads
                     if any(o in w[0] or o in w[0].replace(" ", "-") for o in only)]

    # The clone source: the generated tree, committed once.
    if any(w[0].startswith("git") for w in workloads):
        if not os.path.exists(os.path.join(src, ".git")):
            log("overhead: committing the clone source")
            subprocess.run(["cp", "-r", a.tree, src], check=True)
            subprocess.run(["git", "init", "-q", src], check=True, env=base_env)
            subprocess.run(git + ["add", "-A"], cwd=src, check=True, env=base_env)
            subprocess.run(git + ["commit", "-q", "-m", "tree"], cwd=src, check=True,
                           env=base_env)
        if not os.path.exists(repo):
            subprocess.run(["cp", "-r", a.tree, repo], check=True)

    daemon = None
    if any(w[5:] and w[5].get("daemon") for w in workloads):
        daemon, port = start_git_daemon(work, base_env)
        workloads = [w[:1] + ([(
            [arg.replace("{port}", str(port)) for arg in argv], cwd) for argv, cwd in w[1]],) + w[2:]
            for w in workloads]

    results = []  # dicts: workload, tool, reduced, run, wall, rss, cpu, extra
    try:
        run_workloads(workloads, tools, a, base_env, work, starts, results)
    finally:
        if daemon:
            daemon.kill()
            daemon.wait()

    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)
    report(results, list(tools))


def run_workloads(workloads, tools, a, base_env, work, starts, results):
    for wname, steps, reduced, setup, wtools, *wopts in workloads:
        wopts = wopts[0] if wopts else {}
        wtools = [t for t in wtools if t in tools]
        groups = [(False, steps, ["bare"] + [t for t in wtools if not tools[t].valgrind])]
        vgt = [t for t in wtools if tools[t].valgrind]
        if reduced and vgt:
            groups.append((True, reduced, ["bare"] + vgt))
        for is_reduced, st, names in groups:
            runs = a.runs
            for r in range(runs + 1):  # round 0 warms caches and is dropped
                for tname in names:
                    rundir = os.path.join(work, "runs", re.sub(r"\W+", "_", wname),
                                          "%s%s.%d" % (re.sub(r"\W+", "_", tname),
                                                       "_reduced" if is_reduced else "", r))
                    shutil.rmtree(rundir, ignore_errors=True)
                    os.makedirs(rundir)
                    if setup:
                        setup()
                    wall, rss, cpu = run_sequence(tools[tname], st, base_env, rundir,
                                                  wopts.get("stderr"), wopts.get("stdout"))
                    log("  %-22s %-12s %s run %d: %.3f s, %d KiB" %
                        (wname, tname, "reduced" if is_reduced else "full", r, wall, rss))
                    if r == 0:
                        if wopts.get("drop_records"):
                            drop_records(rundir)
                        continue
                    res = {"workload": wname, "tool": tname, "reduced": is_reduced, "run": r,
                           "wall": wall, "rss": rss, "cpu": cpu, "dir": rundir}
                    if wname == "process starts":
                        res["starts"] = starts
                    if tname in ("account", "account run", "account sampling off", "idle ticker"):
                        res["account"] = account_totals(rundir)
                    if wopts.get("drop_records"):
                        drop_records(rundir)
                    if tname == "memusage" and not wopts.get("stderr"):
                        res["memusage"] = memusage_totals(rundir)
                    if tname.startswith("dhat"):
                        res["dhat"] = dhat_totals(rundir)
                    if tname == "bare":
                        res["self"] = (workload_says(rundir, "malloc_loop") or
                                       workload_says(rundir, "copy_loop"))
                    results.append(res)

        # Agreement for the copy workload: account at the reduced size, next to
        # dhat --mode=copy's figure for the same size.
        if reduced and "dhat copy" in wtools:
            rundir = os.path.join(work, "runs", re.sub(r"\W+", "_", wname), "account_reduced")
            shutil.rmtree(rundir, ignore_errors=True)
            os.makedirs(rundir)
            run_sequence(tools["account"], reduced, base_env, rundir)
            results.append({"workload": wname, "tool": "account", "reduced": True, "run": 0,
                            "wall": 0, "rss": 0, "cpu": 0, "dir": rundir,
                            "account": account_totals(rundir),
                            "self": workload_says(rundir, "copy_loop") or
                            workload_says(rundir, "malloc_loop")})


def report(results, tool_order):
    def sel(w, t, red):
        return sorted((x for x in results if x["workload"] == w and x["tool"] == t and
                       x["reduced"] == red and x["run"] > 0), key=lambda x: x["run"])

    wls = []
    for x in results:
        if x["workload"] not in wls:
            wls.append(x["workload"])
    print()
    print("Wall time, CPU time (user+sys of the command and the children it reaped) and peak")
    print("RSS relative to a bare run (median of per-round ratios, min-max);")
    print("valgrind tools (*) on a reduced size against bare runs of that reduced size.")
    print()
    hdr = ("| workload | bare (s) | tool | wall ratio | min-max | CPU ratio | min-max |"
           " peak RSS ratio |")
    print(hdr)
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for w in wls:
        for red in (False, True):
            bare = sel(w, "bare", red)
            if not bare:
                continue
            bmed = statistics.median(b["wall"] for b in bare)
            brss = statistics.median(b["rss"] for b in bare)
            for t in tool_order:
                if t == "bare":
                    continue
                xs = sel(w, t, red)
                if not xs:
                    continue
                ratios = [x["wall"] / b["wall"] for x, b in zip(xs, bare)]
                cpu = [x["cpu"] / b["cpu"] for x, b in zip(xs, bare) if b["cpu"] > 0]
                rss = statistics.median(x["rss"] for x in xs) / brss
                print("| %s | %.3f%s | %s%s | %.3f× | %.2f–%.2f | %.3f× | %.2f–%.2f | %.2f× |" %
                      (w, bmed, " (reduced)" if red else "", t, " *" if red else "",
                       statistics.median(ratios), min(ratios), max(ratios),
                       statistics.median(cpu), min(cpu), max(cpu), rss))
    print()
    report_starts(results, tool_order, sel)
    report_run_cost(sel)

    # --- sampler cost ---
    print("Sampler CPU (ACCOUNT_SAMPLE_MS default 5), median of per-round ratios: sampler_cpu_s summed"
          " over a round's records / their process wall, and / the command's wall"
          " (account run: its tree sampler's, from the tree record; idle ticker: a process that"
          " wakes on the same schedule (5 ms, up to 5 ms late) and reads nothing, the floor of any such sampler)")
    print()
    print("| workload | tool | records per run | samples per run | sampler CPU / process wall |"
          " all samplers' CPU / command wall | min-max |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for w in wls:
        for t in ("account", "account run", "idle ticker"):
            xs = [x for x in sel(w, t, False) if "account" in x]
            if not xs:
                continue
            # Per round, then the median, as for the wall ratios: one round
            # the shared machine stalled does not decide the figure.
            per_proc = [100 * x["account"]["sampler_cpu_s"] / x["account"]["wall_s"]
                        for x in xs if x["account"]["wall_s"]]
            per_cmd = [100 * x["account"]["sampler_cpu_s"] / x["wall"] for x in xs if x["wall"]]
            print("| %s | %s | %.0f | %.0f | %s | %.2f%% | %.2f–%.2f%% |" %
                  (w, t, statistics.median(x["account"]["records"] for x in xs),
                   statistics.median(x["account"]["samples"] or x["account"].get("tree_samples", 0)
                                     for x in xs),
                   "%.2f%%" % statistics.median(per_proc) if per_proc else "–",
                   statistics.median(per_cmd) if per_cmd else 0,
                   min(per_cmd) if per_cmd else 0, max(per_cmd) if per_cmd else 0))
    print()

    # --- agreement ---
    print("Agreement where tools overlap (one run each; 'self' is what the workload says it did)")
    print()
    print("| workload | figure | self | account | other tool | other - account |")
    print("|---|---|---:|---:|---:|---:|")
    for w in wls:
        acc = [x for x in sel(w, "account", False) if "account" in x]
        mem = [x for x in sel(w, "memusage", False) if "memusage" in x]
        bare = sel(w, "bare", False)
        me = bare[0].get("self") if bare else None
        if acc and mem:
            at = acc[0]["account"]
            mt = mem[0]["memusage"]
            m_calls = mt["malloc"][0] + mt["calloc"][0] + mt["realloc"][0]
            m_bytes = mt["malloc"][1] + mt["calloc"][1] + mt["realloc"][1]
            print("| %s | malloc+calloc+realloc calls | %s | %d | %d (memusage) | %+d |" %
                  (w, me["calls"] if me and "malloc" in w else "", at["malloc_calls"], m_calls,
                   m_calls - at["malloc_calls"]))
            print("| %s | bytes requested | %s | %d | %d (memusage) | %+d |" %
                  (w, me["bytes"] if me and "malloc" in w else "", at["malloc_bytes"], m_bytes,
                   m_bytes - at["malloc_bytes"]))
            print("| %s | free calls | | %d | %d (memusage) | %+d |" %
                  (w, at["free_calls"], mt["free"][0], mt["free"][0] - at["free_calls"]))
            print("| %s | of which realloc (memusage: calls, growth bytes) | | | %d, %d | |" %
                  (w, mt["realloc"][0], mt["realloc"][1]))
            print("| %s | memusage processes / account records | | %d | %d | |" %
                  (w, at["records"], mt["processes"]))
        red_acc = [x for x in results if x["workload"] == w and x["tool"] == "account" and
                   x["reduced"]]
        dcopy = sel(w, "dhat copy", True)
        dheap = sel(w, "dhat", True)
        if red_acc:
            at = red_acc[0]["account"]
            me = (red_acc[0].get("self") or {}) if "memcpy" in w else {}
            if dcopy and dcopy[0]["dhat"]:
                b, c = dcopy[0]["dhat"]
                print("| %s (reduced) | copied bytes | %s | %d | %d (dhat copy) | %+d |" %
                      (w, me.get("bytes", ""), at["copied_bytes"], b, b - at["copied_bytes"]))
                print("| %s (reduced) | copy calls | %s | %d | %d (dhat copy) | %+d |" %
                      (w, me.get("calls", ""), at["copied_calls"], c, c - at["copied_calls"]))
            if dheap and dheap[0]["dhat"]:
                b, c = dheap[0]["dhat"]
                print("| %s (reduced) | heap bytes (dhat: blocks allocated) | | %d | %d (dhat) | %+d |" %
                      (w, at["malloc_bytes"], b, b - at["malloc_bytes"]))
                print("| %s (reduced) | heap calls (dhat: blocks) | | %d | %d (dhat) | %+d |" %
                      (w, at["malloc_calls"], c, c - at["malloc_calls"]))
    print()


def report_starts(results, tool_order, sel):
    """The process-starts group: cost per start and issue 12's targets."""
    w = "process starts"
    bare = sel(w, "bare", False)
    if not bare:
        return
    starts = bare[0]["starts"]
    print("Process starts: sh starting %d /bin/true (%d images a run), %d rounds; median of"
          % (starts, starts + 1, len(bare)))
    print("per-round ratios to bare, min-max; ms per start: median of (tool - bare) / %d;"
          % starts)
    print("targets: issue 12's, on the median wall ratio")
    print()
    print("| tool | wall (s) | wall ratio | min-max | CPU ratio | ms per start | records a run |"
          " target | |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    print("| bare | %.3f | 1.000× | | | | | | |" % statistics.median(b["wall"] for b in bare))
    order = ["empty preload", "memusage", "account sampling off", "account", "account run"]
    order += [t for t in tool_order if t not in order and t != "bare"]
    for t in order:
        xs = sel(w, t, False)
        if not xs:
            continue
        ratios = [x["wall"] / b["wall"] for x, b in zip(xs, bare)]
        cpu = [x["cpu"] / b["cpu"] for x, b in zip(xs, bare) if b["cpu"] > 0]
        per = [1000 * (x["wall"] - b["wall"]) / starts for x, b in zip(xs, bare)]
        recs = [x["account"]["records"] for x in xs if "account" in x]
        med = statistics.median(ratios)
        target = START_TARGETS.get(t)
        print("| %s | %.3f | %.3f× | %.2f–%.2f | %s | %.3f | %s | %s | %s |" %
              (t, statistics.median(x["wall"] for x in xs), med, min(ratios), max(ratios),
               "%.3f×" % statistics.median(cpu) if cpu else "–", statistics.median(per),
               "%.0f" % statistics.median(recs) if recs else "–",
               "≤ %.2f×" % target if target else "",
               ("met" if med <= target else "MISSED") if target else ""))
    print()


def report_run_cost(sel):
    """Issue 19's rows: what one `account run` adds to a short command."""
    true_bare, true_run = sel("account run /bin/true", "bare", False), \
        sel("account run /bin/true", "account run", False)
    ls_bare, ls_run = sel("git ls-remote", "bare", False), sel("git ls-remote", "account run", False)
    if not (true_run or ls_run):
        return
    print("The cost of one account run: the same command bare and under `account run -q -o F`,")
    print("interleaved; median over rounds, min-max; targets: issue 19's")
    print()
    print("| command | bare per call (ms) | account run per call (ms) | added per call (ms) |"
          " wall ratio | min-max | target | |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, bare, run, calls in (("/bin/true", true_bare, true_run, RUN_COST_INVOCATIONS),
                                   ("git ls-remote git://127.0.0.1 (daemon bare)", ls_bare,
                                    ls_run, LS_REMOTE_INVOCATIONS)):
        if not (bare and run):
            continue
        added = [1000 * (x["wall"] - b["wall"]) / calls for x, b in zip(run, bare)]
        ratios = [x["wall"] / b["wall"] for x, b in zip(run, bare)]
        if name == "/bin/true":
            target, met = "≤ %.1f ms added" % TRUE_ADDED_MS_TARGET, \
                statistics.median(added) <= TRUE_ADDED_MS_TARGET
        else:
            target, met = "≤ %.2f×" % LS_REMOTE_RATIO_TARGET, \
                statistics.median(ratios) <= LS_REMOTE_RATIO_TARGET
        print("| %s | %.3f | %.3f | %.3f | %.3f× | %.2f–%.2f | %s | %s |" %
              (name, 1000 * statistics.median(b["wall"] for b in bare) / calls,
               1000 * statistics.median(x["wall"] for x in run) / calls,
               statistics.median(added), statistics.median(ratios), min(ratios), max(ratios),
               target, "met" if met else "MISSED"))
    print()


if __name__ == "__main__":
    main()
