#!/usr/bin/env python3
"""Bytes allocated per answered query, by allocation site, from async-profiler's collapsed stacks of an
`event=alloc` profile dumped with `total` (each line's number is bytes, not samples): bench/profile --event alloc.

usage: alloc-table.py PROFILE.collapsed QPS SECONDS

A site is the allocated class (async-profiler's last frame, `Type_[i]` or `Type_[k]`) and the deepest meshdns frame
above it, so one line says what was allocated and which of our code asked for it.
"""
import collections
import sys

import collapsed


def site(frames):
    allocated = frames[-1]
    ours = next((f for f in reversed(frames[:-1]) if f.startswith("io/meshdns/")), "-")
    return f"{allocated.rsplit('_[', 1)[0]}  <- {ours}"


def main():
    path, qps, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    by_site = collections.Counter()
    total = 0
    for stack, n in collapsed.read(path):
        total += n
        by_site[site(stack.split(";"))] += n
    answered = qps * seconds
    per_query = total / answered if answered else 0.0
    print(f"{'bytes/query':>11} {'share':>6}  allocated class  <- deepest meshdns frame")
    for name, n in by_site.most_common(25):
        print(f"{n / answered if answered else 0:11.0f} {100 * n / total:5.1f}%  {name}")
    print(f"{per_query:11.0f} 100.0%  all ({total / 1e6:.0f} MB for {answered:.0f} answered queries in {seconds:.0f} s)")


if __name__ == "__main__":
    main()
