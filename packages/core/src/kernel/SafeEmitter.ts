import { EventEmitter } from 'eventemitter3';
import type { Logger } from 'pino';

/**
 * An eventemitter3 emitter whose listeners cannot break the emitter: a listener that throws is
 * logged (level `error`) and the remaining listeners still run.
 *
 * @typeParam Events - map of event name to argument tuple, for example `{ started: [at: number] }`.
 */

export class SafeEmitter<Events extends object> extends EventEmitter<Events> {
  /** @param emitterLogger - where throwing listeners are reported. */
  constructor(private readonly emitterLogger: Logger) {
    super();
  }

  /** Calls every listener of `event` with `args`; returns whether there were listeners. */
  override emit<E extends EventEmitter.EventNames<Events>>(
    event: E,
    ...args: EventEmitter.EventArgs<Events, E>
  ): boolean {
    if (this.listenerCount(event) === 0) return false;
    for (const listener of this.listeners(event)) {
      // removes the listener only if it was registered with once()
      this.removeListener(event, listener, undefined, true);
      try {
        (listener as (...a: unknown[]) => void)(...(args as unknown[]));
      } catch (error) {
        this.emitterLogger.error({ err: error, event: String(event) }, `Listener for ${String(event)} threw`);
      }
    }
    return true;
  }
}
