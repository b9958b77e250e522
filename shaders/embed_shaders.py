#!/usr/bin/env python3
"""Builds every kernel variant and what the C side needs to agree with them.

Each shaders/*.comp names its variants in lines "// variant NAME: DEFINES".
Every variant is compiled (glslangValidator), optimised (spirv-opt), validated
(spirv-val) and embedded as a C array (--out-c, --out-h: the vknn_shader_id
enum). The unoptimised SPIR-V is reflected (spirv-cross --reflect) for the one
source of truth of the C/GLSL interface (--out-layout):
  - VKNN_PUSH_LAYOUT(family, T): static assertions that the C struct T has
    the size of the kernel family's push-constant block and every member of
    the block at the block's offset (same names). The build fails on a
    mismatch, on a block over 128 bytes (the size every device guarantees),
    and when variants of one family disagree on the block;
  - VKNN_SPEC_<FAMILY>_<NAME>: the index in vknn_dispatch.spec of each
    specialization constant (constant_id - 1; id 0 is the workgroup size),
    VKNN_SPEC_COUNT_<FAMILY> how many the family has;
  - VKNN_STATUS_BLOCK_BINDING: the binding of the RuntimeStatus block
    (runtime_status.glsl), the same in every kernel that declares it; each
    embedded kernel says whether it does (reports_status), and the driver
    binds the graph instance's status buffer there to exactly those;
  - VKNN_RUNTIME_RULES(X): the rules a kernel names when it reports a value
    out of range, read from runtime_status.glsl's lines
    "const uint RULE_NAME = N; // text" (X(N, NAME, "text") each, and
    VKNN_RUNTIME_RULE_NAME N): numbers 1 to 255, each once, every RULE_
    constant of the file in that form.
--depfile lists every file read (and the folder, so that a new kernel file
rebuilds), for ninja.
"""
import argparse, concurrent.futures, glob, json, os, re, subprocess, sys, tempfile

PUSH_LIMIT = 128
# SPIR-V capabilities every device the driver accepts has (vk_context.c requires
# 8- and 16-bit storage buffer access; every Vulkan device has ImageBuffer, the
# storage texel buffers of TEXEL_READS, with the formats R32 and RGBA32 SFLOAT,
# RGBA16 SFLOAT and RGBA8 UINT / SINT; the one-channel R16 SFLOAT and R8 UINT /
# SINT need shaderStorageImageExtendedFormats). Any other must be named by the variant
# ("requires=FEATURE") so the driver creates it only on devices with the feature.
OP_CAPABILITY = 17
BASE_CAPABILITIES = {1: 'Shader', 47: 'ImageBuffer', 4433: 'StorageBuffer16BitAccess',
                     4448: 'StorageBuffer8BitAccess'}
FEATURE_CAPABILITIES = {'shaderFloat16': {9: 'Float16'}, 'shaderInt8': {39: 'Int8'},
                        'shaderIntegerDotProduct': {6018: 'DotProductInput4x8BitPacked',
                                                    6019: 'DotProduct'},
                        'shaderFloat64': {10: 'Float64'}, 'shaderInt64': {11: 'Int64'},
                        'subgroupShuffle': {61: 'GroupNonUniform', 65: 'GroupNonUniformShuffle'},
                        'shaderStorageImageExtendedFormats': {49: 'StorageImageExtendedFormats'}}
VARIANT = re.compile(r'^// variant (\w+):(.*)$', re.M)
STATUS_BLOCK = 'RuntimeStatus'
STATUS_FILE = 'runtime_status.glsl'
RULE = re.compile(r'^const uint RULE_(\w+) = (\d+)u;[ \t]*// (.+)$')
SCALAR_BYTES = {'float': 4, 'int': 4, 'uint': 4, 'bool': 4}


def fail(message):
    sys.stderr.write('embed_shaders: ' + message + '\n')
    sys.exit(1)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(' '.join(cmd) + '\n' + r.stdout + r.stderr)


def variants(src_dir):
    out = []
    for path in sorted(glob.glob(os.path.join(src_dir, '*.comp'))):
        family = os.path.splitext(os.path.basename(path))[0]
        found = VARIANT.findall(open(path).read())
        if not found:
            fail('%s names no variant ("// variant NAME: DEFINES")' % path)
        for name, spec in found:
            words = spec.split()
            requires = [w.split('=', 1)[1] for w in words if w.startswith('requires=')]
            for feature in requires:
                if feature not in FEATURE_CAPABILITIES:
                    fail('%s: variant %s requires an unknown feature %s' % (path, name, feature))
            defines = [w for w in words if not w.startswith('requires=')]
            out.append((name, family, os.path.basename(path), defines, requires))
    names = [v[0] for v in out]
    if len(set(names)) != len(names):
        fail('a variant name is used twice: ' + ', '.join(sorted(n for n in set(names) if names.count(n) > 1)))
    return out


def member_bytes(member, types):
    base = member['type']
    if base in types:  # a struct: its members, laid out from its start
        size = max(m['offset'] + member_bytes(m, types) for m in types[base]['members'])
        for count in member.get('array', []):
            size = member.get('array_stride', size) * count
        return size
    m = re.match(r'^(u|i|b)?vec([234])$', base)
    size = 4 * int(m.group(2)) if m else SCALAR_BYTES.get(base)
    if size is None:
        fail('push-constant member %s has a type the layout check does not know: %s' % (member['name'], base))
    for count in member.get('array', []):
        size = member.get('array_stride', size) * count
    return size


def flatten(members, types, prefix, base):
    """(C member designator, offset) of every scalar, vector or array member."""
    out = []
    for m in members:
        name, offset = prefix + m['name'], base + m['offset']
        if m['type'] in types and not m.get('array'):
            out += flatten(types[m['type']]['members'], types, name + '.', offset)
        else:
            out.append((name, offset))
    return out


def reflect(args, tmp, name, raw):
    path = os.path.join(tmp, name + '.json')
    run([args.spirv_cross, raw, '--reflect', '--output', path])
    info = json.load(open(path))
    push = None
    if info.get('push_constants'):
        block = info['types'][info['push_constants'][0]['type']]
        members = flatten(block['members'], info['types'], '', 0)
        size = max(m['offset'] + member_bytes(m, info['types']) for m in block['members'])
        push = (tuple(members), size)
    spec = tuple(sorted((c['id'], c['name']) for c in info.get('specialization_constants', [])
                        if c['id'] != 0))
    return push, spec, status_binding(name, info), texel_bindings(name, info)


TEXEL_TYPES = ('imageBuffer', 'uimageBuffer', 'iimageBuffer')


def texel_bindings(name, info):
    """Bit mask of the bindings read as storage texel buffers (imageBuffer,
    or uimageBuffer / iimageBuffer for 8-bit integers, read only); the driver
    binds every other one as a storage buffer, so no other kind of descriptor
    may appear."""
    for kind in ('ubos', 'textures', 'separate_images', 'separate_samplers',
                 'acceleration_structures'):
        if info.get(kind):
            fail('%s: declares %s; kernels bind storage buffers and imageBuffers only' % (name, kind))
    mask = 0
    for t in info.get('images', []):
        if t['type'] not in TEXEL_TYPES or t.get('set', 0) != 0 or not t.get('readonly', False):
            fail('%s: %s is a %s in set %d; kernels only read texel buffers, in set 0'
                 % (name, t['name'], t['type'], t.get('set', 0)))
        mask |= 1 << t['binding']
    return mask


def status_binding(name, info):
    """The binding of the status block, or None; no other block may share it."""
    blocks = info.get('ssbos', [])
    status = [b['binding'] for b in blocks if b['name'] == STATUS_BLOCK]
    if not status:
        return None
    others = [b['name'] for b in blocks if b['name'] != STATUS_BLOCK and b['binding'] == status[0]]
    if others:
        fail('%s: %s shares binding %d with %s' % (name, others[0], status[0], STATUS_BLOCK))
    return status[0]


def check_capabilities(name, words, requires):
    """Fails when the SPIR-V declares a capability the variant did not ask for."""
    allowed = dict(BASE_CAPABILITIES)
    for feature in requires:
        allowed.update(FEATURE_CAPABILITIES[feature])
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xffff
        if count == 0:
            break
        if opcode == OP_CAPABILITY and words[i + 1] not in allowed:
            fail('%s declares SPIR-V capability %d, which devices need not have: use 16-bit '
                 'storage only (convert to float32 to compute), or name the feature in the '
                 'variant line (requires=shaderFloat16)' % (name, words[i + 1]))
        i += count


def compile_variant(args, tmp, name, source, defines, requires):
    raw = os.path.join(tmp, name + '.spv')
    opt = os.path.join(tmp, name + '.opt.spv')
    run([args.glslang, '-V', '--target-env', 'vulkan1.1', '-S', 'comp',
         '-I' + args.src_dir] + defines + ['-o', raw, os.path.join(args.src_dir, source)])
    run([args.spirv_opt, '-O', '--target-env=vulkan1.1', raw, '-o', opt])
    run([args.spirv_val, '--target-env', 'vulkan1.1', opt])
    with open(opt, 'rb') as f:
        data = f.read()
    words = [int.from_bytes(data[i:i + 4], 'little') for i in range(0, len(data), 4)]
    check_capabilities(name, words, requires)
    return words, reflect(args, tmp, name, raw)


def family_interfaces(compiled):
    """One push block and one set of specialization constants per family."""
    families = {}
    for name, family, source, (push, spec, _, _) in compiled:
        if push is not None and push[1] > PUSH_LIMIT:
            fail('%s (%s): push constants take %d bytes, over the %d every device guarantees'
                 % (name, source, push[1], PUSH_LIMIT))
        if family in families and families[family][:2] != (push, spec):
            fail('%s: variant %s declares other push constants or specialization constants than '
                 'variant %s' % (source, name, families[family][2]))
        families.setdefault(family, (push, spec, name))
    return families


def status_block_binding(compiled):
    """The one binding every kernel reporting run-time errors uses."""
    bindings = {}
    for name, _, _, (_, _, binding, _) in compiled:
        if binding is not None:
            bindings.setdefault(binding, name)
    if len(bindings) > 1:
        fail('kernels declare %s at different bindings: %s' % (STATUS_BLOCK, ', '.join(
            '%s at %d' % (n, b) for b, n in sorted(bindings.items()))))
    return next(iter(bindings), -1)


def runtime_rules(src_dir):
    """(number, NAME, text) of each rule runtime_status.glsl defines."""
    path = os.path.join(src_dir, STATUS_FILE)
    if not os.path.exists(path):
        return []
    rules, numbers = [], {}
    for line in open(path).read().splitlines():
        if not re.match(r'^\s*const\s+uint\s+RULE_', line):
            continue
        m = RULE.match(line)
        if m is None:
            fail('%s: a rule must read "const uint RULE_NAME = N; // text": %s' % (STATUS_FILE, line))
        name, number, text = m.group(1), int(m.group(2)), m.group(3).strip()
        if not 1 <= number <= 255:
            fail('%s: rule %s is %d, not in 1 to 255 (the status word\'s low 8 bits)'
                 % (STATUS_FILE, name, number))
        if number in numbers:
            fail('%s: rules %s and %s are both %d' % (STATUS_FILE, numbers[number], name, number))
        if '"' in text or '\\' in text:
            fail('%s: rule %s: the text has a quote or a backslash' % (STATUS_FILE, name))
        numbers[number] = name
        rules.append((number, name, text))
    return rules


def write_layout(path, families, status_binding_index, rules):
    out = ['/* Generated by shaders/embed_shaders.py from the compiled kernels: do not edit. */',
           '#pragma once', '#include <stddef.h>', '',
           '/* The C struct T must match the kernel family\'s push-constant block. Used once',
           ' * per family, beside its struct: the marker it defines is referenced from',
           ' * shaders_embedded.c, so a family whose struct goes unchecked fails to link. */',
           '#define VKNN_PUSH_LAYOUT(family, T) \\',
           '  VKNN_PUSH_LAYOUT_##family(T); \\',
           '  extern const int vknn_push_layout_checked_##family; \\',
           '  const int vknn_push_layout_checked_##family = 1', '']
    max_id = 0
    for family, (push, spec, _) in sorted(families.items()):
        if push is not None:
            members, size = push
            checks = ['_Static_assert(sizeof(T) == %d, "%s.comp: push constants are %d bytes")'
                      % (size, family, size)]
            for member, offset in members:
                checks.append('_Static_assert(offsetof(T, %s) == %d, "%s.comp: %s is at offset %d")'
                              % (member, offset, family, member, offset))
            out.append('#define VKNN_PUSH_LAYOUT_%s(T) \\\n  ' % family + '; \\\n  '.join(checks))
        for cid, cname in spec:
            out.append('#define VKNN_SPEC_%s_%s %d' % (family.upper(), cname, cid - 1))
            max_id = max(max_id, cid)
        out.append('#define VKNN_SPEC_COUNT_%s %d' % (family.upper(), max((c for c, _ in spec), default=0)))
        out.append('')
    out.append('/* The highest specialization constant id of any kernel. */')
    out.append('#define VKNN_SPEC_MAX_ID %d' % max_id)
    out.append('/* The binding of the status word in the kernels that report run-time errors */')
    out.append('/* (-1: none does). */')
    out.append('#define VKNN_STATUS_BLOCK_BINDING %d' % status_binding_index)
    out.append('')
    out.append('/* The rules a kernel names when it reports (runtime_status.glsl): X(number, NAME, text). */')
    out.append('#define VKNN_RUNTIME_RULES(X)' + ''.join(
        ' \\\n  X(%d, %s, "%s")' % rule for rule in rules))
    for number, name, _ in rules:
        out.append('#define VKNN_RUNTIME_RULE_%s %d' % (name, number))
    open(path, 'w').write('\n'.join(out) + '\n')


def write_embedded(c_path, h_path, compiled_words, push_families, reports_status, texels):
    with open(c_path, 'w') as c:
        c.write('/* Generated by shaders/embed_shaders.py: do not edit. */\n')
        c.write('#include "shaders_embedded.h"\n\n')
        for name, words, _ in compiled_words:
            c.write('static const uint32_t spv_%s[%d] = {\n' % (name, len(words)))
            for i in range(0, len(words), 8):
                c.write('  ' + ', '.join('0x%08x' % w for w in words[i:i + 8]) + ',\n')
            c.write('};\n\n')
        for family in push_families:
            c.write('extern const int vknn_push_layout_checked_%s;\n' % family)
        c.write('/* Each family\'s C push-constant struct is checked (VKNN_PUSH_LAYOUT). */\n')
        c.write('const int *const vknn_push_layouts_checked[] = {\n')
        for family in push_families:
            c.write('  &vknn_push_layout_checked_%s,\n' % family)
        c.write('  NULL,\n};\n\n')
        c.write('const vknn_embedded_shader vknn_embedded_shaders[VKNN_SHADER_COUNT] = {\n')
        for name, _, requires in compiled_words:
            needs = ' | '.join('VKNN_SHADER_NEEDS_%s' % f.upper() for f in requires) or '0'
            c.write('  { "%s", spv_%s, sizeof(spv_%s), %s, %s, 0x%x },\n'
                    % (name, name, name, needs, 'true' if reports_status[name] else 'false',
                       texels[name]))
        c.write('};\n')
    with open(h_path, 'w') as h:
        h.write('/* Generated by shaders/embed_shaders.py: do not edit. */\n')
        h.write('#pragma once\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n')
        h.write('typedef enum vknn_shader_id {\n')
        for name, _, _ in compiled_words:
            h.write('  VKNN_SHADER_%s,\n' % name.upper())
        h.write('  VKNN_SHADER_COUNT\n} vknn_shader_id;\n\n')
        h.write('/* Optional device features a variant needs (its "requires=" words). */\n')
        h.write('enum {\n')
        for bit, feature in enumerate(sorted(FEATURE_CAPABILITIES)):
            h.write('  VKNN_SHADER_NEEDS_%s = 1u << %d,\n' % (feature.upper(), bit))
        h.write('};\n\n')
        h.write('typedef struct vknn_embedded_shader {\n  const char *name;\n'
                '  const uint32_t *words;\n  size_t size_bytes;\n  uint32_t needs;\n'
                '  bool reports_status; /* declares the status block (runtime_status.glsl) */\n'
                '  uint32_t texel_bindings; /* bit i: binding i is a storage texel buffer */\n'
                '} vknn_embedded_shader;\n\n')
        h.write('extern const vknn_embedded_shader vknn_embedded_shaders[VKNN_SHADER_COUNT];\n')
        h.write('extern const int *const vknn_push_layouts_checked[];\n')


def write_depfile(path, target, src_dir):
    deps = [os.path.abspath(src_dir)] + sorted(
        os.path.abspath(p) for p in glob.glob(os.path.join(src_dir, '*.comp')) +
        glob.glob(os.path.join(src_dir, '*.glsl')))
    with open(path, 'w') as f:
        f.write('%s: %s\n' % (target, ' '.join(d.replace(' ', '\\ ') for d in deps)))


def main():
    p = argparse.ArgumentParser()
    for opt in ('--glslang', '--spirv-opt', '--spirv-val', '--spirv-cross', '--src-dir',
                '--out-c', '--out-h', '--out-layout', '--depfile'):
        p.add_argument(opt, required=True)
    args = p.parse_args()
    compiled, words = [], []
    found = list(variants(args.src_dir))
    # The variants compile apart (four tool runs each, hundreds of variants):
    # one thread per core, results kept in the variants' order. The build
    # waits on this step before most others, so it runs alone.
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        jobs = [pool.submit(compile_variant, args, tmp, name, source, defines, requires)
                for name, _, source, defines, requires in found]
        for (name, family, source, _, requires), job in zip(found, jobs):
            w, interface = job.result()
            words.append((name, w, requires))
            compiled.append((name, family, source, interface))
    families = family_interfaces(compiled)
    write_layout(args.out_layout, families, status_block_binding(compiled),
                 runtime_rules(args.src_dir))
    push_families = sorted(f for f, (push, _, _) in families.items() if push is not None)
    reports_status = {name: interface[2] is not None for name, _, _, interface in compiled}
    texels = {name: interface[3] for name, _, _, interface in compiled}
    write_embedded(args.out_c, args.out_h, words, push_families, reports_status, texels)
    write_depfile(args.depfile, args.out_c, args.src_dir)


if __name__ == '__main__':
    main()
