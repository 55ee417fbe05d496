#!/usr/bin/env python3
"""The output corpus: every cookgraph command over every input, for checking
that a refactor changes no output (scripts/compare-outputs.sh runs it with the
binary from before and the binary from after and compares the two folders).

    output_corpus.py --prepare INPUTS_DIR [--source REPO_ROOT] [--fixtures DIR]
        Copies the inputs into INPUTS_DIR once (a later call on a prepared
        folder does nothing), so that both binaries read byte-identical inputs
        at identical relative paths:
          examples/        every examples/*.json of the repository (and any
                           snapshot in examples/touchdesigner/; today it holds
                           only the exporter script, so nothing)
          chrome/          tests/data/chrome traces (.json, .json.gz)
          gstreamer/NAME/  each .dot + .log pair of tests/data/gstreamer, one
                           folder per recording (read as a folder or as the
                           two paths)
          heatmap/         tests/data/heatmap/hostile.json
          bad/             tests/data/bad, whole (cases.tsv included)
          bad_gen/         what `tests/tools/bad_corpus.py large` writes (the
                           cases.tsv rows that name {gen}: 2 GiB sparse files,
                           gzip bombs, million-character names; 47 MB on disk)
          configs/NAME/    a working folder whose ./cookgraph.yaml is one
                           config file of the corpus (the "@config=" rows)
          fixtures/        the real traces of --fixtures (hta_two_ranks/ too)
          recorded/NAME/   real GStreamer runs, recorded here once with
                           tests/tools/gst_record.sh and gst-launch-1.0 (the
                           pipelines of tests/gstreamer.cmake and a
                           videotestsrc ! videoconvert ! jpegenc chain)
          diff/            tests/tools/gen_diff_pair.py's pair, and a copy of
                           examples/touchdesigner_feedback.json with two nodes
                           slowed / sped up and one node added
          misc/            a rank file cookgraph must refuse (--tokenizer)
          .prepared        the manifest: every file's size and SHA-256

    output_corpus.py COOKGRAPH_BINARY INPUTS_DIR OUT_DIR [-j N]
        Runs every run of the corpus and writes, for each,
        OUT_DIR/runs/GROUP/NAME.stdout, .stderr and .rc, and every file the run
        wrote (-o, --record) under NAME.files/ (a .gz file also decompressed,
        as FILE.gunzipped). OUT_DIR/runs.tsv lists each run's working folder,
        standard input and arguments. Ends with "N runs, M outputs written to
        OUT_DIR".

The runs (build_runs), by group (the first folder of their names):
  help/       --help and -h of the program and of every command, --version,
              no command, and usage errors (bad flags and values)
  input/X/    every command on every good input X (examples, tests/data
              traces and GStreamer dumps, heatmap/hostile.json, fixtures,
              recorded pipelines): score in every --format, --top, every
              --sort, --group-by container (every format), --budget-ms; graph
              in every format to standard output and with -o, --max-nodes;
              convert to .json, .json.gz, .yaml, .yml and -o -; trace -o FILE
              and -o -; report -o .html and .md --no-llm; ask --dry-run at
              --budget-tokens 2000 and 20000; on traces also --format-in and
              --frame-marker. Inputs over 512 KiB (three fixtures) get every
              command and format once, without the presentation variants.
  gst-pair/   GStreamer recordings given as the two paths (dump and log), one
              of them alone, and --format-in gstreamer / gst / wrong ones
  format-in/  every --format-in spelling and --frame-marker on snapshots
  limits/     --limit, good and bad keys and values, on every reading command
  ask/        every --persona at both budgets on several inputs; models,
              budgets, --base-url, --no-stream, --pack, a refused --tokenizer,
              no endpoint configured; report without --no-llm (offline)
  batch/      score on whole folders (examples, fixtures, recorded,
              gstreamer, bad, and all of them at once) with -j 1 and -j 2,
              every --shard K/3, several formats; lists of files, duplicates,
              missing files, bad --shard values
  diff/       pairs (gen_diff_pair.py's, reversed, noise only; the perturbed
              example; an input against itself; two unrelated networks; the
              two HTA ranks; two GStreamer recordings): diff in every format,
              --top, --fail-on-regression[=PCT], --alpha, --min-change; score
              --baseline in every format; report --baseline (.html, .md)
  stdin/      `-` as the input, fed from a file
  bad/        every row of bad/cases.tsv with its command (including the
              bad_gen/ cases and the @config ones, run in configs/NAME/), and
              for each accepted case its clean reference
  watch/      watch --listen udp://127.0.0.1:0 fed fixed streams from a UDP
              sender here (JSON lines with a spike, a gap, a late frame, a
              frame in parts, two frames in a datagram, malformed datagrams;
              OSC bundles with i/h/f/d/N arguments, a frame in three parts,
              an incomplete frame), ended by --frames N, --format table and
              json, --record .json/.json.gz/.yaml/.yml; and its usage errors

Every run: argv[0] "cookgraph" (so the binary's own path is nowhere), a clean
environment (PATH, HOME = XDG_CONFIG_HOME = XDG_CACHE_HOME = TMPDIR = an empty
temporary folder, NO_COLOR=1, TZ=UTC, LC_ALL=C.UTF-8; nothing else, so no
OPENAI_* or COOKGRAPH_*), the working folder INPUTS_DIR (or a configs/ folder),
inputs named by relative path, standard input /dev/null (except the stdin/
group, which feeds a file to `-`), no terminal. Output files go to
OUT_DIR/scratch/RUN/, emptied into the run's .files/ after it.

Normalised, and nothing else (each is something that legitimately differs
from run to run, never content a refactor could change unnoticed):
  * the absolute path of the run's scratch folder (OUT_DIR differs between
    the before and after runs) is written as {out} in standard output and
    error: it appears only in "wrote FILE" lines and error messages naming an
    output path;
  * watch runs only: the UDP port the kernel picks for --listen
    udp://127.0.0.1:0, the elapsed seconds and the receive rate (frames/s:
    wall-clock timing), and the record's "captured" time (the wall clock when
    it was written). A watch record written as .json.gz holds both the port
    and the time compressed, so its raw bytes are replaced by its gzip header
    (the 10 bytes before the deflate stream) and a note; its decompressed,
    normalised text is kept whole. Every other .gz file is kept byte for byte.
"""

import argparse
import concurrent.futures
import gzip
import hashlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

PREPARED = '.prepared'
OUT_MARKER = '.output_corpus'
RUN_TIMEOUT_S = 120

# The real GStreamer pipelines recorded into recorded/NAME (gst-launch-1.0
# words): those of tests/gstreamer.cmake, and a jpegenc chain.
GST_PIPELINES = [
    ('linear', 'videotestsrc num-buffers=60 ! video/x-raw,width=320,height=240 ! videoconvert ! '
               'videoscale ! video/x-raw,width=160,height=120 ! queue ! identity sleep-time=5000 ! '
               'fakesink sync=false'),
    ('tee', 'videotestsrc num-buffers=40 ! videoconvert ! tee name=t-split t-split. ! queue ! '
            'identity sleep-time=4000 ! fakesink sync=false t-split. ! queue name=fast-q ! '
            'videoscale ! fakesink name=sink-2 sync=false'),
    ('bins', 'videotestsrc num-buffers=30 ! queue ! bin.( name=my-bin videoconvert ! bin.( '
             'name=inner videoscale ! identity sleep-time=4000 ) ) ! fakesink sync=false'),
    ('decodebin', 'videotestsrc num-buffers=30 ! jpegenc ! decodebin ! videoconvert ! '
                  'fakesink sync=false'),
    ('mixer', 'videotestsrc num-buffers=40 ! video/x-raw,width=160,height=120 ! compositor '
              'name=mix ! videoconvert ! fakesink sync=false videotestsrc num-buffers=40 '
              'pattern=ball ! video/x-raw,width=160,height=120 ! mix.'),
    ('audio', 'audiotestsrc num-buffers=50 ! audioconvert ! volume volume=0.5 ! audioresample ! '
              'queue ! identity sleep-time=3000 ! fakesink sync=false'),
    ('jpeg', 'videotestsrc num-buffers=30 ! videoconvert ! jpegenc ! fakesink sync=false'),
]

COMMANDS = ['score', 'graph', 'convert', 'trace', 'watch', 'report', 'diff', 'ask']
PERSONAS = ['debugger', 'explainer', 'minimalist', 'gpu-optimizer']
SORTS = ['avg', 'p95', 'max', 'per-frame', 'gpu', 'upstream']
QUESTION = 'why is it slow?'


def fail(message):
    print('output_corpus: error: ' + message, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- prepare ---

def make_writable(root):
    """Copies of read-only fixtures stay deletable (the mode is no input)."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def copy_file(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


def config_key(config_path):
    """configs/ folder name of a config file named by a cases.tsv row."""
    return re.sub(r'[^A-Za-z0-9_.-]', '__', config_path.replace('{bad}/', '').rsplit('.', 1)[0])


def read_cases(inputs):
    """The rows of bad/cases.tsv: dicts of name, exit, mem_mb, command, stderr, same_as."""
    rows = []
    with open(os.path.join(inputs, 'bad', 'cases.tsv'), encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            cols = line.split('\t')
            if cols[0] == 'name':
                continue
            rows.append(dict(zip(['name', 'exit', 'mem_mb', 'command', 'stderr', 'same_as'], cols)))
    return rows


def perturb_example(src, dst):
    """A copy of the TouchDesigner example with two nodes changed and one added."""
    with open(src, encoding='utf-8') as f:
        doc = json.load(f)
    series = doc['frames']['series']
    ids = [i for i in ('/project1/fx/trails/blur_fb', '/project1/post/blur_preview') if i in series]
    ids += [i for i in series if i not in ids][:2 - len(ids)]
    for node_id, factor in zip(ids, (1.3, 0.7)):
        series[node_id]['cook_ms'] = [None if v is None else round(v * factor, 4)
                                      for v in series[node_id]['cook_ms']]
    frames = len(doc['frames']['index'])
    doc['nodes'].append({'id': '/project1/added_by_corpus', 'type': 'nullTOP', 'family': 'TOP'})
    series['/project1/added_by_corpus'] = {'cook_ms': [0.05 + 0.001 * (i % 7) for i in range(frames)]}
    with open(dst, 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')


def tiny_rank_file(path):
    """A .tiktoken file of 256 byte tokens: cookgraph refuses it (not o200k_base)."""
    import base64
    with open(path, 'w', encoding='ascii') as f:
        for i in range(256):
            f.write('{} {}\n'.format(base64.b64encode(bytes([i])).decode(), i))


def manifest(root):
    """Path, size and SHA-256 of every file (sizes only past 64 MiB: sparse files)."""
    lines = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel == PREPARED:
                continue
            size = os.path.getsize(path)
            digest = '-'
            if size <= 64 << 20:
                with open(path, 'rb') as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            lines.append('{}\t{}\t{}'.format(rel, size, digest))
    return '\n'.join(lines) + '\n'


def prepare(inputs, source, fixtures):
    source = os.path.abspath(source)
    if os.path.exists(os.path.join(inputs, PREPARED)):
        print('output_corpus: inputs already prepared in {} (delete the folder to prepare them '
              'afresh)'.format(inputs))
        return
    if os.path.exists(inputs) and os.listdir(inputs):
        fail('{} exists, is not empty and was not prepared by this script'.format(inputs))
    for need in ('examples', 'tests/data/bad/cases.tsv', 'tests/tools/gen_diff_pair.py',
                 'tests/tools/bad_corpus.py', 'tests/tools/gst_record.sh'):
        if not os.path.exists(os.path.join(source, need)):
            fail('--source {}: no {} there'.format(source, need))
    os.makedirs(inputs, exist_ok=True)
    j = lambda *p: os.path.join(inputs, *p)  # noqa: E731
    s = lambda *p: os.path.join(source, *p)  # noqa: E731

    for name in sorted(os.listdir(s('examples'))):
        if name.endswith('.json'):
            copy_file(s('examples', name), j('examples', name))
    td = s('examples', 'touchdesigner')
    if os.path.isdir(td):
        snaps = [n for n in sorted(os.listdir(td))
                 if re.search(r'\.(json|yaml|yml)(\.gz)?$', n)]
        for name in snaps:
            copy_file(os.path.join(td, name), j('examples', 'touchdesigner', name))
        if not snaps:
            print('output_corpus: examples/touchdesigner holds no snapshot (only the exporter): '
                  'skipped')
    for name in sorted(os.listdir(s('tests/data/chrome'))):
        if name.endswith('.json') or name.endswith('.json.gz'):
            copy_file(s('tests/data/chrome', name), j('chrome', name))
    gst = s('tests/data/gstreamer')
    for name in sorted(os.listdir(gst)):
        if name.endswith('.dot'):
            stem = name[:-4]
            copy_file(os.path.join(gst, name), j('gstreamer', stem, name))
            copy_file(os.path.join(gst, stem + '.log'), j('gstreamer', stem, stem + '.log'))
    copy_file(s('tests/data/heatmap/hostile.json'), j('heatmap', 'hostile.json'))
    shutil.copytree(s('tests/data/bad'), j('bad'))
    subprocess.run([sys.executable, s('tests/tools/bad_corpus.py'), 'large', j('bad_gen')],
                   check=True, stdout=subprocess.DEVNULL)
    for row in read_cases(inputs):
        m = re.match(r'@config=(\S+) ', row['command'])
        if m:
            copy_file(m.group(1).replace('{bad}', j('bad')),
                      j('configs', config_key(m.group(1)), 'cookgraph.yaml'))
    copy_file(j('bad', 'accepted', 'clean_config.yaml'),
              j('configs', config_key('{bad}/accepted/clean_config.yaml'), 'cookgraph.yaml'))

    if fixtures and os.path.isdir(fixtures):
        shutil.copytree(fixtures, j('fixtures'))
        for junk in ('README.md',):
            if os.path.exists(j('fixtures', junk)):
                os.remove(j('fixtures', junk))
    else:
        print('output_corpus: warning: no fixtures folder {!r}: the real traces are left out'
              .format(fixtures), file=sys.stderr)

    launch = shutil.which('gst-launch-1.0')
    if launch:
        for name, pipeline in GST_PIPELINES:
            subprocess.run(['sh', s('tests/tools/gst_record.sh'), launch, j('recorded', name)]
                           + pipeline.split(), check=True, stdout=subprocess.DEVNULL)
    else:
        print('output_corpus: warning: gst-launch-1.0 not found: no real GStreamer recordings',
              file=sys.stderr)

    subprocess.run([sys.executable, s('tests/tools/gen_diff_pair.py'), '--out', j('diff', 'pair')],
                   check=True, stdout=subprocess.DEVNULL)
    perturb_example(j('examples', 'touchdesigner_feedback.json'),
                    j('diff', 'touchdesigner_feedback_slow.json'))
    os.makedirs(j('misc'), exist_ok=True)
    tiny_rank_file(j('misc', 'tiny_o200k.tiktoken'))

    make_writable(inputs)
    text = manifest(inputs)
    with open(j(PREPARED), 'w', encoding='utf-8') as f:
        f.write(text)
    print('output_corpus: prepared {} input files in {}'.format(text.count('\n'), inputs))


# ------------------------------------------------------------------- runs ---

class Run:
    """One cookgraph invocation. args may hold {out} (the scratch folder)."""

    def __init__(self, group, name, args, cwd='.', stdin=None, watch=None, timeout=RUN_TIMEOUT_S):
        self.group, self.name, self.args = group, name, list(args)
        self.cwd, self.stdin, self.watch, self.timeout = cwd, stdin, watch, timeout

    @property
    def key(self):
        return self.group + '/' + self.name


def slug(path):
    return re.sub(r'[^A-Za-z0-9_.-]+', '_', path.strip('/').replace('/', '__'))


def sorted_glob(inputs, folder, pattern):
    root = os.path.join(inputs, folder)
    found = []
    if not os.path.isdir(root):
        return found
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if re.search(pattern, name):
                found.append(os.path.relpath(os.path.join(dirpath, name), inputs))
    return sorted(found)


def sub_folders(inputs, folder):
    root = os.path.join(inputs, folder)
    if not os.path.isdir(root):
        return []
    return [folder + '/' + n for n in sorted(os.listdir(root)) if os.path.isdir(os.path.join(root, n))]


def gst_pair(inputs, folder):
    """The PAUSED_PLAYING (else only) dump of a recording folder and its log, as paths."""
    names = sorted(os.listdir(os.path.join(inputs, folder)))
    dots = [n for n in names if n.endswith('.dot')]
    dot = next((n for n in dots if 'PAUSED_PLAYING' in n), dots[0] if dots else None)
    logs = [n for n in names if n.endswith('.log')]
    if not dot or not logs:
        return None
    return [folder + '/' + dot, folder + '/' + logs[0]]


# The variants that only change presentation (sort keys, --top, --budget-ms,
# every graph format through -o, .yml, -o -) run on inputs up to this size;
# the few larger traces (1-3 MB of gzip, 0.3 s a run) get every command in
# every format once (HEAVY_RUNS), which keeps the corpus at a few minutes.
HEAVY_BYTES = 512 << 10
HEAVY_RUNS = {'score.table', 'score.json', 'score.csv', 'score.md', 'score.top0', 'score.sort-gpu.json',
              'score.group.json', 'score.budget5', 'graph.text', 'graph.json', 'graph.dot', 'graph.svg',
              'graph.o-svg', 'graph.svg.max20', 'convert.json', 'convert.json.gz', 'convert.yaml',
              'trace.o', 'report.html', 'report.md', 'ask.2000', 'ask.20000', 'fi.chrome.json',
              'fi.native', 'fm.profilerstep.json', 'fm.nomatch', 'fm.badregex'}


def per_input_runs(x, traces, heavy=False):
    """Every command on one good input x (a file or a GStreamer folder)."""
    r = per_input_all_runs(x, traces)
    return [run for run in r if run.name in HEAVY_RUNS] if heavy else r


def per_input_all_runs(x, traces):
    g = 'input/' + slug(x)
    r = []
    for fmt in ('table', 'json', 'csv', 'md'):
        r.append(Run(g, 'score.' + fmt, ['score', x, '--format', fmt]))
    r.append(Run(g, 'score.top5', ['score', x, '--top', '5']))
    r.append(Run(g, 'score.top0', ['score', x, '--top', '0']))
    for key in SORTS:
        r.append(Run(g, 'score.sort-' + key, ['score', x, '--sort', key, '--top', '10']))
    r.append(Run(g, 'score.sort-gpu.json', ['score', x, '--sort', 'gpu', '--format', 'json']))
    r.append(Run(g, 'score.group', ['score', x, '--group-by', 'container']))
    for fmt in ('json', 'csv', 'md'):
        r.append(Run(g, 'score.group.' + fmt, ['score', x, '--group-by', 'container', '--format', fmt]))
    r.append(Run(g, 'score.budget5', ['score', x, '--budget-ms', '5']))
    r.append(Run(g, 'score.budget5.json', ['score', x, '--budget-ms', '5', '--format', 'json']))
    r.append(Run(g, 'score.budget1000.md', ['score', x, '--budget-ms', '1000', '--format', 'md',
                                             '--top', '3']))
    for fmt in ('text', 'json', 'dot', 'svg'):
        r.append(Run(g, 'graph.' + fmt, ['graph', x, '--format', fmt]))
    for fmt, ext in (('text', 'txt'), ('json', 'json'), ('dot', 'dot'), ('svg', 'svg')):
        r.append(Run(g, 'graph.o-' + fmt, ['graph', x, '--format', fmt, '-o', '{out}/graph.' + ext]))
    r.append(Run(g, 'graph.svg.max20', ['graph', x, '--format', 'svg', '--max-nodes', '20',
                                        '-o', '{out}/graph.svg']))
    r.append(Run(g, 'graph.svg.max1', ['graph', x, '--format', 'svg', '--max-nodes', '1']))
    for ext in ('json', 'json.gz', 'yaml', 'yml'):
        r.append(Run(g, 'convert.' + ext, ['convert', x, '-o', '{out}/converted.' + ext]))
    r.append(Run(g, 'convert.stdout', ['convert', x, '-o', '-']))
    r.append(Run(g, 'trace.o', ['trace', x, '-o', '{out}/trace.json']))
    r.append(Run(g, 'trace.stdout', ['trace', x, '-o', '-']))
    r.append(Run(g, 'report.html', ['report', x, '-o', '{out}/report.html', '--no-llm']))
    r.append(Run(g, 'report.md', ['report', x, '-o', '{out}/report.md', '--no-llm']))
    for budget in ('2000', '20000'):
        r.append(Run(g, 'ask.' + budget, ['ask', x, QUESTION, '--dry-run', '--model', 'gpt-4o',
                                          '--budget-tokens', budget]))
    if traces:
        r += trace_runs(x, g)
    return r


def trace_runs(x, g):
    """--format-in and --frame-marker on a Chrome trace."""
    r = [Run(g, 'fi.chrome.json', ['score', x, '--format-in', 'chrome', '--format', 'json']),
         Run(g, 'fi.perfetto', ['score', x, '--format-in', 'perfetto', '--top', '5']),
         Run(g, 'fi.native', ['score', x, '--format-in', 'native']),
         Run(g, 'fi.gstreamer', ['score', x, '--format-in', 'gstreamer']),
         Run(g, 'fm.profilerstep.json', ['score', x, '--frame-marker', r'ProfilerStep#\d+',
                                         '--format', 'json']),
         Run(g, 'fm.model_run', ['score', x, '--frame-marker', 'model_run', '--top', '5']),
         Run(g, 'fm.aten', ['score', x, '--frame-marker', '^aten::(mm|addmm|conv2d)$',
                            '--top', '5']),
         Run(g, 'fm.nomatch', ['score', x, '--frame-marker', 'no_such_marker_anywhere', '--top', '5']),
         Run(g, 'fm.badregex', ['score', x, '--frame-marker', '(']),
         Run(g, 'fm.graph', ['graph', x, '--frame-marker', r'ProfilerStep#\d+', '--format', 'json']),
         Run(g, 'fm.convert', ['convert', x, '--frame-marker', r'ProfilerStep#\d+', '--format-in',
                               'chrome', '-o', '{out}/converted.json'])]
    return r


def build_runs(inputs):
    runs = []
    examples = sorted_glob(inputs, 'examples', r'\.(json|yaml|yml)(\.gz)?$')
    chrome = sorted_glob(inputs, 'chrome', r'\.json(\.gz)?$')
    fixtures = sorted_glob(inputs, 'fixtures', r'\.json(\.gz)?$')
    gst_hand = sub_folders(inputs, 'gstreamer')
    recorded = sub_folders(inputs, 'recorded')
    heatmap = sorted_glob(inputs, 'heatmap', r'\.json$')
    ex = lambda name: next((e for e in examples if e.endswith(name)), examples[0])  # noqa: E731
    td, torch, gstex = (ex('touchdesigner_feedback.json'), ex('pytorch_model.json'),
                        ex('gstreamer_pipeline.json'))

    # help: the top level and every command.
    runs.append(Run('help', 'none', []))
    runs.append(Run('help', 'help', ['--help']))
    runs.append(Run('help', 'h', ['-h']))
    runs.append(Run('help', 'version', ['--version']))
    runs.append(Run('help', 'unknown-command', ['frobnicate']))
    runs.append(Run('help', 'unknown-flag', ['--frobnicate']))
    for c in COMMANDS:
        runs.append(Run('help', c + '.help', [c, '--help']))
        runs.append(Run('help', c + '.h', [c, '-h']))
    runs.append(Run('help', 'score.no-input', ['score']))
    runs.append(Run('help', 'score.bad-format', ['score', td, '--format', 'xml']))
    runs.append(Run('help', 'score.bad-sort', ['score', td, '--sort', 'name']))
    runs.append(Run('help', 'score.bad-top', ['score', td, '--top', '-1']))
    runs.append(Run('help', 'score.bad-budget', ['score', td, '--budget-ms', 'fast']))
    runs.append(Run('help', 'score.bad-group', ['score', td, '--group-by', 'family']))
    runs.append(Run('help', 'score.bad-jobs', ['score', td, '-j', '0']))
    runs.append(Run('help', 'score.missing-file', ['score', 'no/such/file.json']))
    runs.append(Run('help', 'graph.bad-max-nodes', ['graph', td, '--max-nodes', '0']))
    runs.append(Run('help', 'graph.two-files', ['graph', td, torch]))
    runs.append(Run('help', 'convert.no-o', ['convert', td]))
    runs.append(Run('help', 'convert.bad-ext', ['convert', td, '-o', '{out}/x.txt']))
    runs.append(Run('help', 'convert.into-missing-dir', ['convert', td, '-o', '{out}/no/dir/x.json']))
    runs.append(Run('help', 'trace.no-o', ['trace', td]))
    runs.append(Run('help', 'report.no-o', ['report', td, '--no-llm']))
    runs.append(Run('help', 'report.bad-ext', ['report', td, '-o', '{out}/x.pdf', '--no-llm']))
    runs.append(Run('help', 'diff.one-input', ['diff', td]))
    runs.append(Run('help', 'diff.bad-alpha', ['diff', td, td, '--alpha', '0.9']))
    runs.append(Run('help', 'ask.no-question', ['ask', td]))
    runs.append(Run('help', 'ask.bad-persona', ['ask', td, QUESTION, '--persona', 'poet', '--dry-run']))
    runs.append(Run('help', 'ask.budget0', ['ask', td, QUESTION, '--budget-tokens', '0', '--dry-run']))

    # input/: every command on every good input.
    good = examples + chrome + gst_hand + heatmap + fixtures + recorded
    for x in good:
        path = os.path.join(inputs, x)
        heavy = os.path.isfile(path) and os.path.getsize(path) > HEAVY_BYTES
        runs += per_input_runs(x, traces=(x in chrome or x in fixtures), heavy=heavy)

    # gst-pair/: GStreamer recordings given as the .dot dump and the log (two paths).
    for folder in gst_hand + recorded[:2]:
        pair = gst_pair(inputs, folder)
        if not pair:
            continue
        g = 'gst-pair/' + slug(folder)
        runs.append(Run(g, 'score.table', ['score'] + pair))
        runs.append(Run(g, 'score.json', ['score'] + pair + ['--format', 'json']))
        runs.append(Run(g, 'score.csv', ['score'] + pair + ['--format', 'csv']))
        runs.append(Run(g, 'graph.text', ['graph'] + pair))
        runs.append(Run(g, 'graph.svg', ['graph'] + pair + ['--format', 'svg']))
        runs.append(Run(g, 'convert.json', ['convert'] + pair + ['-o', '{out}/converted.json']))
        runs.append(Run(g, 'trace.o', ['trace'] + pair + ['-o', '{out}/trace.json']))
        runs.append(Run(g, 'report.md', ['report'] + pair + ['-o', '{out}/report.md', '--no-llm']))
        runs.append(Run(g, 'ask.pair', ['ask'] + pair + [QUESTION, '--dry-run', '--model', 'm']))
        runs.append(Run(g, 'dot-only', ['score', pair[0]]))
        runs.append(Run(g, 'log-only', ['score', pair[1]]))
        runs.append(Run(g, 'fi.gstreamer', ['score', folder, '--format-in', 'gstreamer', '--top', '3']))
        runs.append(Run(g, 'fi.gst', ['graph', folder, '--format-in', 'gst', '--format', 'json']))
        runs.append(Run(g, 'fi.native', ['score', folder, '--format-in', 'native']))
        runs.append(Run(g, 'fi.chrome', ['score', folder, '--format-in', 'chrome']))

    # format-in/ and limits/ on snapshots.
    for x in examples + heatmap:
        g = 'format-in/' + slug(x)
        for fi in ('native', 'snapshot'):
            runs.append(Run(g, fi, ['score', x, '--format-in', fi, '--format', 'json']))
        for fi in ('chrome', 'chrome-trace', 'pytorch', 'gstreamer', 'gst', 'csv'):
            runs.append(Run(g, fi, ['score', x, '--format-in', fi]))
        runs.append(Run(g, 'frame-marker', ['score', x, '--frame-marker', 'x', '--top', '3']))
    g = 'limits'
    for name, limit in (('nodes10', 'nodes=10'), ('depth2', 'depth=2'), ('input-size1K', 'input-size=1K'),
                        ('name-length8', 'name-length=8'), ('string-length4', 'string-length=4'),
                        ('raised', 'nodes=100000'), ('bad-key', 'colour=1'), ('bad-value', 'depth=abc'),
                        ('zero', 'depth=0'), ('no-equals', 'depth'), ('units', 'input-size=10MiB')):
        runs.append(Run(g, 'score.' + name, ['score', td, '--limit', limit, '--top', '3']))
    runs.append(Run(g, 'score.two-limits', ['score', td, '--limit', 'nodes=1000', '--limit',
                                            'samples=10', '--top', '3']))
    for c in ('graph', 'report', 'ask'):
        extra = {'graph': [], 'report': ['-o', '{out}/r.md', '--no-llm'],
                 'ask': [QUESTION, '--dry-run']}[c]
        runs.append(Run(g, c + '.nodes10', [c, td] + extra + ['--limit', 'nodes=10']))
    if fixtures:
        runs.append(Run(g, 'samples-trace', ['score', fixtures[0], '--limit', 'samples=100']))

    # ask/: personas, budgets, models, endpoints, packs.
    ask_inputs = examples + chrome[:1] + fixtures[:1] + gst_hand[:1] + recorded[:1]
    for x in ask_inputs:
        g = 'ask/' + slug(x)
        for persona in PERSONAS:
            for budget in ('2000', '20000'):
                runs.append(Run(g, '{}.{}'.format(persona, budget),
                                ['ask', x, QUESTION, '--dry-run', '--model', 'gpt-4o',
                                 '--budget-tokens', budget, '--persona', persona]))
    g = 'ask/options'
    for model in ('gpt-4', 'gpt-3.5-turbo', 'llama3.1', 'o3-mini'):
        runs.append(Run(g, 'model.' + model, ['ask', torch, QUESTION, '--dry-run', '--model', model,
                                              '--budget-tokens', '5000']))
    runs.append(Run(g, 'no-model', ['ask', torch, QUESTION, '--dry-run']))
    for budget in ('1', '100', '500', '1000', '50000', '100000'):
        runs.append(Run(g, 'budget.' + budget, ['ask', td, QUESTION, '--dry-run', '--model', 'gpt-4o',
                                                '--budget-tokens', budget]))
    runs.append(Run(g, 'base-url', ['ask', td, QUESTION, '--dry-run', '--model', 'm',
                                     '--base-url', 'http://127.0.0.1:9/v1']))
    runs.append(Run(g, 'base-url-full', ['ask', td, QUESTION, '--dry-run', '--model', 'm', '--base-url',
                                         'https://user:secret@llm.example/v1/chat/completions?api-key=k']))
    runs.append(Run(g, 'no-stream', ['ask', td, QUESTION, '--dry-run', '--model', 'm', '--no-stream']))
    runs.append(Run(g, 'pack', ['ask', torch, QUESTION, '--dry-run', '--model', 'm', '--pack',
                                'bad/accepted/clean_pack.yaml']))
    runs.append(Run(g, 'tokenizer-refused', ['ask', td, QUESTION, '--dry-run', '--model', 'gpt-4o',
                                             '--tokenizer', 'misc/tiny_o200k.tiktoken']))
    runs.append(Run(g, 'tokenizer-missing', ['ask', td, QUESTION, '--dry-run', '--tokenizer',
                                             'misc/none.tiktoken']))
    runs.append(Run(g, 'question-markup', ['ask', td, '<b>"why"</b> `slow`? \u00e9\u6f22 ```', '--dry-run',
                                           '--model', 'm', '--budget-tokens', '3000']))
    runs.append(Run(g, 'no-endpoint', ['ask', td, QUESTION]))
    runs.append(Run(g, 'report-no-endpoint', ['report', td, '-o', '{out}/report.html']))
    runs.append(Run(g, 'report-ask-no-endpoint', ['report', td, '-o', '{out}/report.md', '--ask', 'why?']))
    runs.append(Run(g, 'report-pack', ['report', torch, '-o', '{out}/report.html', '--no-llm',
                                       '--pack', 'bad/accepted/clean_pack.yaml']))
    runs.append(Run(g, 'report-htm', ['report', td, '-o', '{out}/report.htm', '--no-llm']))

    # batch/: whole folders, -j 1 and -j 2, shards.
    g = 'batch'
    every = [d for d in ('examples', 'chrome', 'gstreamer', 'heatmap', 'fixtures', 'recorded', 'bad')
             if os.path.isdir(os.path.join(inputs, d))]
    sets = [('examples', ['examples'])]
    if fixtures:
        sets.append(('fixtures', ['fixtures']))
    if recorded:
        sets.append(('recorded', ['recorded']))
    sets += [('gstreamer', ['gstreamer']), ('bad', ['bad']), ('every', every)]
    for label, folders in sets:
        if label in ('fixtures', 'every'):  # the large ones: -j 1 and 2, csv, the shards
            for jobs in ('1', '2'):
                runs.append(Run(g, '{}.j{}.json'.format(label, jobs), ['score'] + folders +
                                ['-j', jobs, '--format', 'json']))
            runs.append(Run(g, label + '.j2.csv', ['score'] + folders + ['-j', '2', '--format', 'csv']))
            runs.append(Run(g, label + '.j2.table', ['score'] + folders + ['-j', '2', '--top', '2']))
            for k in (1, 2, 3):
                runs.append(Run(g, '{}.shard{}of3.json'.format(label, k),
                                ['score'] + folders + ['-j', '2', '--shard', '{}/3'.format(k),
                                                       '--format', 'json']))
            continue
        for jobs in ('1', '2'):
            runs.append(Run(g, '{}.j{}.json'.format(label, jobs), ['score'] + folders +
                            ['-j', jobs, '--format', 'json']))
            runs.append(Run(g, '{}.j{}.csv'.format(label, jobs), ['score'] + folders +
                            ['-j', jobs, '--format', 'csv']))
        runs.append(Run(g, label + '.j2.table', ['score'] + folders + ['-j', '2', '--top', '3']))
        runs.append(Run(g, label + '.j2.md', ['score'] + folders + ['-j', '2', '--format', 'md',
                                                                    '--top', '3']))
        for k in (1, 2, 3):
            runs.append(Run(g, '{}.shard{}of3.json'.format(label, k),
                            ['score'] + folders + ['-j', '2', '--shard', '{}/3'.format(k),
                                                   '--format', 'json']))
        runs.append(Run(g, label + '.group.json', ['score'] + folders + ['-j', '2', '--group-by',
                                                                         'container', '--format', 'json']))
        runs.append(Run(g, label + '.sort-p95.csv', ['score'] + folders + ['-j', '2', '--sort', 'p95',
                                                                           '--format', 'csv']))
    runs.append(Run(g, 'every.shard2of7.table', ['score'] + every + ['-j', '2', '--shard', '2/7',
                                                                      '--top', '2']))
    runs.append(Run(g, 'files', ['score'] + examples + chrome + ['-j', '2', '--format', 'json']))
    runs.append(Run(g, 'files-reversed', ['score'] + list(reversed(examples + chrome)) +
                    ['-j', '1', '--top', '2']))
    runs.append(Run(g, 'duplicate', ['score', td, td, '--format', 'json']))
    runs.append(Run(g, 'folder-and-file', ['score', 'examples', td, '-j', '2', '--top', '1']))
    runs.append(Run(g, 'missing-among-good', ['score', td, 'no/such.json', torch, '--top', '1']))
    runs.append(Run(g, 'empty-folder', ['score', 'misc']))
    for bad_shard in ('4/3', '0/3', 'x', '1/0', '2/3/4'):
        runs.append(Run(g, 'bad-shard.' + slug(bad_shard), ['score', 'examples', '--shard', bad_shard]))

    # diff/ and baseline/: pairs in every format, --fail-on-regression.
    pairs = []
    if os.path.exists(os.path.join(inputs, 'diff', 'pair', 'before.json')):
        pairs += [('gen-pair', 'diff/pair/before.json', 'diff/pair/after.json'),
                  ('gen-pair-reversed', 'diff/pair/after.json', 'diff/pair/before.json'),
                  ('gen-pair-noise', 'diff/pair/before.json', 'diff/pair/after_same.json')]
    pairs.append(('td-perturbed', td, 'diff/touchdesigner_feedback_slow.json'))
    pairs.append(('td-same', td, td))
    pairs.append(('other-networks', torch, gstex))
    ranks = [f for f in fixtures if 'hta_two_ranks' in f]
    if len(ranks) == 2:
        pairs.append(('hta-ranks', ranks[0], ranks[1]))
    if recorded:
        pairs.append(('recorded-same', recorded[0], recorded[0]))
    if len(gst_hand) >= 2:
        pairs.append(('gst-hand', gst_hand[0], gst_hand[1]))
    for label, before, after in pairs:
        g = 'diff/' + label
        for fmt in ('table', 'json', 'md'):
            runs.append(Run(g, 'diff.' + fmt, ['diff', before, after, '--format', fmt]))
        runs.append(Run(g, 'diff.top0', ['diff', before, after, '--top', '0']))
        runs.append(Run(g, 'diff.top3.md', ['diff', before, after, '--top', '3', '--format', 'md']))
        runs.append(Run(g, 'diff.fail', ['diff', before, after, '--fail-on-regression']))
        runs.append(Run(g, 'diff.fail10.json', ['diff', before, after, '--fail-on-regression=10',
                                                '--format', 'json']))
        runs.append(Run(g, 'diff.alpha-min', ['diff', before, after, '--alpha', '0.2',
                                              '--min-change', '0', '--top', '10']))
        runs.append(Run(g, 'diff.min50.json', ['diff', before, after, '--min-change', '50',
                                               '--format', 'json']))
        for fmt in ('table', 'json', 'csv', 'md'):
            runs.append(Run(g, 'score-baseline.' + fmt, ['score', after, '--baseline', before,
                                                         '--format', fmt]))
        runs.append(Run(g, 'score-baseline.top0', ['score', after, '--baseline', before, '--top', '0']))
        runs.append(Run(g, 'score-baseline.sort-avg', ['score', after, '--baseline', before, '--sort',
                                                       'avg', '--top', '5']))
        runs.append(Run(g, 'report-baseline.html', ['report', after, '--baseline', before, '-o',
                                                    '{out}/report.html', '--no-llm']))
        runs.append(Run(g, 'report-baseline.md', ['report', after, '--baseline', before, '-o',
                                                  '{out}/report.md', '--no-llm']))
    g = 'diff/misc'
    runs.append(Run(g, 'score-baseline-batch', ['score', 'examples', '--baseline', td, '-j', '2',
                                                '--format', 'json']))
    runs.append(Run(g, 'score-baseline-group', ['score', td, '--baseline', td, '--group-by', 'container']))
    runs.append(Run(g, 'score-baseline-missing', ['score', td, '--baseline', 'no/such.json']))
    runs.append(Run(g, 'diff-missing', ['diff', td, 'no/such.json']))
    runs.append(Run(g, 'diff-bad-input', ['diff', 'bad/malformed.json', td]))
    runs.append(Run(g, 'diff-fail-then-positional', ['diff', '--fail-on-regression', td,
                                                     'diff/touchdesigner_feedback_slow.json']))

    # stdin/: '-' reads standard input (fed from a file here, /dev/null elsewhere).
    g = 'stdin'
    runs.append(Run(g, 'score', ['score', '-', '--format', 'json'], stdin=torch))
    runs.append(Run(g, 'score-csv', ['score', '-', '--format', 'csv'], stdin=td))
    runs.append(Run(g, 'convert-yaml', ['convert', '-', '-o', '{out}/converted.yaml'], stdin=gstex))
    if fixtures:
        gz = next((f for f in fixtures if f.endswith('.gz')), fixtures[0])
        runs.append(Run(g, 'graph-gzip', ['graph', '-', '--format', 'json'], stdin=gz))
    runs.append(Run(g, 'diff-before', ['diff', '-', 'diff/touchdesigner_feedback_slow.json'], stdin=td))
    runs.append(Run(g, 'yaml', ['score', '-', '--top', '3'], stdin='bad/accepted/clean.yaml'))
    runs.append(Run(g, 'empty', ['score', '-']))

    # bad/: every row of bad/cases.tsv with its command, and the clean references.
    runs += bad_runs(inputs)

    # watch/: fixed streams of datagrams.
    runs += watch_runs()
    return runs


def case_args(command):
    """cases.tsv command -> (cwd, args). {src} is INPUTS_DIR (it has examples/)."""
    cwd = '.'
    m = re.match(r'@config=(\S+) (.*)$', command)
    if m:
        cwd = os.path.join('configs', config_key(m.group(1)))
        command = m.group(2)
    up = os.path.relpath('.', cwd)
    base = lambda p: p if up == '.' else os.path.join(up, p)  # noqa: E731
    args = []
    for word in command.split(' '):
        word = word.replace('{bad}', base('bad')).replace('{gen}', base('bad_gen'))
        word = word.replace('{src}/', '') if up == '.' else word.replace('{src}', up)
        args.append(word)
    return cwd, args


def bad_runs(inputs):
    runs = []
    if not os.path.exists(os.path.join(inputs, 'bad', 'cases.tsv')):
        return runs
    have_gen = os.path.isdir(os.path.join(inputs, 'bad_gen'))
    for row in read_cases(inputs):
        if '{gen}' in row['command'] and not have_gen:
            continue
        cwd, args = case_args(row["command"])
        runs.append(Run('bad', row['name'], args, cwd=cwd))
        if row['same_as'] != '-':
            ref = row['same_as']
            command = row['command']
            target = re.search(r'\{bad\}/accepted/\S+', command)
            if command.startswith('@config='):
                command = re.sub(r'^@config=\S+', '@config=' + ref, command)
            elif '--pack' in command:
                command = re.sub(r'--pack \S+', '--pack ' + ref, command)
            elif target:
                command = command.replace(target.group(0), ref)
            else:
                command = re.sub(r'\{bad\}/\S+', ref, command, count=1)
            cwd, args = case_args(command)
            runs.append(Run('bad', row['name'] + '.reference', args, cwd=cwd))
    return runs


# ------------------------------------------------------------------ watch ---

def osc_string(s):
    b = s.encode('utf-8') + b'\0'
    return b + b'\0' * (-len(b) % 4)


def osc_message(address, *args):
    """args: (tag, value) pairs; tag in i h f d s N."""
    tags = ',' + ''.join(t for t, _ in args)
    body = b''
    for tag, value in args:
        if tag == 'i':
            body += struct.pack('>i', value)
        elif tag == 'h':
            body += struct.pack('>q', value)
        elif tag == 'f':
            body += struct.pack('>f', value)
        elif tag == 'd':
            body += struct.pack('>d', value)
        elif tag == 's':
            body += osc_string(value)
    return osc_string(address) + osc_string(tags) + body


def osc_bundle(messages):
    out = osc_string('#bundle') + struct.pack('>Q', 1)
    for m in messages:
        out += struct.pack('>i', len(m)) + m
    return out


def cook(node, frame):
    """A made-up but fixed cook time (ms) of node in frame: four decimals."""
    return round(0.2 + 0.15 * node + ((frame * 7 + node * 13) % 11) * 0.031, 4)


def json_stream_alerts():
    """240 frames (1000-1239) of 8 nodes: a spike, a gap, a late frame, a frame in
    two parts, two frames in one datagram, two malformed datagrams."""
    out = []
    ids = ['/live/n{}'.format(i) for i in range(8)]

    def frame_nodes(f):
        nodes = {}
        for i, nid in enumerate(ids):
            if i == 7 and f % 2:
                continue  # cooks every other frame
            if i == 6 and f % 5 == 0:
                nodes[nid] = None  # null: did not cook
                continue
            ms = cook(i, f)
            if f == 1150 and i == 3:
                ms = 40.0
            if i == 1:
                nodes[nid] = {'cook_ms': ms, 'gpu_ms': round(ms * 0.6, 4), 'cooks': 2}
            elif i == 2:
                nodes[nid] = {'cook_ms': ms, 'cpu_mem_mb': 12.5 + f % 3}
            else:
                nodes[nid] = ms
        return nodes

    def line(f, nodes, **extra):
        real = [v for v in nodes.values() if v is not None]
        total = sum(v['cook_ms'] if isinstance(v, dict) else v for v in real)
        doc = {'frame': f, 'frame_ms': round(total + 1.5, 4), 'nodes': nodes}
        doc.update(extra)
        return json.dumps(doc, separators=(',', ':'))

    for f in range(1000, 1240):
        if f in (1100, 1101):
            continue  # lost
        nodes = frame_nodes(f)
        if f == 1130:  # two parts
            items = list(nodes.items())
            first = json.dumps({'frame': f, 'nodes': dict(items[:4]), 'more': True},
                               separators=(',', ':'))
            second = json.dumps({'frame': f, 'frame_ms': 9.25, 'nodes': dict(items[4:])},
                                separators=(',', ':'))
            out += [first.encode(), second.encode()]
            continue
        if f == 1141:
            continue  # sent with 1140
        if f == 1140:
            out.append((line(1140, nodes) + '\n' + line(1141, frame_nodes(1141)) + '\n').encode())
            continue
        out.append(line(f, nodes).encode())
        if f == 1120:
            out.append(b'{"frame": 1121, "nodes": {"/live/n0": 0.5,')  # cut short
            out.append(b'{"frame": 1121, "nodes": {}, "colour": "red"}')  # unknown key
        if f == 1200:
            out.append(line(1190, frame_nodes(1190)).encode())  # late: dropped
    return out, 238


def osc_stream_parts():
    """150 frames (5000-5149) of 6 nodes in OSC bundles: frame numbers as i and h,
    times as f and d, a nil gpu with a count, a frame in three parts, a frame whose
    last part never comes (incomplete), a gap of one."""
    out = []
    frames = 0
    for f in range(5000, 5150):
        if f == 5100:
            continue  # lost
        tag = 'h' if f % 2 else 'i'
        cooks = []
        for i in range(6):
            ms = cook(i, f)
            nid = '/osc/node{}'.format(i)
            if i == 0:
                cooks.append(osc_message('/cookgraph/cook', ('s', nid), ('d', ms)))
            elif i == 1:
                cooks.append(osc_message('/cookgraph/cook', ('s', nid), ('f', ms), ('f', ms / 2)))
            elif i == 2:
                cooks.append(osc_message('/cookgraph/cook', ('s', nid), ('f', ms), ('N', None),
                                         ('i', 3)))
            elif i == 3 and f % 4 == 0:
                continue
            elif i == 4:
                cooks.append(osc_message('/cookgraph/cook', ('s', nid), ('i', 1)))
            else:
                cooks.append(osc_message('/cookgraph/cook', ('s', nid), ('f', ms), ('d', 0.25),
                                         ('h', 1)))
        head = osc_message('/cookgraph/frame', (tag, f), ('d', round(8 + (f % 9) * 0.5, 3)))
        bare = osc_message('/cookgraph/frame', (tag, f))
        more = osc_message('/cookgraph/more')
        if f == 5050:  # three parts
            out.append(osc_bundle([head, more] + cooks[:2]))
            out.append(osc_bundle([bare, more] + cooks[2:4]))
            out.append(osc_bundle([bare] + cooks[4:]))
        elif f == 5060:  # incomplete: the second part never comes
            out.append(osc_bundle([head, more] + cooks[:3]))
        else:
            out.append(osc_bundle([head] + cooks))
        frames += 1  # the incomplete frame counts too, once the next one closes it
    return out, frames


def json_stream_clean():
    out = []
    for f in range(1, 61):
        nodes = {'/clean/a': cook(0, f), '/clean/b': cook(1, f),
                 '/clean/c': {'cook_ms': cook(2, f), 'gpu_ms': 0.5}, '/clean/d': cook(3, f) / 10}
        out.append(json.dumps({'frame': f, 'nodes': nodes}, separators=(',', ':')).encode())
    return out, 60


WATCH_STREAMS = {'json_alerts': json_stream_alerts, 'osc_parts': osc_stream_parts,
                 'json_clean': json_stream_clean}


def watch_runs():
    listen = ['--listen', 'udp://127.0.0.1:0']
    g = 'watch'
    return [
        Run(g, 'json-alerts', ['watch'] + listen + ['--window', '100', '--node-ms', '5', '--budget-ms',
            '20', '--quiet-frames', '10', '--frames', '{frames}', '--duration', '60', '--format',
            'json', '--record', '{out}/live.json'], watch='json_alerts'),
        Run(g, 'json-alerts-table', ['watch'] + listen + ['--window', '100', '--node-ms', '5',
            '--budget-ms', '20', '--frames', '{frames}', '--duration', '60', '--top', '4',
            '--sort', 'max'], watch='json_alerts'),
        Run(g, 'osc-parts', ['watch'] + listen + ['--window', '500', '--frames', '{frames}',
            '--duration', '60', '--top', '5', '--sort', 'avg', '--record', '{out}/live.json.gz',
            '--engine', 'touchdesigner', '--name', 'osc-run'], watch='osc_parts'),
        Run(g, 'osc-parts-json', ['watch'] + listen + ['--window', '40', '--frames', '{frames}',
            '--duration', '60', '--format', 'json', '--record', '{out}/live.yaml', '--name', 'osc'],
            watch='osc_parts'),
        Run(g, 'json-clean', ['watch'] + listen + ['--window', '30', '--frames', '{frames}',
            '--duration', '60', '--record', '{out}/live.yml', '--name', 'clean'], watch='json_clean'),
        Run(g, 'json-clean-json', ['watch'] + listen + ['--window', '1000', '--frames', '{frames}',
            '--duration', '60', '--format', 'json', '--top', '2', '--sort', 'p95'],
            watch='json_clean'),
        Run(g, 'no-listen', ['watch', '--frames', '1'], timeout=20),
        Run(g, 'tcp', ['watch', '--listen', 'tcp://127.0.0.1:9000', '--frames', '1'], timeout=20),
        Run(g, 'bad-port', ['watch', '--listen', 'udp://127.0.0.1:70000', '--frames', '1'], timeout=20),
        Run(g, 'bad-record', ['watch'] + listen + ['--frames', '{frames}', '--duration', '60',
            '--record', '{out}/live.txt'], watch='json_clean'),
        Run(g, 'bad-format', ['watch'] + listen + ['--frames', '1', '--format', 'csv'], timeout=20),
    ]


# Watch runs only (see the module's docstring): the port picked by the kernel,
# wall-clock seconds and rates, the record's "captured" time.
WATCH_NORMALISE = [
    (re.compile(rb'(udp://127\.0\.0\.1:)\d+'), rb'\1PORT'),
    (re.compile(rb'("seconds": ?)[-0-9.e+]+'), rb'\1SECONDS'),
    (re.compile(rb'("frames_per_second": ?)[-0-9.e+]+'), rb'\1RATE'),
    (re.compile(rb'\d[\d,]*(?:\.\d+)?/s\b'), rb'RATE/s'),
    (re.compile(rb'("captured": ?)"[^"]*"'), rb'\1"CAPTURED"'),
    (re.compile(rb'^(captured: ?).*$', re.M), rb'\1CAPTURED'),
]


def normalise_watch(data):
    for pattern, repl in WATCH_NORMALISE:
        data = pattern.sub(repl, data)
    return data


# -------------------------------------------------------------------- run ---

def environment(home):
    return {'PATH': '/usr/local/bin:/usr/bin:/bin', 'HOME': home, 'XDG_CONFIG_HOME': home,
            'XDG_CACHE_HOME': home, 'TMPDIR': home, 'NO_COLOR': '1', 'TZ': 'UTC',
            'LC_ALL': 'C.UTF-8'}


def send_stream(port, datagrams):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for i, d in enumerate(datagrams):
            s.sendto(d, ('127.0.0.1', port))
            if i % 20 == 19:
                time.sleep(0.005)  # gentle: even a 208 KiB receive buffer never fills
    finally:
        s.close()


def execute(run, binary, inputs, out_dir, home):
    scratch = os.path.join(out_dir, 'scratch', slug(run.key))
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    datagrams, frames = None, None
    if run.watch:
        datagrams, frames = WATCH_STREAMS[run.watch]()
    args = [a.replace('{out}', scratch).replace('{frames}', str(frames)) for a in run.args]
    cwd = os.path.normpath(os.path.join(inputs, run.cwd))
    stdin = open(os.path.join(inputs, run.stdin), 'rb') if run.stdin else subprocess.DEVNULL
    try:
        if run.watch:
            stdout, stderr, rc = execute_watch(binary, args, cwd, stdin, home, datagrams, run.timeout)
        else:
            try:
                p = subprocess.run(['cookgraph'] + args, executable=binary, cwd=cwd, stdin=stdin,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=environment(home), timeout=run.timeout)
                stdout, stderr, rc = p.stdout, p.stderr, str(p.returncode)
            except subprocess.TimeoutExpired as e:
                stdout, stderr = e.stdout or b'', e.stderr or b''
                rc = 'timeout after {} s'.format(run.timeout)
    finally:
        if run.stdin:
            stdin.close()
    outputs = {}
    scratch_b = scratch.encode()
    outputs['.stdout'] = stdout.replace(scratch_b, b'{out}')
    outputs['.stderr'] = stderr.replace(scratch_b, b'{out}')
    outputs['.rc'] = (rc + '\n').encode()
    for dirpath, dirs, files in os.walk(scratch):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, scratch)
            with open(path, 'rb') as f:
                data = f.read()
            key = '.files/' + rel
            if name.endswith('.gz'):
                try:
                    plain = gzip.decompress(data)
                    if run.watch:
                        plain = normalise_watch(plain)
                    outputs[key + '.gunzipped'] = plain
                except (OSError, EOFError, zlib.error) as e:
                    outputs[key + '.gunzip-error'] = (str(e) + '\n').encode()
                if run.watch:
                    # The raw bytes hold the port and the wall-clock time, compressed.
                    outputs[key + '.gzip-header'] = (data[:10].hex() + '\n').encode()
                    continue
            outputs[key] = normalise_watch(data) if run.watch else data
    shutil.rmtree(scratch)
    if run.watch:
        outputs['.stdout'] = normalise_watch(outputs['.stdout'])
        outputs['.stderr'] = normalise_watch(outputs['.stderr'])
    base = os.path.join(out_dir, 'runs', run.key)
    for suffix, data in outputs.items():
        path = base + suffix
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    return len(outputs)


def execute_watch(binary, args, cwd, stdin, home, datagrams, timeout):
    p = subprocess.Popen(['cookgraph'] + args, executable=binary, cwd=cwd, stdin=stdin,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(home))
    first = p.stderr.readline()
    m = re.search(rb'listening on udp://127\.0\.0\.1:(\d+)', first)
    if m:
        send_stream(int(m.group(1)), datagrams)
    try:
        stdout, rest = p.communicate(timeout=timeout)
        rc = str(p.returncode)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, rest = p.communicate()
        rc = 'timeout after {} s'.format(timeout)
    return stdout, first + rest, rc


def command_line(run):
    def quote(a):
        return a if re.fullmatch(r'[A-Za-z0-9_./:=@%+,{}-]+', a) else json.dumps(a, ensure_ascii=False)
    return ' '.join(quote(a) for a in run.args)


def run_corpus(binary, inputs, out_dir, jobs):
    binary = os.path.abspath(binary)
    inputs = os.path.abspath(inputs)
    out_dir = os.path.abspath(out_dir)
    if not os.access(binary, os.X_OK):
        fail('{} is not an executable'.format(binary))
    if not os.path.exists(os.path.join(inputs, PREPARED)):
        fail('{} was not prepared (run with --prepare first)'.format(inputs))
    if os.path.exists(out_dir) and os.listdir(out_dir):
        if not os.path.exists(os.path.join(out_dir, OUT_MARKER)):
            fail('{} exists and is not an output folder of this script'.format(out_dir))
        shutil.rmtree(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    open(os.path.join(out_dir, OUT_MARKER), 'w').close()

    runs = build_runs(inputs)
    keys = [r.key for r in runs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        fail('duplicate run names: ' + ', '.join(duplicates))
    with open(os.path.join(out_dir, 'runs.tsv'), 'w', encoding='utf-8') as f:
        f.write('run\tcwd\tstdin\targs\n')
        for r in runs:
            f.write('{}\t{}\t{}\t{}\n'.format(r.key, r.cwd, r.stdin or '/dev/null', command_line(r)))

    home = tempfile.mkdtemp(prefix='output_corpus_home.')
    try:
        plain = [r for r in runs if not r.watch]
        watch = [r for r in runs if r.watch]
        written = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for n in pool.map(lambda r: execute(r, binary, inputs, out_dir, home), plain):
                written += n
        for r in watch:  # one at a time: they stream datagrams with small pauses
            written += execute(r, binary, inputs, out_dir, home)
        left = os.listdir(home)
        if left:
            print('output_corpus: warning: runs wrote into the empty HOME: {}'.format(sorted(left)),
                  file=sys.stderr)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(os.path.join(out_dir, 'scratch'), ignore_errors=True)
    with open(os.path.join(inputs, PREPARED), encoding='utf-8') as f:
        if f.read() != manifest(inputs):
            print('output_corpus: warning: the inputs in {} changed during the runs'.format(inputs),
                  file=sys.stderr)
    outputs = sum(len(files) for _, _, files in os.walk(out_dir))
    print('{} runs, {} outputs written to {}'.format(len(runs), outputs, out_dir))


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == '--prepare':
        p = argparse.ArgumentParser(prog='output_corpus.py --prepare')
        p.add_argument('--prepare', metavar='INPUTS_DIR', required=True)
        repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
        p.add_argument('--source', default=repo)
        p.add_argument('--fixtures', default=os.path.join(repo, 'tests', 'data', 'fixtures', 'traces'))
        a = p.parse_args(argv)
        prepare(os.path.abspath(a.prepare), a.source, a.fixtures)
        return
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('binary')
    p.add_argument('inputs')
    p.add_argument('out')
    p.add_argument('-j', '--jobs', type=int, default=2)
    a = p.parse_args(argv)
    run_corpus(a.binary, a.inputs, a.out, max(1, a.jobs))


if __name__ == '__main__':
    main()
