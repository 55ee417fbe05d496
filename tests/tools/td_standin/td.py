"""A stand-in for TouchDesigner's `td` module, for testing the exporter.

    sys.path.insert(0, 'tests/tools/td_standin'); import td

It has the part of TouchDesigner's documented Python API that
examples/touchdesigner/cookgraph_export.py uses (docs.derivative.ca: OP
Class, COMP Class, Par Class, absTime Class, Project Class, Execute DAT), and
behaves as that documentation says:

  - OPs have a path, name, family, OPType, inputs/outputs, flags (display,
    render, viewer; export on CHOPs and DATs), parameters, and the cook
    members cookAbsFrame, cpuCookTime, gpuCookTime, totalCooks, cpuMemory,
    gpuMemory. A cook sets cookAbsFrame to absTime.frame and overwrites the
    times, so an OP that did not cook this frame keeps an older frame and the
    last cook's time; cooking twice in a frame leaves the second cook's time.
  - Parameters have a mode (ParMode.CONSTANT/EXPRESSION/EXPORT/BIND), val
    (the constant only), expr, bindExpr, bindMaster, exportOP, a default and
    isDefault, and the type members isOP, isToggle, isPulse, isMomentary.
  - op() and OP.op() resolve absolute and relative paths ('..' included); an
    OP that is not a COMP has no inside, so a bare name looked up from it is
    not found; COMP.findChildren() walks every depth.
  - OP.destroy() deletes an OP: from then on it answers only `valid` (False)
    and raises tdError for anything else.

What TouchDesigner would cook to answer is recorded in `violations` instead of
being answered quietly: OP.cook(), Par.eval()/evalExpression()/evalOPs() on a
parameter that is not constant, reading a CHOP's channels, a TOP's
resolution, a DAT's text, OP.errors()/warnings(). Each reading through CHOP
data also cooks the CHOP, as TouchDesigner does when the data is stale, so
a careless exporter gets wrong counts as well as a violation.

Each behaviour follows a page of Derivative's documentation:

  - OP Class (docs.derivative.ca/OP_Class): cookAbsFrame is "last absolute
    frame at which this operator cooked"; cpuCookTime / gpuCookTime the "last
    measured cook"; totalCooks "number of times the operator has cooked"; a
    COMP's childrenCPUCookAbsFrame is "the absolute frame on which
    childrenCPUCookTime is based", the children's accumulated time "during the
    last frame" (modelled for direct children, the narrower reading).
    `opType` is the member of current builds, `OPType` of older ones: BUILD
    picks which one the OPs have ('current' or 'older'), never both, so an
    exporter that reads only one of them fails on the other build.
  - td Module (docs.derivative.ca/Td_Module): `me` is "the operator that is
    currently being executed"; the frame loop sets td.me to the Execute DAT
    while it runs that DAT's callbacks. Nothing puts `me` into a module's
    globals, which the documentation does not promise.
  - Execute DAT (docs.derivative.ca/Execute_DAT): onFrameStart / onFrameEnd
    are called at the start and end of every frame while Active and the
    toggle are on. Cook (docs.derivative.ca/Cook): OPs that feed viewers,
    panels and windows cook when those are drawn, which is after the frame
    end callbacks: frame_loop.py cooks `late` OPs then, in the same absolute
    frame.
  - OP Class `isPanel`; Panel COMP (docs.derivative.ca/Panel_COMP): a panel
    inside a panel is drawn as part of it.
  - COMP Class (docs.derivative.ca/COMP_Class): create(OPtype, name) makes an
    OP inside the COMP; findChildren(type=, name=, depth=, includeUtility=).
    DAT Class: `text` can be set; a Table DAT's cells are dat[row, col].val,
    with numRows / numCols. Window COMP (docs.derivative.ca/Window_COMP): its
    `winop` parameter is the operator it shows; /perform is the Window COMP
    of perform mode. Container COMP: `top` is its background TOP.
  - Python in TouchDesigner (docs.derivative.ca/Python, "Threads"): the td
    module is not thread-safe, so touching an OP or Par off the main thread
    is recorded in `violations`.

Every attribute read of an OP, Par, absTime or project by code outside this
module, while `charging` is on (the frame loop turns it on around the Execute
DAT callbacks), costs READ_US microseconds of the main-thread clock `clock`
(a frame_loop.FakeClock): TouchDesigner runs Python on its main thread, so
what the exporter reads is time the frame does not get. A method returning a
list costs one read per element. `reads` counts the charged reads.

Cooks are logged in `cook_log` as (absTime.frame, path, phase, cpu_ms,
gpu_ms, cpu_bytes, gpu_bytes), phase 'frame' or 'drawing': what the tests
compare the snapshot with, frame by frame.

The frame loop that advances absTime and cooks OPs is in frame_loop.py; it
uses the underscore-named helpers here (_cook, _reset), which are not part of
TouchDesigner's API.
"""

import fnmatch
import sys
import threading
import types as _types

violations = []  # (what, where): things that would have cooked in TouchDesigner
content_reads = []  # paths of DATs whose cells were read
cook_log = []  # (frame, path, phase, cpu_ms, gpu_ms, cpu_bytes, gpu_bytes)
BUILD = 'current'  # 'current': OPs have opType; 'older': OPType
READ_US = 0.25  # main-thread microseconds per charged attribute read
clock = None  # the FakeClock reads are charged to
charging = False
reads = 0
me = None  # the operator being executed (set by the frame loop)
_HERE = globals()
_MAIN = threading.main_thread()


def _charge(n, where):
    """Charges n reads by code outside this module (the caller's caller)."""
    global reads
    if threading.current_thread() is not _MAIN:
        violations.append(('td touched off the main thread', where))
    if charging and sys._getframe(2).f_globals is not _HERE:
        reads += n
        if clock is not None:
            clock.advance_ms(n * READ_US / 1000.0)


class _Charged:
    """Public attribute reads from outside this module are charged."""

    def __getattribute__(self, name):
        if name[0] != '_':
            _charge(1, type(self).__name__ + '.' + name)
        return object.__getattribute__(self, name)


class tdError(Exception):
    """TouchDesigner's exception type for invalid operations."""


class _Mode:

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'ParMode.' + self.name


class ParMode:
    CONSTANT = _Mode('CONSTANT')
    EXPRESSION = _Mode('EXPRESSION')
    EXPORT = _Mode('EXPORT')
    BIND = _Mode('BIND')


class AbsTime(_Charged):
    """absTime: frames and seconds since the process started."""

    def __init__(self):
        self.frame = 1.0  # float, as in TouchDesigner
        self.seconds = 0.0
        self.step = 1.0
        self.stepSeconds = 0.0


class Project(_Charged):

    def __init__(self):
        self.name = 'standin.toe'
        self.folder = '.'
        self.cookRate = 60.0
        self.realTime = True


absTime = AbsTime()
project = Project()


# --------------------------------------------------------------------------
# Parameters


class Par(_Charged):

    def __init__(self, owner, name, default=None, value=None, mode=None, expr='',
                 bind_expr='', bind_master=None, export_op=None, is_op=False,
                 is_toggle=False, is_pulse=False, is_momentary=False,
                 default_mode=None):
        self.owner = owner
        self.name = name
        self.default = default
        self._val = default if value is None else value
        self.defaultMode = default_mode or ParMode.CONSTANT
        self.mode = mode or self.defaultMode
        self.expr = expr
        self.defaultExpr = ''
        self.bindExpr = bind_expr
        self._bind_master = bind_master
        self._export_op = export_op
        self.isOP = is_op
        self.isToggle = is_toggle
        self.isPulse = is_pulse
        self.isMomentary = is_momentary
        self.isMenu = False
        self.isCustom = name[:1].isupper()
        self.hidden = False

    # val: "Get or set the constant mode value of the parameter only."
    @property
    def val(self):
        return self._val

    @val.setter
    def val(self, value):
        self._val = value
        self.mode = ParMode.CONSTANT

    @property
    def isDefault(self):
        """True when the parameter value, expression and mode are in their default settings."""
        return (self.mode is self.defaultMode and self._val == self.default and
                (self.mode is not ParMode.EXPRESSION or self.expr == self.defaultExpr))

    @property
    def bindMaster(self):
        return self._bind_master if self.mode is ParMode.BIND else None

    @property
    def exportOP(self):
        return self._export_op if self.mode is ParMode.EXPORT else None

    def _evaluating(self, how):
        if self.mode is not ParMode.CONSTANT:
            violations.append((how, '{}.par.{}'.format(self.owner.path, self.name)))

    def eval(self):
        self._evaluating('Par.eval')
        return self._val

    def evalExpression(self):
        self._evaluating('Par.evalExpression')
        return self._val

    def evalOPs(self):
        self._evaluating('Par.evalOPs')
        return []

    def __repr__(self):
        return 'type:Par name:{} owner:{} value:{}'.format(self.name, self.owner.path, self._val)


class ParCollection:
    """OP.par: parameters by attribute or subscript; assigning sets the constant."""

    def __init__(self, pars):
        object.__setattr__(self, '_pars', pars)

    def __getattr__(self, name):
        for p in self._pars:
            if p.name == name:
                return p
        raise AttributeError('no parameter ' + name)

    def __getitem__(self, name):
        return self.__getattr__(name)

    def __setattr__(self, name, value):
        self.__getattr__(name).val = value

    def __iter__(self):
        return iter(self._pars)


# --------------------------------------------------------------------------
# Operators


_ALWAYS = frozenset(('valid', '__dict__', '__class__'))
_LISTS = frozenset(('inputs', 'outputs', 'children'))  # a read costs one per element
_TYPE_MEMBER = {'current': 'opType', 'older': 'OPType'}


class OP:
    family = 'OP'
    isCOMP = False

    def __init__(self, parent, name, optype, pars=(), display=False, render=False,
                 viewer=False):
        self.name = name
        self._parent = parent
        self.path = '/' + name if parent is None or parent.path == '/' else parent.path + '/' + name
        self._optype = optype  # as opType or OPType, after BUILD
        self.utility = False
        self.type = optype[:-len(self.family)] if optype.endswith(self.family) else optype
        self._pars = []
        self.par = ParCollection(self._pars)
        for spec in pars:
            self.addPar(**spec)
        self.inputs = []
        self.outputs = []
        self.display = display
        self.render = render
        self.viewer = viewer
        self.bypass = False
        self.lock = False
        # Cook information: never cooked yet.
        self.cookAbsFrame = 0.0
        self.cookFrame = 0.0
        self.cpuCookTime = 0.0
        self.gpuCookTime = 0.0
        self.cookStartTime = 0.0
        self.cookEndTime = 0.0
        self.totalCooks = 0
        self.cpuMemory = 0
        self.gpuMemory = 0
        if parent is not None:
            parent._children.append(self)

    def __getattribute__(self, name):
        # A deleted OP answers nothing but `valid`, as in TouchDesigner.
        if name not in _ALWAYS and object.__getattribute__(self, '__dict__').get('_deleted'):
            raise tdError('Cannot access a deleted operator ({})'.format(name))
        if name[0] == '_':
            return object.__getattribute__(self, name)
        if name in _TYPE_MEMBER.values() and name != _TYPE_MEMBER[BUILD]:
            _charge(1, name)
            raise AttributeError("'{}' object has no attribute '{}'".format(
                type(self).__name__, name))
        value = object.__getattribute__(self, name)
        _charge(1 + (len(value) if name in _LISTS else 0), name)
        return value

    @property
    def opType(self):
        return self._optype

    @property
    def OPType(self):
        return self._optype

    @property
    def valid(self):
        return not self.__dict__.get('_deleted', False)

    def destroy(self):
        """Deletes the OP: it leaves its parent and its wires."""
        if self._parent is not None:
            self._parent._children.remove(self)
        for source in self.inputs:
            source.outputs.remove(self)
        for target in self.outputs:
            target.inputs.remove(self)
        self.__dict__['_deleted'] = True

    def addPar(self, **spec):
        p = Par(self, **spec)
        self._pars.append(p)
        return p

    def __repr__(self):
        return 'type:{} path:{}'.format(self._optype, self.path)

    # ---- structure

    def parent(self, n=1):
        node = self
        for _ in range(n):
            node = node._parent
            if node is None:
                return None
        return node

    def pars(self, *patterns):
        patterns = patterns or ('*',)
        found = [p for p in self._pars if any(fnmatch.fnmatchcase(p.name, pat)
                                              for pat in patterns)]
        _charge(len(found), self.path + '.pars()')
        return found

    def op(self, *patterns, includeUtility=False):
        for pattern in patterns:
            for found in _resolve(self, pattern):
                return found
        return None

    def ops(self, *patterns, includeUtility=False):
        found = []
        for pattern in patterns:
            for o in _resolve(self, pattern):
                if o not in found:
                    found.append(o)
        return found

    @property
    def cookedThisFrame(self):
        return self.cookAbsFrame == absTime.frame

    # ---- what would cook

    def cook(self, force=False, recurse=False, includeUtility=False):
        violations.append(('OP.cook', self.path))
        _cook(self, 0.0, 0.0)

    def errors(self, recurse=False):
        violations.append(('OP.errors', self.path))
        return ''

    def warnings(self, recurse=False):
        violations.append(('OP.warnings', self.path))
        return ''


# Panel components (docs.derivative.ca/Panel_COMP): what a window or a
# container shows, their children composited into them.
_PANEL_TYPES = frozenset(('containerCOMP', 'buttonCOMP', 'sliderCOMP', 'fieldCOMP',
                          'listCOMP', 'selectCOMP', 'tableCOMP', 'widgetCOMP', 'opviewerCOMP'))


class COMP(OP):
    family = 'COMP'
    isCOMP = True

    @property
    def isPanel(self):
        """OP Class: "True if the operator is a Panel"."""
        return self._optype in _PANEL_TYPES

    def __init__(self, parent, name, optype='baseCOMP', **kw):
        self._children = []
        super().__init__(parent, name, optype, **kw)
        # Where the children's cook time of "the last frame" was accumulated.
        self.childrenCPUCookAbsFrame = 0.0
        self.childrenCPUCookTime = 0.0
        self.childrenGPUCookAbsFrame = 0.0
        self.childrenGPUCookTime = 0.0

    @property
    def children(self):
        return list(self._children)

    def create(self, optype, name=None):
        """COMP.create(OPtype, name): a new OP of that class inside this COMP."""
        name = name or optype.__name__ + '1'
        if any(c.name == name for c in self._children):
            raise tdError('an operator named {} already exists in {}'.format(name, self.path))
        return optype(self, name)

    def findChildren(self, type=None, name=None, path=None, depth=None, maxDepth=None,
                     tags=None, includeUtility=False, key=None, **unused):
        found = []
        deepest = depth if depth is not None else maxDepth

        def walk(comp, level):
            for child in comp._children:
                if ((depth is None or level == depth) and (type is None or isinstance(child, type))
                        and (name is None or fnmatch.fnmatchcase(child.name, name))
                        and (includeUtility or not child.utility)
                        and (key is None or key(child))):
                    found.append(child)
                if child.isCOMP and (deepest is None or level < deepest):
                    walk(child, level + 1)

        walk(self, 1)
        _charge(len(found), self.path + '.findChildren()')
        return found


class CHOP(OP):
    family = 'CHOP'

    def __init__(self, *args, export=False, **kw):
        super().__init__(*args, **kw)
        self.export = export

    def _data(self, what):
        # Reading a CHOP's channels makes TouchDesigner cook it when stale.
        violations.append((what, self.path))
        if self.cookAbsFrame != absTime.frame:
            _cook(self, 0.0, 0.0)

    def __getitem__(self, name):
        self._data('CHOP channel')
        return 0.0

    def chans(self, *patterns):
        self._data('CHOP.chans')
        return []

    @property
    def numSamples(self):
        self._data('CHOP.numSamples')
        return 1


# The TOP Common page's Output Resolution menu (outputresolution; each TOP's
# page, e.g. derivative.ca/UserGuide/Blur_TOP, "Parameters - Common Page"):
# the input's resolution times a factor, or Custom Resolution, which "enables
# the Resolution parameter" (resolutionw, resolutionh). Fit and Limit are not
# modelled.
_OUTPUT_RESOLUTION = {'useinput': 1, 'eighth': 1 / 8, 'quarter': 1 / 4, 'half': 1 / 2,
                      '2x': 2, '4x': 4, '8x': 8}


class TOP(OP):
    family = 'TOP'

    def _resolution(self):
        """The output resolution as TouchDesigner works it out: a TOP with no
        input, or with Custom Resolution, is resolutionw x resolutionh; else
        its first input's resolution times the menu's factor."""
        pars = {p.name: p for p in self._pars}
        mode = pars['outputresolution'].eval() if 'outputresolution' in pars else 'useinput'
        own = (int(pars['resolutionw'].eval()) if 'resolutionw' in pars else 256,
               int(pars['resolutionh'].eval()) if 'resolutionh' in pars else 256)
        tops = [i for i in self.__dict__['inputs'] if isinstance(i, TOP)]
        if mode == 'custom' or not tops:
            return own
        if mode not in _OUTPUT_RESOLUTION:
            raise tdError('outputresolution {!r} is not modelled by the stand-in'.format(mode))
        w, h = tops[0]._resolution()
        f = _OUTPUT_RESOLUTION[mode]
        return int(w * f), int(h * f)

    # TOP Class: width and height "in pixels". Reading them cooks the TOP, so
    # an exporter must not (recorded as a violation); the Textport may.
    @property
    def width(self):
        violations.append(('TOP.width', self.path))
        return self._resolution()[0]

    @property
    def height(self):
        violations.append(('TOP.height', self.path))
        return self._resolution()[1]


class DAT(OP):
    family = 'DAT'

    def __init__(self, *args, export=False, **kw):
        super().__init__(*args, **kw)
        self.export = export
        self._text = ''

    @property
    def text(self):
        # Reading a DAT's contents cooks it when it is stale.
        violations.append(('DAT.text', self.path))
        return self._text

    @text.setter
    def text(self, value):
        self._text = str(value)


class Cell:

    def __init__(self, val):
        self.val = val


class tableDAT(DAT):
    """A Table DAT: text is tab-separated rows; dat[row, col].val reads a cell."""

    def __init__(self, parent, name, **kw):
        super().__init__(parent, name, 'tableDAT', **kw)

    def _rows(self):
        return [line.split('\t') for line in self._text.splitlines()]

    def __getitem__(self, at):
        row, col = at
        content_reads.append(self.path)
        rows = self._rows()
        if not 0 <= row < len(rows) or not 0 <= col < len(rows[row]):
            return None
        return Cell(rows[row][col])

    @property
    def numRows(self):
        return len(self._rows())

    @property
    def numCols(self):
        return max((len(r) for r in self._rows()), default=0)


class executeDAT(DAT):
    """An Execute DAT: its callbacks live in `module` (TouchDesigner's DAT.module:
    the DAT's text run as a module; a test may set it directly)."""

    def __init__(self, parent, name, module=None, **kw):
        pars = [
            dict(name='active', default=True, is_toggle=True),
            dict(name='framestart', default=False, is_toggle=True),
            dict(name='frameend', default=False, is_toggle=True),
        ]
        super().__init__(parent, name, 'executeDAT', pars=pars, **kw)
        self._module = module
        self._compiled = None

    @property
    def module(self):
        if self._module is not None:
            return self._module
        if self._compiled is None or self._compiled[0] != self._text:
            module = _types.ModuleType(self.name)
            exec(compile(self._text, self.path, 'exec'), module.__dict__)
            self._compiled = (self._text, module)
        return self._compiled[1]

    @module.setter
    def module(self, value):
        self._module = value


class windowCOMP(COMP):
    """A Window COMP: winop is the operator it shows."""

    def __init__(self, parent, name, winop='', **kw):
        super().__init__(parent, name, 'windowCOMP', pars=[
            dict(name='winop', default='', value=winop, is_op=True)], **kw)


class SOP(OP):
    family = 'SOP'


class MAT(OP):
    family = 'MAT'


def connect(source, target):
    """Wires source's output into target's next input (the network editor's drag)."""
    target.inputs.append(source)
    source.outputs.append(target)


# --------------------------------------------------------------------------
# Look-ups


root = COMP(None, '', 'rootCOMP')
root.path = '/'


def op(*patterns, includeUtility=False):
    """td.op: absolute paths, or relative to the root here."""
    _charge(1, 'op()')
    return root.op(*patterns)


def ops(*patterns, includeUtility=False):
    return root.ops(*patterns)


def _resolve(start, pattern):
    """The OPs a path pattern names, relative to the inside of `start`."""
    pattern = str(pattern)
    node = root if pattern.startswith('/') else start
    parts = [p for p in pattern.split('/') if p]
    current = [node]
    for part in parts:
        following = []
        for n in current:
            if part == '..':
                candidates = [n._parent] if n._parent is not None else []
            elif part == '.':
                candidates = [n]
            else:
                # Only a COMP has an inside: a name under any other OP is not found.
                candidates = [c for c in getattr(n, '_children', [])
                              if fnmatch.fnmatchcase(c.name, part)]
            following.extend(c for c in candidates if c not in following)
        current = following
    return current


def _cook(o, cpu_ms, gpu_ms, cpu_bytes=None, gpu_bytes=None, phase='frame'):
    """Cooks o once in the current frame, and logs it."""
    d = o.__dict__
    frame = absTime.__dict__['frame']
    d['totalCooks'] += 1
    d['cookAbsFrame'] = frame
    d['cpuCookTime'] = cpu_ms
    d['gpuCookTime'] = gpu_ms
    if cpu_bytes is not None:
        d['cpuMemory'], d['gpuMemory'] = cpu_bytes, gpu_bytes
    parent = d['_parent']
    if parent is not None:
        p = parent.__dict__
        if p['childrenCPUCookAbsFrame'] != frame:
            p['childrenCPUCookTime'] = p['childrenGPUCookTime'] = 0.0
        p['childrenCPUCookAbsFrame'] = p['childrenGPUCookAbsFrame'] = frame
        p['childrenCPUCookTime'] += cpu_ms
        p['childrenGPUCookTime'] += gpu_ms
    cook_log.append((frame, o.path, phase, cpu_ms, gpu_ms, d['cpuMemory'], d['gpuMemory']))


def _reset():
    """A fresh process: no OPs, frame 1, nothing recorded."""
    global BUILD, charging, reads, me
    root._children.clear()
    violations.clear()
    content_reads.clear()
    cook_log.clear()
    BUILD = 'current'
    charging = False
    reads = 0
    me = None
    absTime.__init__()
    project.__init__()
