#!/usr/bin/env python3
"""CPU per query by part of the request path, from async-profiler's collapsed stacks (bench/profile).

usage: profile-table.py PROFILE.collapsed QPS SECONDS CPU_TICKS CLK_TCK

Each sample goes to the first part, in the order below, whose pattern matches a frame of its stack: the kernel's
send and receive paths before the Java code that called them, GC and JIT threads before anything else.
"""
import re
import sys

import collapsed

PARTS = [
    ("GC", r"GCTaskThread|G1|PSScavenge|ParallelScavenge|PSParallelCompact|CollectedHeap|SafepointSynchronize|VM_Operation"),
    ("JIT", r"CompileBroker|C2Compiler|Compilation::|Compile::|CodeCache"),
    ("kernel send (sendmmsg/sendto)", r"sendmmsg|sendto|udp_sendmsg|__sys_sendmsg|udp_send_skb|ip_finish_output"),
    ("kernel receive (recvmmsg/recvfrom)", r"recvmmsg|recvfrom|udp_recvmsg|__skb_recv_udp|__sys_recvmsg"),
    ("epoll wait / wake-up", r"epoll_wait|EpollEventLoop\.epollWait|EpollEventLoop\.epollBusyWait|ep_poll|schedule_hrtimeout"),
    ("rate limit", r"ResponseRateLimiter"),
    ("metrics", r"io/meshdns/dns/metrics|io/micrometer|LongAdder|Striped64"),
    ("logging", r"org/jboss/logmanager|org/jboss/logging|QueryLog"),
    ("memo (fast path)", r"AnswerMemo|CacheReplay"),
    ("parse", r"org/xbill/DNS/Message\.<init>|org/xbill/DNS/DNSInput|Record\.fromWire|Header\.<init>|RequestFate\.decide"),
    ("forward (upstream pool, matching)", r"io/meshdns/dns/forward|io/meshdns/dns/cache"),
    ("lookup and answer", r"Answerer|ZoneIndex|QueryHandler|MeshQueryHook|MeshAnswerPolicy|Snapshot"),
    ("encode", r"toWire|ResponseEncoder|DNSOutput|Compression"),
    ("Netty/Vert.x dispatch", r"io/netty|io/vertx"),
]
COMPILED = [(name, re.compile(pattern)) for name, pattern in PARTS]


def main():
    path, qps, seconds, ticks, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    counts = {name: 0 for name, _ in PARTS}
    counts["other"] = 0
    total = 0
    for stack, samples in collapsed.read(path):
        total += samples
        for name, pattern in COMPILED:
            if pattern.search(stack):
                counts[name] += samples
                break
        else:
            counts["other"] += samples
    answered = qps * seconds
    cpu_seconds = ticks / hz
    us_per_query = 1e6 * cpu_seconds / answered if answered else 0.0
    print(f"{'part of the request path':36} {'samples':>8} {'share':>7} {'us/query':>9}")
    for name in [p[0] for p in PARTS] + ["other"]:
        share = counts[name] / total if total else 0.0
        print(f"{name:36} {counts[name]:8d} {100 * share:6.1f}% {share * us_per_query:9.2f}")
    print(f"{'all':36} {total:8d} {100.0:6.1f}% {us_per_query:9.2f}")
    print(f"\n{qps:.0f} answered queries/s for {seconds:.0f} s; server CPU {cpu_seconds:.2f} s "
          f"({100 * cpu_seconds / seconds:.1f}% of a core) from /proc; us/query = share x CPU time / answered queries.")


if __name__ == "__main__":
    main()
