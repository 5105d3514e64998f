/**
 * The watchdog of one loopguard process (see `startWatchdog`): waits until its stdin closes — its
 * loopguard has exited, crashed or been SIGKILLed — then kills every process tagged with the token
 * given as its argument, sweeping for two seconds to catch processes forked meanwhile, and exits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { signalTagged } from './processTree.js';

const token = process.argv[2];
if (token !== undefined && token.length > 0) {
  process.stdin.resume();
  process.stdin.on('error', () => {});
  process.stdin.on('close', async () => {
    for (let sweep = 0; sweep < 10; sweep++) {
      signalTagged(token, 'SIGKILL');
      await sleep(200);
    }
    process.exit(0);
  });
}
