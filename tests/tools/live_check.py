#!/usr/bin/env python3
"""End-to-end check of `cookgraph watch` against tests/tools/live_send.cc.

    live_check.py --cookgraph BIN --sender BIN --work DIR --form json|osc
                  --frames N --rate FPS --window W [--spike F:NODE:MS] [--skip F]...
                  [--garbage F]... [--split K] [--interrupt]

Starts `cookgraph watch --listen udp://127.0.0.1:0` (the port it reports on
standard error), streams N frames with live_send, and checks:

  * every frame arrived: watch's count equals the frames sent, its gaps and lost
    frames are exactly the --skip'ped ones, the kernel dropped nothing, the
    malformed count is the number of --garbage datagrams;
  * the rolling statistics of watch's final JSON (the last W frames) equal, for
    every node and within 1e-9 relative, the statistics computed here from the
    sender's log of what it sent (mean, population std, score, NumPy-linear
    p50/p95/p99, max, per-frame cost, cooks per frame, GPU mean);
  * when W covers every frame, they also equal `cookgraph score RECORD --format
    json` on the snapshot watch recorded (--record), field by field;
  * with --spike, exactly one node alert (that node, that frame) and one budget
    alert (that frame), each printed once on standard error; without, none;
  * with --interrupt INT|TERM, watch runs without --frames and is stopped by that signal after
    the sender is done: it still prints its result and writes the record.
"""

import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import time

NODE_MS = 5.0  # node alert threshold: the sender's normal cooks stay under 1.5 ms
BUDGET_MS = 20.0  # frame budget: normal frames sum to under 9 ms, a 40 ms spike is over
FIELDS = ['cooked_frames', 'avg_ms', 'std_ms', 'score', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms',
          'per_frame_ms', 'cooks_per_frame', 'gpu_avg_ms']


def fail(message):
    print('live_check: FAIL: ' + message, file=sys.stderr)
    sys.exit(1)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def percentile(sorted_values, q):
    # NumPy's default (linear interpolation between closest ranks).
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def expected_stats(frames):
    """Per node id, the statistics of docs/architecture.md#node-statistics over `frames` (parsed log lines)."""
    count = len(frames)
    cooked, gpu, cooks = {}, {}, {}
    for f in frames:
        for node_id, v in f['nodes'].items():
            cooked.setdefault(node_id, []).append(v['cook_ms'])
            if 'gpu_ms' in v:
                gpu.setdefault(node_id, []).append(v['gpu_ms'])
            cooks[node_id] = cooks.get(node_id, 0) + v.get('cooks', 1)
    out = {}
    for node_id, values in cooked.items():
        n = len(values)
        mean = math.fsum(values) / n
        std = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / n)
        s = sorted(values)
        out[node_id] = {
            'cooked_frames': n, 'avg_ms': mean, 'std_ms': std, 'score': mean * (1 + std),
            'p50_ms': percentile(s, 50), 'p95_ms': percentile(s, 95), 'p99_ms': percentile(s, 99),
            'max_ms': s[-1], 'per_frame_ms': math.fsum(values) / count,
            'cooks_per_frame': cooks[node_id] / count,
            'gpu_avg_ms': math.fsum(gpu[node_id]) / len(gpu[node_id]) if node_id in gpu else None,
        }
    return out


def compare(label, want, got_nodes, tolerance_fields=FIELDS):
    got = {n['id']: n for n in got_nodes if n['rank'] is not None}
    if set(got) != set(want):
        fail('{}: nodes differ: only expected {}, only got {}'.format(
            label, sorted(set(want) - set(got)), sorted(set(got) - set(want))))
    compared = 0
    for node_id, w in want.items():
        for field in tolerance_fields:
            if not close(w[field], got[node_id][field]):
                fail('{}: {} {}: expected {!r}, got {!r}'.format(label, node_id, field, w[field],
                                                                got[node_id][field]))
            compared += 1
    return compared


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--cookgraph', required=True)
    p.add_argument('--sender', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--form', choices=['json', 'osc'], required=True)
    p.add_argument('--frames', type=int, required=True)
    p.add_argument('--rate', type=float, default=600)
    p.add_argument('--window', type=int, required=True)
    p.add_argument('--spike')
    p.add_argument('--skip', action='append', default=[])
    p.add_argument('--garbage', action='append', default=[])
    p.add_argument('--split', type=int, default=0)
    p.add_argument('--interrupt', choices=['INT', 'TERM'],
                   help='stop watch with this signal after the sender is done')
    a = p.parse_args()
    a.cookgraph, a.sender = os.path.abspath(a.cookgraph), os.path.abspath(a.sender)

    name = '{}_{}_{}'.format(a.form, a.frames, 'spike' if a.spike else 'plain')
    work = os.path.join(a.work, name + ('_int' if a.interrupt else ''))
    os.makedirs(work, exist_ok=True)
    record = os.path.join(work, 'record.json')
    log = os.path.join(work, 'sent.jsonl')
    for path in (record, log):
        if os.path.exists(path):
            os.remove(path)
    first = 1000
    sent_frames = a.frames - len(a.skip)

    cmd = [a.cookgraph, 'watch', '--listen', 'udp://127.0.0.1:0', '--window', str(a.window),
           '--node-ms', str(NODE_MS), '--budget-ms', str(BUDGET_MS), '--record', record,
           '--format', 'json', '--duration', '120']
    if not a.interrupt:
        cmd += ['--frames', str(sent_frames)]
    env = dict(os.environ, NO_COLOR='1')
    watch = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             cwd=work)
    first_line = watch.stderr.readline().decode()
    m = re.search(r'listening on udp://127\.0\.0\.1:(\d+) ', first_line)
    if not m:
        watch.kill()
        fail('watch did not say where it listens: ' + first_line)
    port = m.group(1)

    send = [a.sender, '--to', '127.0.0.1:' + port, '--form', a.form, '--frames', str(a.frames),
            '--rate', str(a.rate), '--first', str(first), '--log', log, '--seed', '11']
    if a.spike:
        send += ['--spike', a.spike]
    for f in a.skip:
        send += ['--skip', f]
    for f in a.garbage:
        send += ['--garbage', f]
    if a.split:
        send += ['--split', str(a.split)]
    sender = subprocess.run(send, capture_output=True, text=True, timeout=120)
    if sender.returncode != 0:
        watch.kill()
        fail('live_send failed: ' + sender.stderr)
    print(sender.stderr.strip())
    if a.interrupt:
        time.sleep(0.5)
        watch.send_signal(signal.SIGINT if a.interrupt == 'INT' else signal.SIGTERM)
    out, err = watch.communicate(timeout=150)
    err = first_line + err.decode()
    print(err.strip())
    want_code = 2 if a.garbage else 0
    if watch.returncode != want_code:
        fail('watch exited {} (expected {}):\n{}'.format(watch.returncode, want_code, err))
    said = 'interrupted' if a.interrupt == 'INT' else 'terminated'
    if a.interrupt and 'cookgraph: {}: stopping'.format(said) not in err:
        fail('no word of the interruption on standard error')
    doc = json.loads(out)
    w = doc['watch']
    print('live_check: watch counted {} frames, {} gaps, {} lost, {} late, {} malformed, {} '
          'dropped by the kernel, {} datagrams in {:.2f} s'.format(
              w['frames'], w['gaps'], w['lost_frames'], w['late'], w['malformed'],
              w['kernel_drops'], w['datagrams'], w['seconds']))
    skipped = sorted(int(f) for f in a.skip)
    gaps = len(skipped)  # the tests skip frames that are not next to each other
    checks = [('frames', sent_frames), ('gaps', gaps), ('lost_frames', len(skipped)),
              ('late', 0), ('incomplete', 0), ('kernel_drops', 0), ('truncated', 0),
              ('malformed', len(a.garbage)), ('first_frame', first),
              ('last_frame', first + a.frames - 1)]
    for key, value in checks:
        if w[key] != value:
            fail('watch says {} = {}, expected {}'.format(key, w[key], value))

    # What was sent, from the sender's log; the window is its last W frames.
    sent = [json.loads(line) for line in open(log, encoding='utf-8')]
    if len(sent) != sent_frames:
        fail('the sender logged {} frames, expected {}'.format(len(sent), sent_frames))
    window = sent[-a.window:]
    snap = doc['snapshots'][0]
    if snap['frames'] != len(window):
        fail('the window holds {} frames, expected {}'.format(snap['frames'], len(window)))
    n = compare('watch vs sent', expected_stats(window), snap['nodes'])
    print('live_check: {} statistics of {} nodes over the last {} frames equal those of the '
          'frames sent'.format(n, len(expected_stats(window)), len(window)))

    # The record is a valid snapshot (schema/snapshot-v1.schema.json) ...
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    valid = subprocess.run([sys.executable, os.path.join(root, 'tests', 'tools', 'validate_schema.py'),
                            os.path.join(root, 'schema', 'snapshot-v1.schema.json'), record],
                           capture_output=True, text=True)
    if valid.returncode != 0:
        fail('the record does not validate: ' + valid.stdout + valid.stderr)
    order = [n['id'] for n in json.load(open(record, encoding='utf-8'))['nodes']]
    first_seen = []
    for f in sent:
        first_seen += [k for k in f['nodes'] if k not in first_seen]
    if order != first_seen:
        fail('the record\'s nodes are not in the order first sent: {}'.format(order[:4]))
    # ... holding every frame; scored, it must give watch's numbers when
    # the window held every frame too.
    scored = subprocess.run([a.cookgraph, 'score', record, '--format', 'json'],
                            capture_output=True, text=True)
    if scored.returncode != 0:
        fail('cookgraph score on the record failed: ' + scored.stderr)
    rec = json.loads(scored.stdout)['snapshots'][0]
    if rec['frames'] != sent_frames:
        fail('the record holds {} frames, expected {}'.format(rec['frames'], sent_frames))
    n = compare('record vs sent', expected_stats(sent), rec['nodes'])
    print('live_check: the record holds all {} frames; scored, its {} statistics equal those of '
          'the frames sent'.format(sent_frames, n))
    if a.window >= sent_frames:
        got = {x['id']: x for x in snap['nodes']}
        for node in rec['nodes']:
            for field in FIELDS + ['rank', 'share', 'upstream_ms']:
                if not close(node[field], got[node['id']][field]):
                    fail('watch vs score RECORD: {} {}: {!r} vs {!r}'.format(
                        node['id'], field, got[node['id']][field], node[field]))
        for key in ('frames', 'over_budget_frames', 'frame_ms'):
            if rec[key] != snap[key]:
                fail('watch vs score RECORD: {}: {!r} vs {!r}'.format(key, snap[key], rec[key]))
        print('live_check: watch\'s final statistics equal `cookgraph score RECORD` for all {} '
              'nodes'.format(len(rec['nodes'])))

    alerts = w['alerts']
    alert_lines = [line for line in err.splitlines() if line.startswith('cookgraph: alert: ')]
    if a.spike:
        frame, node, ms = a.spike.split(':')
        node_id = '/project1/op_{:03d}'.format(int(node))
        want = [('node', node_id, int(frame)), ('budget', None, int(frame))]
        got = [(x['kind'], x['node'], x['first_frame']) for x in alerts]
        if sorted(got, key=str) != sorted(want, key=str):
            fail('alerts: expected {}, got {}'.format(want, got))
        if len(alert_lines) != 2 or not any(node_id in line for line in alert_lines):
            fail('expected two alert lines (the node and the budget), got {}'.format(alert_lines))
        print('live_check: the planted spike raised one node alert and one budget alert:')
        for line in alert_lines:
            print('  ' + line)
    elif alerts or alert_lines:
        fail('alerts without a spike: {} {}'.format(alerts, alert_lines))
    else:
        print('live_check: no alert without a spike')
    print('live_check: ok')


if __name__ == '__main__':
    main()
