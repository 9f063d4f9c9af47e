// tile-webgpu-run.mjs - run WGSL compute kernels through Dawn for Node.
//
// The `webgpu` execution backend of libTileExec writes a job directory and
// runs this script on it; the script is the only part of Tile that talks to
// WebGPU. It is not a test harness: everything it does comes from the job,
// which the executor builds from the artifact's launch descriptions.
//
//   node tile-webgpu-run.mjs --probe        describe the adapter, exit 0 if usable
//   node tile-webgpu-run.mjs --validate F   check WGSL file F (line:col messages)
//   node tile-webgpu-run.mjs JOBDIR         run JOBDIR/job.json
//
// job.json: { "shader": "shader.wgsl",
//             "buffers": [{ "file": "buf0.bin", "bytes": 4096, "writable": true }],
//             "kernels": [{ "entry": "tile_f_kernel0", "grid": [x, y, z],
//                           "bindings": [{ "binding": 0, "buffer": 0 },
//                                        { "binding": 3, "uniform": "uni0.bin" }] }] }
// Kernels run in order on one device; afterwards every writable buffer is
// written back to out<i>.bin beside its input.
//
// The adapter: TILE_WEBGPU_ADAPTER=vulkan or opengles, or by default Vulkan
// when a Vulkan driver is named (VK_ICD_FILENAMES, or SwiftShader from
// Debian's chromium package), else OpenGL ES in compatibility mode (Mesa's
// llvmpipe with EGL_PLATFORM=surfaceless).

import fs from 'node:fs';
import path from 'node:path';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

const kSwiftShaderICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

function fail(msg) {
  process.stderr.write(`tile-webgpu-run: ${msg}\n`);
  process.exit(1);
}

async function tryAdapter(backend) {
  if (backend === 'vulkan') {
    const gpu = create(['backend=vulkan']);
    return [await gpu.requestAdapter(), 'vulkan'];
  }
  if (!process.env.EGL_PLATFORM)
    process.env.EGL_PLATFORM = 'surfaceless';
  const gpu = create(['backend=opengles']);
  return [await gpu.requestAdapter({ featureLevel: 'compatibility' }), 'opengles'];
}

async function getAdapter() {
  if (!process.env.XDG_RUNTIME_DIR) {
    const dir = path.join(process.env.TMPDIR || '/tmp', `tile-webgpu-xdg-${process.getuid()}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = dir;
  }
  const want = process.env.TILE_WEBGPU_ADAPTER;
  if (want && want !== 'vulkan' && want !== 'opengles')
    fail(`TILE_WEBGPU_ADAPTER=${want}: expected vulkan or opengles`);
  const order = [];
  if (want) {
    order.push(want);
  } else {
    if (!process.env.VK_ICD_FILENAMES && fs.existsSync(kSwiftShaderICD))
      process.env.VK_ICD_FILENAMES = kSwiftShaderICD;
    if (process.env.VK_ICD_FILENAMES)
      order.push('vulkan');
    order.push('opengles');
  }
  for (const backend of order) {
    const [adapter, name] = await tryAdapter(backend);
    if (adapter)
      return [adapter, name];
  }
  fail(`no WebGPU adapter (tried ${order.join(', ')}); install Mesa's EGL/GLES ` +
       `drivers (libegl-mesa0, libgles2) or chromium for SwiftShader`);
}

function describe(adapter, backend) {
  const i = adapter.info;
  const what = [i.vendor, i.architecture, i.device, i.description]
      .filter((s) => s).join(' ').trim() || 'unknown device';
  const f16 = adapter.features.has('shader-f16') ? 'shader-f16' : 'no shader-f16';
  return `${what} (${backend === "opengles" ? "OpenGL ES, compatibility mode" : backend}; ${f16}; ` +
         `${adapter.limits.maxComputeWorkgroupStorageSize} B workgroup storage, ` +
         `${adapter.limits.maxComputeInvocationsPerWorkgroup} invocations)`;
}

async function getDevice(adapter, needF16) {
  if (needF16 && !adapter.features.has('shader-f16'))
    fail(`the shader enables f16, but the adapter has no 'shader-f16' feature`);
  // Everything a kernel may need up to what the adapter offers.
  const requiredLimits = {};
  for (const k of ['maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup',
                   'maxComputeWorkgroupSizeX', 'maxStorageBuffersPerShaderStage',
                   'maxStorageBufferBindingSize', 'maxBufferSize',
                   'maxComputeWorkgroupsPerDimension'])
    requiredLimits[k] = adapter.limits[k];
  const device = await adapter.requestDevice({
    requiredFeatures: needF16 ? ['shader-f16'] : [],
    requiredLimits,
  });
  device.addEventListener('uncapturederror', (e) => fail(`WebGPU error: ${e.error.message}`));
  return device;
}

async function compile(device, code, file) {
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  let errors = 0;
  for (const m of info.messages) {
    process.stderr.write(`${file}:${m.lineNum}:${m.linePos}: ${m.type}: ${m.message}\n`);
    if (m.type === 'error')
      ++errors;
  }
  if (errors)
    fail(`${file}: the WGSL does not validate (${errors} error${errors > 1 ? 's' : ''})`);
  return module;
}

async function runJob(dir) {
  const job = JSON.parse(fs.readFileSync(path.join(dir, 'job.json'), 'utf8'));
  const code = fs.readFileSync(path.join(dir, job.shader), 'utf8');
  const [adapter] = await getAdapter();
  const device = await getDevice(adapter, /^\s*enable\s+f16\s*;/m.test(code));
  const module = await compile(device, code, job.shader);

  const buffers = job.buffers.map((b) => {
    const size = Math.max(4, Math.ceil(b.bytes / 4) * 4);
    if (size > device.limits.maxStorageBufferBindingSize)
      fail(`buffer ${b.file} has ${b.bytes} bytes; the device binds at most ` +
           `${device.limits.maxStorageBufferBindingSize}`);
    const buf = device.createBuffer({
      size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    const data = fs.readFileSync(path.join(dir, b.file));
    const padded = new Uint8Array(size);
    padded.set(data.subarray(0, Math.min(data.length, size)));
    device.queue.writeBuffer(buf, 0, padded);
    return buf;
  });

  device.pushErrorScope('validation');
  const encoder = device.createCommandEncoder();
  for (const k of job.kernels) {
    const pipeline = device.createComputePipeline({
      layout: 'auto', compute: { module, entryPoint: k.entry },
    });
    const entries = k.bindings.map((b) => {
      if (b.uniform !== undefined) {
        const data = fs.readFileSync(path.join(dir, b.uniform));
        const ub = device.createBuffer({
          size: Math.max(16, data.length), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
        });
        device.queue.writeBuffer(ub, 0, data);
        return { binding: b.binding, resource: { buffer: ub } };
      }
      return { binding: b.binding, resource: { buffer: buffers[b.buffer] } };
    });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(k.grid[0], k.grid[1], k.grid[2]);
    pass.end();
  }
  const readbacks = [];
  job.buffers.forEach((b, i) => {
    if (!b.writable)
      return;
    const rb = device.createBuffer({
      size: buffers[i].size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    encoder.copyBufferToBuffer(buffers[i], 0, rb, 0, buffers[i].size);
    readbacks.push([i, rb]);
  });
  device.queue.submit([encoder.finish()]);
  const err = await device.popErrorScope();
  if (err)
    fail(`WebGPU validation error: ${err.message}`);
  for (const [i, rb] of readbacks) {
    await rb.mapAsync(GPUMapMode.READ);
    const bytes = new Uint8Array(rb.getMappedRange()).slice(0, job.buffers[i].bytes);
    fs.writeFileSync(path.join(dir, `out${i}.bin`), bytes);
    rb.unmap();
  }
  device.destroy();
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--probe') {
    const [adapter, backend] = await getAdapter();
    process.stdout.write(describe(adapter, backend) + '\n');
  } else if (args[0] === '--validate' && args.length === 2) {
    const [adapter] = await getAdapter();
    const code = fs.readFileSync(args[1], 'utf8');
    const device = await getDevice(adapter, /^\s*enable\s+f16\s*;/m.test(code));
    await compile(device, code, args[1]);
    device.destroy();
  } else if (args.length === 1 && !args[0].startsWith('-')) {
    await runJob(args[0]);
  } else {
    fail('usage: tile-webgpu-run.mjs --probe | --validate FILE.wgsl | JOBDIR');
  }
  process.exit(0);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
