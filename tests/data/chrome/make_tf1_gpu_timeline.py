#!/usr/bin/env python3
"""Writes tf1_gpu_timeline.json: a TensorFlow 1 GPU timeline, laid out as
tensorflow/python/client/timeline.py writes one from a session.run's
StepStats, for the independent check and the TensorFlow tests.

    python3 make_tf1_gpu_timeline.py > tf1_gpu_timeline.json

What the public TF1 GPU timelines hold and the CPU-only fixture
(tf1_timeline_cpu_step.json) lacks: per device a "Compute" and a "Tensors"
process named by "M" process_name events (pids from 0, "Allocators" first);
the host side of the GPU ops on "/job:localhost/replica:0/task:0/device:GPU:0";
the GPU tracer's devices "/device:GPU:0/stream:N" (kernels on stream 14,
host-to-device copies on 15, device-to-host on 16), "/device:GPU:0/stream:all"
repeating every one of them, and "/device:GPU:0/memcpy" repeating the copies.
Every event is category "Op", named by its op type, args.name the node (a
GPU event's name and args from the kernel label "node:op"); host ops carry
their inputs as input0..N, and "DataFlow" flows join ops on different
processes. One step, a small two-layer network's forward and backward pass.
Deterministic.
"""

import json

events = []
pids = {}


def process(device):
    for suffix in (" Compute", " Tensors"):
        pid = len(pids) + 1
        pids[device + suffix] = pid
        events.append({"name": "process_name", "ph": "M", "pid": pid,
                       "args": {"name": device + suffix}})
    return pids[device + " Compute"]


events.append({"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "Allocators"}})
HOST_GPU = process("/job:localhost/replica:0/task:0/device:GPU:0")
HOST_CPU = process("/job:localhost/replica:0/task:0/device:CPU:0")
ALL = process("/device:GPU:0/stream:all")
STREAM = {14: process("/device:GPU:0/stream:14"), 15: process("/device:GPU:0/stream:15"),
          16: process("/device:GPU:0/stream:16")}
MEMCPY = process("/device:GPU:0/memcpy")

T0 = 1514764800000000  # µs since 1970, as TF1 writes


def op(pid, ts, dur, name, op_type, inputs=(), tid=0):
    args = {"name": name, "op": op_type}
    for i, x in enumerate(inputs):
        args[f"input{i}"] = x
    events.append({"ph": "X", "cat": "Op", "name": op_type, "pid": pid, "tid": tid,
                   "ts": T0 + ts, "dur": dur, "args": args})


def gpu(stream, ts, dur, name, op_type, copy=False, lane=0):
    for pid in (STREAM[stream], ALL) + ((MEMCPY,) if copy else ()):
        op(pid, ts, dur, name, op_type, tid=lane if pid == ALL else 0)


# The CPU side: the feed.
op(HOST_CPU, 0, 4, "_SOURCE", "NoOp")
op(HOST_CPU, 6, 31, "x", "Const")
op(HOST_CPU, 9, 12, "labels", "Const")
# Host side of the GPU ops (launch and bookkeeping), then the GPU's work.
op(HOST_GPU, 2, 3, "_SOURCE", "NoOp")
layers = [("dense/MatMul", "MatMul", ["x/_1", "dense/kernel/read"], 14, 211),
          ("dense/BiasAdd", "BiasAdd", ["dense/MatMul", "dense/bias/read"], 14, 23),
          ("dense/Relu", "Relu", ["dense/BiasAdd"], 14, 17),
          ("dense_1/MatMul", "MatMul", ["dense/Relu", "dense_1/kernel/read"], 14, 97),
          ("dense_1/BiasAdd", "BiasAdd", ["dense_1/MatMul", "dense_1/bias/read"], 14, 11),
          ("loss/SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
           ["dense_1/BiasAdd", "labels/_3"], 14, 29),
          ("gradients/dense_1/MatMul_grad/MatMul", "MatMul",
           ["loss/SparseSoftmaxCrossEntropyWithLogits:1", "dense_1/kernel/read"], 14, 89),
          ("gradients/dense_1/MatMul_grad/MatMul_1", "MatMul",
           ["dense/Relu", "loss/SparseSoftmaxCrossEntropyWithLogits:1"], 14, 93),
          ("gradients/dense/Relu_grad/ReluGrad", "ReluGrad",
           ["gradients/dense_1/MatMul_grad/MatMul", "dense/Relu"], 14, 19),
          ("gradients/dense/MatMul_grad/MatMul_1", "MatMul",
           ["x/_1", "gradients/dense/Relu_grad/ReluGrad"], 14, 203),
          ("GradientDescent/update_dense/kernel/ApplyGradientDescent", "ApplyGradientDescent",
           ["dense/kernel", "learning_rate", "gradients/dense/MatMul_grad/MatMul_1"], 14, 41)]
# The copy of x to the GPU: a host-side Recv, the copy on stream 15.
op(HOST_GPU, 40, 9, "x/_1", "_Recv")
gpu(15, 52, 64, "edge_4_x", "MEMCPYHtoD", copy=True)
op(HOST_GPU, 42, 6, "labels/_3", "_Recv", tid=1)
gpu(15, 117, 5, "edge_6_labels", "MEMCPYHtoD", copy=True)
host, device = 60, 125
for i, (name, op_type, inputs, stream, kernel_us) in enumerate(layers):
    launch = 7 + (i * 3) % 5
    op(HOST_GPU, host, launch, name, op_type, inputs)
    device = max(device, host + launch + 2)
    gpu(stream, device, kernel_us, name, op_type)
    host += launch + 4
    device += kernel_us + 1
# The loss back to the host on stream 16.
op(HOST_GPU, host, 8, "loss/_5", "_Send", ["loss/SparseSoftmaxCrossEntropyWithLogits"])
gpu(16, device + 3, 4, "edge_21_loss", "MEMCPYDtoH", copy=True)
# Flows: the feeds cross from the CPU device to the GPU device.
for i, (name, start, end) in enumerate([("x", 37, 40), ("labels", 21, 42)]):
    events.append({"ph": "s", "cat": "DataFlow", "name": name, "pid": HOST_CPU, "tid": 0,
                   "ts": T0 + start, "id": i})
    events.append({"ph": "t", "cat": "DataFlow", "name": name, "pid": HOST_GPU, "tid": 0,
                   "ts": T0 + end, "id": i})
print(json.dumps({"traceEvents": events}, indent=1))
