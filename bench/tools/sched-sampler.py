#!/usr/bin/env python3
"""Samples what the kernel did to one server thread, to tell a stall of the server from a stall of the host.

    bench/tools/sched-sampler.py PID SECONDS OUT [CORE] [INTERVAL_MS] [CLIENT_PIDFILE]

Every INTERVAL_MS (default 2) it reads, for the busiest thread of PID (the most CPU time so far, JIT
and GC threads aside: after the warm-up, the one answering the load), /proc/PID/task/TID/schedstat (time on the CPU and time spent runnable
but waiting for a CPU, in ns) and the CORE line of /proc/stat (user+nice+system+irq+softirq and steal,
in ticks). Writes one line per sample: "wall_ns run_ns wait_ns busy_ticks steal_ticks" with a
header that also gives CLOCK_MONOTONIC - CLOCK_REALTIME (the JVM's `timenanos` log decorator is
the monotonic clock). A stall whose window shows the thread's wait_ns rising by about the stall's length was the
scheduler running something else on the core (or, with steal rising, the hypervisor taking the vCPU);
a stall with the thread neither running nor waiting was the thread blocked (a safepoint, GC).
With CLIENT_PIDFILE (a file that will hold dnsperf's PID once it runs) two more columns, "client_run_ns client_wait_ns", summed over all its
threads: dnsperf's own core is shared too, and a client that is not scheduled reads its answers late.
Read-only: it only reads /proc.
"""
import os
import sys
import time


# JVM threads that are never the one answering queries (JIT compilers can out-run it during warm-up).
NOT_SERVING = ("C1 CompilerThre", "C2 CompilerThre", "GC Thread", "VM Thread", "VM Periodic Tas", "G1 ", "Sweeper")


def busiest_thread(pid):
    """The thread with the most CPU time so far, JVM internals aside: after the warm-up, the one answering."""
    best, best_run = None, -1
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run = int(f.read().split()[0])
        except OSError:
            continue
        if not name.startswith(NOT_SERVING) and run > best_run:
            best, best_run = (tid, name), run
    return best


def main():
    pid, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    core = sys.argv[4] if len(sys.argv) > 4 else "1"
    interval = (float(sys.argv[5]) if len(sys.argv) > 5 else 2.0) / 1000
    tid, name = busiest_thread(pid)
    client = sys.argv[6] if len(sys.argv) > 6 else None
    client_files = []
    client_seen = 0.0
    stat = open("/proc/stat")
    sched = open(f"/proc/{pid}/task/{tid}/schedstat")
    prefix = f"cpu{core} "
    end = time.monotonic() + seconds
    lines = [f"# pid {pid} thread {tid} ({name}) core {core} interval {interval * 1000:.1f} ms",
             f"# monotonic_minus_wall_ns {time.monotonic_ns() - time.time_ns()}",
             "# wall_ns run_ns wait_ns busy_ticks steal_ticks" + (" client_run_ns client_wait_ns" if client else "")]
    while time.monotonic() < end:
        sched.seek(0)
        run, wait = sched.read().split()[:2]
        stat.seek(0)
        for line in stat:
            if line.startswith(prefix):
                f = line.split()
                busy = int(f[1]) + int(f[2]) + int(f[3]) + int(f[6]) + int(f[7])
                steal = int(f[8])
                break
        extra = ""
        if client and not client_files and time.monotonic() > client_seen:
            client_seen = time.monotonic() + 0.05  # dnsperf's threads start just after its PID is written
            try:
                with open(client) as f:
                    cpid = f.read().strip()
                if cpid and len(os.listdir(f"/proc/{cpid}/task")) > 1:
                    client_files = [open(f"/proc/{cpid}/task/{t}/schedstat") for t in os.listdir(f"/proc/{cpid}/task")]
            except OSError:
                pass
        if client:
            extra = " 0 0"
        if client_files:
            crun = cwait = 0
            for cf in client_files:
                try:
                    cf.seek(0)
                    r, w = cf.read().split()[:2]
                    crun += int(r)
                    cwait += int(w)
                except (OSError, ValueError):
                    pass
            extra = f" {crun} {cwait}"
        lines.append(f"{time.time_ns()} {run} {wait} {busy} {steal}{extra}")
        time.sleep(interval)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    try:
        main()
    except FileNotFoundError:
        pass  # the server stopped
