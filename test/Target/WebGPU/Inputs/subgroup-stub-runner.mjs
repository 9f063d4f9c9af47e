// subgroup-stub-runner.mjs - run a job of tile-webgpu-run.mjs whose shader
// uses subgroups on an adapter that lacks the feature: the shader's
// `enable subgroups;` and subgroup_invocation_id parameter are removed and
// stand-ins for the builtins (subgroup-stub.wgsl: a subgroup of one
// invocation, which WebGPU allows) are declared after its directives, then
// the real runner (TILE_REAL_WEBGPU_RUNNER) runs the job. Only for tests.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const real = process.env.TILE_REAL_WEBGPU_RUNNER;
const args = process.argv.slice(2);
if (args.length === 1 && !args[0].startsWith('-')) {
  const job = JSON.parse(fs.readFileSync(path.join(args[0], 'job.json'), 'utf8'));
  const file = path.join(args[0], job.shader);
  const stub = fs.readFileSync(
      path.join(path.dirname(fileURLToPath(import.meta.url)), 'subgroup-stub.wgsl'), 'utf8');
  let code = fs.readFileSync(file, 'utf8');
  if (!/^enable subgroups;$/m.test(code)) {
    process.stderr.write('subgroup-stub-runner: the shader does not enable subgroups\n');
    process.exit(1);
  }
  code = code.replace(/^enable subgroups;\n/m, '')
             .replace(/, @builtin\(subgroup_invocation_id\) tile_sgid: u32/g, '')
             .replace(/^(diagnostic\(off, subgroup_uniformity\);\n)/m, `$1${stub}`);
  fs.writeFileSync(file, code);
}
const r = spawnSync(process.execPath, [real, ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
