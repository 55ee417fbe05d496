#!/usr/bin/env python3
"""Writes the ONNX model of the ONNX Runtime recordings, with Debian's python3-onnx.

    ort_model.py OUT.onnx

Two branches from one input x [N, 256] that join: MatMul, Add (bias), Relu,
MatMul on one side, MatMul, Sigmoid, MatMul on the other, then Add, a MatMul
head and Softmax: ten nodes, so that the parallel executor has independent
work to hand to its threads, and the sequential one a chain of MatMuls that
dominate (ONNX Runtime fuses the first MatMul and Add into a FusedGemm).
Weights are seeded: the file is the same every run. Opset 13, IR version 8
(which onnxruntime 1.30 reads). Exit 0 with OUT written, 1 with a one-line
reason on stderr.
"""

import sys


def main():
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as e:
        print(f"ort_model.py: {e}; the tests need Debian's python3-onnx (scripts/install-deps.sh)",
              file=sys.stderr)
        return 1
    rng = np.random.default_rng(0)

    def weight(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.05, name)

    weights = [weight("W1", 256, 512), weight("B1", 512), weight("W2", 512, 512),
               weight("W3", 256, 512), weight("W4", 512, 512), weight("W5", 512, 10)]
    node = helper.make_node
    nodes = [
        node("MatMul", ["x", "W1"], ["a1"], name="branch_a_matmul"),
        node("Add", ["a1", "B1"], ["a2"], name="branch_a_bias"),
        node("Relu", ["a2"], ["a3"], name="branch_a_relu"),
        node("MatMul", ["a3", "W2"], ["a4"], name="branch_a_matmul2"),
        node("MatMul", ["x", "W3"], ["b1"], name="branch_b_matmul"),
        node("Sigmoid", ["b1"], ["b2"], name="branch_b_sigmoid"),
        node("MatMul", ["b2", "W4"], ["b3"], name="branch_b_matmul2"),
        node("Add", ["a4", "b3"], ["s"], name="join_add"),
        node("MatMul", ["s", "W5"], ["logits"], name="head_matmul"),
        node("Softmax", ["logits"], ["y"], name="head_softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "two_branches", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 10])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
