#!/usr/bin/env python3
"""Writes the bad-input corpus (tests/data/bad/README.md says what each file is).

  bad_corpus.py small DIR   the small cases committed under tests/data/bad
                            (native/, gzip/, chrome/, gstreamer/, config/,
                            pack/, accepted/); the test
                            bad_input_corpus_is_reproducible compares them
  bad_corpus.py large DIR   the cases too large to commit, written at test
                            time into the build folder: a 2 GB sparse file per
                            format, gzip bombs that expand to gigabytes, names
                            of a million characters

Deterministic: random bytes come from a seeded generator, gzip members carry
no time stamp, so two runs write the same bytes.
"""

import gzip
import io
import os
import random
import sys
import zlib

SEED = 20261125

# A small, valid snapshot: the reference of the accepted variants, and the
# base of the broken ones.
CLEAN_JSON = """{
  "cookgraph": 1,
  "engine": "touchdesigner",
  "name": "corpus",
  "fps": 60,
  "nodes": [
    {"id": "/p/noise1", "type": "noiseTOP", "family": "TOP", "params": {"resolutionw": "1280"}},
    {"id": "/p/level1", "type": "levelTOP", "family": "TOP", "inputs": ["/p/noise1"]},
    {"id": "/p/out1", "type": "nullTOP", "family": "TOP", "inputs": ["/p/level1"], "output": true}
  ],
  "frames": {
    "index": [10, 11, 12, 13],
    "frame_ms": [16.1, 17.3, 15.9, 16.4],
    "series": {
      "/p/noise1": {"cook_ms": [1.5, 1.75, 1.5, 2.0], "gpu_ms": [1.0, 1.25, 1.0, 1.5]},
      "/p/level1": {"cook_ms": [0.5, 0.5, null, 0.75]},
      "/p/out1": {"cook_ms": [0.01, 0.01, 0.01, 0.01]}
    }
  }
}
"""

CLEAN_YAML = """# the corpus snapshot, spelled in YAML
cookgraph: 1
engine: touchdesigner
name: corpus
fps: 60
nodes:
  - {id: /p/noise1, type: noiseTOP, family: TOP, params: {resolutionw: "1280"}}
  - {id: /p/level1, type: levelTOP, family: TOP, inputs: [/p/noise1]}
  - {id: /p/out1, type: nullTOP, family: TOP, inputs: [/p/level1], output: true}
frames:
  index: [10, 11, 12, 13]
  frame_ms: [16.1, 17.3, 15.9, 16.4]
  series:
    /p/noise1: {cook_ms: [1.5, 1.75, 1.5, 2.0], gpu_ms: [1.0, 1.25, 1.0, 1.5]}
    /p/level1: {cook_ms: [0.5, 0.5, null, 0.75]}
    /p/out1: {cook_ms: [0.01, 0.01, 0.01, 0.01]}
"""

# A Kineto-like trace: two steps, a conv and a relu per step.
CLEAN_KINETO = """{
  "schemaVersion": 1,
  "deviceProperties": [],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 10, "dur": 40, "args": {"Input Dims": [[1, 3, 224, 224], [64, 3, 7, 7]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 55, "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 110, "dur": 45},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 160, "dur": 12}
  ]
}
"""

# A minimal GStreamer 1.22 dump (videotestsrc ! videoconvert ! fakesink) and
# its latency tracer log: three buffers.
DOT_HEAD = """digraph pipeline {
  rankdir=LR;
  label="<GstPipeline>\\npipeline0\\n[>]";
  node [style="filled,rounded", shape=box, fontsize="9"];
"""


def dot_element(name, ptr, gtype, pads, fill="#aaffaa", extra=""):
    ident = name.replace("-", "_") + "_" + ptr
    out = [f"  subgraph cluster_{ident} {{",
           f'    label="{gtype}\\n{name}\\n[>]{extra}";']
    for kind, pad, pad_ptr in pads:
        colour = "#ffaaaa" if kind == "src" else "#aaaaff"
        out.append(f"    subgraph cluster_{ident}_{kind} {{")
        out.append('      label="";')
        out.append(f'      {ident}_{pad}_{pad_ptr} [color=black, fillcolor="{colour}", '
                   f'label="{pad}\\n[>][bfb]", height="0.2", style="filled,solid"];')
        out.append("    }")
    out.append(f'    fillcolor="{fill}";')
    out.append("  }")
    return "\n".join(out) + "\n"


CLEAN_DOT = (DOT_HEAD
             + dot_element("sink", "0x5600000000a3", "GstFakeSink", [("sink", "sink", "0x5600000001a3")],
                           "#aaaaff", "\\nsync=FALSE")
             + dot_element("conv", "0x5600000000a2", "GstVideoConvert",
                           [("sink", "sink", "0x5600000001a2"), ("src", "src", "0x5600000002a2")])
             + dot_element("src-1", "0x5600000000a1", "GstVideoTestSrc", [("src", "src", "0x5600000002a1")],
                           "#ffaaaa")
             + "  src_1_0x5600000000a1_src_0x5600000002a1 -> conv_0x5600000000a2_sink_0x5600000001a2 "
               "[label=\"video/x-raw\\l  framerate: 30/1\\l\"]\n"
             + "  conv_0x5600000000a2_src_0x5600000002a2 -> sink_0x5600000000a3_sink_0x5600000001a3 "
               "[label=\"video/x-raw\\l  framerate: 30/1\\l\"]\n"
             + "}\n")

LOG_PREFIX = "0:00:00.0{:08d} 10671 0x55ad108f4c60 TRACE             GST_TRACER :0:: "


def log_line(k, record):
    return LOG_PREFIX.format(35000000 + k * 100000) + record + "\n"


def element_record(ptr, name, pad, ns, ts):
    return (f"element-latency, element-id=(string){ptr}, element=(string){name}, "
            f"src=(string){pad}, time=(guint64){ns}, ts=(guint64){ts};")


def latency_record(ns, ts):
    return ("latency, src-element-id=(string)0x5600000000a1, src-element=(string)src-1, "
            "src=(string)src, sink-element-id=(string)0x5600000000a3, sink-element=(string)sink, "
            f"sink=(string)sink, time=(guint64){ns}, ts=(guint64){ts};")


def clean_log(conv_name="conv"):
    lines = []
    for k, ns in enumerate([1200000, 1350000, 1100000]):
        ts = 36000000 + k * 33000000
        lines.append(log_line(2 * k, element_record("0x5600000000a2", conv_name, "src", ns, ts)))
        lines.append(log_line(2 * k + 1, latency_record(ns + 300000, ts + 400000)))
    return "".join(lines)


CLEAN_LOG = clean_log()

CLEAN_CONFIG = """# ./cookgraph.yaml of the corpus: every key the config file knows about
llm:
  base_url: http://127.0.0.1:9/v1
  model: corpus-model
advisor:
  budget_tokens: 4000
"""

CLEAN_PACK = """# a knowledge pack of the corpus
engine: pytorch
extends: generic
guidelines: |
  Keep the convolutions on the fast kernels.
rules:
  - id: corpus-heavy-op
    severity: warning
    scope: node
    match: {id: ["aten::*"]}
    when:
      - {fact: share, ge: 0.01}
    evidence: [per_frame_ms, share]
    title: "An operator takes {share} of the step"
    suggestion: "Look at the operators that take {per_frame_ms} ms per step first."
"""


def rng():
    return random.Random(SEED)


def gz(data, level=9):
    """gzip bytes without a time stamp or a file name: the same bytes every run."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=level, mtime=0, filename="") as f:
        f.write(data)
    return buffer.getvalue()


def crlf(text):
    return text.replace("\n", "\r\n")


def noise(r, n):
    """`n` random bytes from the seeded generator `r`."""
    return bytes(r.getrandbits(8) for _ in range(n))


def nested(n):
    return "[" * n + "]" * n


BOM = b"\xef\xbb\xbf"


def small_cases():
    """(relative path, bytes) of every committed case, in README order."""
    r = rng()
    j = CLEAN_JSON
    cases = []

    def add(path, data):
        cases.append((path, data.encode() if isinstance(data, str) else data))

    # Native snapshots, JSON.
    add("native/truncated.json", j[: j.index('"frames"') + 30])
    add("native/wrong_type_fps.json", j.replace('"fps": 60', '"fps": "sixty"'))
    add("native/huge_fps.json", j.replace('"fps": 60', '"fps": 1e300'))
    add("native/nan_literal.json", j.replace("[1.5, 1.75, 1.5, 2.0]", "[1.5, NaN, 1.5, 2.0]"))
    add("native/infinity_literal.json", j.replace('"fps": 60', '"fps": Infinity'))
    add("native/huge_frame_number.json", j.replace("[10, 11, 12, 13]", "[10, 11, 12, 100000000000000000000000]"))
    add("native/long_number.json", j.replace("[0.01, 0.01, 0.01, 0.01]", "[0.01, 0.01, 0.01, 0." + "1" * 3000 + "]"))
    add("native/deep_nesting.json", j.replace('"name": "corpus",', '"name": "corpus", "extra": ' + nested(300) + ","))
    add("native/long_key.json", j.replace('"resolutionw"', '"' + "k" * 3000 + '"'))
    add("native/long_string.json", j.replace('"1280"', '"' + "v" * 5000 + '"'))
    add("native/long_id.json", j.replace('"/p/out1"', '"/p/' + "o" * 3000 + '"'))
    add("native/invalid_utf8.json", j.encode().replace(b"noiseTOP", b"noise\xff\xfeTOP"))
    add("native/overlong_utf8.json", j.encode().replace(b"/p/level1\", \"type", b"/p/level\xc0\xaf1\", \"type"))
    add("native/lone_surrogate.json", j.replace('"name": "corpus"', '"name": "corpus\\ud800"'))
    add("native/control_character.json", j.replace('"name": "corpus"', '"name": "cor\tpus"'))
    add("native/trailing_garbage.json", j + "}\n")
    add("native/duplicate_key.json", j.replace('"fps": 60,', '"fps": 60, "fps": 30,'))
    add("native/top_level_array.json", "[" + j + "]")
    add("native/whitespace_only.json", " \n\t\r\n" * 100)
    add("native/random_bytes.json", noise(r, 2048))
    add("native/nul_bytes.json", b"\0" * 1024)
    add("native/many_nodes.json", '{"cookgraph": 1, "nodes": [' +
        ", ".join('{"id": "/p/n%d"}' % i for i in range(40)) + "]}\n")
    # Native snapshots, YAML.
    y = CLEAN_YAML
    add("native/truncated.yaml", y[: y.index("frames:") + 20])
    add("native/tab_indent.yaml", y.replace("  index:", "\tindex:"))
    add("native/alias.yaml", y.replace("  - {id: /p/noise1,", "  - &n {id: /p/noise1,").replace("frames:", "copy: *n\nframes:"))
    add("native/billion_laughs.yaml", "cookgraph: 1\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" +
        "".join("%s: &%s [%s]\n" % (c, c, ",".join(["*" + p] * 9)) for p, c in zip("abcdefgh", "bcdefghi")) +
        "nodes: [{id: x}]\n")
    add("native/invalid_utf8.yaml", y.encode().replace(b"noiseTOP", b"noise\xff\xfeTOP"))
    add("native/deep_nesting.yaml", y.replace("name: corpus\n", "name: corpus\nextra: " + nested(300) + "\n"))
    add("native/two_documents.yaml", y + "---\n" + y)
    add("native/wrong_type_nodes.yaml", y.replace("nodes:\n", "nodes: 5\nx:\n"))
    add("native/infinite_fps.yaml", y.replace("fps: 60", "fps: .inf"))
    add("native/huge_integer.yaml", y.replace("[10, 11, 12, 13]", "[10, 11, 12, 99999999999999999999999999]"))
    add("native/long_scalar.yaml", y.replace('"1280"', '"' + "v" * 5000 + '"'))
    add("native/random_bytes.yaml", noise(r, 2048))
    # gzip.
    add("gzip/bad_header.json.gz", b"\x1f\x8b\x08\x00" + noise(r, 512))
    whole = gz(j.encode())
    add("gzip/bad_crc.json.gz", whole[:-8] + bytes([whole[-8] ^ 0xFF]) + whole[-7:])
    add("gzip/gzip_of_random_bytes.json.gz", gz(noise(r, 2048)))
    add("gzip/gzip_of_gzip.json.gz", gz(gz(j.encode())))
    add("gzip/trailing_garbage.json.gz", whole + b"this is not gzip")
    add("gzip/empty_gzip.json.gz", gz(b""))
    # Chrome traces.
    k = CLEAN_KINETO
    add("chrome/kineto_truncated.json", k[: k.index("aten::relu") + 20])
    add("chrome/kineto_events_object.json", k.replace('"traceEvents": [', '"traceEvents": {"x": [').replace("\n  ]\n}", "\n  ]}\n}"))
    add("chrome/kineto_ts_string.json", k.replace('"ts": 55', '"ts": "fifty-five"'))
    add("chrome/kineto_dur_huge.json", k.replace('"dur": 10}', '"dur": 1e15}'))
    add("chrome/kineto_ts_overflow.json", k.replace('"ts": 55', '"ts": 1e400'))
    add("chrome/kineto_deep_args.json", k.replace('"Input Dims": [[1, 3, 224, 224], [64, 3, 7, 7]]',
                                                  '"Input Dims": ' + nested(300)))
    add("chrome/kineto_invalid_utf8.json", k.encode().replace(b"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 55",
                                                              b"aten::r\xe9lu\", \"pid\": 1, \"tid\": 1, \"ts\": 55"))
    add("chrome/kineto_long_name.json", k.replace('"name": "aten::relu", "pid": 1, "tid": 1, "ts": 55',
                                                  '"name": "aten::' + "r" * 3000 + '", "pid": 1, "tid": 1, "ts": 55'))
    add("chrome/kineto_long_arg.json", k.replace("[64, 3, 7, 7]]", "[64, 3, 7, 7]" + ", [1]" * 1000 + "]"))
    add("chrome/kineto_many_ops.json", k.replace('    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2"',
                                                 "".join('    {"ph": "X", "cat": "cpu_op", "name": "op%d", "pid": 1, "tid": 1, "ts": %d, "dur": 1},\n' % (i, 66 + i)
                                                         for i in range(30)) +
                                                 '    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2"'))
    add("chrome/kineto_no_slices.json", '{"schemaVersion": 1, "traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]}\n')
    add("chrome/kineto_pid_overflow.json", k.replace('"pid": 1, "tid": 1, "ts": 55', '"pid": 1e999, "tid": 1, "ts": 55'))
    add("chrome/array_event_is_number.json", '[{"ph": "X", "name": "a", "ts": 0, "dur": 1, "pid": 1, "tid": 1}, 42]\n')
    add("chrome/array_random_tail.json", b'[{"ph": "X", "name": "a", "ts": 0, "dur": 1, "pid": 1, "tid": 1}, ' +
        noise(r, 1024))
    tf = ('[\n' + ",\n".join(
        '{"ph": "X", "cat": "Op", "name": "%s", "pid": 1, "tid": 0, "ts": %d, "dur": %d, "args": {"name": "%s"%s}}' %
        (op, ts, dur, node, inputs) for op, ts, dur, node, inputs in [
            ("Conv2D", 0, 30, "model/conv1", ', "input0": "input"'),
            ("Relu", 31, 5, "model/relu1", ', "input0": "model/conv1"'),
            ("Conv2D", 100, 30, "model/conv1", ', "input0": "input"'),
            ("Relu", 131, 5, "model/relu1", ', "input0": "model/conv1"')]) + "\n]\n")
    add("chrome/tf_long_node_name.json", tf.replace('"name": "model/relu1"', '"name": "model/' + "r" * 3000 + '"', 1))
    add("chrome/tf_input_not_string_deep.json", tf.replace('"input0": "input"', '"input0": ' + "{\"a\": " * 300 + "1" + "}" * 300, 1))
    ort = ('[\n{"cat": "Session", "pid": 1, "tid": 1, "dur": 200, "ts": 0, "ph": "X", "name": "model_run", "args": {}},\n'
           '{"cat": "Node", "pid": 1, "tid": 1, "dur": 50, "ts": 10, "ph": "X", "name": "conv_kernel_time", "args": {"op_name": "Conv", "provider": "CPUExecutionProvider"}},\n'
           '{"cat": "Session", "pid": 1, "tid": 1, "dur": 200, "ts": 300, "ph": "X", "name": "model_run", "args": {}},\n'
           '{"cat": "Node", "pid": 1, "tid": 1, "dur": 55, "ts": 310, "ph": "X", "name": "conv_kernel_time", "args": {"op_name": "Conv", "provider": "CPUExecutionProvider"}}\n]\n')
    add("chrome/ort_truncated.json", ort[: ort.index('"op_name"') + 5])
    add("chrome/ort_dur_string.json", ort.replace('"dur": 50', '"dur": "50us"'))
    add("chrome/ort_long_op_name.json", ort.replace('"op_name": "Conv"', '"op_name": "' + "C" * 3000 + '"', 1))
    # GStreamer recordings: a folder each, with its dump and log.
    add("gstreamer/dot_truncated/pipeline.dot", CLEAN_DOT[: CLEAN_DOT.index("GstVideoConvert") + 40])
    add("gstreamer/dot_truncated/trace.log", CLEAN_LOG)
    add("gstreamer/dot_unclosed_string/pipeline.dot", CLEAN_DOT.replace('label="<GstPipeline>', 'label="<GstPipeline', 1)
        .replace('"GstVideoConvert', 'GstVideoConvert'))
    add("gstreamer/dot_unclosed_string/trace.log", CLEAN_LOG)
    add("gstreamer/dot_deep/pipeline.dot", CLEAN_DOT[:-2] + "subgraph cluster_deep {\n" * 300 + "}\n" * 300 + "}\n")
    add("gstreamer/dot_deep/trace.log", CLEAN_LOG)
    add("gstreamer/dot_random_tail/pipeline.dot", CLEAN_DOT[: len(CLEAN_DOT) // 2].encode() + noise(r, 512))
    add("gstreamer/dot_random_tail/trace.log", CLEAN_LOG)
    add("gstreamer/dot_long_name/pipeline.dot", CLEAN_DOT.replace("\\nconv\\n", "\\n" + "c" * 3000 + "\\n"))
    add("gstreamer/dot_long_name/trace.log", CLEAN_LOG)
    add("gstreamer/log_no_records/pipeline.dot", CLEAN_DOT)
    add("gstreamer/log_no_records/trace.log", "".join(LOG_PREFIX.format(k) + "hello\n" for k in range(20)).replace("TRACE ", "DEBUG "))
    add("gstreamer/log_long_name/pipeline.dot", CLEAN_DOT)
    add("gstreamer/log_long_name/trace.log", clean_log("c" * 3000))
    add("gstreamer/log_truncated_gzip/pipeline.dot", CLEAN_DOT)
    add("gstreamer/log_truncated_gzip/trace.log.gz", gz((CLEAN_LOG * 50).encode())[:300])
    add("gstreamer/log_random_bytes/pipeline.dot", CLEAN_DOT)
    add("gstreamer/log_random_bytes/trace.log", LOG_PREFIX.format(0).encode() + noise(r, 2048))
    add("gstreamer/two_logs/pipeline.dot", CLEAN_DOT)
    add("gstreamer/two_logs/a.log", CLEAN_LOG)
    add("gstreamer/two_logs/b.log", CLEAN_LOG)
    # The config file (./cookgraph.yaml of ask and report).
    c = CLEAN_CONFIG
    add("config/syntax_error.yaml", c.replace("  model: corpus-model", "  model: [corpus-model"))
    add("config/wrong_type.yaml", c.replace("budget_tokens: 4000", "budget_tokens: lots"))
    add("config/huge_number.yaml", c.replace("budget_tokens: 4000", "budget_tokens: 1e400"))
    add("config/unknown_key.yaml", c.replace("  model:", "  modle:"))
    add("config/deep_nesting.yaml", c + "extra: " + nested(600) + "\n")
    add("config/invalid_utf8.yaml", c.encode().replace(b"corpus-model", b"corpus-\xff-model"))
    add("config/random_bytes.yaml", noise(r, 2048))
    add("config/truncated.yaml", c[: c.index("budget_tokens") + 5])
    add("config/alias_bomb.yaml", "a: &a [x, x, x, x, x, x, x, x]\n" +
        "".join("%s: &%s [%s]\n" % (n, n, ", ".join(["*" + p] * 8)) for p, n in zip("abcdefghi", "bcdefghij")) + c)
    # Knowledge packs (report --pack FILE).
    p = CLEAN_PACK
    add("pack/syntax_error.yaml", p.replace("    severity: warning", "    severity: [warning"))
    add("pack/wrong_type.yaml", p.replace("rules:\n", "rules: 7\nx:\n"))
    add("pack/unknown_severity.yaml", p.replace("severity: warning", "severity: dire"))
    add("pack/deep_nesting.yaml", p + "extra: " + nested(600) + "\n")
    add("pack/invalid_utf8.yaml", p.encode().replace(b"fast kernels", b"fast \xff kernels"))
    add("pack/random_bytes.yaml", noise(r, 2048))
    add("pack/empty.yaml", "")
    add("pack/huge_number.yaml", p.replace("ge: 0.01", "ge: 1e400"))
    # Accepted: what Windows tools and misnamed files look like; each equals
    # its clean reference (clean.*) when read.
    add("accepted/clean.json", j)
    add("accepted/bom.json", BOM + j.encode())
    add("accepted/crlf.json", crlf(j))
    add("accepted/bom_crlf.json", BOM + crlf(j).encode())
    add("accepted/clean.yaml", y)
    add("accepted/bom.yaml", BOM + y.encode())
    add("accepted/crlf.yaml", crlf(y))
    add("accepted/not_gzip.json.gz", j)
    add("accepted/clean_kineto.json", k)
    add("accepted/bom_crlf_kineto.json", BOM + crlf(k).encode())
    add("accepted/clean_kineto.json.gz", gz(k.encode()))
    add("accepted/bom_crlf_gstreamer/pipeline.dot", BOM + crlf(CLEAN_DOT).encode())
    add("accepted/bom_crlf_gstreamer/trace.log", BOM + crlf(CLEAN_LOG).encode())
    add("accepted/clean_gstreamer/pipeline.dot", CLEAN_DOT)
    add("accepted/clean_gstreamer/trace.log", CLEAN_LOG)
    add("accepted/clean_config.yaml", c)
    add("accepted/bom_crlf_config.yaml", BOM + crlf(c).encode())
    add("accepted/clean_pack.yaml", p)
    add("accepted/bom_crlf_pack.yaml", BOM + crlf(p).encode())
    return cases


def write_small(out):
    for path, data in small_cases():
        target = os.path.join(out, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)


# The large cases. A bomb is a gzip of several members (RFC 1952 allows that;
# zlib reads them as one stream): a head, one member of MEMBER_BYTES of filler
# written N times (compressed once), and a tail. 64 MiB of one byte deflate to
# about 64 KiB, so a 4 GiB bomb is a 4 MiB file.
MEMBER_BYTES = 64 << 20
BOMB_BYTES = 4 << 30


def bomb(path, head, filler, tail=b"", total=BOMB_BYTES):
    member = gz(filler * (MEMBER_BYTES // len(filler)), level=9)
    with open(path, "wb") as f:
        f.write(gz(head))
        for _ in range(total // MEMBER_BYTES):
            f.write(member)
        if tail:
            f.write(gz(tail))


def sparse(path, head, size=2 << 30):
    """`head`, then a hole up to `size` bytes: zeros that take no disk."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)


def write_large(out):
    def path(name):
        """`name` under `out`, its folder made."""
        target = os.path.join(out, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        return target

    def write(name, data):
        with open(path(name), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)

    j = CLEAN_JSON.encode()
    # 2 GB sparse files: zeros after the start of a real input of each format.
    sparse(path("sparse_2g.json"), j[: j.index(b'"nodes"')])
    sparse(path("sparse_2g_zeros_only.json"), b"")
    sparse(path("sparse_2g.yaml"), CLEAN_YAML.encode()[: CLEAN_YAML.index("nodes:")])
    sparse(path("sparse_2g_kineto.json"), CLEAN_KINETO.encode()[: CLEAN_KINETO.index("aten::relu")])
    sparse(path("sparse_2g_dot/pipeline.dot"), CLEAN_DOT.encode()[: len(CLEAN_DOT) // 2])
    write("sparse_2g_dot/trace.log", CLEAN_LOG)
    write("sparse_2g_log/pipeline.dot", CLEAN_DOT)
    sparse(path("sparse_2g_log/trace.log"), CLEAN_LOG.encode())
    # gzip bombs, 4 GiB each once inflated.
    head = j[: j.index(b'"nodes"')]
    bomb(path("bomb_whitespace.json.gz"), head + b'"nodes": [', b" \n", b"]}")
    bomb(path("bomb_string.json.gz"), head + b'"name2": "', b"a")
    bomb(path("bomb_node_id.json.gz"), head + b'"frames": {"series": {"', b"n")
    bomb(path("bomb_depth.json.gz"), head + b'"extra": ', b"[")
    bomb(path("bomb_scalar.yaml.gz"), b"cookgraph: 1\nname: ", b"a")
    bomb(path("bomb_depth.yaml.gz"), b"cookgraph: 1\nextra: ", b"[")
    bomb(path("bomb_kineto_name.json.gz"), b'{"traceEvents": [{"ph": "X", "name": "', b"x")
    bomb(path("bomb_kineto_args.json.gz"),
         b'{"traceEvents": [{"ph": "X", "name": "a", "args": {"Input Dims": ', b"[")
    bomb(path("bomb_dot/pipeline.dot.gz"), CLEAN_DOT.encode()[:-2], b" ", b"}\n")
    write("bomb_dot/trace.log", CLEAN_LOG)
    write("bomb_log_line/pipeline.dot", CLEAN_DOT)
    bomb(path("bomb_log_line/trace.log.gz"), CLEAN_LOG.encode() + LOG_PREFIX.format(9).encode(), b"z")
    # A million-character name in each format.
    million = "m" * 1_000_000
    write("million_char_id.json", CLEAN_JSON.replace('"/p/out1", "type"', '"/p/' + million + '", "type"'))
    write("million_char_key.yaml", CLEAN_YAML.replace("resolutionw", million))
    write("million_char_name_kineto.json",
          CLEAN_KINETO.replace('"aten::relu", "pid": 1, "tid": 1, "ts": 55',
                               '"' + million + '", "pid": 1, "tid": 1, "ts": 55'))
    write("million_char_element/pipeline.dot", CLEAN_DOT)
    write("million_char_element/trace.log", clean_log(million[:900_000]))  # lines are cut at 1 MiB
    # Amplification: short inputs that would make large tables.
    # Native: a long index, then many empty series (each would reserve the
    # index's length).
    series = ", ".join('"/p/n%d": {"cook_ms": []}' % i for i in range(100_000))
    nodes = ", ".join('{"id": "/p/n%d"}' % i for i in range(100_000))
    text = ('{"cookgraph": 1, "nodes": [%s], "frames": {"index": [%s], "series": {%s}}}' %
            (nodes, ", ".join(["0"] * 1_000_000), series))
    write("series_reserve_bomb.json.gz", gz(text.encode(), level=6))
    # Chrome: 20,000 steps with one distinct operator each (4e8 slots).
    events = []
    for step in range(20_000):
        events.append('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":100}'
                      % (step, step * 100))
        events.append('{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":10}' % (step, step * 100 + 1))
    write("samples_bomb_kineto.json.gz",
          gz(('{"schemaVersion": 1, "traceEvents": [' + ",\n".join(events) + "]}").encode(), level=6))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("small", "large"):
        sys.exit(__doc__)
    (write_small if sys.argv[1] == "small" else write_large)(sys.argv[2])


if __name__ == "__main__":
    main()
