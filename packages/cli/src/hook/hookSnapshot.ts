// A call reads its event through `process.stdin`, on a pipe a `net.Socket`: `net` is evaluated in
// the snapshot, rather than compiled and evaluated by every call (docs/benchmarks.md).
import 'node:net';
import { startupSnapshot } from 'node:v8';
import { baselineCompilerOff } from './baselineCompiler.js';
import { hookMain } from './hookMain.js';
import { warmUpHook, warmUpNode } from './hookWarmUp.js';
import { SNAPSHOT_UNUSABLE_EXIT } from './snapshotCommand.js';

/**
 * The entry of the hook's startup snapshot (`dist/bundle/hook.blob`, built by
 * scripts/build-hook-snapshot.mjs from `dist/bundle/hook-snapshot.cjs`): building it evaluates the
 * whole hook (its modules, zod's schemas) once, and each call of
 * `node --snapshot-blob hook.blob bin.js hook claude|gemini` starts from that heap instead of
 * evaluating them again; a made-up session run while it is built compiles the functions a call
 * runs ({@link warmUpHook}), and node's own code a call runs is run once ({@link warmUpNode}).
 * better-sqlite3's native addon cannot be in a snapshot: the bundle requires it on first use (see
 * scripts/bundle-hook.mjs). A call runs without V8's baseline compiler ({@link baselineCompilerOff}).
 * `hook --snapshot-check` prints `ok`: how `init`
 * tells that this node can load the blob.
 */
if (startupSnapshot.isBuildingSnapshot()) {
  warmUpHook();
  warmUpNode();
  startupSnapshot.setDeserializeMainFunction(async () => {
    const [command, agent, ...rest] = process.argv.slice(2);
    if (command !== 'hook' || agent === undefined || rest.length > 0) {
      process.exitCode = SNAPSHOT_UNUSABLE_EXIT;
    } else if (agent === '--snapshot-check') {
      process.stdout.write('ok');
    } else {
      baselineCompilerOff(); // a call is over within ≈ 40 ms: no baseline compile pays for itself
      process.exitCode = await hookMain(agent);
      process.exit(); // the call is over: no winding down (see hookMain)
    }
  });
}
