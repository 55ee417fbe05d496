#!/usr/bin/env python3
"""Tests the exporter's live mode (LIVE = 'udp://...') against `cookgraph watch`.

    check_live.py --cookgraph BIN --work DIR

The exporter runs in its Execute DAT inside the stand-in td module (as in
check_exporter.py) and streams every frame to a real `cookgraph watch` over
loopback, in both wire forms (JSON lines and OSC bundles) and with frames
small enough for one datagram or split into parts (MAX_DATAGRAM = 300). What
watch reports must match what the stand-in's own schedule implies: for every
OP that cooked, cooked_frames, avg_ms, cooks_per_frame and gpu_avg_ms; the
measured frame times; the frame numbers, with the frame TouchDesigner dropped
(absTime 13 -> 15) counted as one gap. OSC carries 32-bit floats, so its
times are compared within 1e-6 relative; JSON's within 1e-9. Nothing may
have been cooked or evaluated for the exporter.
"""

import argparse
import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_exporter  # noqa: E402
import network  # noqa: E402
import td  # noqa: E402

FRAMES = 40  # frames streamed after the one in which the exporter reads the network


def run(form, max_datagram, cookgraph, work, source, table=False):
    """One stream to a real watch; with table, switched on from the settings
    table beside the Execute DAT rather than the script's settings."""
    failures = []
    record = os.path.join(work, 'live_{}_{}.json'.format(form, max_datagram))
    watch = subprocess.Popen(
        [cookgraph, 'watch', '--listen', 'udp://127.0.0.1:0', '--frames', str(FRAMES),
         '--format', 'json', '--record', record, '--duration', '60', '--budget-ms', '1000'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, NO_COLOR='1'))
    line = watch.stderr.readline().decode()
    m = re.search(r'listening on (udp://127\.0\.0\.1:\d+) ', line)
    if not m:
        watch.kill()
        return ['watch did not say where it listens: ' + line]
    td.violations.clear()
    session = check_exporter.Session(source, work)
    exporter = session.exporter
    exporter.TARGET = network.TARGET
    exporter.MAX_DATAGRAM = max_datagram
    if table:
        settings = td.tableDAT(td.op(network.TARGET), 'cookgraph_settings')
        settings.text = 'setting\tvalue\nlive\t{}\nlive_form\t{}\n'.format(m.group(1), form)
        session.loop.ops.append(settings)
    else:
        exporter.LIVE = m.group(1)
        exporter.LIVE_FORM = form
    session.loop.run(check_exporter.WARMUP)
    session.dat.par.active = True
    armed = td.absTime.frame
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        session.loop.run(FRAMES + 2)  # a frame to read the network, one to read the last
    out, err = watch.communicate(timeout=90)
    if watch.returncode != 0:
        return ['watch exited {}: {}'.format(watch.returncode, err.decode())]
    doc = json.loads(out)
    w = doc['watch']
    snap = doc['snapshots'][0]
    frames = check_exporter.sampled_frames(session.loop.frames, armed, FRAMES, printed.getvalue())
    tol = 1e-6 if form == 'osc' else 1e-9

    def ok(condition, message):
        if not condition:
            failures.append(message)

    def close(got, want, what):
        if got is None or want is None:
            ok(got is None and want is None, '{}: got {}, want {}'.format(what, got, want))
        else:
            ok(math.isclose(got, want, rel_tol=tol, abs_tol=1e-12),
               '{}: got {!r}, want {!r}'.format(what, got, want))

    ok('streaming' in printed.getvalue(), 'the exporter did not say it streams: ' +
       printed.getvalue())
    ok(w['frames'] == FRAMES, 'watch got {} frames, want {}'.format(w['frames'], FRAMES))
    ok(w['first_frame'] == int(frames[0]) and w['last_frame'] == int(frames[-1]),
       'frames {}-{}, want {}-{}'.format(w['first_frame'], w['last_frame'], frames[0], frames[-1]))
    dropped = sum(1 for a, b in zip(frames, frames[1:]) if b != a + 1)
    ok(dropped == 1 and w['gaps'] == dropped and w['lost_frames'] == dropped,
       'gaps {} / lost {}, want the {} frame TouchDesigner dropped'.format(
           w['gaps'], w['lost_frames'], dropped))
    for key in ('malformed', 'late', 'incomplete', 'kernel_drops'):
        ok(w[key] == 0, '{} = {}'.format(key, w[key]))
    families = {path: fam for path, (_, fam) in session.types.items()}
    want = check_exporter.expected_stats(
        check_exporter.expected_series(frames, families, network.NODES), len(frames))
    got = {n['id']: n for n in snap['nodes']}
    cooked = {k: v for k, v in want.items() if v['cooked_frames'] > 0}
    ok(set(got) == set(cooked), 'nodes: only expected {}, only got {}'.format(
        sorted(set(cooked) - set(got)), sorted(set(got) - set(cooked))))
    for node_id, v in cooked.items():
        if node_id not in got:
            continue
        g = got[node_id]
        ok(g['cooked_frames'] == v['cooked_frames'], '{} cooked_frames {} want {}'.format(
            node_id, g['cooked_frames'], v['cooked_frames']))
        close(g['avg_ms'], v['avg_ms'], node_id + ' avg_ms')
        close(g['cooks_per_frame'], v['cooks_per_frame'], node_id + ' cooks_per_frame')
        close(g['gpu_avg_ms'], v['gpu_avg_ms'], node_id + ' gpu_avg_ms')
    want_frame_ms = check_exporter.expected_frame_ms(network, session.ops, frames)
    close(snap['frame_ms']['mean'], sum(want_frame_ms) / len(want_frame_ms), 'frame_ms mean')
    close(snap['frame_ms']['max'], max(want_frame_ms), 'frame_ms max')
    ok(snap['frame_ms']['measured'], 'frame times not measured')
    ok(not td.violations, 'the exporter made TouchDesigner cook or evaluate: {}'.format(
        td.violations[:5]))
    datagrams = w['datagrams']
    if max_datagram < 1000:
        ok(datagrams > FRAMES, 'MAX_DATAGRAM {} sent {} datagrams for {} frames: no parts'.format(
            max_datagram, datagrams, FRAMES))
    scored = subprocess.run([cookgraph, 'score', record, '--format', 'json'], capture_output=True,
                            text=True)
    ok(scored.returncode == 0, 'score on the record failed: ' + scored.stderr)
    print('live {} (MAX_DATAGRAM {}{}): {} frames in {} datagrams, {} OPs, {} gap: {}'.format(
        form, max_datagram, ', from the settings table' if table else '', w['frames'],
        datagrams, len(got), w['gaps'],
        'ok' if not failures else 'FAILED'))
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cookgraph', required=True)
    parser.add_argument('--work', required=True)
    args = parser.parse_args(argv)
    with open(check_exporter.EXPORTER, encoding='utf-8') as f:
        source = f.read()
    failures = []
    for form in ('json', 'osc'):
        for max_datagram in (8192, 300):
            work = os.path.join(args.work, 'live_{}_{}'.format(form, max_datagram))
            os.makedirs(work, exist_ok=True)
            failures += run(form, max_datagram, args.cookgraph, work, source,
                            table=(form, max_datagram) == ('osc', 8192))
    # start() after start_live() captures again: the stream ends.
    session = check_exporter.Session(source, os.path.join(args.work, 'live_json_8192'))
    session.exporter.start_live(network.TARGET, 'udp://127.0.0.1:9', 'osc')
    if session.exporter._overrides.get('live') != 'udp://127.0.0.1:9' or \
            not session.dat.par.active.val:
        failures.append('start_live() did not arm a stream')
    session.exporter.start(network.TARGET, 5, 'after_live.json')
    if session.exporter._overrides.get('live') != '':
        failures.append('start() after start_live() still streams')
    for message in failures:
        print('FAIL ' + message)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
