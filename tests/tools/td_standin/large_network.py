"""A 5,000-OP show for measuring the exporter's own cost in the td stand-in.

/project1 holds SCENES base COMPs of PER_SCENE OPs each (ten of them inside a
nested COMP `sub`), wired in chains: a third TOPs, the rest CHOPs and DATs.
Like a show with one scene playing, the first ACTIVE scenes cook and the
others are idle: in an active scene every other OP cooks every frame, so
ACTIVE * PER_SCENE / 2 = 500 OPs, 10% of the network, cook per frame. A COMP
whose children did not cook is what the exporter skips whole.
"""

import td

TARGET = '/project1'
EXPORTER_DAT = TARGET + '/cookgraph_export'
SCENES = 50
PER_SCENE = 100  # OPs per scene, the scene COMP and its sub COMP included
SUB = 10  # OPs inside each scene's sub COMP
ACTIVE = 10


def _family(k):
    return (td.TOP, 'levelTOP') if k % 3 == 0 else (td.CHOP, 'mathCHOP') if k % 3 == 1 else (
        td.DAT, 'selectDAT')


def build():
    """Builds the show under td.root; returns {path: OP} of every OP."""
    td._reset()
    project = td.COMP(td.root, 'project1', 'containerCOMP')
    td.windowCOMP(td.root, 'perform', winop=TARGET)
    everything = {}
    for s in range(SCENES):
        scene = td.COMP(project, 'scene{}'.format(s), 'baseCOMP')
        sub = td.COMP(scene, 'sub', 'baseCOMP')
        everything[scene.path] = scene
        everything[sub.path] = sub
        previous = None
        # PER_SCENE - 2 OPs: the rest of the scene's count is the two COMPs.
        for k in range(PER_SCENE - 2):
            inside = sub if k < SUB else scene
            cls, optype = _family(k)
            o = cls(inside, 'op{}'.format(k), optype, pars=[
                dict(name='gain', default=1.0, value=1.0 + k % 5),
                dict(name='offset', default=0.0),
                dict(name='active', default=True, is_toggle=True)])
            everything[o.path] = o
            if previous is not None and previous._parent is inside:
                td.connect(previous, o)
            previous = o
    dat = td.executeDAT(project, 'cookgraph_export')
    everything[dat.path] = dat
    return everything


def schedule(path, frame):
    parts = path.split('/')
    scene = int(parts[2][5:]) if len(parts) > 3 and parts[2].startswith('scene') else SCENES
    name = parts[-1]
    if scene >= ACTIVE or not name.startswith('op'):
        return []
    k = int(name[2:])
    cooks = k % 2 == 0 or k == PER_SCENE - 3  # 50 of the scene's 98 OPs
    return [(0.01 + 0.001 * (k % 7), 0.02 if k % 3 == 0 else 0.0)] if cooks else []


def memory(path, frame):
    return (1024, 4096)


def overhead_ms(frame):
    return 2.0
