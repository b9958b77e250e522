#!/usr/bin/env python3
"""The push-constant layout check fails where it must (shaders/embed_shaders.py).

Builds a one-kernel shader folder and checks that:
  - a C struct matching the block compiles;
  - a member at another offset, a member renamed, and a struct of another
    size each fail to compile;
  - a block over 128 bytes fails the shader build itself.
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

STRUCTS = {
    'matching': ('uint32_t dims[4]; uint32_t count; float scale; float alpha[3];', True),
    'member moved': ('uint32_t dims[4]; float scale; uint32_t count; float alpha[3];', False),
    'member renamed': ('uint32_t dims[4]; uint32_t n; float scale; float alpha[3];', False),
    'other size': ('uint32_t dims[4]; uint32_t count; float scale; float alpha[4];', False),
}


def build_shaders(tools, folder, kernel):
    src = os.path.join(folder, 'src')
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, 'probe.comp'), 'w') as f:
        f.write(kernel)
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
    print('push layout checks: %s' % ('ok' if failures == 0 else '%d wrong' % failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
