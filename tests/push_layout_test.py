#!/usr/bin/env python3
"""The push-constant layout check fails where it must (shaders/embed_shaders.py).

Builds a one-kernel shader folder and checks that:
  - a C struct matching the block compiles;
  - a member at another offset, a member renamed, and a struct of another
    size each fail to compile;
  - a block over 128 bytes fails the shader build itself;
  - the status block (runtime_status.glsl) is found: its binding is generated
    and the kernel is marked as reporting; kernels declaring it at different
    bindings, or another block at its binding, fail the shader build;
  - the rules runtime_status.glsl defines reach the layout header
    (VKNN_RUNTIME_RULES, VKNN_RUNTIME_RULE_*; C code using them compiles);
    a number used twice, a number past 255 and a rule without its text fail
    the shader build.
Usage: push_layout_test.py EMBED_SHADERS CC GLSLANG SPIRV_OPT SPIRV_VAL SPIRV_CROSS
"""
import os, subprocess, sys, tempfile

KERNEL = '''#version 450
// variant probe_f32: -DELEM_F32
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { float o[]; };
layout(push_constant) uniform Params {
    uvec4 dims;
    uint count;
    float scale;
    float alpha[3];
} p;
void main() { o[0] = float(p.dims.x + p.count) * p.scale * p.alpha[2]; }
'''
BIG_KERNEL = KERNEL.replace('float alpha[3];', 'float alpha[30];')


def status_kernel(variant, binding, other_binding=0):
    return ('#version 450\n// variant %s:\nlayout(local_size_x = 1) in;\n'
            'layout(std430, binding = %d) buffer Out { uint o[]; };\n'
            'layout(std430, binding = %d) buffer RuntimeStatus { uint runtime_status; };\n'
            'void main() { if (o[0] == 0u) atomicCompSwap(runtime_status, 0u, 1u); }\n'
            % (variant, other_binding, binding))


STATUS_CASES = {  # files: shader build expected to pass
    'status at 7': ({'probe.comp': KERNEL, 'check.comp': status_kernel('check', 7)}, True),
    'status at 7 and 6': ({'check.comp': status_kernel('check', 7),
                           'other.comp': status_kernel('other', 6)}, False),
    'status shares 3': ({'check.comp': status_kernel('check', 3, 3)}, False),
}

def rules_files(rules):
    '''A kernel reporting through a runtime_status.glsl that defines rules.'''
    status = ('layout(std430, binding = 7) buffer RuntimeStatus { uint runtime_status; };\n' + rules +
              'void report_invalid_value(uint code, uint rule) {\n'
              '    atomicCompSwap(runtime_status, 0u, code | rule);\n}\n')
    kernel = ('#version 450\n#extension GL_GOOGLE_include_directive : require\n// variant check:\n'
              'layout(local_size_x = 1) in;\n'
              'layout(std430, binding = 0) buffer Out { uint o[]; };\n'
              '#include "runtime_status.glsl"\n'
              'void main() { if (o[0] == 0u) report_invalid_value(256u, RULE_FIRST); }\n')
    return {'check.comp': kernel, 'runtime_status.glsl': status}


RULE_CASES = {  # runtime_status.glsl's rule lines: shader build expected to pass
    'two rules': ('const uint RULE_FIRST = 1u;  // a first rule\n'
                  'const uint RULE_SECOND = 2u; // the second, x1 > x2\n', True),
    'rule twice': ('const uint RULE_FIRST = 1u;  // a first rule\n'
                   'const uint RULE_SECOND = 1u; // the same number\n', False),
    'rule 256': ('const uint RULE_FIRST = 256u; // past the low 8 bits\n', False),
    'rule untold': ('const uint RULE_FIRST = 1u;\n', False),
}

RULES_C = '''#include "shaders_layout.h"
#define TEXT(number, name, text) [number] = text,
static const char *const texts[] = {VKNN_RUNTIME_RULES(TEXT)};
_Static_assert(VKNN_RUNTIME_RULE_SECOND == 2, "SECOND is 2");
_Static_assert(sizeof(texts) / sizeof(texts[0]) == 3, "rules 1 and 2");
const char *second(void) { return texts[VKNN_RUNTIME_RULE_SECOND]; }
'''

STRUCTS = {
    'matching': ('uint32_t dims[4]; uint32_t count; float scale; float alpha[3];', True),
    'member moved': ('uint32_t dims[4]; float scale; uint32_t count; float alpha[3];', False),
    'member renamed': ('uint32_t dims[4]; uint32_t n; float scale; float alpha[3];', False),
    'other size': ('uint32_t dims[4]; uint32_t count; float scale; float alpha[4];', False),
}


def build_shaders(tools, folder, kernel, files=None):
    src = os.path.join(folder, 'src')
    os.makedirs(src, exist_ok=True)
    for name, text in (files or {'probe.comp': kernel}).items():
        with open(os.path.join(src, name), 'w') as f:
            f.write(text)
    cmd = [sys.executable, tools['embed'], '--glslang', tools['glslang'], '--spirv-opt',
           tools['spirv_opt'], '--spirv-val', tools['spirv_val'], '--spirv-cross',
           tools['spirv_cross'], '--src-dir', src, '--out-c', os.path.join(folder, 'e.c'),
           '--out-h', os.path.join(folder, 'shaders_embedded.h'),
           '--out-layout', os.path.join(folder, 'shaders_layout.h'),
           '--depfile', os.path.join(folder, 'e.d')]
    return subprocess.run(cmd, capture_output=True, text=True)


def compiles(tools, folder, members):
    c = os.path.join(folder, 'probe.c')
    with open(c, 'w') as f:
        f.write('#include <stdint.h>\n#include "shaders_layout.h"\n'
                'typedef struct probe_params { %s } probe_params;\n'
                'VKNN_PUSH_LAYOUT(probe, probe_params);\n' % members)
    r = subprocess.run([tools['cc'], '-std=c11', '-c', c, '-I', folder, '-o', c + '.o'],
                       capture_output=True, text=True)
    return r.returncode == 0


def check_status_cases(tools, tmp):
    failures = 0
    for name, (files, ok) in STATUS_CASES.items():
        folder = os.path.join(tmp, name.replace(' ', '_'))
        r = build_shaders(tools, folder, None, files)
        built = r.returncode == 0
        if built and ok:  # the binding generated, only the checking kernel marked
            layout = open(os.path.join(folder, 'shaders_layout.h')).read()
            table = open(os.path.join(folder, 'e.c')).read()
            built = ('#define VKNN_STATUS_BLOCK_BINDING 7' in layout and
                     'sizeof(spv_check), 0, true' in table and 'sizeof(spv_probe_f32), 0, false' in table)
        print('%-18s shader build %s (expected %s)' % (name, 'passed' if built else 'failed',
                                                      'passed' if ok else 'failed'))
        failures += built != ok
    return failures


def check_rule_cases(tools, tmp):
    failures = 0
    for name, (rules, ok) in RULE_CASES.items():
        folder = os.path.join(tmp, 'rules_' + name.replace(' ', '_'))
        r = build_shaders(tools, folder, None, rules_files(rules))
        built = r.returncode == 0
        if built and ok:  # the texts generated, and usable from C
            layout = open(os.path.join(folder, 'shaders_layout.h')).read()
            c = os.path.join(folder, 'rules.c')
            with open(c, 'w') as f:
                f.write(RULES_C)
            compiled = subprocess.run([tools['cc'], '-std=c11', '-c', c, '-I', folder, '-o', c + '.o'],
                                      capture_output=True, text=True).returncode == 0
            built = compiled and 'X(2, SECOND, "the second, x1 > x2")' in layout
        print('%-18s shader build %s (expected %s)' % (name, 'passed' if built else 'failed',
                                                      'passed' if ok else 'failed'))
        failures += built != ok
    return failures


def main():
    names = ['embed', 'cc', 'glslang', 'spirv_opt', 'spirv_val', 'spirv_cross']
    tools = dict(zip(names, sys.argv[1:]))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        r = build_shaders(tools, tmp, KERNEL)
        if r.returncode != 0:
            print('the probe kernel did not build:\n' + r.stderr)
            return 1
        for name, (members, ok) in STRUCTS.items():
            got = compiles(tools, tmp, members)
            print('%-15s %s (expected %s)' % (name, 'compiles' if got else 'fails', 'compiles' if ok else 'fails'))
            failures += got != ok
        big = build_shaders(tools, os.path.join(tmp, 'big'), BIG_KERNEL)
        print('block over 128 bytes: shader build %s (expected failed)' %
              ('failed' if big.returncode != 0 else 'passed'))
        failures += big.returncode == 0
        failures += check_status_cases(tools, tmp)
        failures += check_rule_cases(tools, tmp)
    print('push layout checks: %s' % ('ok' if failures == 0 else '%d wrong' % failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
