"""cookgraph exporter for TouchDesigner: samples a COMP's cooks, writes a snapshot.

Install with one line in TouchDesigner's Textport (Alt+T), using the path of
this file (examples/touchdesigner/README.md says what you will see):

    import runpy; runpy.run_path(r'C:/path/to/cookgraph_export.py')['install']('/project1')

install() creates, inside the COMP given, a Table DAT `cookgraph_settings`
(the settings below, one per row) and an Execute DAT `cookgraph_export`
holding this script with its Frame Start and Frame End callbacks on. Switch
the DAT's Active on (or run op('/project1/cookgraph_export').module.start())
and it:

  1. reads the network under TARGET (every OP, its wires, parameter
     references, exports, binds, Feedback TOP targets, non-default
     parameters, what the Window COMPs show), in batches of at most ARM_MS
     milliseconds per frame, so reading a big network never costs the show a
     frame;
  2. samples FRAMES frames: frame f is read at the start of frame f+1, after
     everything that cooked while frame f was drawn; COMPs whose children did
     not cook are skipped whole;
  3. hands the samples to a worker thread, which writes a cookgraph native
     snapshot (format version 1: JSON, or gzip'd JSON when OUTPUT ends in .gz)
     atomically, and, at the next frame start, prints where and switches the
     DAT's Active off. Switching it on again takes a new capture.

op('/project1/cookgraph_export').module.remove() takes both DATs away again.

Live mode: with the setting live = udp://HOST:PORT (or start_live() from the
Textport) it writes no file; it sends every frame to `cookgraph watch --listen
udp://HOST:PORT` over UDP until the DAT is switched off: the frame number
(absTime.frame), frame_ms, and for each OP that cooked in that frame its
cook_ms, gpu_ms and cooks, measured exactly as a capture measures them. The
wire form is live_form: 'json' (one JSON object per datagram) or 'osc' (one
OSC bundle per frame: /cookgraph/frame, then /cookgraph/cook per OP). A frame
bigger than MAX_DATAGRAM bytes goes in several datagrams, all but the last
marked "more".

Pure Python standard library plus TouchDesigner's td module.

What is measured, per OP and sampled frame f (f = absTime.frame), read at the
start of frame f+1:

  cook_ms      OP.cpuCookTime, only when OP.cookAbsFrame == f. TouchDesigner
               keeps the last cook's time on the OP, so otherwise the value is
               stale and the sample is null ("did not cook"). When an OP cooks
               more than once in a frame, cpuCookTime is the last cook's.
  gpu_ms       OP.gpuCookTime, same rule (TOPs, COMPs, SOPs, MATs, POPs: CHOPs
               and DATs do no GPU work and are not asked).
  cpu_mem_mb   OP.cpuMemory / 2**20, read with the cook, in the frames it cooked.
  gpu_mem_mb   OP.gpuMemory / 2**20, same (GPU families only).
  cooks        OP.totalCooks now minus at the previous read: every cook of
               frame f, the ones while the frame was drawn included.
  frame_ms     time.perf_counter() from the end of this DAT's onFrameStart to
               the start of its onFrameEnd in the same frame: the part of the
               frame in which TouchDesigner cooked the whole project, without
               this exporter's own work.
  profiler_ms  this exporter's own main-thread time in frame f (its frame start
               and frame end callbacks): the profiler's overhead, not in
               frame_ms and not in any OP's cook time.

A COMP's childrenCPUCookAbsFrame says in which frame its children last cooked;
when it is older than f, none of them cooked in f and none is read. An OP that
TouchDesigner cooks at the start of frame f+1, before this DAT's callback, has
cookAbsFrame f+1 when frame f is read: that cook is kept for frame f+1.

Reading that never forces a cook (all this script reads): the OP members
cookAbsFrame, cpuCookTime, gpuCookTime, totalCooks, cpuMemory, gpuMemory,
childrenCPUCookAbsFrame, valid, path, family, isCOMP, isPanel, opType/OPType, inputs,
parent(), op() (a path look-up), findChildren(), the flags render and export,
and pars(); the Par members name, owner, mode, val, expr, bindExpr,
bindMaster, exportOP, isDefault, isOP, isToggle, isPulse, isMomentary;
absTime.frame and .step; project.name, .folder and .cookRate; the cells of its
own settings table. The worker thread touches none of these: it gets plain
Python data.
Reading that can cook, never used here: OP.cook(), Par.eval() /
evalExpression() / evalOPs() on an expression, export or bind (it runs the
expression, which cooks the CHOPs and DATs it reads), CHOP channels
(op['chan'], chans(), numSamples, numpyArray()), TOP width/height/numpyArray(),
DAT text, SOP points, OP.errors()/warnings().
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
import threading
import time
import traceback

import td

# --------------------------------------------------------------------------
# Settings. The cookgraph_settings table beside the Execute DAT overrides
# them (its rows: setting, value); start() and start_live() override both.

TARGET = '/project1'  # the COMP whose OPs are sampled (not the COMP itself)
FRAMES = 300  # sampled frames
OUTPUT = ''  # file to write; '' = <project folder>/cookgraph_<project>_<target>_<UTC time>.json
EXTRA_OUTPUTS = ()  # paths of OPs to mark as outputs besides those found
EXCLUDE = ()  # paths of OPs to leave out (this DAT and its settings table always are)
LIVE = ''  # 'udp://HOST:PORT': stream every frame to `cookgraph watch` instead of capturing
LIVE_FORM = 'json'  # 'json' (JSON lines) or 'osc' (OSC bundles)
MAX_DATAGRAM = 8192  # bytes; a bigger frame is sent in parts
ARM_MS = 1.5  # the most of one frame spent reading the network before sampling
PAGE = ''  # cookgraph.html, named when a snapshot is written; install() sets the one beside this file

# --------------------------------------------------------------------------

SETTINGS_DAT = 'cookgraph_settings'
EXPORTER_DAT = 'cookgraph_export'
FORMAT_VERSION = 1
BYTES_PER_MB = float(1 << 20)  # the project's MB: mebibytes, as in examples/generate.py
GPU_FAMILIES = frozenset(('TOP', 'COMP', 'SOP', 'MAT', 'POP'))

# Seconds, monotonic. A module attribute so a test can give it a fake clock.
clock = time.perf_counter

_dat = None  # this Execute DAT: td.me inside its callbacks
_job = None  # the Capture or Live under way, or None
_idle = False  # True after a capture ended or failed, until start() or reload
_overrides = {}  # settings given to start() / start_live()
_last_start = None  # absTime.frame at the last onFrameStart
_ends_alone = set()  # frames whose end came without a frame start


# --------------------------------------------------------------------------
# Execute DAT callbacks. TouchDesigner calls them with `frame`, the DAT's own
# timeline frame, which loops and stops with the timeline; absTime.frame is
# the frame counter cookAbsFrame is measured in, so that is what is used.


def onFrameStart(frame):
    global _job, _last_start
    t0 = clock()  # first: everything below is the exporter's own time
    _remember_dat()
    if _idle:
        return
    try:
        abs_frame = td.absTime.frame
        _last_start = abs_frame
        _ends_alone.clear()
        if _job is not None and _job.missed(abs_frame, td.absTime.step):
            # The DAT was off for a while: the cook counters moved in frames
            # nobody read, so the counts would be wrong. Start over.
            print('cookgraph: frames went by unsampled (was the DAT switched off?); '
                  'starting the capture over')
            _end_job()
        if _job is None:
            _job = _new_job()
        _job.frame_start(abs_frame, t0)
        if _job.done is not None:
            print('cookgraph: ' + _job.done)
            _stop()
    except CaptureError as e:
        print('cookgraph: ' + str(e))
        _stop()
    except Exception:  # one message, not one per frame
        print('cookgraph: the capture stopped on an error:\n' + traceback.format_exc())
        _stop()


def onFrameEnd(frame):
    t0 = clock()  # first: frame_ms ends here
    _remember_dat()
    if _idle:
        return
    try:
        abs_frame = td.absTime.frame
        if _last_start is None or abs_frame - _last_start > 2:
            # Frame ends without frame starts: the Frame Start toggle is off.
            _ends_alone.add(abs_frame)
            if len(_ends_alone) > 2:
                raise CaptureError("this DAT's Frame Start callback is off: switch Frame Start "
                                   'on (frames are read at the next frame start)')
        elif _job is not None:
            _job.frame_end(abs_frame, t0)
    except CaptureError as e:
        print('cookgraph: ' + str(e))
        _stop()
    except Exception:
        print('cookgraph: the capture stopped on an error:\n' + traceback.format_exc())
        _stop()


def start(target=None, frames=None, output=None):
    """Re-arms a capture from the next frame start (and switches the DAT on).
    Arguments override the settings table; a live stream under way ends."""
    _restart(dict(target=target, frames=frames, output=output, live=''))


def start_live(target=None, url=None, form=None):
    """Streams every frame to `cookgraph watch` from the next frame start on."""
    _restart(dict(target=target, live=url, live_form=form))


def install(comp='/project1', target=None):
    """Creates the settings table and the Execute DAT (this script, Frame Start
    and Frame End on, Active off) inside `comp`; run from the Textport."""
    where = comp if hasattr(comp, 'path') else td.op(str(comp))
    if where is None or not getattr(where, 'isCOMP', False):
        print('cookgraph: cannot install into {!r}: give the path of a COMP'.format(comp))
        return None
    script = globals().get('__file__')  # set by runpy.run_path
    if not script:
        print('cookgraph: run install() from the file: runpy.run_path(PATH)["install"](COMP)')
        return None
    with open(script, encoding='utf-8') as f:
        source = f.read()
    table = where.op(SETTINGS_DAT)
    if table is None:  # a second install keeps the settings
        table = where.create(td.tableDAT, SETTINGS_DAT)
        # cookgraph.html beside this file: the page to open the snapshot in.
        page = os.path.join(os.path.dirname(os.path.abspath(script)), 'cookgraph.html')
        table.text = settings_text(target or where.path, page if os.path.isfile(page) else PAGE)
    old = where.op(EXPORTER_DAT)
    if old is not None:
        old.destroy()
    dat = where.create(td.executeDAT, EXPORTER_DAT)
    dat.text = source
    dat.par.framestart = True
    dat.par.frameend = True
    dat.par.active = False
    print('cookgraph: installed {} (settings in {}); switch its Active on to capture {} '
          'frames of {}, or run op({!r}).module.start()'.format(
              dat.path, table.path, table_setting(table, 'frames') or FRAMES,
              table_setting(table, 'target') or TARGET, dat.path))
    return dat


def remove():
    """Takes the Execute DAT and its settings table away again."""
    dat = _this_dat()
    if dat is None:
        print('cookgraph: cannot find this Execute DAT to remove')
        return
    _end_job()
    table = dat.parent().op(SETTINGS_DAT)
    gone = [dat.path]
    if table is not None:
        gone.append(table.path)
        table.destroy()
    dat.destroy()
    print('cookgraph: removed ' + ' and '.join(gone))


def settings_text(target, page=PAGE):
    """The settings table a fresh install gets: tab-separated rows."""
    rows = [('setting', 'value'), ('target', target), ('frames', str(FRAMES)),
            ('output', OUTPUT), ('extra_outputs', ' '.join(EXTRA_OUTPUTS)),
            ('exclude', ' '.join(EXCLUDE)), ('live', LIVE), ('live_form', LIVE_FORM),
            ('page', page)]
    return ''.join('{}\t{}\n'.format(k, v) for k, v in rows)


def table_setting(table, name):
    for r in range(table.numRows):
        if _cell(table, r, 0).lower() == name:
            return _cell(table, r, 1)
    return None


def _cell(table, row, col):
    cell = table[row, col]  # None where the row is shorter
    return str(cell.val).strip() if cell is not None else ''


def _restart(overrides):
    global _idle, _overrides
    _end_job()
    _overrides = {k: v for k, v in overrides.items() if v is not None}
    _idle = False
    dat = _this_dat()
    if dat is not None:
        dat.par.active = True
    else:
        print("cookgraph: cannot find this Execute DAT; switch its Active on")


def _new_job():
    settings = read_settings(_this_dat())
    if settings['live']:
        return Live(settings)
    return Capture(settings)


def _end_job():
    global _job
    if _job is not None:
        _job.close()
    _job = None


def _stop():
    global _idle
    _end_job()
    dat = _this_dat()
    if dat is not None:
        dat.par.active = False  # switching it on again starts a new capture
    _idle = True  # until start() or the DAT is switched on again


def _remember_dat():
    # td.me is "the operator that is currently being executed": inside these
    # callbacks, this Execute DAT. Switching the DAT on again resumes.
    global _dat, _idle
    me = getattr(td, 'me', None)
    if me is not None and _dat is None:
        _dat = me
    if _idle and _dat is not None and _job is None and me is _dat:
        _idle = False  # called back while active: switched on again


def _this_dat():
    global _dat
    if _dat is not None and getattr(_dat, 'valid', True):
        return _dat
    me = getattr(td, 'me', None)
    if me is not None and _is_this_module(me):
        _dat = me
        return _dat
    root = td.op('/')
    for found in root.findChildren(type=td.executeDAT, name=EXPORTER_DAT) if root else ():
        if _is_this_module(found):
            _dat = found
            return _dat
    return None


def _is_this_module(dat):
    try:
        module = dat.module  # compiles a DAT's text: a DAT that is not Python raises
    except Exception:
        return False
    return getattr(module, '__dict__', None) is globals()


def read_settings(dat):
    """The settings of the next capture: defaults, the table, start()'s arguments."""
    values = {'target': TARGET, 'frames': FRAMES, 'output': OUTPUT,
              'extra_outputs': tuple(EXTRA_OUTPUTS), 'exclude': tuple(EXCLUDE), 'live': LIVE,
              'live_form': LIVE_FORM, 'max_datagram': MAX_DATAGRAM, 'page': PAGE}
    table = dat.parent().op(SETTINGS_DAT) if dat is not None else None
    if table is not None:
        for r in range(table.numRows):
            name = _cell(table, r, 0).lower()
            value = _cell(table, r, 1)
            if not name or name == 'setting':
                continue  # the header row, an empty row
            if name not in values or name == 'max_datagram':
                raise CaptureError('{} row {}: unknown setting {!r} (settings: {})'.format(
                    table.path, r, name, ', '.join(k for k in values if k != 'max_datagram')))
            values[name] = tuple(value.split()) if name in ('extra_outputs', 'exclude') else value
    for name, value in _overrides.items():
        values[name] = value.path if hasattr(value, 'path') else value
    try:
        values['frames'] = int(str(values['frames']).strip())
    except ValueError:
        raise CaptureError('frames must be a whole number (it is {!r})'.format(values['frames']))
    if values['frames'] < 1:
        raise CaptureError('frames must be at least 1 (it is {})'.format(values['frames']))
    values['target'] = str(values['target'])
    values['excluded'] = set(values['exclude'])
    for own in (dat, table):
        if own is not None:
            values['excluded'].add(own.path)
    return values


# --------------------------------------------------------------------------
# The network: read in small steps, then read frame by frame.


def open_hint(page):
    """Where to look at a written snapshot: the page, named when it is there."""
    if page and os.path.isfile(page):
        return 'to see it, open {} in a browser and drop the file onto it'.format(page)
    return 'to see it, open cookgraph.html in a browser and drop the file onto it (docs/web.md)'


class CaptureError(Exception):
    """A capture cannot start or be written; the message says why."""


class Network:
    """The OPs under TARGET as plain data (ids, families, nodes), with what a
    frame read needs: per COMP its sampled children, per OP its last cook count."""

    def __init__(self, settings):
        self.target_path = settings['target']
        self.excluded = settings['excluded']
        self.extra_outputs = set(settings['extra_outputs'])
        self.notes = Notes()
        self.ops = []  # the OP objects, main thread only
        self.ids = []  # their paths
        self.families = []
        self.gpu = []  # whether GPU time and memory are read
        self.panels = []  # whether the OP is a panel COMP
        self.last_total = []  # totalCooks at the last read
        self.groups = []  # [COMP, [indices of its sampled children]]
        self.carried = {}  # index -> reading of a cook at the start of the current frame
        self.nodes = None  # snapshot nodes, once described
        self.target = td.op(self.target_path)
        if self.target is None:
            raise CaptureError("TARGET '{}' is not an operator (set target in the "
                               'cookgraph_settings table, or pass it to start())'.format(
                                   self.target_path))
        if not getattr(self.target, 'isCOMP', False):
            raise CaptureError("TARGET '{}' is a {}, not a COMP: give the component whose "
                               'network to sample'.format(self.target_path, self.target.family))

    def arm_steps(self):
        """A generator: each step is a few reads; the caller spreads them over frames."""
        queue = [self.target]
        while queue:
            comp = queue.pop(0)
            members = []
            self.groups.append([comp, members])  # read from the next frame on
            children = comp.findChildren(depth=1, includeUtility=False)
            yield
            for child in children:
                path = child.path
                if path in self.excluded:
                    continue
                family = str(child.family)
                self.last_total.append(child.totalCooks)
                members.append(len(self.ops))
                self.ops.append(child)
                self.ids.append(path)
                self.families.append(family)
                self.gpu.append(family in GPU_FAMILIES)
                panel = False
                if child.isCOMP:
                    queue.append(child)
                    panel = bool(getattr(child, 'isPanel', False))
                self.panels.append(panel)
                yield
        if not self.ops:
            raise CaptureError("TARGET '{}' has no operators to sample".format(self.target_path))
        index = {path: i for i, path in enumerate(self.ids)}
        nodes = []
        for i, o in enumerate(self.ops):
            node = yield from describe_node(o, self.ids[i], self.families[i], index,
                                            self.target_path, self.notes)
            nodes.append(node)
        for path in self.extra_outputs:
            if path in index:
                nodes[index[path]]['output'] = True
        yield from mark_shown(nodes, index, self.target_path, self.notes)
        link_nested_outs(nodes, index, self.target_path)
        link_panels(nodes, index, self.panels)
        self.nodes = nodes

    def read(self, frame, current, record):
        """Reads what cooked in `frame`, at the start of frame `current`; returns
        [(index, cook_ms, gpu_ms, cpu_mb, gpu_mb, cooks)] when record."""
        carried, self.carried = self.carried, {}
        cooked = []
        gone = []
        for group in self.groups:
            comp, members = group
            try:
                if comp.childrenCPUCookAbsFrame < frame:
                    continue  # none of its children cooked in this frame or since
            except Exception:
                if getattr(comp, 'valid', True):
                    raise
                # deleted: so are its children, noted as each is read
            for i in members:
                o = self.ops[i]
                try:
                    total = o.totalCooks
                    cooks = total - self.last_total[i]
                    if not cooks:
                        continue
                    self.last_total[i] = total
                    at = o.cookAbsFrame
                    if at == frame:
                        if record:
                            early = carried.pop(i, None)
                            cooked.append(self.cook_of(i, o, cooks + (early[5] if early else 0)))
                    elif at == current:
                        # Cooked at the start of this frame, before this callback:
                        # those cooks are the current frame's, read with it.
                        self.carried[i] = self.cook_of(i, o, cooks)
                    else:
                        self.notes.count('unplaced', cooks, self.ids[i])
                except Exception:
                    if getattr(o, 'valid', True):
                        raise  # not a deleted OP: stop and say what went wrong
                    gone.append((group, i))
        for group, i in gone:
            group[1].remove(i)
            self.notes.count('deleted', 1, self.ids[i])
        if record:
            cooked.extend(carried.values())
        return cooked

    def cook_of(self, i, o, cooks):
        cook = _ms(o.cpuCookTime, self.notes)
        cpu_mem = _mb(o.cpuMemory, self.notes)
        gpu = gpu_mem = None
        if self.gpu[i]:
            gpu = _ms(o.gpuCookTime, self.notes)
            gpu_mem = _mb(o.gpuMemory, self.notes)
        return (i, cook, gpu, cpu_mem, gpu_mem, cooks)


class Frame:
    """One frame the exporter saw start: its number, and its own time in it."""

    __slots__ = ('number', 'sampled', 'start_clock', 'own_ms', 'frame_ms')

    def __init__(self, number, sampled):
        self.number = number
        self.sampled = sampled
        self.start_clock = None
        self.own_ms = 0.0
        self.frame_ms = None


class Sampler:
    """Reads the network over the first frames, then reads every frame at the
    next frame start; take() does something with each sampled frame."""

    def __init__(self, settings):
        self.settings = settings
        self.network = Network(settings)
        self.steps = self.network.arm_steps()
        self.arming = True
        self.arm_frames = 0
        self.current = None  # the Frame that started last
        self.done = None  # a message when the job has finished

    def missed(self, abs_frame, step):
        """True when frames passed since the last frame start that TouchDesigner
        did not drop: absTime.step counts the frames since the previous one."""
        return self.current is not None and abs_frame - self.current.number > step + 1e-6

    def frame_start(self, abs_frame, t0):
        previous = self.current
        if previous is not None and previous.number == abs_frame:
            return  # called twice in one frame
        if previous is not None and self.reading():
            cooked = self.network.read(previous.number, abs_frame, previous.sampled)
            if previous.sampled:
                self.take(previous, cooked)
        sampled = False
        if self.arming:
            self.arm_frames += 1
            self.arm(t0)
        elif self.done is None:
            sampled = self.wants_more()
        self.poll()
        self.current = Frame(abs_frame, sampled)
        now = clock()
        self.current.own_ms = (now - t0) * 1000.0
        self.current.start_clock = now

    def arm(self, t0):
        budget = ARM_MS / 1000.0
        try:
            next(self.steps)  # at least one step a frame, however long the read took
            while clock() - t0 < budget:
                next(self.steps)
        except StopIteration:
            self.arming = False
            self.armed()

    def frame_end(self, abs_frame, t0):
        frame = self.current
        if frame is None or frame.number != abs_frame:
            return
        if frame.start_clock is not None and frame.frame_ms is None:
            frame.frame_ms = (t0 - frame.start_clock) * 1000.0
        frame.own_ms += (clock() - t0) * 1000.0

    # what subclasses do
    def reading(self):
        return self.done is None

    def armed(self):
        pass

    def wants_more(self):
        return True

    def take(self, frame, cooked):
        pass

    def poll(self):
        pass

    def close(self):
        pass


class Capture(Sampler):
    """Samples settings['frames'] frames and writes them on a worker thread."""

    def __init__(self, settings):
        super().__init__(settings)
        self.frames = []  # (number, frame_ms, profiler_ms, cooked records)
        self.captured = None
        self.writer = None
        project = getattr(td, 'project', None)
        self.project_name = str(getattr(project, 'name', '') or 'untitled')
        self.fps = _cook_rate()
        print('cookgraph: reading the network of {} (at most {} ms a frame)'.format(
            settings['target'], ARM_MS))

    def armed(self):
        print('cookgraph: read {} OPs in {}; sampling {}'.format(
            len(self.network.ids), _plural(self.arm_frames, 'frame'),
            _plural(self.settings['frames'], 'frame')))

    def wants_more(self):
        return self.writer is None and len(self.frames) < self.settings['frames']

    def take(self, frame, cooked):
        if self.captured is None:
            self.captured = datetime.datetime.now(datetime.timezone.utc)
        self.frames.append((frame.number, frame.frame_ms, frame.own_ms, cooked))
        if len(self.frames) >= self.settings['frames']:
            self.write()

    def write(self):
        """Hands plain data to a worker thread; poll() reports when it is done."""
        path = self.settings['output'] or default_output_path(self.settings['target'])
        if not os.path.isabs(path):
            path = os.path.join(_project_folder(), path)
        parts = dict(project=self.project_name, target=self.settings['target'],
                     captured=self.captured, fps=self.fps, nodes=self.network.nodes,
                     frames=self.frames, ids=list(self.network.ids))
        self.summary_text = self.summary()
        self.writer = Writer(path, parts)
        self.writer.start()

    def poll(self):
        if self.writer is not None and not self.writer.is_alive():
            if self.writer.error is not None:
                raise CaptureError('cannot write {}: {}'.format(self.writer.path,
                                                                self.writer.error))
            self.done = 'wrote {} ({}); {}'.format(self.writer.path, self.summary_text,
                                                   open_hint(self.settings['page']))

    def summary(self):
        nodes = self.network.nodes
        cooked = len({r[0] for f in self.frames for r in f[3]})
        edges = sum(len(n.get('inputs', ())) + len(n.get('refs', ())) +
                    len(n.get('feedback', ())) for n in nodes)
        own = [f[2] for f in self.frames]
        text = ('{} ops, {} edges, {} frames, {} ops cooked; the exporter took {:.3f} ms a '
                'frame (max {:.3f}) and read the network in {}').format(
                    len(nodes), edges, len(self.frames), cooked, sum(own) / len(own), max(own),
                    _plural(self.arm_frames, 'frame'))
        notes = self.network.notes.describe()
        return text + ('; ' + notes if notes else '')

    def reading(self):
        return self.writer is None

    def missed(self, abs_frame, step):
        return self.writer is None and super().missed(abs_frame, step)


class Writer(threading.Thread):
    """Builds and writes the snapshot from plain Python data, off the main thread."""

    def __init__(self, path, parts):
        super().__init__(name='cookgraph writer', daemon=True)
        self.path = path
        self.parts = parts
        self.error = None

    def run(self):
        try:
            write_atomically(self.path, document(**self.parts))
        except Exception as e:  # reported on the main thread
            self.error = e


def document(project, target, captured, fps, nodes, frames, ids):
    """The snapshot as plain Python data (docs/formats.md#native-snapshot-format)."""
    base = project[:-4] if project.endswith('.toe') else project
    doc = {
        'cookgraph': FORMAT_VERSION,
        'engine': 'touchdesigner',
        'name': '{} {}'.format(base, target),
        'source': [base + '.toe', 'cookgraph_export.py'],
    }
    if captured is not None:
        doc['captured'] = captured.strftime('%Y-%m-%dT%H:%M:%SZ')
    if fps:
        doc['fps'] = _number(fps)
        doc['frame_budget_ms'] = 1000.0 / fps
    doc['nodes'] = nodes
    count = len(frames)
    columns = {}  # index -> [cook, gpu, cpu_mem, gpu_mem, cooks], one value per frame
    for k, (_, _, _, cooked) in enumerate(frames):
        for i, cook, gpu, cpu_mem, gpu_mem, cooks in cooked:
            c = columns.get(i)
            if c is None:
                c = columns[i] = [[None] * count, [None] * count, [None] * count,
                                  [None] * count, [0] * count]
            c[0][k], c[1][k], c[2][k], c[3][k], c[4][k] = cook, gpu, cpu_mem, gpu_mem, cooks
    out = {'index': [_frame_number(f[0]) for f in frames]}
    if any(f[1] is not None for f in frames):
        out['frame_ms'] = [f[1] for f in frames]
    out['profiler_ms'] = [f[2] for f in frames]
    series = {}
    for i in sorted(columns, key=lambda i: ids[i]):
        cook, gpu, cpu_mem, gpu_mem, cooks = columns[i]
        if all(v is None for v in cook):
            continue  # only bad readings
        s = {'cook_ms': cook}
        # GPU time and memory are left out when they are zero in every frame
        # (a CHOP has no GPU work): an all-zero series says nothing.
        for key, values in (('gpu_ms', gpu), ('cpu_mem_mb', cpu_mem), ('gpu_mem_mb', gpu_mem)):
            if any(v for v in values):
                s[key] = values
        s['cooks'] = cooks
        series[ids[i]] = s
    out['series'] = series
    doc['frames'] = out
    return doc


class Live(Sampler):
    """Streams each sampled frame's cooks to `cookgraph watch` and forgets them."""

    def __init__(self, settings):
        super().__init__(settings)
        form = settings['live_form']
        if form not in ('json', 'osc'):
            raise CaptureError("live_form must be 'json' or 'osc' (it is {!r})".format(form))
        self.url = settings['live']
        self.host, self.port = parse_udp_url(self.url)
        self.form = form
        self.max_datagram = int(settings['max_datagram'])
        info = socket.getaddrinfo(self.host, self.port, 0, socket.SOCK_DGRAM)[0]
        self.address = info[4]
        self.sock = socket.socket(info[0], socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.sent = 0
        self.send_errors = 0

    def armed(self):
        print('cookgraph: streaming {} OPs of {} to {} ({})'.format(
            len(self.network.ids), self.settings['target'], self.url, self.form))

    def take(self, frame, cooked):
        ids = self.network.ids
        nodes = [(ids[i], cook, gpu, cooks) for i, cook, gpu, _, _, cooks in cooked
                 if cook is not None]
        encode = osc_frame if self.form == 'osc' else json_frame
        for datagram in encode(_frame_number(frame.number), frame.frame_ms, nodes,
                               self.max_datagram):
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


# --------------------------------------------------------------------------
# One node per OP.


def describe_node(o, node_id, family, index, target_path, notes):
    """A generator (one step per parameter) returning the snapshot node of OP o;
    index maps the path of every node to its position."""
    node = {'id': node_id, 'type': op_type(o, family, notes), 'family': family}
    parent = o.parent()
    if parent is not None:
        node['parent'] = parent.path
    yield
    params, refs, feedback = {}, [], []
    is_feedback_top = node['type'] == 'feedbackTOP'
    for par in o.pars():
        read_parameter(par, is_feedback_top, params, refs, feedback, notes)
        yield
    if params:
        node['params'] = params
    if is_output(o, node['type'], parent, target_path):
        node['output'] = True
    inputs = [i.path for i in o.inputs if i is not None]
    for name, paths in (('inputs', inputs), ('refs', [r.path for r in refs]),
                        ('feedback', [f.path for f in feedback])):
        kept = []
        for p in paths:
            if p not in index:
                notes.count('outside', 1, '{} -> {}'.format(p, node_id))
            elif p not in kept:
                kept.append(p)
        if kept:
            node[name] = kept
    yield
    return node


def op_type(o, family, notes):
    # opType in current builds; OPType in older ones.
    for name in ('opType', 'OPType'):
        value = getattr(o, name, None)
        if isinstance(value, str) and value:
            return value
    notes.count('types', 1, o.path)
    return family


# A COMP's Out OPs are its outputs: at TARGET's top level, what the network
# gives the rest of the project; deeper down, what their COMP passes on.
_OUT_TYPES = frozenset(('outTOP', 'outCHOP', 'outSOP', 'outDAT', 'outMAT', 'outPOP'))


def is_output(o, optype, parent, target_path):
    """Out OPs at TARGET's top level, Window COMPs, and OPs that render or export.
    A display or viewer flag alone only shows an OP in the editor: not an output."""
    if optype in _OUT_TYPES:
        return parent is not None and parent.path == target_path
    if optype == 'windowCOMP':
        return True
    # Flags are plain members; reading them cooks nothing. `export` exists on
    # CHOPs and DATs only: exporting drives parameters, so its cooks are used.
    return bool(getattr(o, 'render', False)) or bool(getattr(o, 'export', False))


def link_nested_outs(nodes, index, target_path):
    """An Out OP inside a COMP below TARGET feeds that COMP's output: a data edge."""
    for node in nodes:
        parent = node.get('parent')
        if node['type'] in _OUT_TYPES and parent != target_path and parent in index:
            _feed(nodes[index[parent]], node['id'])


def _feed(owner, source_id):
    """Adds a data edge source -> owner."""
    inputs = owner.setdefault('inputs', [])
    if source_id not in inputs:
        inputs.append(source_id)


def link_panels(nodes, index, panels):
    """A panel inside a panel is drawn as part of it: a data edge to its parent."""
    for i, node in enumerate(nodes):
        parent = node.get('parent')
        if panels[i] and parent in index and panels[index[parent]]:
            _feed(nodes[index[parent]], node['id'])


def mark_shown(nodes, index, target_path, notes):
    """Marks what every Window COMP shows (its winop parameter; /perform is the
    perform-mode window) as outputs: the OP, and a shown COMP's background TOP."""
    root = td.op('/')
    windows = root.findChildren(type=td.windowCOMP, includeUtility=False) if root else []
    yield
    for window in windows:
        for par in window.pars('winop'):
            for shown in parameter_targets(par, par.mode, notes):
                path = shown.path
                if path in index:
                    nodes[index[path]]['output'] = True
                if path in index or path == target_path:
                    for top in shown.pars('top'):  # a panel COMP's background TOP
                        for background in parameter_targets(top, top.mode, notes):
                            if background.path in index:
                                nodes[index[background.path]]['output'] = True
        yield


def read_parameter(par, is_feedback_top, params, refs, feedback, notes):
    """Adds one parameter's text (when not default) and the OPs it reads."""
    if par.isPulse or par.isMomentary:
        return  # no value to keep, and a pulse reads no other OP
    mode = par.mode
    if not par.isDefault:
        params[par.name] = parameter_text(par, mode)
    targets = parameter_targets(par, mode, notes)
    if is_feedback_top and par.name == 'top':
        feedback.extend(targets)  # reads the target's previous frame
    else:
        refs.extend(targets)


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
        'unplaced': 'cooks in frames the exporter did not read (not in any sample)',
        'types': 'OPs with neither opType nor OPType (family written as type)',
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


def _plural(n, word):
    return '{} {}{}'.format(n, word, '' if n == 1 else 's')


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
