#!/usr/bin/env python3
"""Every TouchDesigner snippet of the knowledge packs, run in the stand-in.

    check_snippets.py PACK [--perturb]

PACK is advisor/packs/touchdesigner.yaml. For each rule with a fix.snippet,
the snippet is filled in for an operator of the stand-in td module
(tests/tools/td_standin/td.py, which follows Derivative's documentation) that
the rule would match, run as the Textport runs it (`op` from td), and what it
claims is checked on the operator afterwards:

- heavy-top (fix.factor 0.25, "half size is a quarter of the pixels"): the
  TOP renders a quarter of its pixels, whatever its Output Resolution menu
  said before: Use Input with stale Resolution parameters, Half, and Custom;
  the TOP feeding it is unchanged;
- cookalways-script: cookalways is off.

Also, for every snippet: it names its documentation (fix.docs), and one that
sets resolutionw or resolutionh also sets outputresolution to 'custom' (the
Common page: the Resolution parameters are used only with Custom Resolution).
A rule with a snippet this script has no check for fails: a new snippet needs
one. --perturb uses heavy-top's snippet of before this check existed (the
Resolution parameters halved, the menu left alone), which must fail. Exit 0
when every snippet does what it claims, 1 otherwise.
"""

import argparse
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import td  # noqa: E402  (the stand-in, from this folder)

OLD_HEAVY_TOP = ("op('{node}').par.resolutionw = {half:resolutionw}; "
                 "op('{node}').par.resolutionh = {half:resolutionh}")


def fill(snippet, node):
    """The pack's placeholders this check knows: {node}, {half:PARAM} (the
    parameter's value halved, as cookgraph fills it from the snapshot)."""
    def one(m):
        name = m.group(1)
        if name == 'node':
            return node.path
        if name.startswith('half:'):
            return str(int(getattr(node.par, name[5:]).eval()) // 2)
        raise ValueError(f'placeholder {{{name}}}: the stand-in check does not fill it yet')
    return re.sub(r'\{([^{}]+)\}', one, snippet)


def run(snippet, node):
    exec(fill(snippet, node), {'op': td.op})  # the Textport's namespace: td's op()


def pixels(top):
    w, h = top._resolution()
    return w * h


def heavy_top(rule, snippet):
    """A 3840x2160 source into a blurTOP, in three states of its menu."""
    factor = rule['fix']['factor']
    failures = []
    cases = {
        'Use Input, Resolution parameters at stale defaults': [],
        'Half of its input': [dict(name='outputresolution', default='useinput', value='half')],
        'Custom 3840x2160': [dict(name='outputresolution', default='useinput', value='custom'),
                             dict(name='resolutionw', default=256, value=3840),
                             dict(name='resolutionh', default=256, value=2160)],
    }
    for case, pars in cases.items():
        td._reset()
        p = td.COMP(td.root, 'project1', 'containerCOMP')
        src = td.TOP(p, 'src', 'noiseTOP', pars=[
            dict(name='outputresolution', default='useinput', value='custom'),
            dict(name='resolutionw', default=256, value=3840),
            dict(name='resolutionh', default=256, value=2160)])
        names = {d['name'] for d in pars}
        pars = pars + [dict(name=n, default=d) for n, d in
                       (('outputresolution', 'useinput'), ('resolutionw', 256),
                        ('resolutionh', 256), ('format', 'rgba8fixed'))
                       if n not in names]
        blur = td.TOP(p, 'blur1', 'blurTOP', pars=pars)
        td.connect(src, blur)
        before, source = pixels(blur), pixels(src)
        try:
            run(snippet, blur)
        except Exception as e:  # a snippet that raises in TouchDesigner fails there too
            failures.append(f'heavy-top, {case}: the snippet raises {type(e).__name__}: {e}')
            continue
        after = pixels(blur)
        if after != before * factor:
            failures.append(f'heavy-top, {case}: {before} pixels before, {after} after; the rule '
                            f'claims {factor} of them')
        if pixels(src) != source:
            failures.append(f'heavy-top, {case}: the snippet changed the source TOP')
    return failures


def cookalways_script(rule, snippet):
    td._reset()
    p = td.COMP(td.root, 'project1', 'containerCOMP')
    script = td.CHOP(p, 'script1', 'scriptCHOP', pars=[
        dict(name='cookalways', default=False, value=True, is_toggle=True),
        dict(name='callbacks', default='', value='script1_callbacks')])
    run(snippet, script)
    return [] if script.par.cookalways.eval() is False else [
        f'cookalways-script: cookalways is {script.par.cookalways.eval()!r} after the snippet']


CHECKS = {'heavy-top': heavy_top, 'cookalways-script': cookalways_script}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('pack')
    parser.add_argument('--perturb', action='store_true')
    args = parser.parse_args()
    with open(args.pack, encoding='utf-8') as f:
        pack = yaml.safe_load(f)
    failures, checked = [], []
    for rule in pack.get('rules', []):
        fix = rule.get('fix') or {}
        snippet = fix.get('snippet')
        if not snippet:
            continue
        if args.perturb and rule['id'] == 'heavy-top':
            snippet = OLD_HEAVY_TOP
        if not fix.get('docs'):
            failures.append(f"{rule['id']}: the snippet names no documentation (fix.docs)")
        if (re.search(r'par\.resolution[wh]\s*=', snippet)
                and not re.search(r"par\.outputresolution\s*=\s*'custom'", snippet)):
            failures.append(f"{rule['id']}: sets resolutionw/resolutionh without "
                            "outputresolution = 'custom' (TouchDesigner ignores them then)")
        check = CHECKS.get(rule['id'])
        if check is None:
            failures.append(f"{rule['id']}: a snippet with no check in check_snippets.py")
            continue
        failures += check(rule, snippet)
        checked.append(rule['id'])
    for line in failures:
        print(f'check_snippets: {line}')
    if not failures:
        print(f"check_snippets: {len(checked)} snippets do what they claim: {', '.join(checked)}")
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
