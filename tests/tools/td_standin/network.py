"""The planted network the exporter test samples, built in the td stand-in.

/project1 is the target COMP. What is planted, and what the exporter must
make of it:

  lfo1 -> math1 <- script1            math1 exports to level1.brightness1
  noise1 -> feedback1 -> level1 -> comp1 -> out1 and final
  noise1, text1, render1, fx -> comp1 comp1 -> feedback1 is the Feedback TOP's
                                      target: a feedback edge closing a loop
  noise1 -> unused1                   cooks every frame, reaches no output: dead
  noise1 -> preview1                  display flag only: dead
  noise1 -> fx: fx/in1 -> fx/blur2 -> fx/out1, which feeds fx's output

  - outputs: /perform (the perform-mode Window COMP) shows /project1, whose
    background TOP is out1; /window1 shows panel1; final is an Out TOP at the
    top level; fx/out1 is an Out TOP one level down (an edge to fx, not an
    output); preview1's display flag makes nothing an output.
  - timer1 cooks at the start of every frame, before the Execute DATs'
    frame start callbacks: read with the frame it cooked in, not the one before.
  - fx's children cook in even frames only; archive's never: COMPs whose
    children did not cook. note1 is a utility OP (an annotation): no node.

  - noise1.period is an expression reading op('lfo1') and op('speed1'): two
    ref edges; noise1.seed reads /other/seedsource, outside the target: no edge.
  - speed1.value0 is bound to ctrl.par.Speed: a ref edge ctrl -> speed1.
  - level1.brightness1 is exported from math1: a ref edge math1 -> level1;
    level1.gamma1 reads parent().par.Gamma, the target itself: no edge.
  - counter1 reads its own channel: a self-loop (and it is dead).
  - render1 reads camera cam1 (the default value, still a reference) and
    geometry geo1; lights '*' is a pattern the exporter does not follow.
  - geo1/sphere1 reads parent(): a ref edge geo1 -> geo1/sphere1.
  - text1 cooks every third frame; script1 cooks twice every frame; idle1,
    ctrl, cam1 and script1_callbacks never cook; comp1's GPU memory changes.
  - panel1/button1 is a panel inside the panel /window1 shows: drawn as part
    of it, an edge to panel1, not dead.
  - panel1 cooks only while the frame is drawn (after the frame end
    callbacks), every fourth frame; out1 cooks in every frame and again while
    every third frame is drawn (two cooks, the drawing one's time kept).
  - unused1 is deleted at the start of frame 30: null from there on.
  - lfo1 and math1 have the export flag, geo1 the render flag, sphere1 the
    display and render flags: outputs.
  - the Execute DAT running the exporter sits inside the target and is left out.

The schedule is a pure function of (path, frame): the test computes the
expected statistics from it, never from the exporter's output.
"""

import td

TARGET = '/project1'
EXPORTER_DAT = '/project1/cookgraph_export'

RES_W, RES_H = 1920, 1080


def build():
    """Builds the network under td.root; returns {path: OP} of every OP."""
    td._reset()
    other = td.COMP(td.root, 'other', 'baseCOMP')
    td.CHOP(other, 'seedsource', 'constantCHOP')
    p = td.COMP(td.root, 'project1', 'containerCOMP',
                pars=[dict(name='Gamma', default=1.0, value=1.2),
                      dict(name='top', default='', value='out1', is_op=True)])
    td.windowCOMP(td.root, 'perform', winop=TARGET)
    td.windowCOMP(td.root, 'window1', winop=TARGET + '/panel1')

    ctrl = td.COMP(p, 'ctrl', 'baseCOMP', pars=[dict(name='Speed', default=1.0, value=2.5)])
    lfo1 = td.CHOP(p, 'lfo1', 'lfoCHOP', export=True, pars=[
        dict(name='type', default='sine'),
        dict(name='frequency', default=1.0, value=0.5),
    ])
    td.CHOP(p, 'speed1', 'constantCHOP', pars=[
        dict(name='name0', default='chan1', value='speed'),
        dict(name='value0', default=0.0, mode=td.ParMode.BIND,
             bind_expr="op('ctrl').par.Speed", bind_master=ctrl.par.Speed),
    ])
    noise1 = td.TOP(p, 'noise1', 'noiseTOP', pars=[
        dict(name='type', default='sparse'),
        dict(name='period', default=1.0, mode=td.ParMode.EXPRESSION,
             expr="op('lfo1')['chan1'] * 2 + op('speed1')['speed']"),
        dict(name='seed', default=1.0, mode=td.ParMode.EXPRESSION,
             expr="op('/other/seedsource')['v']"),
        dict(name='monochrome', default=False, value=True, is_toggle=True),
        dict(name='resolutionw', default=256, value=RES_W),
        dict(name='resolutionh', default=256, value=RES_H),
    ])
    feedback1 = td.TOP(p, 'feedback1', 'feedbackTOP', pars=[
        dict(name='top', default='', value='comp1', is_op=True),
        dict(name='reset', default=False, is_toggle=True),
        dict(name='resetpulse', default=None, is_pulse=True),
    ])
    level1 = td.TOP(p, 'level1', 'levelTOP', pars=[
        dict(name='brightness1', default=1.0, mode=td.ParMode.EXPORT),
        dict(name='gamma1', default=1.0, mode=td.ParMode.EXPRESSION,
             expr='parent().par.Gamma'),
        dict(name='opacity', default=1.0),
    ])
    comp1 = td.TOP(p, 'comp1', 'compositeTOP', pars=[
        dict(name='operand', default='over', value='add'),
        dict(name='opacity', default=1.0, mode=td.ParMode.EXPRESSION,
             expr='op.Controls.par.Mix'),  # a global shortcut: not followed
    ])
    text1 = td.TOP(p, 'text1', 'textTOP', pars=[dict(name='text', default='', value='hello')])
    td.COMP(p, 'cam1', 'cameraCOMP')
    geo1 = td.COMP(p, 'geo1', 'geometryCOMP', render=True,
                   pars=[dict(name='sx', default=1.0, value=2.0)])
    td.SOP(geo1, 'sphere1', 'sphereSOP', display=True, render=True, pars=[
        dict(name='rad', default=1.0, mode=td.ParMode.EXPRESSION, expr='parent().par.sx * 0.5'),
    ])
    render1 = td.TOP(p, 'render1', 'renderTOP', pars=[
        dict(name='camera', default='cam1', is_op=True),
        dict(name='geometry', default='*', value='geo1', is_op=True),
        dict(name='lights', default='*', is_op=True),
    ])
    out1 = td.TOP(p, 'out1', 'nullTOP', display=True)
    final = td.TOP(p, 'final', 'outTOP')
    preview1 = td.TOP(p, 'preview1', 'nullTOP', display=True)
    fx = td.COMP(p, 'fx', 'baseCOMP')
    fx_in = td.TOP(fx, 'in1', 'inTOP')
    fx_blur = td.TOP(fx, 'blur2', 'blurTOP', pars=[dict(name='size', default=1.0, value=8.0)])
    fx_out = td.TOP(fx, 'out1', 'outTOP')
    archive = td.COMP(p, 'archive', 'baseCOMP')
    old_noise = td.TOP(archive, 'noise2', 'noiseTOP')
    old_null = td.TOP(archive, 'null2', 'nullTOP')
    td.COMP(p, 'note1', 'annotateCOMP').utility = True
    td.CHOP(p, 'timer1', 'timerCHOP', export=True)
    unused1 = td.TOP(p, 'unused1', 'blurTOP', viewer=True,
                     pars=[dict(name='size', default=1.0, value=4.0)])
    td.DAT(p, 'script1_callbacks', 'textDAT')
    script1 = td.CHOP(p, 'script1', 'scriptCHOP', pars=[
        dict(name='callbacks', default='', value='script1_callbacks', is_op=True),
    ])
    math1 = td.CHOP(p, 'math1', 'mathCHOP', export=True,
                    pars=[dict(name='gain', default=1.0, value=0.25)])
    td.CHOP(p, 'counter1', 'countCHOP', pars=[
        dict(name='limitmax', default=1.0, mode=td.ParMode.EXPRESSION,
             expr="op('counter1')['count'] * 2"),
    ])
    td.CHOP(p, 'idle1', 'nullCHOP')
    panel1 = td.COMP(p, 'panel1', 'containerCOMP')
    td.COMP(panel1, 'button1', 'buttonCOMP')
    td.executeDAT(p, 'cookgraph_export')

    level1.par.brightness1._export_op = math1
    for source, target in ((noise1, feedback1), (feedback1, level1), (level1, comp1),
                           (noise1, comp1), (text1, comp1), (render1, comp1), (comp1, out1),
                           (noise1, unused1), (lfo1, math1), (script1, math1),
                           (comp1, final), (noise1, preview1), (fx_in, fx_blur),
                           (fx_blur, fx_out), (noise1, fx), (fx, comp1),
                           (old_noise, old_null)):
        td.connect(source, target)

    everything = {}

    def walk(comp):
        for child in comp.children:
            everything[child.path] = child
            if child.isCOMP:
                walk(child)

    walk(td.root)
    return everything


# --------------------------------------------------------------------------
# What cooks when. Frames are absTime.frame values (floats holding integers).


DELETED = {TARGET + '/unused1': 30.0}  # path -> the frame at whose start it is deleted


def schedule(path, frame):
    """[(cpu_ms, gpu_ms)] for each cook of `path` in `frame`, in cook order."""
    f = int(frame)
    name = path.rsplit('/', 1)[-1]
    if path in DELETED and frame >= DELETED[path]:
        return []
    every = {
        'seedsource': (0.05, 0.0),
        'lfo1': (0.02 + 0.005 * (f % 4), 0.0),
        'speed1': (0.01, 0.0),
        'noise1': (0.12 + 0.01 * (f % 3), 0.8 + 0.1 * (f % 5)),
        'feedback1': (0.03, 0.2 + 0.01 * (f % 2)),
        'level1': (0.04 + 0.002 * (f % 7), 0.35),
        'comp1': (0.05, 0.6 + 0.05 * (f % 4)),
        'render1': (0.09 + 0.01 * (f % 2), 1.1 + 0.2 * (f % 3)),
        'geo1': (0.04, 0.0),
        'out1': (0.01, 0.02),
        'final': (0.01, 0.0),
        'preview1': (0.02, 0.05),
        'unused1': (0.07, 0.4 + 0.03 * (f % 5)),
        'math1': (0.015 + 0.001 * (f % 6), 0.0),
        'counter1': (0.015, 0.0),
    }
    if name in every:
        return [every[name]]
    if name == 'text1':
        return [(0.5 + 0.1 * (f % 2), 0.25)] if f % 3 == 0 else []
    if name == 'script1':
        # Two cooks a frame; TouchDesigner keeps the second one's time.
        return [(0.30 + 0.01 * (f % 3), 0.0), (0.20 + 0.02 * (f % 2), 0.0)]
    if name == 'sphere1':
        return [(0.08, 0.0)] if f % 7 == 0 else []
    if path.startswith(TARGET + '/fx/'):
        return [(0.02 + 0.01 * ('blur' in name), 0.3 * ('blur' in name))] if f % 2 == 0 else []
    return []  # ctrl, cam1, idle1, script1_callbacks, the Execute DAT


def early(path, frame):
    """Cooks at the start of a frame, before the Execute DATs' callbacks: timer1."""
    if path == TARGET + '/timer1':
        return [(0.04 + 0.01 * (int(frame) % 3), 0.0)]
    return []


def late(path, frame):
    """Cooks while the frame is drawn: panel1 every fourth frame, out1 every third."""
    if path == TARGET + '/panel1' and int(frame) % 4 == 0:
        return [(0.3, 0.1)]
    if path == TARGET + '/panel1/button1' and int(frame) % 4 == 0:
        return [(0.05, 0.01)]
    if path == TARGET + '/out1' and int(frame) % 3 == 0:
        return [(0.015, 0.03)]
    return []


def memory(path, frame):
    """(cpu_bytes, gpu_bytes) an OP holds after cooking in `frame`."""
    f = int(frame)
    name = path.rsplit('/', 1)[-1]
    family_bytes = {
        'noise1': (0, RES_W * RES_H * 4),
        'feedback1': (0, RES_W * RES_H * 4),
        'level1': (0, RES_W * RES_H * 4),
        'comp1': (0, RES_W * RES_H * (4 if f % 2 else 8)),  # changes frame to frame
        'render1': (0, RES_W * RES_H * 8),
        'text1': (0, 512 * 512 * 4),
        'unused1': (0, RES_W * RES_H * 4),
        'out1': (0, RES_W * RES_H * 4),
        'sphere1': (98304, 0),
        'blur2': (0, RES_W * RES_H * 4),
        'preview1': (0, RES_W * RES_H * 4),
    }
    if name in family_bytes:
        return family_bytes[name]
    return (4096 + 16 * (f % 3), 0)  # CHOPs and COMPs: a little CPU memory


def overhead_ms(frame):
    """CPU time of a frame spent outside the OPs' cooks (drawing, Python, ...)."""
    return 1.5 + 0.25 * (int(frame) % 4)


# --------------------------------------------------------------------------
# The structure the exporter must find.


def p(name):
    return TARGET + '/' + name


NODES = sorted(p(n) for n in (
    'ctrl', 'lfo1', 'speed1', 'noise1', 'feedback1', 'level1', 'comp1', 'text1', 'cam1',
    'geo1', 'geo1/sphere1', 'render1', 'out1', 'unused1', 'script1_callbacks', 'script1',
    'math1', 'counter1', 'idle1', 'panel1', 'panel1/button1', 'final', 'preview1', 'fx', 'fx/in1', 'fx/blur2',
    'fx/out1', 'archive', 'archive/noise2', 'archive/null2', 'timer1'))

EDGES = sorted([
    (p('noise1'), p('feedback1'), 'data'),
    (p('feedback1'), p('level1'), 'data'),
    (p('level1'), p('comp1'), 'data'),
    (p('noise1'), p('comp1'), 'data'),
    (p('text1'), p('comp1'), 'data'),
    (p('render1'), p('comp1'), 'data'),
    (p('comp1'), p('out1'), 'data'),
    (p('noise1'), p('unused1'), 'data'),
    (p('lfo1'), p('math1'), 'data'),
    (p('script1'), p('math1'), 'data'),
    (p('comp1'), p('final'), 'data'),
    (p('noise1'), p('preview1'), 'data'),
    (p('fx/in1'), p('fx/blur2'), 'data'),
    (p('fx/blur2'), p('fx/out1'), 'data'),
    (p('fx/out1'), p('fx'), 'data'),
    (p('noise1'), p('fx'), 'data'),
    (p('fx'), p('comp1'), 'data'),
    (p('archive/noise2'), p('archive/null2'), 'data'),
    (p('panel1/button1'), p('panel1'), 'data'),
    (p('lfo1'), p('noise1'), 'ref'),
    (p('speed1'), p('noise1'), 'ref'),
    (p('ctrl'), p('speed1'), 'ref'),
    (p('math1'), p('level1'), 'ref'),
    (p('counter1'), p('counter1'), 'ref'),
    (p('cam1'), p('render1'), 'ref'),
    (p('geo1'), p('render1'), 'ref'),
    (p('geo1'), p('geo1/sphere1'), 'ref'),
    (p('script1_callbacks'), p('script1'), 'ref'),
    (p('comp1'), p('feedback1'), 'feedback'),
])

OUTPUTS = sorted(p(n) for n in ('out1', 'final', 'lfo1', 'math1', 'geo1', 'geo1/sphere1',
                                 'panel1', 'timer1'))
DEAD = sorted(p(n) for n in ('unused1', 'counter1', 'preview1'))

# (kind, nodes) as `cookgraph graph --format json` reports loops.
LOOPS = sorted([
    ('feedback', tuple(sorted(p(n) for n in ('feedback1', 'level1', 'comp1')))),
    ('self-loop', (p('counter1'),)),
])

# Non-default parameters, in parameter order, as the parameter dialog shows them.
PARAMS = {
    p('ctrl'): {'Speed': '2.5'},
    p('lfo1'): {'frequency': '0.5'},
    p('speed1'): {'name0': 'speed', 'value0': "op('ctrl').par.Speed"},
    p('noise1'): {
        'period': "op('lfo1')['chan1'] * 2 + op('speed1')['speed']",
        'seed': "op('/other/seedsource')['v']",
        'monochrome': 'on',
        'resolutionw': '1920',
        'resolutionh': '1080',
    },
    p('feedback1'): {'top': 'comp1'},
    p('level1'): {'brightness1': p('math1'), 'gamma1': 'parent().par.Gamma'},
    p('comp1'): {'operand': 'add', 'opacity': 'op.Controls.par.Mix'},
    p('text1'): {'text': 'hello'},
    p('geo1'): {'sx': '2'},
    p('geo1/sphere1'): {'rad': 'parent().par.sx * 0.5'},
    p('render1'): {'geometry': 'geo1'},
    p('unused1'): {'size': '4'},
    p('script1'): {'callbacks': 'script1_callbacks'},
    p('math1'): {'gain': '0.25'},
    p('fx/blur2'): {'size': '8'},
    p('counter1'): {'limitmax': "op('counter1')['count'] * 2"},
}
