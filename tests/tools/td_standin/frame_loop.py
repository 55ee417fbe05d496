"""TouchDesigner's frame loop, for the td stand-in (td.py).

Each frame: absTime.frame is the frame's number; every active Execute DAT with
Frame Start on gets onFrameStart(frame); the OPs cook as a schedule says (none,
one or several cooks per frame, each advancing a fake clock by its CPU time);
every active Execute DAT with Frame End on gets onFrameEnd(frame). `frame` is
the DAT's timeline frame, which loops every `timeline_length` frames like a
short timeline does, and is not absTime.frame. A frame listed in `drop_after`
is followed by a dropped frame: absTime jumps by 2 (absTime.step = 2) and
nothing cooks in the frame skipped. `early` cooks happen at the start of a
frame before the frame start callbacks, `late` cooks after the frame end
callbacks (as drawing a panel could), `deleted` OPs are destroyed at the start
of the frame given.
"""

import td


class FakeClock:
    """A monotonic clock in seconds (stands in for time.perf_counter)."""

    def __init__(self):
        self.seconds = 0.0

    def __call__(self):
        return self.seconds

    def advance_ms(self, ms):
        self.seconds += ms / 1000.0


class FrameLoop:
    """Runs frames. schedule(path, abs_frame) -> [(cpu_ms, gpu_ms), ...] per cook;
    memory(path, abs_frame) -> (cpu_bytes, gpu_bytes) after a cook;
    overhead_ms(abs_frame) -> CPU time of the frame outside the OPs' cooks."""

    def __init__(self, ops, schedule, memory, overhead_ms, clock, timeline_length=8,
                 drop_after=(), late=None, deleted=None, early=None):
        self.ops = list(ops)
        self.late = late or (lambda path, frame: [])
        self.early = early or (lambda path, frame: [])
        self.deleted = dict(deleted or {})  # path -> frame at whose start it is deleted
        self.schedule = schedule
        self.memory = memory
        self.overhead_ms = overhead_ms
        self.clock = clock
        self.timeline_length = timeline_length
        self.drop_after = set(drop_after)
        self.frames = []  # absTime.frame of every frame run, in order
        self.charged = []  # (absTime.frame, callback, ms charged to the clock during it)
        td.clock = clock

    def _live(self):
        return [o for o in self.ops if not o.__dict__.get('_deleted')]

    def _execute_dats(self):
        return [o for o in self._live() if isinstance(o, td.executeDAT) and
                (o._module is not None or o._text)]

    def _cook(self, o, cooks, frame, timeline, start, phase):
        for cpu_ms, gpu_ms in cooks:
            o.cookStartTime = (self.clock() - start) * 1000.0
            self.clock.advance_ms(cpu_ms)
            td._cook(o, cpu_ms, gpu_ms, *self.memory(o.path, frame), phase=phase)
            o.cookFrame = float(timeline)
            o.cookEndTime = (self.clock() - start) * 1000.0

    def _call(self, dat, callback, timeline):
        """Runs one callback as TouchDesigner would: td.me is the DAT, and every
        td read it makes is charged to the main-thread clock."""
        function = getattr(dat.module, callback)
        td.me = dat
        td.charging = True
        before = self.clock()
        try:
            function(timeline)
        finally:
            td.charging = False
            td.me = None
            self.charged.append((td.absTime.frame, callback, (self.clock() - before) * 1000.0))

    def run(self, count):
        for _ in range(count):
            self.run_frame()

    def run_frame(self):
        frame = td.absTime.frame
        timeline = int(frame - 1) % self.timeline_length + 1
        for o in self._live():
            if self.deleted.get(o.path) == frame:
                o.destroy()
        # Cooks TouchDesigner forces at the start of a frame, before the
        # Execute DATs' frame start callbacks (as a Perform DAT log shows them).
        begin = self.clock()
        for o in self._live():
            self._cook(o, self.early(o.path, frame), frame, timeline, begin, 'start')
        for dat in self._execute_dats():
            if dat.par.active.val and dat.par.framestart.val:
                self._call(dat, 'onFrameStart', timeline)
        start = self.clock()
        for o in self._live():
            self._cook(o, self.schedule(o.path, frame), frame, timeline, start, 'frame')
        self.clock.advance_ms(self.overhead_ms(frame))
        for dat in self._execute_dats():
            if dat.par.active.val and dat.par.frameend.val:
                self._call(dat, 'onFrameEnd', timeline)
        # Drawing: viewers, panels and windows cook what they show.
        for o in self._live():
            self._cook(o, self.late(o.path, frame), frame, timeline, start, 'drawing')
        self.frames.append(frame)
        step = 2.0 if frame in self.drop_after else 1.0
        td.absTime.step = step
        td.absTime.stepSeconds = step / td.project.cookRate
        td.absTime.frame = frame + step
        td.absTime.seconds = (td.absTime.frame - 1) / td.project.cookRate
