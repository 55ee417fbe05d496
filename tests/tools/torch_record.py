#!/usr/bin/env python3
"""Records a small PyTorch CPU training run with Debian's python3-torch.

    torch_record.py OUT.json --model mlp|conv [--threads N] [--steps N]

Debian 12's PyTorch (1.13) has no Kineto, so torch.profiler writes the legacy
autograd-profiler layout (docs/formats.md#pytorch-legacy-export): a bare array
of "X" events with "pid": "CPU functions" and no categories. A schedule gives
an empty trace there, so each step is opened by the program itself as
record_function("ProfilerStep#N"), N from 0, the name Kineto gives its steps.
OUT's folder is made when missing. The first step carries the one-time costs (allocations, lazy initialisation)
and is the warm-up. `--threads` sets torch's intra-op threads. Exit 0 with
OUT written, 1 with a one-line reason on stderr.
"""

import argparse
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--model", choices=("mlp", "conv"), default="mlp")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"torch_record.py: PyTorch is not installed ({e}); the tests need Debian's "
              "python3-torch (scripts/install-deps.sh)", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    nn = torch.nn
    if args.model == "mlp":
        model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        x = torch.randn(64, 256)
    else:
        model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
        x = torch.randn(16, 3, 32, 32)
    y = torch.randint(0, 10, (x.shape[0],))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        for step in range(args.steps):
            with torch.profiler.record_function(f"ProfilerStep#{step}"):
                opt.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    prof.export_chrome_trace(args.out)
    print(f"torch_record.py: {args.model}, {args.threads} thread(s), {args.steps} steps, "
          f"torch {torch.__version__} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
