// ort_record.mjs MODEL OUT MODE THREADS RUNS: runs MODEL (an .onnx file) RUNS
// times in ONNX Runtime (onnxruntime-node, CPU) with profiling on, executionMode
// MODE ("sequential" or "parallel") and THREADS intra-op threads, and moves the
// profile ONNX Runtime writes when the session is released to OUT. The input
// is "x", float32 [64, 256], the same every run. Exit 0 with OUT written, 1
// with a one-line reason on stderr.
import {createRequire} from 'node:module';
import {copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {tmpdir} from 'node:os';

const [model, out, mode, threads, runs] = process.argv.slice(2);
// onnxruntime-node as tests/ort/setup.sh installs it.
const require = createRequire(new URL('../ort/package.json', import.meta.url));
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error(`ort_record.mjs: onnxruntime-node is not installed (${e.code}); tests/ort/setup.sh installs it`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'ort-record-'));
try {
  const session = await ort.InferenceSession.create(model, {
    enableProfiling: true, profileFilePrefix: join(work, 'profile'), executionMode: mode,
    intraOpNumThreads: Number(threads), interOpNumThreads: 2});
  const x = new ort.Tensor('float32', Float32Array.from({length: 64 * 256}, (_, i) => Math.sin(i)),
                           [64, 256]);
  for (let i = 0; i < Number(runs); ++i) await session.run({x});
  await session.release();
  const written = readdirSync(work).filter((f) => f.endsWith('.json'));
  if (written.length !== 1) throw new Error(`expected one profile in ${work}, found ${written.length}`);
  mkdirSync(dirname(out), {recursive: true});
  copyFileSync(join(work, written[0]), out);
  console.log(`ort_record.mjs: ${mode}, ${threads} intra-op thread(s), ${runs} runs, ` +
              `onnxruntime ${ort.env.versions?.common ?? '?'} -> ${out}`);
} catch (e) {
  console.error(`ort_record.mjs: ${e.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, {recursive: true, force: true});
}
