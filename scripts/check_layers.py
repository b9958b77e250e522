#!/usr/bin/env python3
"""Checks the driver's layering (src/<layer>/README.md, line "May include: ...").

- A file in src/A may include "B/x.h" only when B is A or a layer A's README
  names; public headers ("vknn/...") and system headers are always allowed.
- Driver headers are included by their layer-qualified path ("runtime/x.h").
- No include circle between modules (a module is x.c with x.h, in one folder).

Exit 0 and one line "layers: ok ..." when the tree follows the rules, else 1
with a line per violation. --self-test builds small trees that break each rule
and checks that each is caught.
"""
import os, re, sys, tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ALLOWED_LINE = re.compile(r'^May include:\s*(.*)$', re.M)
GENERATED = {'shaders_embedded.h', 'shaders_layout.h'}  # made by shaders/embed_shaders.py


def read_rules(src):
    rules = {}
    for layer in sorted(os.listdir(src)):
        readme = os.path.join(src, layer, 'README.md')
        if not os.path.isdir(os.path.join(src, layer)):
            continue
        if not os.path.isfile(readme):
            rules[layer] = None
            continue
        m = ALLOWED_LINE.search(open(readme).read())
        names = m.group(1).replace('nothing', '') if m else None
        rules[layer] = None if names is None else {n.strip() for n in names.split(',') if n.strip()}
    return rules


def sources(src):
    for layer in sorted(os.listdir(src)):
        folder = os.path.join(src, layer)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(('.c', '.h')):
                yield layer, name, os.path.join(folder, name)


def module_of(layer, name):
    return layer + '/' + os.path.splitext(name)[0]


def find_cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(src):
    rules = read_rules(src)
    errors = []
    for layer, allowed in rules.items():
        if allowed is None:
            errors.append('src/%s: no README.md with a "May include:" line' % layer)
    edges = {}
    files = 0
    for layer, name, path in sources(src):
        files += 1
        mod = module_of(layer, name)
        edges.setdefault(mod, set())
        for inc in INCLUDE.findall(open(path).read()):
            if inc.startswith('vknn/') or inc in GENERATED:
                continue
            if '/' not in inc:
                errors.append('src/%s/%s: include "%s" without its layer folder' % (layer, name, inc))
                continue
            target_layer = inc.split('/', 1)[0]
            if target_layer not in rules:
                continue  # not a driver header (a system or generated path)
            allowed = rules.get(layer) or set()
            if target_layer != layer and target_layer not in allowed:
                errors.append('src/%s/%s: includes "%s": %s may not include %s' %
                              (layer, name, inc, layer, target_layer))
            target = module_of(target_layer, os.path.basename(inc))
            if target != mod:
                edges[mod].add(target)
    for cycle in find_cycles(edges):
        errors.append('include circle: ' + ' <-> '.join(cycle))
    return errors, files


def self_test():
    """Each broken tree must fail, the sound one must pass."""
    def tree(files):
        root = tempfile.mkdtemp()
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        return root
    base = {
        'low/README.md': 'May include: nothing\n',
        'high/README.md': 'May include: low\n',
        'low/a.h': '#pragma once\n',
        'low/a.c': '#include "low/a.h"\n',
        'high/b.c': '#include "low/a.h"\n#include "vknn/types.h"\n',
    }
    cases = {
        'sound tree': ({}, False),
        'upward include': ({'low/a.c': '#include "high/b.h"\n', 'high/b.h': ''}, True),
        'header circle': ({'low/c.h': '#include "low/d.h"\n',
                           'low/d.h': '#include "low/c.h"\n'}, True),
        'module circle': ({'low/c.h': '', 'low/c.c': '#include "low/d.h"\n',
                           'low/d.h': '', 'low/d.c': '#include "low/c.h"\n'}, True),
        'unqualified include': ({'high/b.c': '#include "a.h"\n'}, True),
        'missing README': ({'loose/x.c': ''}, True),
    }
    failures = 0
    for name, (extra, should_fail) in cases.items():
        files = dict(base)
        files.update(extra)
        errors, _ = check(tree(files))
        if bool(errors) != should_fail:
            failures += 1
            print('self-test %s: expected %s, got %s' %
                  (name, 'a violation' if should_fail else 'none', errors or 'none'))
    print('layers self-test: %d of %d cases as expected' % (len(cases) - failures, len(cases)))
    return failures == 0


def main():
    if '--self-test' in sys.argv[1:]:
        return 0 if self_test() else 1
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
    errors, files = check(src)
    for e in errors:
        print('layers: ' + e)
    if errors:
        return 1
    print('layers: ok (%d files)' % files)
    return 0


if __name__ == '__main__':
    sys.exit(main())
