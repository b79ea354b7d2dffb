#!/usr/bin/env python3
"""Says where each latency stall of a fixed-rate run came from.

    bench/tools/stall-report.py RESULTS_DIR SERVER [JIT_LOG]

Needs a run made with BENCH_SCHED_SAMPLE=1 (the NAME-fixed.sched samples); uses NAME-fixed.stalls
and .kv (bench/run writes them), and for meshdns NAME-gc.log when the JVM logged with the
`timenanos` decorator (-Xlog:gc*,safepoint:file=...:uptime,timenanos,level,tags), and a JIT log
(-Xlog:jit+compilation=debug with the same decorators) when given.

Time base: dnsperf prints no timestamps; bench/run counts a stall's position as completed answers
before it / rate, from dnsperf's first query. That first query is taken as the first sample where
the server thread's CPU time starts to grow (it idles before). Each stall of at least 5 ms gets the
window [start - 20 ms, start + max + 20 ms], and in it: how long the server thread was runnable but
waiting for the core (schedstat run_delay) in all and in its longest unbroken stretch, how long it ran, the core's steal time, GC pauses and
safepoints that overlap, JIT compilations that ended in it. The same figures for the windows 0.5 s
later (no stall there, usually) are the baseline, so the reader sees whether the cause is particular
to the stall.
"""
import os
import re
import sys

SLACK = 0.020


def kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            out[k] = v
    return out


def load_sched(path):
    """The samples, and CLOCK_MONOTONIC - CLOCK_REALTIME in seconds (0 when the file predates it)."""
    rows = []
    mono = 0.0
    with open(path) as f:
        for line in f:
            if line.startswith("# monotonic_minus_wall_ns"):
                mono = int(line.split()[2]) / 1e9
            if line.startswith("#"):
                continue
            f = [int(x) for x in line.split()]
            cr, cw = (f[5], f[6]) if len(f) > 6 else (0, 0)
            rows.append((f[0] / 1e9, f[1] / 1e9, f[2] / 1e9, f[3], f[4], cr / 1e9, cw / 1e9))
    return rows, mono


def pauses(path, pattern, mono):
    """(end_s, length_s, text) for every log line matching, on the wall clock (the JVM's `timenanos` is
    CLOCK_MONOTONIC, `mono` = monotonic - wall); the line's time is when it ended."""
    out = []
    if not path or not os.path.exists(path):
        return out
    rx = re.compile(r"\[(\d+)ns\]")
    with open(path) as f:
        for line in f:
            m = rx.search(line)
            if not m:
                continue
            t = int(m.group(1)) / 1e9 - mono
            p = pattern(line)
            if p is not None:
                out.append((t, p, line.strip()))
    return out


def gc_pause(line):
    m = re.search(r"\[gc *\].* Pause .* ([0-9.]+)ms$", line)
    return float(m.group(1)) / 1000 if m else None


def safepoint(line):
    m = re.search(r"Safepoint \"([^\"]+)\".*Total: (\d+) ns", line)
    return int(m.group(2)) / 1e9 if m else None


def compiled(line):
    return 0.0 if "jit,compilation" in line else None


def window(rows, a, b):
    """Thread wait, thread run, steal (s) in [a, b] from the samples, and the longest stretch of
    consecutive samples in which the thread waited for the core at least 80% of the time."""
    wait = run = steal = 0.0
    stretch = longest = cstretch = clongest = 0.0
    for i in range(1, len(rows)):
        if rows[i][0] < a or rows[i - 1][0] > b:
            continue
        dt = rows[i][0] - rows[i - 1][0]
        dw = rows[i][2] - rows[i - 1][2]
        run += rows[i][1] - rows[i - 1][1]
        wait += dw
        steal += (rows[i][4] - rows[i - 1][4]) / os.sysconf("SC_CLK_TCK")
        stretch = stretch + dw if dw >= 0.8 * dt else 0.0
        longest = max(longest, stretch)
        cw = rows[i][6] - rows[i - 1][6] if rows[i - 1][6] > 0 else 0.0
        cstretch = cstretch + cw if cw >= 0.8 * dt else 0.0
        clongest = max(clongest, cstretch)
    return wait, run, steal, longest, clongest


def overlap(events, a, b):
    tot, n, longest = 0.0, 0, 0.0
    for end, length, _ in events:
        start = end - length
        if end >= a and start <= b:
            n += 1
            tot += length
            longest = max(longest, length)
    return n, tot, longest


def main():
    res, name = sys.argv[1], sys.argv[2]
    jit = sys.argv[3] if len(sys.argv) > 3 else None
    meta = kv(os.path.join(res, f"{name}-fixed.kv"))
    rows, mono = load_sched(os.path.join(res, f"{name}-fixed.sched"))
    stalls_path = os.path.join(res, f"{name}-fixed.stalls")
    stalls = []
    if os.path.exists(stalls_path):
        with open(stalls_path) as f:
            for line in f:
                d = dict(x.split("=") for x in line.split())
                stalls.append((float(d["at_s"]), float(d["max_ms"]) / 1000, int(d["queries"])))
    start = int(meta["wall_start_ns"]) / 1e9
    first = None
    for i in range(10, len(rows)):
        if rows[i][0] < start:
            continue
        j = i - 10  # about 20 ms before
        if (rows[i][1] - rows[j][1]) / (rows[i][0] - rows[j][0]) > 0.10:
            first = rows[j][0]
            break
    if first is None:
        print("no load start found in the samples")
        return
    gc = pauses(os.path.join(res, f"{name}-gc.log"), gc_pause, mono)
    sp = pauses(os.path.join(res, f"{name}-gc.log"), safepoint, mono)
    jits = pauses(jit, compiled, mono)
    if (gc or sp or jits) and mono == 0.0:
        print("warning: the samples carry no clock offset; JVM log times cannot be placed")
    print(f"{name}: dnsperf started {first - start:.3f} s after launch; {len(stalls)} stalls >= 5 ms; "
          f"GC pauses logged: {len(gc)}, safepoints: {len(sp)}")
    print(f"{'at s':>7} {'max ms':>7} {'queries':>7} | {'waited':>7} {'longest':>7} {'client':>6} {'ran':>6} {'steal':>6} {'gc ms':>6} {'sp ms':>6} {'jit':>4}"
          f" | 0.5 s later: {'waited':>7} {'longest':>7} {'sp ms':>6} | cause")
    causes = {}
    base = []
    for at, mx, n in stalls:
        a, b = first + at - SLACK, first + at + mx + SLACK
        w, r, s, ws, cws = window(rows, a, b)
        gn, gt, _ = overlap(gc, a, b)
        sn, st, _ = overlap(sp, a, b)
        jn = sum(1 for end, _, _ in jits if a <= end <= b)
        bw, br, _, bws, _ = window(rows, a + 0.5, b + 0.5)
        _, bst, _ = overlap(sp, a + 0.5, b + 0.5)
        if st >= 0.5 * mx:
            cause = "JVM safepoint/GC"
        elif s >= 0.5 * mx:
            cause = "hypervisor steal"
        elif ws >= 0.5 * mx:
            cause = "scheduler: server runnable, its core busy"
        elif cws >= 0.5 * mx:
            cause = "scheduler: dnsperf runnable, its core busy"
        else:
            cause = "unexplained"
        causes.setdefault(cause, []).append(mx)
        print(f"{at:7.3f} {mx * 1000:7.1f} {n:7d} | {w * 1000:7.1f} {ws * 1000:7.1f} {cws * 1000:6.1f} {r * 1000:6.1f} {s * 1000:6.1f} {gt * 1000:6.1f} {st * 1000:6.1f} {jn:4d}"
              f" | {'':12}{bw * 1000:7.1f} {bws * 1000:7.1f} {bst * 1000:6.1f} | {cause}")
        base.append(bws)
    print("summary:")
    for cause, ms in sorted(causes.items(), key=lambda kv: -max(kv[1])):
        over10 = sum(1 for m in ms if m >= 0.010)
        print(f"  {cause}: {len(ms)} stalls, {over10} over 10 ms, longest {max(ms) * 1000:.1f} ms")
    if base:
        print(f"  baseline windows (0.5 s after each stall): longest wait stretch median {sorted(base)[len(base) // 2] * 1000:.1f} ms,"
              f" max {max(base) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
