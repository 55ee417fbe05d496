"""cookgraph exporter for TouchDesigner: samples a COMP's cooks, writes a snapshot.

Runs inside TouchDesigner as the text of an Execute DAT (README.md beside this
file says how to install it). With the DAT active and its Frame End toggle on
(Frame Start too, for measured frame times), it:

  1. at the first frame end, reads the network under TARGET once: every OP,
     its wires, parameter references, exports, binds, Feedback TOP targets,
     non-default parameters and output flags, and the cook counters;
  2. at each of the next FRAMES frame ends, reads every OP's cook information
     for that frame, without forcing any cook;
  3. writes a cookgraph native snapshot (format version 1: JSON, or gzip'd
     JSON when OUTPUT ends in .gz) atomically, prints where, and switches the
     DAT's Active parameter off. Switching it on again takes a new capture.

From the textport, `op('cookgraph_export').module.start('/project1', 600)`
re-arms a capture with other settings (and switches the DAT on).

Live mode: with LIVE = 'udp://HOST:PORT' (or start_live('/project1',
'udp://127.0.0.1:9000') from the textport) it writes no file; from the
second frame end on it sends every frame to `cookgraph watch --listen
udp://HOST:PORT` over UDP, until the DAT is switched off: the frame number
(absTime.frame), frame_ms, and for each OP that cooked in that frame its
cook_ms, gpu_ms and cooks, measured exactly as a capture measures them. The
wire form is LIVE_FORM: 'json' (one JSON object per datagram) or 'osc' (one
OSC bundle per frame: /cookgraph/frame, then /cookgraph/cook per OP). A frame
bigger than MAX_DATAGRAM bytes goes in several datagrams, all but the last
marked "more". A frame TouchDesigner drops (absTime jumps by 2) shows in
`cookgraph watch` as a gap, like a lost datagram.

Pure Python standard library plus TouchDesigner's td module.

What is measured, per OP and sampled frame f (f = absTime.frame at frame end):

  cook_ms     OP.cpuCookTime, only when OP.cookAbsFrame == f. TouchDesigner
              keeps the last cook's time on the OP, so in any other frame the
              value is stale and the sample is null ("did not cook"). When an
              OP cooks more than once in a frame, cpuCookTime is the last of
              those cooks: TouchDesigner keeps no sum.
  gpu_ms      OP.gpuCookTime, same rule.
  cpu_mem_mb  OP.cpuMemory / 2**20, read in the frames the OP cooked.
  gpu_mem_mb  OP.gpuMemory / 2**20, same.
  cooks       OP.totalCooks now minus at the previous frame end, in the frames
              where cookAbsFrame == f (0 in the others).
  frame_ms    time.perf_counter() from this DAT's onFrameStart to its
              onFrameEnd in the same frame: the part of the frame in which
              TouchDesigner cooked (the whole project, not only TARGET),
              without the wait for the next frame and without this script's
              own sampling, which runs after the clock is read. Null when
              Frame Start is off.

fps and frame_budget_ms come from project.cookRate.

Reading that never forces a cook (all this script reads): the OP members
cookAbsFrame, cpuCookTime, gpuCookTime, totalCooks, cpuMemory, gpuMemory,
valid, path, family, opType/OPType, inputs, parent(), op() (a path look-up),
the flags display/render/export and pars(); the Par members name, owner,
mode, val, expr, bindExpr, bindMaster, exportOP, isDefault, isOP, isToggle,
isPulse, isMomentary; absTime.frame and .step; project.name, .folder and
.cookRate.
Reading that can cook, never used here: OP.cook(), Par.eval() /
evalExpression() / evalOPs() on an expression, export or bind (it runs the
expression, which cooks the CHOPs and DATs it reads), CHOP channels
(op['chan'], chans(), numSamples, numpyArray()), TOP width/height/numpyArray(),
DAT text/rows/cells, SOP points, OP.errors()/warnings().
"""

import datetime
import gzip
import json
import math
import os
import re
import socket
import struct
import tempfile
import time
import traceback

import td

# --------------------------------------------------------------------------
# Settings: edit here, or pass them to start() from the textport.

TARGET = '/project1'  # the COMP whose OPs are sampled (not the COMP itself)
FRAMES = 300  # sampled frames, after the one frame that reads the network
OUTPUT = ''  # file to write; '' = <project folder>/cookgraph_<project>_<UTC time>.json
EXTRA_OUTPUTS = ()  # paths of OPs to mark as outputs (e.g. read by a Window COMP elsewhere)
EXCLUDE = ()  # paths of OPs to leave out (this DAT is always left out)
LIVE = ''  # 'udp://HOST:PORT': stream every frame to `cookgraph watch` instead of capturing
LIVE_FORM = 'json'  # 'json' (JSON lines) or 'osc' (OSC bundles)
MAX_DATAGRAM = 8192  # bytes; a bigger frame is sent in parts

# --------------------------------------------------------------------------

FORMAT_VERSION = 1
BYTES_PER_MB = float(1 << 20)  # the project's MB: mebibytes, as in examples/generate.py

# Seconds, monotonic. A module attribute so a test can give it a fake clock.
clock = time.perf_counter

_capture = None  # the Capture under way, or None
_live = None  # the Live stream under way, or None
_idle = False  # True after a capture ended or failed, until start() or reload
_frame_start = None  # (absTime.frame, clock()) taken by onFrameStart


# --------------------------------------------------------------------------
# Execute DAT callbacks. TouchDesigner calls them with `frame`, the DAT's own
# timeline frame, which loops and stops with the timeline; absTime.frame is
# the frame counter cookAbsFrame is measured in, so that is what is used.


def onFrameStart(frame):
    global _frame_start
    _frame_start = (td.absTime.frame, clock())


def onFrameEnd(frame):
    global _capture, _idle
    now = clock()  # first: nothing of this script's work is in frame_ms
    if _idle:
        return
    abs_frame = td.absTime.frame
    frame_ms = None
    if _frame_start is not None and _frame_start[0] == abs_frame:
        frame_ms = (now - _frame_start[1]) * 1000.0
    try:
        if LIVE:
            _live_frame_end(abs_frame, frame_ms)
            return
        if _capture is not None and _capture.missed(abs_frame, td.absTime.step):
            # The DAT was off for a while: the cook counters moved in frames
            # nobody sampled, so the deltas would be wrong. Start over.
            print('cookgraph: frames went by unsampled (was the DAT switched off?); '
                  'starting the capture over')
            _capture = None
        if _capture is None:
            _capture = Capture(TARGET, FRAMES, OUTPUT, EXTRA_OUTPUTS, EXCLUDE, _this_dat())
            _capture.arm(abs_frame)
            return
        _capture.sample(abs_frame, frame_ms)
        if _capture.complete():
            path = _capture.write()
            print('cookgraph: wrote {} ({})'.format(path, _capture.summary()))
            _stop()
    except CaptureError as e:
        print('cookgraph: ' + str(e))
        _stop()
    except Exception:  # one message, not one per frame
        print('cookgraph: the capture stopped on an error:\n' + traceback.format_exc())
        _stop()


def start(target=None, frames=None, output=None):
    """Re-arms a capture: the next frame end reads the network, then samples.
    Ends a live stream (start_live) if one runs."""
    global _capture, _idle, TARGET, FRAMES, OUTPUT, LIVE, _live
    if target is not None:
        TARGET = target.path if hasattr(target, 'path') else str(target)
    if frames is not None:
        FRAMES = int(frames)
    if output is not None:
        OUTPUT = str(output)
    LIVE = ''
    if _live is not None:
        _live.close()
        _live = None
    _capture = None
    _idle = False
    me = _this_dat()
    if me is not None:
        me.par.active = True


def start_live(target=None, url=None, form=None):
    """Streams every frame to `cookgraph watch` (see LIVE) from the next frame end on."""
    global _live, _capture, _idle, TARGET, LIVE, LIVE_FORM
    if target is not None:
        TARGET = target.path if hasattr(target, 'path') else str(target)
    if url is not None:
        LIVE = str(url)
    if form is not None:
        LIVE_FORM = str(form)
    _live = None
    _capture = None
    _idle = False
    me = _this_dat()
    if me is not None:
        me.par.active = True


def _live_frame_end(abs_frame, frame_ms):
    global _live
    if _live is not None and _live.capture.missed(abs_frame, td.absTime.step):
        # The DAT was off for a while: the cook counters moved unseen. Re-read.
        _live.close()
        _live = None
    if _live is None:
        _live = Live(TARGET, LIVE, LIVE_FORM, EXTRA_OUTPUTS, EXCLUDE, _this_dat(), MAX_DATAGRAM)
        _live.arm(abs_frame)
        print('cookgraph: streaming {} OPs of {} to {} ({})'.format(
            len(_live.ids), TARGET, LIVE, LIVE_FORM))
        return
    _live.frame(abs_frame, frame_ms)


def _stop():
    global _capture, _idle, _live
    _capture = None
    if _live is not None:
        _live.close()
        _live = None
    me = _this_dat()
    if me is not None:
        me.par.active = False  # switching it on again starts a new capture
    else:
        _idle = True


def _this_dat():
    # TouchDesigner puts `me` (this DAT) into the DAT's module globals.
    return globals().get('me')


# --------------------------------------------------------------------------
# One capture.


class CaptureError(Exception):
    """A capture cannot start or be written; the message says why."""


class Capture:

    def __init__(self, target, frames, output, extra_outputs=(), exclude=(), this_dat=None):
        self.target_path = target.path if hasattr(target, 'path') else str(target)
        self.frames_wanted = int(frames)
        if self.frames_wanted < 1:
            raise CaptureError('FRAMES must be at least 1 (it is {})'.format(frames))
        self.output = output
        self.extra_outputs = set(extra_outputs)
        self.exclude = set(exclude)
        if this_dat is not None:
            self.exclude.add(this_dat.path)
        self.notes = Notes()
        self.ops = []
        self.nodes = []
        self.index = []  # absTime.frame of each sampled frame
        self.frame_ms = []  # ms or None
        self.captured = None

    # ---- before sampling: the network and the counters

    def arm(self, abs_frame):
        target = td.op(self.target_path)
        if target is None:
            raise CaptureError("TARGET '{}' is not an operator (set TARGET at the top of the "
                               'exporter, or pass it to start())'.format(self.target_path))
        if not getattr(target, 'isCOMP', False):
            raise CaptureError("TARGET '{}' is a {}, not a COMP: give the component whose "
                               'network to sample'.format(self.target_path, target.family))
        self.target = target
        found = target.findChildren(includeUtility=False)  # every depth
        self.ops = sorted((o for o in found if o.path not in self.exclude), key=lambda o: o.path)
        if not self.ops:
            raise CaptureError("TARGET '{}' has no operators to sample".format(self.target_path))
        ids = {o.path for o in self.ops}
        self.nodes = [describe_node(o, ids, self.extra_outputs, self.notes) for o in self.ops]
        # Column-wise per-OP samples, filled frame by frame.
        n = len(self.ops)
        self.cook = [[] for _ in range(n)]
        self.gpu = [[] for _ in range(n)]
        self.cpu_mem = [[] for _ in range(n)]
        self.gpu_mem = [[] for _ in range(n)]
        self.cooks = [[] for _ in range(n)]
        self.alive = [True] * n
        self.last_total = [_read_total(o) for o in self.ops]
        self.armed_at = abs_frame
        self.fps = _cook_rate()

    # ---- each sampled frame

    def sample(self, abs_frame, frame_ms):
        if self.index and abs_frame == self.index[-1]:
            return  # one sample per frame, whatever calls us
        if self.captured is None:
            self.captured = datetime.datetime.now(datetime.timezone.utc)
        self.index.append(abs_frame)
        self.frame_ms.append(frame_ms)
        for i, o in enumerate(self.ops):
            cook = gpu = cpu_mem = gpu_mem = None
            cooks = 0
            if self.alive[i]:
                try:
                    total = o.totalCooks
                    delta = total - self.last_total[i]
                    self.last_total[i] = total
                    if cooked_in(o, abs_frame):
                        cook = _ms(o.cpuCookTime, self.notes)
                        gpu = _ms(getattr(o, 'gpuCookTime', 0.0), self.notes)
                        cpu_mem = _mb(getattr(o, 'cpuMemory', 0), self.notes)
                        gpu_mem = _mb(getattr(o, 'gpuMemory', 0), self.notes)
                                # cookAbsFrame says it cooked; a zero delta means the counter was
                        # read before that cook was counted, so count the one we know of.
                        cooks = delta if delta > 0 else 1
                    elif delta > 0:
                        # Cooked after the last frame end ran (late in the previous frame).
                        self.notes.count('late_cooks', delta)
                except Exception:
                    if getattr(o, 'valid', True):
                        raise  # not a deleted OP: stop and say what went wrong
                    self.alive[i] = False  # deleted while sampling: null from here on
                    self.notes.count('deleted', 1, self.nodes[i]['id'])
            self.cook[i].append(cook)
            self.gpu[i].append(gpu)
            self.cpu_mem[i].append(cpu_mem)
            self.gpu_mem[i].append(gpu_mem)
            self.cooks[i].append(cooks)

    def complete(self):
        return len(self.index) >= self.frames_wanted

    def missed(self, abs_frame, step):
        """True when frames passed since the last call that TouchDesigner did not
        drop: absTime.step counts the frames since the previous one started."""
        last = self.index[-1] if self.index else self.armed_at
        return abs_frame - last > step + 1e-6

    # ---- the snapshot

    def document(self):
        """The snapshot as plain Python data (docs/formats.md#native-snapshot-format)."""
        project = getattr(td, 'project', None)
        project_file = str(getattr(project, 'name', '') or 'untitled')
        base = project_file[:-4] if project_file.endswith('.toe') else project_file
        doc = {
            'cookgraph': FORMAT_VERSION,
            'engine': 'touchdesigner',
            'name': '{} {}'.format(base, self.target_path),
            'source': [base + '.toe', 'cookgraph_export.py'],
        }
        if self.captured is not None:
            doc['captured'] = self.captured.strftime('%Y-%m-%dT%H:%M:%SZ')
        if self.fps:
            doc['fps'] = _number(self.fps)
            doc['frame_budget_ms'] = 1000.0 / self.fps
        doc['nodes'] = self.nodes
        frames = {'index': [_frame_number(f) for f in self.index]}
        if any(v is not None for v in self.frame_ms):
            frames['frame_ms'] = self.frame_ms
        series = {}
        for i, node in enumerate(self.nodes):  # ids from arm(): an OP may be gone by now
            if all(v is None for v in self.cook[i]):
                continue  # never cooked while sampled: no entry
            s = {'cook_ms': self.cook[i]}
            # GPU time and memory are left out when they are zero in every frame
            # (a CHOP has no GPU work): an all-zero series says nothing.
            for key, values in (('gpu_ms', self.gpu[i]), ('cpu_mem_mb', self.cpu_mem[i]),
                                ('gpu_mem_mb', self.gpu_mem[i])):
                if any(v for v in values):
                    s[key] = values
            s['cooks'] = self.cooks[i]
            series[node['id']] = s
        frames['series'] = series
        doc['frames'] = frames
        return doc

    def write(self):
        path = self.output or default_output_path(self.target_path)
        if not os.path.isabs(path):
            path = os.path.join(_project_folder(), path)
        write_atomically(path, self.document())
        return path

    def summary(self):
        cooked = sum(1 for c in self.cook if any(v is not None for v in c))
        edges = sum(
            len(n.get('inputs', ())) + len(n.get('refs', ())) + len(n.get('feedback', ()))
            for n in self.nodes)
        text = '{} ops, {} edges, {} frames, {} ops cooked'.format(
            len(self.nodes), edges, len(self.index), cooked)
        notes = self.notes.describe()
        return text + ('; ' + notes if notes else '')


class Live:
    """Streams each frame's cooks to `cookgraph watch`. The measuring is a
    Capture's (the same rules: cookAbsFrame, totalCooks deltas, no forced
    cook); each frame's readings are sent and then forgotten."""

    def __init__(self, target, url, form, extra_outputs=(), exclude=(), this_dat=None,
                 max_datagram=MAX_DATAGRAM):
        if form not in ('json', 'osc'):
            raise CaptureError("LIVE_FORM must be 'json' or 'osc' (it is {!r})".format(form))
        self.host, self.port = parse_udp_url(url)
        self.url = url
        self.form = form
        self.max_datagram = int(max_datagram)
        self.capture = Capture(target, 1, '', extra_outputs, exclude, this_dat)
        info = socket.getaddrinfo(self.host, self.port, 0, socket.SOCK_DGRAM)[0]
        self.address = info[4]
        self.sock = socket.socket(info[0], socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.ids = []
        self.sent = 0
        self.send_errors = 0

    def arm(self, abs_frame):
        self.capture.arm(abs_frame)
        self.ids = [n['id'] for n in self.capture.nodes]

    def frame(self, abs_frame, frame_ms):
        c = self.capture
        before = len(c.index)
        c.sample(abs_frame, frame_ms)
        if len(c.index) == before:
            return  # this frame was sent already
        nodes = []
        for i, node_id in enumerate(self.ids):
            cook = c.cook[i][-1]
            if cook is not None:
                nodes.append((node_id, cook, c.gpu[i][-1], c.cooks[i][-1]))
        # Keep nothing but the last frame number (sample() skips a repeat).
        del c.index[:-1]
        for column in (c.frame_ms, *c.cook, *c.gpu, *c.cpu_mem, *c.gpu_mem, *c.cooks):
            del column[:]
        encode = osc_frame if self.form == 'osc' else json_frame
        for datagram in encode(_frame_number(abs_frame), frame_ms, nodes, self.max_datagram):
            self.send(datagram)

    def send(self, datagram):
        try:
            self.sock.sendto(datagram, self.address)
            self.sent += 1
        except OSError as e:  # a full send buffer, no route: say so once, keep going
            self.send_errors += 1
            if self.send_errors == 1:
                print('cookgraph: cannot send to {}: {} (counting further failures)'.format(
                    self.url, e))

    def close(self):
        self.sock.close()
        if self.send_errors:
            print('cookgraph: {} of {} datagrams to {} could not be sent'.format(
                self.send_errors, self.sent + self.send_errors, self.url))


def parse_udp_url(url):
    """'udp://HOST:PORT' -> (HOST, PORT); [IPv6] hosts in brackets."""
    m = re.match(r'^udp://(\[[^\]]+\]|[^:/]+):(\d+)/?$', str(url))
    if not m or int(m.group(2)) > 65535:
        raise CaptureError("LIVE must be udp://HOST:PORT, e.g. udp://127.0.0.1:9000 (it is "
                           "{!r})".format(url))
    return m.group(1).strip('[]'), int(m.group(2))


def _parts(items, size_of, budget):
    """Splits items into consecutive runs whose sizes sum to at most budget
    (a run holds at least one item)."""
    parts, run, used = [], [], 0
    for item in items:
        n = size_of(item)
        if run and used + n > budget:
            parts.append(run)
            run, used = [], 0
        run.append(item)
        used += n
    parts.append(run)
    return parts


def json_frame(frame, frame_ms, nodes, max_datagram=MAX_DATAGRAM):
    """The datagrams of one frame as JSON lines: {"frame", "frame_ms", "nodes"}."""

    def entry(node):
        node_id, cook, gpu, cooks = node
        value = {'cook_ms': cook}
        if gpu:  # zero for CHOPs and DATs: no GPU work to speak of
            value['gpu_ms'] = gpu
        value['cooks'] = cooks
        return json.dumps(node_id, ensure_ascii=False) + ':' + json.dumps(value, allow_nan=False, separators=(',', ':'))

    entries = [entry(n) for n in nodes]
    head = '{"frame":' + str(frame)
    if frame_ms is not None:
        head += ',"frame_ms":' + json.dumps(frame_ms, allow_nan=False)
    budget = max_datagram - len(head) - 40  # room for ',"more":true,"nodes":{}}'
    parts = _parts(entries, lambda e: len(e.encode('utf-8')) + 1, budget)
    out = []
    for k, part in enumerate(parts):
        more = ',"more":true' if k + 1 < len(parts) else ''
        out.append((head + more + ',"nodes":{' + ','.join(part) + '}}').encode('utf-8'))
        head = '{"frame":' + str(frame)  # frame_ms once, in the first part
    return out


def _osc_string(text):
    data = text.encode('utf-8') + b'\0'
    return data + b'\0' * (-len(data) % 4)


def _osc_message(address, args):
    """args: (type tag, value) pairs; tags i, h, f, s, N."""
    types = ',' + ''.join(t for t, _ in args)
    data = _osc_string(address) + _osc_string(types)
    for t, v in args:
        if t == 'i':
            data += struct.pack('>i', v)
        elif t == 'h':
            data += struct.pack('>q', v)
        elif t == 'f':
            data += struct.pack('>f', v)
        elif t == 's':
            data += _osc_string(v)
    return data


def _osc_bundle(messages):
    data = b'#bundle\0' + struct.pack('>Q', 1)  # time tag 1: "immediately"
    for m in messages:
        data += struct.pack('>i', len(m)) + m
    return data


def osc_frame(frame, frame_ms, nodes, max_datagram=MAX_DATAGRAM):
    """The datagrams of one frame as OSC bundles: /cookgraph/frame i [f], then
    /cookgraph/cook s f [f|N i] per OP, /cookgraph/more in all but the last."""
    number = ('i', frame) if -2**31 <= frame < 2**31 else ('h', frame)
    cooks = []
    for node_id, cook, gpu, count in nodes:
        args = [('s', node_id), ('f', cook)]
        if gpu or count != 1:
            args += [('f', gpu) if gpu else ('N', None), ('i', count)]
        cooks.append(_osc_message('/cookgraph/cook', args))
    more = _osc_message('/cookgraph/more', [])
    first = _osc_message('/cookgraph/frame', [number] + ([('f', frame_ms)] if frame_ms is not None
                                                         else []))
    budget = max_datagram - 16 - 4 - len(first) - 4 - len(more)
    parts = _parts(cooks, lambda m: len(m) + 4, budget)
    out = []
    for k, part in enumerate(parts):
        head = first if k == 0 else _osc_message('/cookgraph/frame', [number])
        out.append(_osc_bundle([head] + part + ([more] if k + 1 < len(parts) else [])))
    return out


def cooked_in(o, abs_frame):
    """True when the OP's last cook happened in absolute frame abs_frame."""
    return o.cookAbsFrame == abs_frame


# --------------------------------------------------------------------------
# The network: one node per OP.


def describe_node(o, ids, extra_outputs=(), notes=None):
    """The snapshot node of OP o; ids = the paths of every node."""
    notes = notes if notes is not None else Notes()
    node = {'id': o.path, 'type': op_type(o), 'family': str(o.family)}
    parent = o.parent()
    if parent is not None:
        node['parent'] = parent.path
    params, refs, feedback = read_parameters(o, notes)
    if params:
        node['params'] = params
    if is_output(o) or o.path in extra_outputs:
        node['output'] = True
    inputs = [i.path for i in o.inputs if i is not None]
    for name, paths in (('inputs', inputs), ('refs', [r.path for r in refs]),
                        ('feedback', [f.path for f in feedback])):
        kept = []
        for p in paths:
            if p not in ids:
                notes.count('outside', 1, '{} -> {}'.format(p, o.path))
            elif p not in kept:
                kept.append(p)
        if kept:
            node[name] = kept
    return node


def op_type(o):
    # opType in current builds; OPType in older ones (and still accepted there).
    for name in ('opType', 'OPType'):
        value = getattr(o, name, None)
        if isinstance(value, str) and value:
            return value
    return str(getattr(o, 'type', '')) + str(o.family)


# Out OPs are a COMP's outputs; a Window COMP shows its panel on screen.
_OUTPUT_TYPES = {'outTOP', 'outCHOP', 'outSOP', 'outDAT', 'outMAT', 'outPOP', 'windowCOMP'}


def is_output(o):
    """Displayed, rendered or exporting OPs, Out OPs and Window COMPs."""
    if op_type(o) in _OUTPUT_TYPES:
        return True
    # Flags are plain members; reading them cooks nothing. `export` exists on
    # CHOPs and DATs only: exporting drives parameters, so its cooks are used.
    return any(bool(getattr(o, flag, False)) for flag in ('display', 'render', 'export'))


def read_parameters(o, notes):
    """(non-default parameters as strings, referenced OPs, Feedback TOP targets)."""
    params = {}
    refs = []
    feedback = []
    is_feedback_top = op_type(o) == 'feedbackTOP'
    for par in o.pars():
        if par.isPulse or par.isMomentary:
            continue  # no value to keep, and a pulse reads no other OP
        mode = par.mode
        if not par.isDefault:
            params[par.name] = parameter_text(par, mode)
        targets = parameter_targets(par, mode, notes)
        if is_feedback_top and par.name == 'top':
            feedback.extend(targets)  # reads the target's previous frame
        else:
            refs.extend(targets)
    return params, refs, feedback


def parameter_text(par, mode):
    """The parameter as the parameter dialog shows it, never evaluated."""
    if mode == td.ParMode.EXPRESSION:
        return str(par.expr)
    if mode == td.ParMode.BIND:
        return str(par.bindExpr)
    if mode == td.ParMode.EXPORT:
        source = par.exportOP
        return source.path if source is not None else ''
    value = par.val  # the constant only: val never runs an expression
    if par.isToggle or isinstance(value, bool):
        return 'on' if value else 'off'
    return _text(value)


# op('x'), opex("x"), parent(2).op('x'), me.parent().op('x') with a literal path.
_OP_CALL = re.compile(
    r"(?:\b(?:me\.)?parent\(\s*(\d*)\s*\)\s*\.\s*)?\bop(?:ex)?\(\s*(['\"])([^'\"]+)\2\s*\)")
# parent() / parent(2) / me.parent() not followed by .op(...): the COMP itself.
_PARENT = re.compile(r"(?<![\w.])(?:me\.)?parent\(\s*(\d*)\s*\)(?!\s*\.\s*op)")
# Shortcuts that name an OP without a path: op.Name, parent.Name, iop.Name, ipar.Name.
_SHORTCUT = re.compile(r"(?<![\w.])(?:op|parent|iop|ipar)\.[A-Za-z_]\w*")
_LITERAL = re.compile(r"^\s*(['\"])([^'\"]*)\1\s*$")


def parameter_targets(par, mode, notes):
    """The OPs a parameter reads, found without evaluating it."""
    owner = par.owner
    if mode == td.ParMode.EXPRESSION:
        found = expression_targets(owner, str(par.expr), notes)
        literal = _LITERAL.match(str(par.expr)) if par.isOP else None
        if literal:  # an OP parameter whose expression is just a quoted path
            found += paths_targets(owner, literal.group(2), notes)
        return found
    if mode == td.ParMode.EXPORT:
        source = par.exportOP
        return [source] if source is not None else []
    if mode == td.ParMode.BIND:
        master = par.bindMaster  # a Par (or an OP), kept up to date by TouchDesigner
        if master is not None:
            target = getattr(master, 'owner', master)
            return [target] if hasattr(target, 'path') else []
        return expression_targets(owner, str(par.bindExpr), notes)
    if par.isOP:
        return paths_targets(owner, _text(par.val), notes)
    return []


def expression_targets(owner, expr, notes):
    """OPs named in an expression by a literal path or parent(n)."""
    found = []
    for m in _OP_CALL.finditer(expr):
        levels, path = m.group(1), m.group(3)
        if levels is not None:
            base = owner.parent(int(levels) if levels else 1)
            target = _lookup(base, path) if base is not None else None
        else:
            target = _resolve(owner, path)
        if target is not None:
            found.append(target)
        else:
            notes.count('unresolved', 1, '{}: {}'.format(owner.path, m.group(0)))
    for m in _PARENT.finditer(expr):
        target = owner.parent(int(m.group(1)) if m.group(1) else 1)
        if target is not None:
            found.append(target)
    for m in _SHORTCUT.finditer(expr):
        notes.count('unresolved', 1, '{}: {}'.format(owner.path, m.group(0)))
    return found


def paths_targets(owner, text, notes):
    """OPs named by an OP parameter's value: paths separated by spaces."""
    found = []
    for path in text.split():
        if any(c in path for c in '*?['):
            # A pattern (a Render TOP's default lights '*'): which OPs it picks
            # depends on the parameter's filter, which only evaluating it knows.
            notes.count('patterns', 1, '{}: {}'.format(owner.path, path))
            continue
        target = _resolve(owner, path)
        if target is not None:
            found.append(target)
        else:
            notes.count('unresolved', 1, '{}: {}'.format(owner.path, path))
    return found


def _resolve(owner, path):
    # Paths in parameters are relative to the network the OP sits in.
    base = owner.parent()
    target = _lookup(base, path) if base is not None else None
    return target if target is not None else _lookup(owner, path)


def _lookup(base, path):
    try:
        return td.op(path) if path.startswith('/') else base.op(path)
    except Exception:  # a malformed pattern, a path through a deleted COMP
        return None


# --------------------------------------------------------------------------
# Writing


def default_output_path(target_path):
    project = str(getattr(getattr(td, 'project', None), 'name', '') or 'untitled')
    base = project[:-4] if project.endswith('.toe') else project
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
    where = re.sub(r'[^\w.-]+', '_', target_path.strip('/')) or 'root'
    return os.path.join(_project_folder(), 'cookgraph_{}_{}_{}.json'.format(base, where, stamp))


def write_atomically(path, doc):
    """Writes doc to a temporary file beside path, then renames it over path."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    text = dumps(doc).encode('utf-8')
    if path.endswith('.gz'):
        text = gzip.compress(text, mtime=0)
    fd, tmp = tempfile.mkstemp(prefix='.cookgraph-', suffix='.tmp', dir=folder)
    try:
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, 'wb') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dumps(doc):
    """JSON with one node and one series per line, like the examples."""

    def one(value):
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(', ', ': '))

    lines = ['{']
    head = [k for k in doc if k not in ('nodes', 'frames')]
    for k in head:
        lines.append('  {}: {},'.format(one(k), one(doc[k])))
    lines.append('  "nodes": [')
    nodes = doc.get('nodes', [])
    for i, n in enumerate(nodes):
        lines.append('    ' + one(n) + (',' if i + 1 < len(nodes) else ''))
    frames = doc.get('frames')
    lines.append('  ]' + (',' if frames is not None else ''))
    if frames is not None:
        lines.append('  "frames": {')
        keys = [k for k in frames if k != 'series']
        for k in keys:
            lines.append('    {}: {},'.format(one(k), one(frames[k])))
        lines.append('    "series": {')
        series = frames.get('series', {})
        for i, (node_id, s) in enumerate(series.items()):
            comma = ',' if i + 1 < len(series) else ''
            lines.append('      {}: {}{}'.format(one(node_id), one(s), comma))
        lines.append('    }')
        lines.append('  }')
    lines.append('}')
    return '\n'.join(lines) + '\n'


# --------------------------------------------------------------------------
# Small helpers


class Notes:
    """Counts of things the capture could not follow, with a first example."""

    _WORDS = {
        'outside': 'edges to OPs outside TARGET left out',
        'unresolved': 'references not followed',
        'patterns': 'OP patterns not followed',
        'late_cooks': 'cooks after a frame end (not in any sample)',
        'deleted': 'OPs deleted while sampling',
        'bad_values': 'negative or non-finite readings dropped',
    }

    def __init__(self):
        self.counts = {}
        self.first = {}

    def count(self, key, n=1, example=None):
        self.counts[key] = self.counts.get(key, 0) + n
        if example is not None and key not in self.first:
            self.first[key] = example

    def describe(self):
        parts = []
        for key, n in self.counts.items():
            part = '{} {}'.format(n, self._WORDS.get(key, key))
            if key in self.first:
                part += ' (first: {})'.format(self.first[key])
            parts.append(part)
        return '; '.join(parts)


def _read_total(o):
    try:
        return o.totalCooks
    except Exception:
        return 0


def _ms(value, notes):
    value = float(value)
    if math.isfinite(value) and value >= 0:
        return value
    notes.count('bad_values')
    return None


def _mb(value, notes):
    value = float(value)
    if math.isfinite(value) and value >= 0:
        return value / BYTES_PER_MB
    notes.count('bad_values')
    return None


def _cook_rate():
    rate = getattr(getattr(td, 'project', None), 'cookRate', None)
    try:
        rate = float(rate)
    except (TypeError, ValueError):
        return None
    return rate if math.isfinite(rate) and rate > 0 else None


def _project_folder():
    folder = getattr(getattr(td, 'project', None), 'folder', '')
    return str(folder) if folder else os.getcwd()


def _frame_number(frame):
    # absTime.frame is a float holding a whole number of frames.
    return int(round(float(frame)))


def _number(value):
    value = float(value)
    return int(value) if value.is_integer() else value


def _text(value):
    if value is None:
        return ''
    if hasattr(value, 'path'):  # an OP
        return value.path
    if isinstance(value, (list, tuple)):
        return ' '.join(_text(v) for v in value)
    if isinstance(value, float):
        return str(_number(value)) if value.is_integer() else repr(value)
    return str(value)
