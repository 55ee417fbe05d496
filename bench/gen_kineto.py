#!/usr/bin/env python3
"""Writes a Kineto-style (PyTorch profiler) Chrome trace of a requested size.

    python3 bench/gen_kineto.py MEGABYTES --out FILE [--seed S] [--ops-per-step N]

What a training loop under torch.profiler writes: ProfilerStep#N spans on the
main thread (the frames), module-level cpu_ops nested 3 to 6 deep
(aten::linear > aten::addmm > aten::mm ...), cuda_runtime launches at the
leaves (cudaLaunchKernel, cudaMemcpyAsync), kernels and memcpys on four CUDA
streams, each tied to its launch by an `ac2g` flow (`s` on the launch, `f` with
"bp":"e" on the kernel, id = correlation), kernels that lag behind the CPU into
the next step's time, a backward pass on the autograd thread, the optimizer
step, the profiler's own `Trace` span and ProfilerStep copies on a stream
(gpu_user_annotation). Events are written step by step in time order, except
that every seventh step is written shuffled (the format promises no order).

Times are µs with three decimals relative to baseTimeNanoseconds, as Kineto 2
writes them: exact at ns precision in a double, so a Python reader agrees with
cookgraph's exact reading. No two slices of one thread start at the same
time and siblings never overlap, so the nesting is unambiguous.

Streaming: steps are generated and written one at a time until the file
reaches the requested size; memory holds one step. Deterministic: the same
arguments give the same bytes.
"""

import argparse
import json
import os
import random
import sys
import time

PID = 2718
MAIN_TID = 2718
BWD_TID = 2741
GPU_PID = 0
STREAMS = [7, 13, 17, 21]  # stream 7 is the default stream and takes most work

GEMM = ["ampere_sgemm_128x64_tn", "ampere_sgemm_64x32_sliced1x4_nn",
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
        "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma"]
ELTWISE = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
           "at::detail::Array<char*, 3>)",
           "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
           "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const"
           "::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >"
           "(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)"
           "::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
           "at::detail::Array<char*, 2>)",
           "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"
           "(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()"
           "() const::{lambda(float)#1}, at::detail::Array<char*, 2>, "
           "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
           "at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast>",
           "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
           "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
           "at::detail::Array<char*, 1>)"]
NORM = ["void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
        "(int, float, float const*, float const*, float const*, float*, float*, float*)",
        "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>"
        "(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, "
        "float, float, float*, float*, float*, float*, float, float)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"]
CONV = ["void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>"
        "(int, int, int, float const*, int, float*, float const*, kernel_conv_params, "
        "unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
        "sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize32x32x8"
        "_stage3_warpsize1x2x1_g1_ffma_aligna4_alignc4"]
REDUCE = ["void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
          "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >"
          "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
          "unsigned int, float, 4>)",
          "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
          "at::native::(anonymous namespace)::TensorListMetadata<2>, "
          "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "
          "std::plus<float>, float>"]

# A module-level op: (name, kernel family, typical kernel µs). Its subtree is drawn
# from MID (the dispatcher's internal ops) down to the launch.
TOP_OPS = [("aten::linear", GEMM, 60), ("aten::conv2d", CONV, 120), ("aten::batch_norm", NORM, 25),
           ("aten::layer_norm", NORM, 18), ("aten::gelu", ELTWISE, 12), ("aten::dropout", ELTWISE, 10),
           ("aten::softmax", NORM, 15), ("aten::add", ELTWISE, 8), ("aten::matmul", GEMM, 80),
           ("aten::scaled_dot_product_attention", GEMM, 150), ("aten::embedding", ELTWISE, 20),
           ("aten::mean", REDUCE, 9), ("aten::cross_entropy_loss", NORM, 14)]
MID = ["aten::addmm", "aten::mm", "aten::bmm", "aten::_convolution", "aten::cudnn_convolution",
       "aten::native_layer_norm", "aten::native_batch_norm", "aten::_softmax", "aten::to",
       "aten::_to_copy", "aten::copy_", "aten::contiguous", "aten::clone", "aten::mul",
       "aten::div", "aten::sum", "aten::_log_softmax", "aten::nll_loss_forward", "aten::gelu_",
       "aten::native_dropout", "aten::_efficient_attention_forward", "aten::index_select",
       "aten::fill_", "aten::zero_", "aten::add_", "aten::expand", "aten::reshape"]
LEAF_CPU = ["aten::empty", "aten::empty_strided", "aten::view", "aten::t", "aten::transpose",
            "aten::as_strided", "aten::resolve_conj", "aten::_unsafe_view"]
SHAPES = [[[32, 512, 768], [768, 768], [768]], [[32, 3, 224, 224], [64, 3, 7, 7]], [[32, 512, 768]],
          [[16384, 3072], [3072, 768]], [[32, 12, 512, 64], [32, 12, 512, 64], [32, 12, 512, 64]],
          [[32, 512]], []]


class Writer:
    """Counts what it writes; events are dicts dumped compactly, one a line."""

    def __init__(self, path):
        self.f = open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20)
        self.bytes = 0
        self.first = True

    def raw(self, text):
        self.f.write(text)
        self.bytes += len(text)  # ASCII only

    def event(self, e):
        self.raw(("" if self.first else ",\n") + json.dumps(e, separators=(",", ":")))
        self.first = False


def us(ns):
    """ns (int) as µs with three decimals: exact in the JSON text."""
    return round(ns / 1000, 3)


class Step:
    """Builds the events of one ProfilerStep; times are ints in ns."""

    def __init__(self, rng, step, t0, gpu_free, corr, ext, ops_per_step):
        self.rng, self.step = rng, step
        self.cpu, self.gpu, self.flows, self.gpu_side = [], [], [], []
        self.gpu_free = gpu_free  # per stream: when it is idle again (ns)
        self.corr, self.ext = corr, ext
        self.ops = ops_per_step
        self.t0 = t0

    def slice(self, cat, name, tid, start, end, args=None, pid=PID):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
             "ts": us(start), "dur": us(end - start)}
        if args:
            e["args"] = args
        return e

    def launch(self, tid, t, kernels, kernel_us):
        """A cuda_runtime call at t with its kernel; returns the call's end."""
        rng = self.rng
        self.corr += 1
        memcpy = rng.random() < 0.05
        name = "cudaMemcpyAsync" if memcpy else "cudaLaunchKernel"
        end = t + rng.randint(3000, 9000)
        self.cpu.append(self.slice("cuda_runtime", name, tid, t, end,
                                   {"External id": self.ext, "cbid": 41 if memcpy else 211,
                                    "correlation": self.corr}))
        self.flows.append({"ph": "s", "id": self.corr, "pid": PID, "tid": tid, "ts": us(t),
                           "cat": "ac2g", "name": "ac2g"})
        stream = STREAMS[0] if rng.random() < 0.7 else rng.choice(STREAMS[1:])
        k0 = max(t + rng.randint(4000, 12000), self.gpu_free[stream] + rng.randint(500, 3000))
        dur = max(1500, int(kernel_us * 1000 * rng.uniform(0.6, 1.5)))
        if memcpy:
            cat, kname = "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)"
            args = {"device": 0, "context": 1, "stream": stream, "correlation": self.corr,
                    "bytes": rng.choice((4096, 65536, 1 << 20)), "memory bandwidth (GB/s)": 11.2}
        else:
            cat, kname = "kernel", kernels[rng.randrange(len(kernels))]
            args = {"queued": 0, "device": 0, "context": 1, "stream": stream,
                    "correlation": self.corr, "registers per thread": rng.choice((32, 64, 128)),
                    "shared memory": rng.choice((0, 16384, 49152)), "blocks per SM": 1.6,
                    "warps per SM": 12.8, "grid": [rng.choice((64, 128, 512)), 1, 1],
                    "block": [rng.choice((128, 256)), 1, 1], "est. achieved occupancy %": 50}
        self.gpu.append(self.slice(cat, kname, stream, k0, k0 + dur, args, pid=GPU_PID))
        self.flows.append({"ph": "f", "id": self.corr, "pid": GPU_PID, "tid": stream,
                           "ts": us(k0), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        self.gpu_free[stream] = k0 + dur
        return end

    def subtree(self, tid, name, t, depth, kernels, kernel_us, cat="cpu_op"):
        """An op at t nested `depth` more levels; returns its end (ns)."""
        rng = self.rng
        self.ext += 1
        ext = self.ext  # Kineto numbers ops in the order they start
        start = t
        t += rng.randint(1000, 4000)
        if depth == 0:
            launches = name not in LEAF_CPU and rng.random() < 0.9
            t = self.launch(tid, t, kernels, kernel_us) if launches else \
                t + rng.randint(500, 3000)
        else:
            for c in range(rng.randint(1, 3)):
                if c > 0 and rng.random() < 0.5:
                    t = self.subtree(tid, rng.choice(LEAF_CPU), t, 0, kernels, 0) + \
                        rng.randint(300, 1500)
                    continue
                child = rng.choice(MID) if depth > 1 else rng.choice(MID + LEAF_CPU)
                t = self.subtree(tid, child, t, depth - 1, kernels, kernel_us) + \
                    rng.randint(300, 1500)
        end = t + rng.randint(500, 3000)
        args = {"External id": ext, "Record function id": 0, "Ev Idx": ext % 100000}
        if depth >= 2:
            shape = SHAPES[rng.randrange(len(SHAPES))]
            args["Input Dims"] = shape
            args["Input type"] = ["float"] * len(shape)
        self.cpu.append(self.slice(cat, name, tid, start, end, args))
        return end

    def build(self):
        rng = self.rng
        t = self.t0 + rng.randint(2000, 6000)
        forward = []
        for _ in range(self.ops):
            name, kernels, kus = TOP_OPS[rng.randrange(len(TOP_OPS))]
            t = self.subtree(MAIN_TID, name, t, rng.randint(2, 5), kernels, kus) + \
                rng.randint(1000, 8000)
            forward.append((name, kernels, kus))
        # Backward: the autograd thread, after the forward pass.
        t_b = t + rng.randint(5000, 20000)
        for name, kernels, kus in reversed(forward[-max(1, self.ops // 2):]):
            op = "".join(p.capitalize() for p in name[6:].split("_")) + "Backward0"
            start = t_b
            self.ext += 1
            inner = self.subtree(BWD_TID, op, t_b + rng.randint(1000, 3000), rng.randint(1, 3),
                                 kernels, kus * 2, cat="cpu_op")
            end = inner + rng.randint(1000, 3000)
            self.cpu.append(self.slice("cpu_op", f"autograd::engine::evaluate_function: {op}",
                                       BWD_TID, start, end, {"External id": self.ext}))
            t_b = end + rng.randint(500, 4000)
        # Optimizer step on the main thread.
        t = t_b + rng.randint(2000, 8000)
        start = t
        inner = self.subtree(MAIN_TID, "aten::_foreach_add_", t + 2000, 1, REDUCE[1:], 40)
        end = inner + 3000
        self.cpu.append(self.slice("user_annotation", "Optimizer.step#SGD.step", MAIN_TID,
                                   start, end, {"External id": self.ext}))
        step_end = end + rng.randint(2000, 6000)
        self.cpu.append(self.slice("user_annotation", f"ProfilerStep#{self.step}", MAIN_TID,
                                   self.t0, step_end, {"External id": self.ext}))
        # The step's copy on the default stream, over its kernels there.
        on7 = [e for e in self.gpu if e["tid"] == STREAMS[0]]
        if on7:
            g0 = round(on7[0]["ts"] * 1000)
            g1 = round((on7[-1]["ts"] + on7[-1]["dur"]) * 1000)
            self.gpu_side.append(self.slice("gpu_user_annotation", f"ProfilerStep#{self.step}",
                                            STREAMS[0], g0, g1, {"External id": self.ext},
                                            pid=GPU_PID))
        return step_end


def write_kineto(megabytes, path, seed, ops_per_step):
    rng = random.Random(seed)
    w = Writer(path)
    target = int(megabytes * 1e6)
    w.raw('{\n"schemaVersion": 1,\n"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB",'
          ' "totalGlobalMem": 42298834944, "computeMajor": 8, "computeMinor": 0,'
          ' "maxThreadsPerBlock": 1024, "numSms": 108}],\n"record_shapes": 1,\n'
          '"with_stack": 0,\n"traceEvents": [\n')
    meta = [("process_name", PID, 0, {"name": "python3"}), ("process_name", GPU_PID, 0,
                                                            {"name": "GPU 0"}),
            ("thread_name", PID, MAIN_TID, {"name": "thread 2718 (python3)"}),
            ("thread_name", PID, BWD_TID, {"name": "thread 2741 (pt_autograd_0)"})]
    meta += [("thread_name", GPU_PID, s, {"name": f"stream {s}"}) for s in STREAMS]
    for name, pid, tid, args in meta:
        w.event({"name": name, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": args})
    t = 1_000_000  # ns after baseTimeNanoseconds
    trace_start = t
    t += 20_000
    gpu_free = {s: 0 for s in STREAMS}
    corr, ext, step, steps = 0, 0, 1, 0
    # The profiler's own span covers everything; its length is known only at
    # the end, so it is written last (the order of events is free).
    while w.bytes < target or steps < 2:
        s = Step(rng, step, t, gpu_free, corr, ext, ops_per_step)
        end = s.build()
        corr, ext = s.corr, s.ext
        events = sorted(s.cpu, key=lambda e: (e["ts"], -e["dur"])) + s.flows + s.gpu + s.gpu_side
        if step % 7 == 3:
            rng.shuffle(events)
        for e in events:
            w.event(e)
        t = end + rng.randint(5000, 30000)
        step += 1
        steps += 1
    w.event({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
             "tid": "PyTorch Profiler", "ts": us(trace_start), "dur": us(t - trace_start),
             "args": {"Op count": 0}})
    w.raw('\n],\n"traceName": "bench_kineto.pt.trace.json",\n'
          '"baseTimeNanoseconds": 1763700000000000000\n}\n')
    w.f.close()
    return steps, corr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("megabytes", type=float)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--ops-per-step", type=int, default=120,
                    help="module-level ops in a step's forward pass (default 120)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    steps, launches = write_kineto(args.megabytes, args.out, args.seed, args.ops_per_step)
    print(f"{args.out}: {steps} steps, {launches} launches, "
          f"{os.path.getsize(args.out) / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
