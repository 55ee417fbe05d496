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

The frame loop that advances absTime and cooks OPs is in frame_loop.py; it
uses the underscore-named helpers here (_cook, _reset), which are not part of
TouchDesigner's API.
"""

import fnmatch

violations = []  # (what, where): things that would have cooked in TouchDesigner


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


class AbsTime:
    """absTime: frames and seconds since the process started."""

    def __init__(self):
        self.frame = 1.0  # float, as in TouchDesigner
        self.seconds = 0.0
        self.step = 1.0
        self.stepSeconds = 0.0


class Project:

    def __init__(self):
        self.name = 'standin.toe'
        self.folder = '.'
        self.cookRate = 60.0
        self.realTime = True


absTime = AbsTime()
project = Project()


# --------------------------------------------------------------------------
# Parameters


class Par:

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


class OP:
    family = 'OP'
    isCOMP = False

    def __init__(self, parent, name, optype, pars=(), display=False, render=False,
                 viewer=False):
        self.name = name
        self._parent = parent
        self.path = '/' + name if parent is None or parent.path == '/' else parent.path + '/' + name
        self.OPType = optype  # the member name of the builds this stands in for
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
        return object.__getattribute__(self, name)

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
        return 'type:{} path:{}'.format(self.OPType, self.path)

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
        return [p for p in self._pars if any(fnmatch.fnmatchcase(p.name, pat) for pat in patterns)]

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
        _cook(self, [(0.0, 0.0)])

    def errors(self, recurse=False):
        violations.append(('OP.errors', self.path))
        return ''

    def warnings(self, recurse=False):
        violations.append(('OP.warnings', self.path))
        return ''


class COMP(OP):
    family = 'COMP'
    isCOMP = True

    def __init__(self, parent, name, optype, **kw):
        self._children = []
        super().__init__(parent, name, optype, **kw)

    @property
    def children(self):
        return list(self._children)

    def findChildren(self, type=None, name=None, path=None, depth=None, maxDepth=None,
                     tags=None, includeUtility=False, key=None, **unused):
        found = []

        def walk(comp, level):
            for child in comp._children:
                if (depth is None or level == depth) and (name is None or fnmatch.fnmatchcase(
                        child.name, name)) and (key is None or key(child)):
                    found.append(child)
                if child.isCOMP and (maxDepth is None or level < maxDepth):
                    walk(child, level + 1)

        walk(self, 1)
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
            _cook(self, [(0.0, 0.0)])

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


class TOP(OP):
    family = 'TOP'

    @property
    def width(self):
        violations.append(('TOP.width', self.path))
        return 0

    @property
    def height(self):
        violations.append(('TOP.height', self.path))
        return 0


class DAT(OP):
    family = 'DAT'

    def __init__(self, *args, export=False, **kw):
        super().__init__(*args, **kw)
        self.export = export

    @property
    def text(self):
        violations.append(('DAT.text', self.path))
        return ''


class executeDAT(DAT):
    """An Execute DAT: its callbacks live in `module` (TouchDesigner's DAT.module)."""

    def __init__(self, parent, name, module=None, **kw):
        pars = [
            dict(name='active', default=True, is_toggle=True),
            dict(name='framestart', default=False, is_toggle=True),
            dict(name='frameend', default=False, is_toggle=True),
        ]
        super().__init__(parent, name, 'executeDAT', pars=pars, **kw)
        self.module = module


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
    """td.op: absolute paths, or relative to the root here (there is no `me`)."""
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


def _cook(o, cooks):
    """Cooks o once per (cpu_ms, gpu_ms) in cooks during the current frame."""
    for cpu_ms, gpu_ms in cooks:
        o.totalCooks += 1
        o.cookAbsFrame = absTime.frame
        o.cpuCookTime = cpu_ms
        o.gpuCookTime = gpu_ms


def _reset():
    """A fresh process: no OPs, frame 1, nothing recorded."""
    root._children.clear()
    violations.clear()
    absTime.__init__()
    project.__init__()
