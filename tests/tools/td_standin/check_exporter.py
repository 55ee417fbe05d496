#!/usr/bin/env python3
"""Tests examples/touchdesigner/cookgraph_export.py against the td stand-in.

    check_exporter.py --cookgraph BIN --work DIR            the test
    check_exporter.py --cookgraph BIN --work DIR --mutants  the test's own test

The exporter runs as TouchDesigner would run it: as the module of an Execute
DAT inside /project1 of the planted network (network.py), called by the frame
loop (frame_loop.py) at frame start and frame end. The DAT is switched on after
a few frames; the exporter reads the network at the next frame end, samples
FRAMES frames, writes the snapshot, and switches the DAT off.

The snapshot must validate against schema/snapshot-v1.schema.json
(tests/tools/validate_schema.py), and what `cookgraph score` and `cookgraph
graph` say about it must match what this script computes from the stand-in's
own schedule: for every node cooked_frames, avg_ms, cooks_per_frame,
gpu_avg_ms, cpu_mem_mb, gpu_mem_mb and dead; the measured frame times; the
sampled frame numbers; every edge with its kind; the feedback loop and the
self-loop; outputs, parameters and types. Nothing may have been cooked or
evaluated for the exporter (td.violations). More captures, re-armed with
start(), check a relative .json.gz output, a capture switched off and on in
the middle (it must start over), and the default output path.

--mutants runs the same checks on copies of the exporter with one deliberate
mistake each (ignoring cookAbsFrame, forcing a cook, ...) and fails unless
every copy fails the checks: each check can fail.
"""

import argparse
import contextlib
import glob
import gzip
import io
import json
import math
import os
import shutil
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, HERE)

import frame_loop  # noqa: E402
import network  # noqa: E402
import td  # noqa: E402

EXPORTER = os.path.join(ROOT, 'examples', 'touchdesigner', 'cookgraph_export.py')
SCHEMA = os.path.join(ROOT, 'schema', 'snapshot-v1.schema.json')
VALIDATOR = os.path.join(ROOT, 'tests', 'tools', 'validate_schema.py')

FRAMES = 30  # sampled frames in the main capture
WARMUP = 5  # frames run before the Execute DAT is switched on
DROP_AFTER = (13.0,)  # absTime jumps from 13 to 15: frame 14 is dropped
PROJECT = 'planted_show.toe'
BYTES_PER_MB = 1024.0 * 1024.0

# One deliberate mistake each: (name, text in the exporter, replacement).
MUTANTS = [
    ('ignores cookAbsFrame (keeps stale cook times)',
     'return o.cookAbsFrame == abs_frame', 'return True'),
    ('counts one cook per cooked frame (ignores totalCooks)',
     'cooks = delta if delta > 0 else 1', 'cooks = 1'),
    ('takes the GPU time for the CPU time',
     'cook = _ms(o.cpuCookTime, self.notes)', 'cook = _ms(o.gpuCookTime, self.notes)'),
    ('takes the CPU time for the GPU time',
     "gpu = _ms(getattr(o, 'gpuCookTime', 0.0), self.notes)",
     'gpu = _ms(o.cpuCookTime, self.notes)'),
    ('stops on an OP deleted while sampling', "if getattr(o, 'valid', True):", 'if True:'),
    ('keeps quiet about cooks after a frame end', "self.notes.count('late_cooks', delta)",
     'pass'),
    ('forces a cook before reading', 'total = o.totalCooks',
     'o.cook(force=True)\n                    total = o.totalCooks'),
    ('evaluates expressions for their text', 'return str(par.expr)', 'return str(par.eval())'),
    ("uses the callback's timeline frame", 'abs_frame = td.absTime.frame', 'abs_frame = frame'),
    ('writes frame times in seconds', 'frame_ms = (now - _frame_start[1]) * 1000.0',
     'frame_ms = now - _frame_start[1]'),
    ('megabytes of 10^6 bytes', 'BYTES_PER_MB = float(1 << 20)', 'BYTES_PER_MB = 1e6'),
    ('writes the Feedback TOP target as a ref', 'feedback.extend(targets)',
     'refs.extend(targets)'),
    ('drops export references', 'return [source] if source is not None else []', 'return []'),
    ('drops bind references', "target = getattr(master, 'owner', master)", 'target = master'),
    ('keeps default parameters', 'if not par.isDefault:', 'if True:'),
    ('ignores the display flag', "('display', 'render', 'export')", "('render', 'export')"),
    ('keeps the Execute DAT', 'self.exclude.add(this_dat.path)', 'pass'),
    ('writes the wrong fps', "doc['fps'] = _number(self.fps)", "doc['fps'] = 30"),
    ('samples one frame more', 'return len(self.index) >= self.frames_wanted',
     'return len(self.index) > self.frames_wanted'),
    ('writes the family as the type', "'type': op_type(o), 'family'", "'type': str(o.family), 'family'"),
    ('writes the grandparent as the parent', "node['parent'] = parent.path",
     "node['parent'] = (parent.parent() or parent).path"),
    ('stays active after writing', 'me.par.active = False  # switching',
     'pass  # switching'),
    ('does not say where it wrote',
     "print('cookgraph: wrote {} ({})'.format(path, _capture.summary()))", 'pass'),
    ('copies instead of renaming', 'os.replace(tmp, path)',
     "__import__('shutil').copyfile(tmp, path)"),
    ('never compresses', "if path.endswith('.gz'):", 'if False:'),
    ('writes format version 2', "'cookgraph': FORMAT_VERSION,", "'cookgraph': 2,"),
    ('writes a key cookgraph does not know', "'source': [base", "'sources': [base"),
    ('keeps sampling across frames it missed',
     'if _capture is not None and _capture.missed(abs_frame, td.absTime.step):', 'if False:'),
    ('does not check that TARGET exists', 'if target is None:', 'if False:'),
    ('names the default file differently', "'cookgraph_{}_{}_{}.json'", "'capture_{}_{}_{}.json'"),
]


class Checks:
    """Collects failed checks: (check name, message)."""

    def __init__(self):
        self.failures = []

    def ok(self, name, condition, message):
        if not condition:
            self.failures.append((name, message))
        return condition

    def close(self, name, got, want, what):
        if want is None or got is None:
            return self.ok(name, got is None and want is None, '{}: got {}, want {}'.format(
                what, got, want))
        return self.ok(name, math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12),
                       '{}: got {!r}, want {!r}'.format(what, got, want))


# --------------------------------------------------------------------------
# Running the exporter inside the stand-in


def load_exporter(source):
    module = types.ModuleType('cookgraph_export')
    module.__file__ = EXPORTER
    exec(compile(source, EXPORTER, 'exec'), module.__dict__)
    return module


class Session:
    """The planted network, its frame loop and the exporter in its Execute DAT."""

    def __init__(self, source, work):
        self.ops = network.build()
        self.types = {path: (o.OPType, o.family) for path, o in self.ops.items()}
        td.project.name = PROJECT
        td.project.folder = work
        td.project.cookRate = 60.0
        self.clock = frame_loop.FakeClock()
        self.exporter = load_exporter(source)
        self.exporter.clock = self.clock
        self.dat = self.ops[network.EXPORTER_DAT]
        self.dat.module = self.exporter
        self.exporter.me = self.dat  # TouchDesigner's per-DAT global
        self.dat.par.active = False
        self.dat.par.framestart = True
        self.dat.par.frameend = True
        self.loop = frame_loop.FrameLoop(
            [self.ops[k] for k in sorted(self.ops)], network.schedule, network.memory,
            network.overhead_ms, self.clock, drop_after=DROP_AFTER, late=network.late,
            deleted=network.DELETED)

    def capture(self, limit):
        """Runs frames until the exporter switches its DAT off; returns
        (absTime.frame at which the DAT was found on, what it printed)."""
        armed = td.absTime.frame
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            for _ in range(limit):
                if not self.dat.par.active.val:
                    break
                self.loop.run_frame()
        return armed, printed.getvalue()


def sampled_frames(loop_frames, armed, frames):
    """The frames the exporter should sample: those after the one it armed in."""
    return [f for f in loop_frames if f > armed][:frames]


# --------------------------------------------------------------------------
# What the stand-in's schedule says


def expected_stats(ops, frames):
    """Per node id: the statistics docs/architecture.md#node-statistics gives for `frames`."""
    out = {}
    for node in network.NODES:
        cook, gpu, cpu_mem, gpu_mem, cooks = [], [], [], [], 0
        for f in frames:
            done = network.schedule(node, f)
            cooks += len(done)
            if done:
                cook.append(done[-1][0])  # TouchDesigner keeps the last cook's time
                gpu.append(done[-1][1])
                c, g = network.memory(node, f)
                cpu_mem.append(c / BYTES_PER_MB)
                gpu_mem.append(g / BYTES_PER_MB)

        def mean_if_any(values):
            return sum(values) / len(values) if any(values) else None

        out[node] = {
            'cooked_frames': len(cook),
            'avg_ms': sum(cook) / len(cook) if cook else None,
            'cooks_per_frame': cooks / len(frames),
            'gpu_avg_ms': mean_if_any(gpu),
            'cpu_mem_mb': mean_if_any(cpu_mem),
            'gpu_mem_mb': mean_if_any(gpu_mem),
            'dead': node in network.DEAD,
        }
    return out


def expected_frame_ms(ops, frames):
    """Everything the frame loop spends between frame start and frame end."""
    return [sum(cpu for path in ops for cpu, _ in network.schedule(path, f)) +
            network.overhead_ms(f) for f in frames]


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


def check_file(checks, name, path, cookgraph):
    """Schema, score and graph of one written snapshot; returns (doc, score, graph)."""
    if not checks.ok(name, os.path.isfile(path), 'no snapshot at ' + path):
        return None, None, None
    leftovers = glob.glob(os.path.join(os.path.dirname(path), '.cookgraph-*.tmp'))
    checks.ok(name, not leftovers, 'temporary files left behind: {}'.format(leftovers))
    valid = subprocess.run([sys.executable, VALIDATOR, SCHEMA, path], capture_output=True,
                           text=True)
    checks.ok(name + ': schema', valid.returncode == 0,
              'the schema refuses it: ' + (valid.stdout + valid.stderr).strip())
    doc = read_snapshot(path)
    score = json.loads(run_tool([cookgraph, 'score', path, '--format', 'json']))
    graph = json.loads(run_tool([cookgraph, 'graph', path, '--format', 'json']))
    snap = score['snapshots'][0]
    checks.ok(name, not snap.get('warnings'), 'cookgraph warns: {}'.format(snap.get('warnings')))
    return doc, snap, graph


def check_main(checks, session, armed, printed, path, cookgraph):
    frames = sampled_frames(session.loop.frames, armed, FRAMES)
    doc, snap, graph = check_file(checks, 'output', path, cookgraph)
    if doc is None:
        return

    checks.ok('printed', 'cookgraph: wrote ' + path in printed,
              'the exporter did not print where it wrote: {!r}'.format(printed))
    late = sum(len(network.late(node, f)) for node in network.NODES
               for f in session.loop.frames if armed <= f < frames[-1])
    checks.ok('notes', '{} cooks after a frame end'.format(late) in printed,
              'the exporter did not report the {} late cooks: {!r}'.format(late, printed))
    checks.ok('notes', '1 OPs deleted while sampling (first: {})'.format(
        network.p('unused1')) in printed, 'the deleted OP is not reported: {!r}'.format(printed))
    checks.ok('switched off', not session.dat.par.active.val,
              'the Execute DAT is still active after the capture')
    checks.ok('no cooks forced', not td.violations,
              'the exporter made TouchDesigner cook or evaluate: {}'.format(td.violations[:5]))

    # The frames: absTime numbers (with the dropped one missing), the rate.
    index = doc['frames']['index']
    checks.ok('frame index', index == [int(f) for f in frames],
              'frames.index is {}, want {}'.format(index, [int(f) for f in frames]))
    checks.ok('frame index', 14 not in index and 13 in index and 15 in index,
              'the dropped frame 14 is not the gap in {}'.format(index))
    checks.ok('fps', doc.get('fps') == 60, 'fps is {}'.format(doc.get('fps')))
    checks.close('fps', snap['frame_budget_ms'], 1000.0 / 60.0, 'frame_budget_ms')
    checks.ok('frames', snap['frames'] == FRAMES, 'score saw {} frames'.format(snap['frames']))

    want_ms = expected_frame_ms(session.ops, frames)
    got_ms = doc['frames'].get('frame_ms')
    checks.ok('frame_ms', got_ms is not None and len(got_ms) == len(want_ms),
              'frames.frame_ms missing or of the wrong length')
    if got_ms is not None and len(got_ms) == len(want_ms):
        for f, got, want in zip(frames, got_ms, want_ms):
            if not checks.close('frame_ms', got, want, 'frame_ms of frame {}'.format(int(f))):
                break
    checks.ok('frame_ms', snap['frame_ms']['measured'] is True, 'frame times not measured')
    checks.close('frame_ms', snap['frame_ms']['mean'], sum(want_ms) / len(want_ms),
                 'mean frame time')
    checks.close('frame_ms', snap['frame_ms']['max'], max(want_ms), 'max frame time')

    # Per node statistics, from the schedule.
    nodes = {n['id']: n for n in snap['nodes']}
    checks.ok('nodes', sorted(nodes) == network.NODES,
              'nodes differ: extra {}, missing {}'.format(
                  sorted(set(nodes) - set(network.NODES)),
                  sorted(set(network.NODES) - set(nodes))))
    want = expected_stats(session.ops, frames)
    for node_id, stats in want.items():
        got = nodes.get(node_id)
        if got is None:
            continue
        checks.ok('cooked_frames', got['cooked_frames'] == stats['cooked_frames'],
                  '{} cooked_frames {}, want {}'.format(node_id, got['cooked_frames'],
                                                         stats['cooked_frames']))
        for key in ('avg_ms', 'cooks_per_frame', 'gpu_avg_ms', 'cpu_mem_mb', 'gpu_mem_mb'):
            checks.close(key, got.get(key), stats[key], '{} {}'.format(node_id, key))
        checks.ok('dead', got['dead'] == stats['dead'],
                  '{} dead is {}, want {}'.format(node_id, got['dead'], stats['dead']))

    # Structure: edges with their kinds, loops, outputs, parameters, types.
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
    armed, printed = session.capture(20)
    path = os.path.join(work, 'captures', 'rearmed.json.gz')
    doc, snap, _ = check_file(checks, 'rearmed .json.gz', path, cookgraph)
    if doc is not None:
        with open(path, 'rb') as f:
            checks.ok('rearmed .json.gz', f.read(2) == b'\x1f\x8b', 'not gzip-compressed')
        want = [int(f) for f in sampled_frames(session.loop.frames, armed, 6)]
        checks.ok('rearmed .json.gz', doc['frames']['index'] == want,
                  'index {}, want {}'.format(doc['frames']['index'], want))

    # Switched off in the middle of a capture, then on again: the exporter
    # starts over rather than fold the unsampled frames' cooks into a sample.
    session.exporter.start(output=os.path.join('captures', 'paused.json'), frames=5)
    session.loop.run(3)  # reads the network, samples two frames
    session.dat.par.active = False
    session.loop.run(3)
    session.dat.par.active = True
    armed, printed = session.capture(20)
    doc, _, _ = check_file(checks, 'paused', os.path.join(work, 'captures', 'paused.json'),
                           cookgraph)
    if doc is not None:
        want = [int(f) for f in sampled_frames(session.loop.frames, armed, 5)]
        checks.ok('paused', doc['frames']['index'] == want and 'starting the capture over'
                  in printed, 'index {}, want {} after starting over; printed {!r}'.format(
                      doc['frames']['index'], want, printed))

    # A TARGET that does not exist: one clear message, the DAT off, no file.
    session.exporter.start(target='/project1/nothing', output='nothing.json', frames=3)
    armed, printed = session.capture(5)
    checks.ok('bad target', printed.strip() == "cookgraph: TARGET '/project1/nothing' is not an "
              'operator (set TARGET at the top of the exporter, or pass it to start())' and
              not session.dat.par.active.val and not os.path.exists(
                  os.path.join(work, 'nothing.json')), 'printed {!r}'.format(printed))

    session.exporter.start(target=network.TARGET, output='', frames=3)
    armed, printed = session.capture(10)
    found = glob.glob(os.path.join(work, 'cookgraph_planted_show_project1_*Z.json'))
    if checks.ok('default path', len(found) == 1,
                 'want one cookgraph_planted_show_project1_<time>.json in {}, found {}'.format(
                     work, found)):
        doc, snap, _ = check_file(checks, 'default path', found[0], cookgraph)
        if doc is not None:
            checks.ok('default path', doc.get('name') == 'planted_show /project1',
                      'name is {!r}'.format(doc.get('name')))
            checks.ok('default path', doc.get('source', [None])[0] == PROJECT,
                      'source is {!r}'.format(doc.get('source')))


def run_checks(source, cookgraph, work):
    """All checks on one exporter source; returns the failures."""
    shutil.rmtree(work, ignore_errors=True)  # a folder of this script's own
    os.makedirs(work)
    checks = Checks()
    path = os.path.join(work, 'planted.json')
    try:
        session = Session(source, work)
        session.exporter.TARGET = network.TARGET
        session.exporter.FRAMES = FRAMES
        session.exporter.OUTPUT = path
        session.loop.run(WARMUP)
        session.dat.par.active = True
        armed, printed = session.capture(FRAMES + 10)
        check_main(checks, session, armed, printed, path, cookgraph)
        check_rearmed(checks, session, cookgraph, work)
    except Exception as e:  # a mutant may break the exporter outright
        checks.failures.append(('runs', '{}: {}'.format(type(e).__name__, e)))
    return checks.failures


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
        failures = run_checks(source, args.cookgraph, os.path.join(args.work, 'exporter'))
        for name, message in failures:
            print('FAIL [{}] {}'.format(name, message))
        if failures:
            print('{} checks failed'.format(len(failures)))
            return 1
        print('touchdesigner exporter: {} frames of {} nodes, {} edges, loops, outputs, '
              'parameters and frame times match the stand-in: ok'.format(
                  FRAMES, len(network.NODES), len(network.EDGES)))
        return 0

    survivors = 0
    for name, old, new in MUTANTS:
        if source.count(old) != 1:
            print('STALE mutant "{}": {!r} is not in the exporter exactly once; update '
                  'MUTANTS in {}'.format(name, old, os.path.basename(__file__)))
            survivors += 1
            continue
        failures = run_checks(source.replace(old, new), args.cookgraph,
                              os.path.join(args.work, 'mutant'))
        caught = sorted({check for check, _ in failures})
        if caught:
            print('caught  {:<55} by {}'.format(name, ', '.join(caught)))
        else:
            print('MISSED  {}'.format(name))
            survivors += 1
    if survivors:
        print('{} of {} mutants were not caught'.format(survivors, len(MUTANTS)))
        return 1
    print('all {} mutants caught'.format(len(MUTANTS)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
