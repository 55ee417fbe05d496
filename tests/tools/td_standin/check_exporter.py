#!/usr/bin/env python3
"""Tests examples/touchdesigner/cookgraph_export.py against the td stand-in.

    check_exporter.py --cookgraph BIN --work DIR            the test
    check_exporter.py --cookgraph BIN --work DIR --mutants  the test's own test

The exporter runs as TouchDesigner would run it: as the module of an Execute
DAT inside /project1 of the planted network (network.py), called by the frame
loop (frame_loop.py) at frame start and frame end, with td.me set to the DAT
while it runs. The DAT is switched on after a few frames; the exporter reads
the network over the next frame starts, samples FRAMES frames, hands them to a
worker thread that writes the snapshot, and switches the DAT off.

What is checked:
  - the snapshot validates against schema/snapshot-v1.schema.json, and
    cookgraph scores and graphs it without a warning;
  - frame by frame, every node's cook_ms, gpu_ms, memory and cooks equal what
    an independent reading of the stand-in's cook log (td.cook_log) gives:
    the last cook's time and the number of cooks of each frame, counting cooks
    while the frame was drawn (panel1, out1), double cooks (script1), cooks at
    the start of the frame before the callbacks (timer1), and nothing for
    COMPs whose children did not cook (fx in odd frames, archive);
  - the measured frame times; profiler_ms equals what the stand-in charged
    the main-thread clock in each frame's callbacks; `cookgraph score` agrees
    with the statistics of the log;
  - every edge with its kind, the loops, outputs (what /perform and /window1
    show, the top-level Out TOP, render and export flags; not a display flag),
    parameters and types, on both builds (opType and the older OPType);
  - nothing was cooked or evaluated, the td module was not touched off the
    main thread, and every file was written by the worker thread;
  - re-arming with start(), a capture switched off and on in the middle, a
    TARGET that does not exist, the default output path;
  - the one-line install from the Textport, the settings table, remove();
  - on a 5,000-OP show with 10% of OPs cooking per frame (large_network.py),
    the exporter's own time per sampled frame stays under 1 ms and reading
    the network never takes more than 2 ms of a frame, as the stand-in
    charges reads (td.READ_US per attribute read).

--mutants runs the same checks on copies of the exporter with one deliberate
mistake each (ignoring cookAbsFrame, reading at frame end, counting display
flags as outputs, missing opType, ...) and fails unless every copy fails the
checks: each check can fail.
"""

import argparse
import contextlib
import glob
import gzip
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, HERE)

import frame_loop  # noqa: E402
import large_network  # noqa: E402
import network  # noqa: E402
import td  # noqa: E402

EXPORTER = os.path.join(ROOT, 'examples', 'touchdesigner', 'cookgraph_export.py')
README = os.path.join(ROOT, 'examples', 'touchdesigner', 'README.md')
SCHEMA = os.path.join(ROOT, 'schema', 'snapshot-v1.schema.json')

FRAMES = 30  # sampled frames in the main capture
WARMUP = 5  # frames run before the Execute DAT is switched on
DROP_AFTER = (13.0,)  # absTime jumps from 13 to 15: frame 14 is dropped
PROJECT = 'planted_show.toe'
BYTES_PER_MB = 1024.0 * 1024.0
GPU_FAMILIES = ('TOP', 'COMP', 'SOP', 'MAT', 'POP')
SAMPLED_LIMIT_MS = 1.0  # the exporter's own time in a sampled frame, at most
ARMING_LIMIT_MS = 2.0  # its time in a frame while it reads the network, at most

# One deliberate mistake each: (name, [(text in the exporter, replacement), ...]).
MUTANTS = [
    ('ignores cookAbsFrame', [('                    if at == frame:\n',
                               '                    if True:\n')]),
    ('reads each frame at its frame end, not at the next frame start', [
        ('            cooked = self.network.read(previous.number, abs_frame, previous.sampled)\n'
         '            if previous.sampled:\n'
         '                self.take(previous, cooked)\n', '            pass\n'),
        ('        frame.own_ms += (clock() - t0) * 1000.0\n',
         '        if self.reading():\n'
         '            cooked = self.network.read(abs_frame, abs_frame + 1, frame.sampled)\n'
         '            if frame.sampled:\n'
         '                self.take(frame, cooked)\n'
         '        frame.own_ms += (clock() - t0) * 1000.0\n')]),
    ('counts display flags as outputs', [
        ("    return bool(getattr(o, 'render', False)) or bool(getattr(o, 'export', False))",
         "    return bool(getattr(o, 'render', False)) or bool(getattr(o, 'export', False)) or "
         "bool(getattr(o, 'display', False))")]),
    ('misses opType', [("    for name in ('opType', 'OPType'):", "    for name in ('OPType',):")]),
    ('misses OPType', [("    for name in ('opType', 'OPType'):", "    for name in ('opType',):")]),
    ('counts one cook per cooked frame (ignores totalCooks)', [
        ('cooked.append(self.cook_of(i, o, cooks + (early[5] if early else 0)))',
         'cooked.append(self.cook_of(i, o, 1))')]),
    ('takes the GPU time for the CPU time', [
        ('        cook = _ms(o.cpuCookTime, self.notes)', '        cook = _ms(o.gpuCookTime, self.notes)')]),
    ('takes the CPU time for the GPU time', [
        ('            gpu = _ms(o.gpuCookTime, self.notes)', '            gpu = _ms(o.cpuCookTime, self.notes)')]),
    ('reads every OP, cooked or not', [
        ('                if comp.childrenCPUCookAbsFrame < frame:\n',
         '                if comp.childrenCPUCookAbsFrame < frame and False:\n'),
        ('                    if not cooks:\n                        continue\n',
         '                    if not cooks:\n                        o.cpuCookTime, o.cookAbsFrame\n'
         '                        continue\n')]),
    ('skips a COMP whose children cooked at the start of this frame', [
        ('                if comp.childrenCPUCookAbsFrame < frame:\n',
         '                if comp.childrenCPUCookAbsFrame != frame:\n')]),
    ('stops on an OP deleted while sampling', [
        ("                    if getattr(o, 'valid', True):\n                        raise  # not",
         "                    if True:\n                        raise  # not")]),
    ('forces a cook before reading', [
        ('                    total = o.totalCooks\n',
         '                    o.cook(force=True)\n                    total = o.totalCooks\n')]),
    ('evaluates expressions for their text', [('return str(par.expr)', 'return str(par.eval())')]),
    ("uses the callback's timeline frame", [
        ('    _remember_dat()\n    if _idle:\n        return\n    try:\n        abs_frame = td.absTime.frame\n        _last_start',
         '    _remember_dat()\n    if _idle:\n        return\n    try:\n        abs_frame = frame\n        _last_start')]),
    ('includes its own work in frame_ms', [
        ('            frame.frame_ms = (t0 - frame.start_clock) * 1000.0',
         '            frame.frame_ms = (t0 - frame.start_clock) * 1000.0 + frame.own_ms')]),
    ('leaves its frame-end time out of profiler_ms', [
        ('        frame.own_ms += (clock() - t0) * 1000.0\n', '')]),
    ('megabytes of 10^6 bytes', [('BYTES_PER_MB = float(1 << 20)', 'BYTES_PER_MB = 1e6')]),
    ('writes the Feedback TOP target as a ref', [('feedback.extend(targets)', 'refs.extend(targets)')]),
    ('drops export references', [('return [source] if source is not None else []', 'return []')]),
    ('drops bind references', [("target = getattr(master, 'owner', master)", 'target = master')]),
    ('keeps default parameters', [('    if not par.isDefault:', '    if True:')]),
    ('ignores the render flag', [
        ("    return bool(getattr(o, 'render', False)) or", '    return')]),
    ('misses what Window COMPs show', [("        for par in window.pars('winop'):",
                                       "        for par in window.pars('nothing'):")]),
    ("misses a shown COMP's background TOP", [("for top in shown.pars('top'):",
                                               "for top in shown.pars('nothing'):")]),
    ('takes every Out OP for an output', [
        ('        return parent is not None and parent.path == target_path', '        return True')]),
    ('leaves nested Out OPs unconnected', [
        ("        if node['type'] in _OUT_TYPES and parent != target_path and parent in index:",
         '        if False:')]),
    ('leaves panels inside a panel unconnected', [
        ('        link_panels(nodes, index, self.panels)\n', '')]),
    ('keeps utility OPs', [('comp.findChildren(depth=1, includeUtility=False)',
                            'comp.findChildren(depth=1, includeUtility=True)')]),
    ('keeps the Execute DAT', [("            values['excluded'].add(own.path)", '            pass')]),
    ('relies on a module global `me`', [
        ("    me = getattr(td, 'me', None)\n    if me is not None and _dat is None",
         "    me = globals().get('me')\n    if me is not None and _dat is None"),
        ('def _this_dat():\n    global _dat\n',
         "def _this_dat():\n    return globals().get('me')\n")]),
    ('reads the whole network in its first frame', [('        budget = ARM_MS / 1000.0',
                                                     '        budget = 1e9')]),
    ('writes on the main thread', [('        self.writer.start()', '        self.writer.run()')]),
    ('writes the wrong fps', [("        doc['fps'] = _number(fps)", "        doc['fps'] = 30")]),
    ('samples one frame more', [("        if len(self.frames) >= self.settings['frames']:",
                                 "        if len(self.frames) > self.settings['frames']:")]),
    ('writes the grandparent as the parent', [("node['parent'] = parent.path",
                                               "node['parent'] = (parent.parent() or parent).path")]),
    ('stays active after writing', [('        dat.par.active = False  # switching',
                                     '        pass  # switching')]),
    ('does not say where it wrote', [("            print('cookgraph: ' + _job.done)", '            pass')]),
    ('does not name the page beside it', [("    if page and os.path.isfile(page):", '    if False:')]),
    ('copies instead of renaming', [('os.replace(tmp, path)', "__import__('shutil').copyfile(tmp, path)")]),
    ('never compresses', [("if path.endswith('.gz'):", 'if False:')]),
    ('writes format version 2', [("'cookgraph': FORMAT_VERSION,", "'cookgraph': 2,")]),
    ('writes a key cookgraph does not know', [("'source': [base", "'sources': [base")]),
    ('keeps sampling across frames it missed', [
        ('        if _job is not None and _job.missed(abs_frame, td.absTime.step):',
         '        if False:')]),
    ('does not check that TARGET exists', [('        if self.target is None:', '        if False:')]),
    ('names the default file differently', [("'cookgraph_{}_{}_{}.json'", "'capture_{}_{}_{}.json'")]),
    ('ignores the settings table', [("    table = dat.parent().op(SETTINGS_DAT) if dat is not None else None\n    if table",
                                     "    table = None\n    if table")]),
    ('remove() leaves the settings table', [('        table.destroy()\n', '')]),
    ('ignores unknown settings', [("            if name not in values or name == 'max_datagram':",
                                   '            if False:')]),
]


class FirstFailure(Exception):
    """Stops a run of checks at its first failure (--mutants needs only one)."""


class Checks:
    """Collects failed checks: (check name, message)."""

    def __init__(self, fail_fast=False):
        self.failures = []
        self.fail_fast = fail_fast

    def ok(self, name, condition, message):
        if not condition:
            self.failures.append((name, message))
            if self.fail_fast:
                raise FirstFailure()
        return condition

    def close(self, name, got, want, what):
        if want is None or got is None:
            return self.ok(name, got is None and want is None, '{}: got {}, want {}'.format(
                what, got, want))
        return self.ok(name, math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12),
                       '{}: got {!r}, want {!r}'.format(what, got, want))


# --------------------------------------------------------------------------
# Running the exporter inside the stand-in


class Writes:
    """Records which thread opens files for writing or renames them (an audit
    hook: Python cannot remove one, so it is installed once and switched)."""

    def __init__(self):
        self.folder = None
        self.events = []  # (event, path, on the main thread)
        sys.addaudithook(self.hook)

    def hook(self, event, args):
        if self.folder is None or event not in ('open', 'os.rename'):
            return
        path = args[0]
        if not isinstance(path, (str, bytes, os.PathLike)):
            return
        path = os.fsdecode(path)
        if event == 'open' and not (isinstance(args[1], str) and set(args[1]) & set('wax+')) \
                and not (isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR)):
            return
        if os.path.abspath(path).startswith(self.folder):
            self.events.append((event, path, threading.current_thread() is threading.main_thread()))


WRITES = Writes()


def load_exporter(source):
    module = types.ModuleType('cookgraph_export')
    module.__file__ = EXPORTER
    exec(compile(source, EXPORTER, 'exec'), module.__dict__)
    return module


class Session:
    """A network, its frame loop and the exporter in its Execute DAT."""

    def __init__(self, source, work, build='current', net=network, frames=FRAMES):
        self.net = net
        self.ops = net.build()
        td.BUILD = build
        self.types = {path: (o._optype, o.family) for path, o in self.ops.items()}
        td.project.name = PROJECT
        td.project.folder = work
        td.project.cookRate = 60.0
        self.clock = frame_loop.FakeClock()
        self.exporter = load_exporter(source)
        self.exporter.clock = self.clock
        self.exporter.TARGET = net.TARGET
        self.exporter.FRAMES = frames
        self.dat = self.ops[net.EXPORTER_DAT]
        self.dat.module = self.exporter
        self.dat.par.active = False
        self.dat.par.framestart = True
        self.dat.par.frameend = True
        self.loop = frame_loop.FrameLoop(
            [self.ops[k] for k in sorted(self.ops)], net.schedule, net.memory,
            net.overhead_ms, self.clock, drop_after=DROP_AFTER if net is network else (),
            late=getattr(net, 'late', None), early=getattr(net, 'early', None),
            deleted=getattr(net, 'DELETED', None))

    def capture(self, limit, give_up_ms=None):
        """Runs frames until the exporter switches its DAT off (the writer thread
        finishing), or a frame's callbacks took more than give_up_ms; returns
        (absTime.frame at which the DAT was on, what it printed)."""
        armed = td.absTime.frame
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            for _ in range(limit):
                if not self.dat.par.active.val:
                    break
                self.loop.run_frame()
                if give_up_ms and charged_ms(self.loop, [self.loop.frames[-1]])[0] > give_up_ms:
                    break
                job = self.exporter._job
                writer = getattr(job, 'writer', None)
                if writer is not None:
                    writer.join(10)  # the next frame start reports it
        return armed, printed.getvalue()


def arming_frames(printed):
    m = re.search(r'read \d+ OPs in (\d+) frames?;', printed)
    return int(m.group(1)) if m else None


def sampled_frames(loop_frames, armed, frames, printed):
    """The frames the exporter should sample: those after the ones it read the
    network in, from the frame the DAT was switched on."""
    arming = arming_frames(printed) or 1
    return [f for f in loop_frames if f >= armed][arming:arming + frames]


# --------------------------------------------------------------------------
# What the stand-in's cook log says


def logged(frames):
    """{path: {frame: [(cpu, gpu, cpu_bytes, gpu_bytes), ...]}} of the cooks in frames."""
    wanted = set(frames)
    out = {}
    for frame, path, _, cpu, gpu, cpu_bytes, gpu_bytes in td.cook_log:
        # An OP deleted at the start of a frame cannot be read for the frame before.
        if frame + 1 >= network.DELETED.get(path, math.inf):
            continue
        if frame in wanted:
            out.setdefault(path, {}).setdefault(frame, []).append((cpu, gpu, cpu_bytes, gpu_bytes))
    return out


def expected_series(frames, families, nodes):
    """Per node, the series a snapshot holds for `frames` by the log: the last
    cook's times and memory, the number of cooks; None where it did not cook."""
    out = {}
    for path, by_frame in logged(frames).items():
        if path not in nodes:
            continue
        gpu_family = families[path] in GPU_FAMILIES
        s = {'cook_ms': [], 'gpu_ms': [], 'cpu_mem_mb': [], 'gpu_mem_mb': [], 'cooks': []}
        for f in frames:
            cooks = by_frame.get(f, [])
            last = cooks[-1] if cooks else None
            s['cook_ms'].append(last[0] if last else None)
            s['gpu_ms'].append(last[1] if last and gpu_family else None)
            s['cpu_mem_mb'].append(last[2] / BYTES_PER_MB if last else None)
            s['gpu_mem_mb'].append(last[3] / BYTES_PER_MB if last and gpu_family else None)
            s['cooks'].append(len(cooks))
        for key in ('gpu_ms', 'cpu_mem_mb', 'gpu_mem_mb'):
            if not any(s[key]):
                del s[key]
        out[path] = s
    return out


def expected_stats(series, count):
    """Per node id: the statistics docs/architecture.md#node-statistics gives."""
    out = {}
    for node, s in series.items():
        cook = [v for v in s['cook_ms'] if v is not None]

        def mean_if_any(key):
            values = [v for v, c in zip(s.get(key, []), s['cook_ms']) if c is not None]
            return sum(values) / len(values) if any(values) else None

        out[node] = {
            'cooked_frames': len(cook),
            'avg_ms': sum(cook) / len(cook) if cook else None,
            'cooks_per_frame': sum(s['cooks']) / count,
            'gpu_avg_ms': mean_if_any('gpu_ms'),
            'cpu_mem_mb': mean_if_any('cpu_mem_mb'),
            'gpu_mem_mb': mean_if_any('gpu_mem_mb'),
        }
    return out


def expected_frame_ms(net, paths, frames):
    """Everything the frame loop spends between frame start and frame end."""
    return [sum(cpu for path in paths for cpu, _ in net.schedule(path, f)) + net.overhead_ms(f)
            for f in frames]


def charged_ms(loop, frames):
    """Per frame, what the stand-in charged the clock in the exporter's callbacks."""
    per = {}
    for frame, _, ms in loop.charged:
        per[frame] = per.get(frame, 0.0) + ms
    return [per.get(f, 0.0) for f in frames]


# --------------------------------------------------------------------------
# The checks


def run_tool(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError('{} failed ({}): {}'.format(' '.join(args), result.returncode,
                                                       result.stderr.strip()[:2000]))
    return result.stdout


def read_snapshot(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return json.loads(data)


_VALIDATOR = []


def schema_validator():
    """schema/snapshot-v1.schema.json, as tests/tools/validate_schema.py checks it."""
    if not _VALIDATOR:
        import jsonschema  # Debian's python3-jsonschema
        with open(SCHEMA, encoding='utf-8') as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATOR.append(jsonschema.Draft202012Validator(schema))
    return _VALIDATOR[0]


def check_file(checks, name, path, cookgraph, schema=True):
    """Schema, score and graph of one written snapshot; returns (doc, score, graph).
    (Scoring parses as strictly as the schema: files after the first skip it.)"""
    if not checks.ok(name, os.path.isfile(path), 'no snapshot at ' + path):
        return None, None, None
    leftovers = glob.glob(os.path.join(os.path.dirname(path), '.cookgraph-*.tmp'))
    checks.ok(name, not leftovers, 'temporary files left behind: {}'.format(leftovers))
    doc = read_snapshot(path)
    errors = sorted(schema_validator().iter_errors(doc), key=lambda e: list(e.path)) if schema \
        else []
    checks.ok(name + ': schema', not errors, 'the schema refuses it: {} errors; first at {}: {}'.format(
        len(errors), '/'.join(str(p) for p in errors[0].path) if errors else '',
        errors[0].message[:200] if errors else ''))
    score = json.loads(run_tool([cookgraph, 'score', path, '--format', 'json']))
    graph = json.loads(run_tool([cookgraph, 'graph', path, '--format', 'json']))
    snap = score['snapshots'][0]
    checks.ok(name, not snap.get('warnings'), 'cookgraph warns: {}'.format(snap.get('warnings')))
    return doc, snap, graph


def check_threads(checks, name):
    """Every write under the work folder came from another thread than the main one."""
    main = [e for e in WRITES.events if e[2]]
    checks.ok(name, WRITES.events and not main,
              'files written on the main thread: {} (of {} writes)'.format(
                  main[:3], len(WRITES.events)))
    off = [v for v in td.violations if v[0] == 'td touched off the main thread']
    checks.ok(name, not off, 'the worker thread touched td: {}'.format(off[:3]))


def check_main(checks, session, armed, printed, path, cookgraph):
    frames = sampled_frames(session.loop.frames, armed, FRAMES, printed)
    doc, snap, graph = check_file(checks, 'output', path, cookgraph)
    if doc is None:
        return
    checks.ok('printed', 'cookgraph: wrote ' + path in printed,
              'the exporter did not print where it wrote: {!r}'.format(printed))
    checks.ok('notes', '1 OPs deleted while sampling (first: {})'.format(
        network.p('unused1')) in printed, 'the deleted OP is not reported: {!r}'.format(printed))
    checks.ok('notes', 'not in any sample' not in printed,
              'cooks the exporter could not place: {!r}'.format(printed))
    checks.ok('switched off', not session.dat.par.active.val,
              'the Execute DAT is still active after the capture')
    checks.ok('no cooks forced', not [v for v in td.violations if v[0] != 'td touched off the '
                                      'main thread'],
              'the exporter made TouchDesigner cook or evaluate: {}'.format(td.violations[:5]))
    check_threads(checks, 'threads')

    # The frames: absTime numbers (with the dropped one missing), the rate.
    index = doc['frames']['index']
    checks.ok('frame index', index == [int(f) for f in frames],
              'frames.index is {}, want {}'.format(index, [int(f) for f in frames]))
    checks.ok('frame index', 14 not in index and 13 in index and 15 in index,
              'the dropped frame 14 is not the gap in {}'.format(index))
    checks.ok('fps', doc.get('fps') == 60, 'fps is {}'.format(doc.get('fps')))
    checks.close('fps', snap['frame_budget_ms'], 1000.0 / 60.0, 'frame_budget_ms')
    checks.ok('frames', snap['frames'] == FRAMES, 'score saw {} frames'.format(snap['frames']))

    want_ms = expected_frame_ms(network, session.ops, frames)
    got_ms = doc['frames'].get('frame_ms')
    if checks.ok('frame_ms', got_ms is not None and len(got_ms) == len(want_ms),
                 'frames.frame_ms missing or of the wrong length'):
        for f, got, want in zip(frames, got_ms, want_ms):
            if not checks.close('frame_ms', got, want, 'frame_ms of frame {}'.format(int(f))):
                break
    checks.ok('frame_ms', snap['frame_ms']['measured'] is True, 'frame times not measured')
    checks.close('frame_ms', snap['frame_ms']['mean'], sum(want_ms) / len(want_ms),
                 'mean frame time')
    want_own = charged_ms(session.loop, frames)
    got_own = doc['frames'].get('profiler_ms')
    if checks.ok('profiler_ms', got_own is not None and len(got_own) == len(want_own),
                 'frames.profiler_ms missing or of the wrong length'):
        for f, got, want in zip(frames, got_own, want_own):
            if not checks.close('profiler_ms', got, want, 'profiler_ms of frame {}'.format(
                    int(f))):
                break
        checks.ok('profiler_ms', all(v > 0 for v in got_own), 'a frame without exporter time')

    # Frame by frame, every node's series against the cook log.
    families = {path: fam for path, (_, fam) in session.types.items()}
    want_series = expected_series(frames, families, network.NODES)
    got_series = doc['frames']['series']
    checks.ok('series', sorted(got_series) == sorted(want_series),
              'series for {}, want {}'.format(sorted(set(got_series) - set(want_series)),
                                              sorted(set(want_series) - set(got_series))))
    for node_id, want in want_series.items():
        got = got_series.get(node_id)
        if got is None:
            continue
        checks.ok('series', sorted(got) == sorted(want), '{} has {}, want {}'.format(
            node_id, sorted(got), sorted(want)))
        for key, values in want.items():
            for f, a, b in zip(frames, got.get(key, []), values):
                if not checks.close('series', a, b, '{} {} of frame {}'.format(node_id, key,
                                                                              int(f))):
                    break
    planted = {'double cooks': network.p('script1'), 'drawing cooks': network.p('panel1'),
               'frame and drawing cooks': network.p('out1'),
               'cooks before the callbacks': network.p('timer1'),
               'a subtree cooking in some frames': network.p('fx/blur2')}
    for what, node_id in planted.items():
        checks.ok('series', node_id in want_series and node_id in got_series,
                  '{} ({}) are not in the snapshot'.format(what, node_id))
    checks.ok('series', not any(k.startswith(network.p('archive')) for k in got_series),
              'the idle subtree archive has samples')

    # Per node statistics from cookgraph, against the log's.
    nodes = {n['id']: n for n in snap['nodes']}
    checks.ok('nodes', sorted(nodes) == network.NODES,
              'nodes differ: extra {}, missing {}'.format(
                  sorted(set(nodes) - set(network.NODES)),
                  sorted(set(network.NODES) - set(nodes))))
    for node_id, stats in expected_stats(want_series, len(frames)).items():
        got = nodes.get(node_id)
        if got is None:
            continue
        checks.ok('cooked_frames', got['cooked_frames'] == stats['cooked_frames'],
                  '{} cooked_frames {}, want {}'.format(node_id, got['cooked_frames'],
                                                         stats['cooked_frames']))
        for key in ('avg_ms', 'cooks_per_frame', 'gpu_avg_ms', 'cpu_mem_mb', 'gpu_mem_mb'):
            checks.close(key, got.get(key), stats[key], '{} {}'.format(node_id, key))
    for node_id, got in nodes.items():
        want_dead = node_id in network.DEAD
        checks.ok('dead', got['dead'] == want_dead,
                  '{} dead is {}, want {}'.format(node_id, got['dead'], want_dead))

    check_structure(checks, session, doc, graph)


def check_structure(checks, session, doc, graph):
    edges = sorted((e['from'], e['to'], e['kind']) for e in graph['edges'])
    checks.ok('edges', edges == network.EDGES, 'edges differ: extra {}, missing {}'.format(
        sorted(set(edges) - set(network.EDGES)), sorted(set(network.EDGES) - set(edges))))
    loops = sorted((l['kind'], tuple(sorted(l['nodes']))) for l in graph['loops'])
    checks.ok('loops', loops == network.LOOPS, 'loops are {}, want {}'.format(
        loops, network.LOOPS))
    feedback = [l for l in graph['loops'] if l['kind'] == 'feedback']
    checks.ok('loops', feedback and feedback[0].get('feedback_edge') == {
        'from': network.p('comp1'), 'to': network.p('feedback1')},
              'the feedback loop is not closed by comp1 -> feedback1: {}'.format(feedback))
    written = {n['id']: n for n in doc['nodes']}
    outputs = sorted(i for i, n in written.items() if n.get('output'))
    checks.ok('outputs', outputs == network.OUTPUTS, 'outputs are {}, want {}'.format(
        outputs, network.OUTPUTS))
    for node_id, n in written.items():
        want_params = network.PARAMS.get(node_id, {})
        got_params = n.get('params', {})
        checks.ok('params', list(got_params.items()) == list(want_params.items()),
                  '{} params {}, want {}'.format(node_id, got_params, want_params))
        want_type = session.types[node_id]
        checks.ok('types', (n.get('type'), n.get('family')) == want_type,
                  '{} is {}/{}, want {}/{}'.format(node_id, n.get('type'), n.get('family'),
                                                   *want_type))
        checks.ok('parents', n.get('parent') == node_id.rsplit('/', 1)[0],
                  '{} parent {}'.format(node_id, n.get('parent')))


def check_rearmed(checks, session, cookgraph, work):
    """start() re-arms: a relative .json.gz path, then the default path."""
    session.exporter.start(output=os.path.join('captures', 'rearmed.json.gz'), frames=6)
    armed, printed = session.capture(200)
    path = os.path.join(work, 'captures', 'rearmed.json.gz')
    doc, snap, _ = check_file(checks, 'rearmed .json.gz', path, cookgraph, schema=False)
    if doc is not None:
        with open(path, 'rb') as f:
            checks.ok('rearmed .json.gz', f.read(2) == b'\x1f\x8b', 'not gzip-compressed')
        want = [int(f) for f in sampled_frames(session.loop.frames, armed, 6, printed)]
        checks.ok('rearmed .json.gz', doc['frames']['index'] == want,
                  'index {}, want {}'.format(doc['frames']['index'], want))

    # Switched off in the middle of a capture, then on again: the exporter
    # starts over rather than fold the unsampled frames' cooks into a sample.
    session.exporter.start(output=os.path.join('captures', 'paused.json'), frames=5)
    with contextlib.redirect_stdout(io.StringIO()):
        session.loop.run(3)  # reads the network, samples a frame
        session.dat.par.active = False
        session.loop.run(3)
        session.dat.par.active = True
    armed, printed = session.capture(200)
    doc, _, _ = check_file(checks, 'paused', os.path.join(work, 'captures', 'paused.json'),
                           cookgraph, schema=False)
    if doc is not None:
        want = [int(f) for f in sampled_frames(session.loop.frames, armed, 5, printed)]
        checks.ok('paused', doc['frames']['index'] == want and 'starting the capture over'
                  in printed, 'index {}, want {} after starting over; printed {!r}'.format(
                      doc['frames']['index'], want, printed))

    # A TARGET that does not exist: one clear message, the DAT off, no file.
    session.exporter.start(target='/project1/nothing', output='nothing.json', frames=3)
    armed, printed = session.capture(5)
    checks.ok('bad target', printed.strip() == "cookgraph: TARGET '/project1/nothing' is not an "
              'operator (set target in the cookgraph_settings table, or pass it to start())' and
              not session.dat.par.active.val and not os.path.exists(
                  os.path.join(work, 'nothing.json')), 'printed {!r}'.format(printed))

    session.exporter.start(target=network.TARGET, output='', frames=3)
    armed, printed = session.capture(200)
    found = glob.glob(os.path.join(work, 'cookgraph_planted_show_project1_*Z.json'))
    if checks.ok('default path', len(found) == 1,
                 'want one cookgraph_planted_show_project1_<time>.json in {}, found {}'.format(
                     work, found)):
        doc, snap, _ = check_file(checks, 'default path', found[0], cookgraph, schema=False)
        if doc is not None:
            checks.ok('default path', doc.get('name') == 'planted_show /project1',
                      'name is {!r}'.format(doc.get('name')))
            checks.ok('default path', doc.get('source', [None])[0] == PROJECT,
                      'source is {!r}'.format(doc.get('source')))


def check_older_build(checks, source, cookgraph, work):
    """The builds with OPType instead of opType give the same types."""
    session = Session(source, work, build='older', frames=4)
    session.exporter.OUTPUT = os.path.join(work, 'older.json')
    session.loop.run(WARMUP)
    session.dat.par.active = True
    session.capture(200)
    doc, _, graph = check_file(checks, 'older build', session.exporter.OUTPUT, cookgraph,
                               schema=False)
    if doc is not None:
        for n in doc['nodes']:
            want = session.types[n['id']]
            checks.ok('older build', (n.get('type'), n.get('family')) == want,
                      '{} is {}/{} on the OPType build, want {}/{}'.format(
                          n['id'], n.get('type'), n.get('family'), *want))


def paste_line(path):
    """The Textport line of the README, for the exporter at `path`."""
    with open(README, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r"^ *(import runpy; runpy\.run_path\(r'[^']*'\)\['install'\]\('/project1'\))$",
                  text, re.M)
    if m is None:
        return None
    return re.sub(r"run_path\(r'[^']*'\)", "run_path(r'{}')".format(path), m.group(1))


def check_install(checks, source, cookgraph, work):
    """The README's one-line install: the DATs appear, switching Active on
    captures with the settings table's values, remove() takes both away."""
    exporter_file = os.path.join(work, 'cookgraph_export.py')
    folder, WRITES.folder = WRITES.folder, None  # the test's own write
    with open(exporter_file, 'w', encoding='utf-8') as f:
        f.write(source)
    page = os.path.join(work, 'cookgraph.html')  # the page beside it: install() names it
    with open(page, 'w', encoding='utf-8') as f:
        f.write('<!doctype html>')
    WRITES.folder = folder
    line = paste_line(exporter_file)
    if not checks.ok('install', line is not None, 'no install line in ' + README):
        return
    ops = network.build()
    dat_path = network.TARGET + '/cookgraph_export'
    ops[dat_path].destroy()  # a fresh project: no exporter yet
    td.project.name = PROJECT
    td.project.folder = work
    clock = frame_loop.FakeClock()
    loop = frame_loop.FrameLoop([o for k, o in sorted(ops.items()) if k != dat_path],
                                network.schedule, network.memory, network.overhead_ms, clock)
    loop.run(3)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(line, {'__name__': '__textport__'})  # what the Textport runs
    dat = td.op(dat_path)
    table = td.op(network.TARGET + '/cookgraph_settings')
    if not checks.ok('install', dat is not None and table is not None,
                     'the paste made no Execute DAT and settings table: {!r}'.format(
                         printed.getvalue())):
        return
    checks.ok('install', dat.par.framestart.val and dat.par.frameend.val and
              not dat.par.active.val, 'callbacks or Active set wrongly')
    checks.ok('install', printed.getvalue().startswith('cookgraph: installed ' + dat_path),
              'printed {!r}'.format(printed.getvalue()))
    dat.module.clock = clock
    loop.ops.extend([dat, table])
    installed = table._text
    checks.ok('install', 'page\t{}\n'.format(page) in installed,
              'the settings do not name the page beside the exporter: {!r}'.format(installed))
    # A mistyped setting: one message naming the table's row, the DAT off.
    table.text = installed.replace('frames\t300', 'frmaes\t8')
    dat.par.active = True
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        loop.run(3)
    checks.ok('settings', printed.getvalue().startswith(
        "cookgraph: /project1/cookgraph_settings row 2: unknown setting 'frmaes' (settings: "
        'target, frames,') and not dat.par.active.val, 'printed {!r}'.format(printed.getvalue()))
    # The user sets 8 frames and an output in the table, then switches Active on.
    table.text = installed.replace('frames\t300', 'frames\t8').replace(
        'output\t\n', 'output\tinstalled.json\n')
    dat.par.active = True
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for _ in range(300):
            if not dat.par.active.val:
                break
            loop.run_frame()
            writer = getattr(dat.module._job, 'writer', None)
            if writer is not None:
                writer.join(10)
    path = os.path.join(work, 'installed.json')
    checks.ok('install', 'cookgraph: wrote {} ('.format(path) in printed.getvalue() and
              'to see it, open {} in a browser and drop the file onto it'.format(page)
              in printed.getvalue(), 'the page is not named: {!r}'.format(printed.getvalue()))
    doc, snap, _ = check_file(checks, 'install', path, cookgraph)
    if doc is not None:
        checks.ok('install', len(doc['frames']['index']) == 8 and snap['frames'] == 8,
                  'the table said 8 frames, the snapshot has {}'.format(snap['frames']))
        checks.ok('install', sorted(n['id'] for n in doc['nodes']) == network.NODES,
                  'the DATs it installed are measured')
        checks.ok('install', set(td.content_reads) == {table.path},
                  'contents read besides the settings table: {}'.format(set(td.content_reads)))
    table_path = table.path
    with contextlib.redirect_stdout(io.StringIO()):
        dat.module.remove()
    checks.ok('remove', td.op(dat_path) is None and td.op(table_path) is None,
              'remove() left {}'.format([p for p in (dat_path, table_path) if td.op(p)]))


def check_cost(checks, source, work):
    """The exporter's own time on a 5,000-OP show, as the stand-in charges it."""
    session = Session(source, work, net=large_network, frames=30)
    session.exporter.OUTPUT = os.path.join(work, 'large.json')
    session.loop.run(WARMUP)
    session.dat.par.active = True
    armed, printed = session.capture(400, give_up_ms=2 * ARMING_LIMIT_MS)
    frames = sampled_frames(session.loop.frames, armed, 30, printed)
    arming = arming_frames(printed)
    if not checks.ok('cost', arming is not None and len(frames) == 30,
                     'the capture of the large show did not finish: {!r} (last frame: {:.3f} '
                     'ms)'.format(printed, charged_ms(session.loop, session.loop.frames[-1:])[0])):
        return None
    own = charged_ms(session.loop, frames)
    arm = charged_ms(session.loop, [f for f in session.loop.frames if f >= armed][:arming])
    checks.ok('cost', max(own) < SAMPLED_LIMIT_MS,
              'the exporter took {:.3f} ms of a sampled frame (limit {})'.format(
                  max(own), SAMPLED_LIMIT_MS))
    checks.ok('cost', max(arm) <= ARMING_LIMIT_MS,
              'reading the network took {:.3f} ms of a frame (limit {})'.format(
                  max(arm), ARMING_LIMIT_MS))
    checks.ok('cost', arming > 1, 'the network was read in one frame')
    doc = read_snapshot(session.exporter.OUTPUT) if os.path.exists(
        session.exporter.OUTPUT) else {}
    got = doc.get('frames', {}).get('profiler_ms')
    checks.ok('cost', got is not None and all(math.isclose(a, b, rel_tol=1e-9)
                                              for a, b in zip(got, own)),
              'profiler_ms in the snapshot is not what was charged')
    check_threads(checks, 'cost')
    cooked = sum(1 for s in doc.get('frames', {}).get('series', {}).values())
    return {'ops': len(session.ops), 'cooked_per_frame': large_network.ACTIVE * 50,
            'cooked_ops': cooked, 'sampled_mean_ms': sum(own) / len(own),
            'sampled_max_ms': max(own), 'arming_frames': arming, 'arming_max_ms': max(arm)}


def run_checks(source, cookgraph, work, cost=True, fail_fast=False):
    """All checks on one exporter source; returns (failures, cost figures)."""
    shutil.rmtree(work, ignore_errors=True)  # a folder of this script's own
    os.makedirs(work)
    checks = Checks(fail_fast)
    path = os.path.join(work, 'planted.json')
    figures = None
    WRITES.folder = os.path.abspath(work)
    WRITES.events.clear()
    try:
        session = Session(source, work)
        session.exporter.OUTPUT = path
        session.loop.run(WARMUP)
        session.dat.par.active = True
        armed, printed = session.capture(FRAMES + 300)
        check_main(checks, session, armed, printed, path, cookgraph)
        check_rearmed(checks, session, cookgraph, work)
        check_older_build(checks, source, cookgraph, work)
        check_install(checks, source, cookgraph, work)
        if cost:
            figures = check_cost(checks, source, work)
    except FirstFailure:
        pass
    except Exception as e:  # a mutant may break the exporter outright
        where = traceback.extract_tb(e.__traceback__)[-1]
        checks.failures.append(('runs', '{}: {} ({}:{})'.format(
            type(e).__name__, e, os.path.basename(where.filename), where.lineno)))
    finally:
        WRITES.folder = None
    return checks.failures, figures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cookgraph', required=True, help='the cookgraph binary')
    parser.add_argument('--work', required=True, help='a folder for the snapshots')
    parser.add_argument('--mutants', action='store_true',
                        help='check that each deliberate mistake fails the checks')
    args = parser.parse_args(argv)
    with open(EXPORTER, encoding='utf-8') as f:
        source = f.read()

    if not args.mutants:
        failures, figures = run_checks(source, args.cookgraph, os.path.join(args.work, 'exporter'))
        for name, message in failures:
            print('FAIL [{}] {}'.format(name, message))
        if figures:
            print('cost on {ops} OPs, {cooked_per_frame} cooking per frame: {sampled_mean_ms:.3f} '
                  'ms mean / {sampled_max_ms:.3f} ms max a sampled frame; network read in '
                  '{arming_frames} frames, at most {arming_max_ms:.3f} ms each (charged {} us a '
                  'read)'.format(td.READ_US, **figures))
        if failures:
            print('{} checks failed'.format(len(failures)))
            return 1
        print('touchdesigner exporter: {} frames of {} nodes, {} edges, series frame by frame, '
              'loops, outputs, parameters, frame times, install and cost: ok'.format(
                  FRAMES, len(network.NODES), len(network.EDGES)))
        return 0

    survivors = 0
    for name, edits in MUTANTS:
        mutant = source
        stale = [old for old, _ in edits if source.count(old) != 1]
        if stale:
            print('STALE mutant "{}": {!r} is not in the exporter exactly once; update '
                  'MUTANTS in {}'.format(name, stale[0][:80], os.path.basename(__file__)))
            survivors += 1
            continue
        for old, new in edits:
            mutant = mutant.replace(old, new)
        failures, _ = run_checks(mutant, args.cookgraph, os.path.join(args.work, 'mutant'),
                                 cost=name in COST_MUTANTS, fail_fast=True)
        caught = sorted({check for check, _ in failures})
        if caught:
            print('caught  {:<62} by {}'.format(name, ', '.join(caught)))
        else:
            print('MISSED  {}'.format(name))
            survivors += 1
    if survivors:
        print('{} of {} mutants were not caught'.format(survivors, len(MUTANTS)))
        return 1
    print('all {} mutants caught'.format(len(MUTANTS)))
    return 0


# Mutants about cost run the 5,000-OP show too; the others skip it (it is slow).
COST_MUTANTS = ('reads every OP, cooked or not', 'reads the whole network in its first frame')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
