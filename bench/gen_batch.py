#!/usr/bin/env python3
"""Writes a folder of K small native snapshots, for batch scoring (`score -j N`).

    python3 bench/gen_batch.py K --out DIR [--nodes N] [--frames F] [--seed S]

The snapshots of a studio's many installations: each is a bench/gen_native.py
network of N nodes (default 300) give or take half, over F frames (default
120), with its own seed, written as DIR/snapshot_00000.json and on. Writes
one file at a time; the same arguments give the same bytes.
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_native import write_native  # noqa: E402  (a sibling script, not a package)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("count", type=int)
    ap.add_argument("--out", required=True)
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    total = 0
    for i in range(args.count):
        nodes = max(64, int(args.nodes * rng.uniform(0.5, 1.5)))
        path = os.path.join(args.out, f"snapshot_{i:05d}.json")
        write_native(nodes, args.frames, path, rng.randrange(1 << 30))
        total += os.path.getsize(path)
    print(f"{args.out}: {args.count} snapshots of about {args.nodes} nodes x {args.frames} frames, "
          f"{total / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
