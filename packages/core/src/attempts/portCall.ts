import type { AsyncStoragePorts } from '../storage/asyncPorts.js';
import type { StoragePorts } from '../storage/storage.js';

/** The ports a workflow reads and writes: the state machine and the attempt store. */
type PortName = keyof StoragePorts;

/** The callable methods of a port (the state machine's `transaction` is the runner's business). */
type MethodOf<P extends PortName> = Exclude<
  {
    [M in keyof StoragePorts[P]]: StoragePorts[P][M] extends (...args: never[]) => unknown ? M : never;
  }[keyof StoragePorts[P]],
  'transaction'
>;

/** One request a workflow yields: call `method` of `port` with `args`. */
export interface PortCall {
  /** The storage port called. */
  port: PortName;
  /** The method of that port. */
  method: string;
  /** Its arguments, in order. */
  args: readonly unknown[];
}

/**
 * A detector workflow: a generator that yields the port calls it needs and returns its result. It
 * holds the reads, the pure decision and the writes once; a synchronous runner ({@link runSync})
 * and an asynchronous one ({@link runAsync}) answer its calls.
 */
export type Workflow<T> = Generator<PortCall, T, unknown>;

/**
 * Yields one port call and returns its answer, typed as the synchronous port returns it.
 * @example const task = yield* call('stateMachine', 'getTask', taskId);
 */
export function* call<P extends PortName, M extends MethodOf<P>>(
  port: P,
  method: M,
  ...args: StoragePorts[P][M] extends (...a: infer A) => unknown ? A : never
): Generator<PortCall, StoragePorts[P][M] extends (...a: never[]) => infer R ? R : never, unknown> {
  return (yield { port, method: method as string, args }) as StoragePorts[P][M] extends (
    ...a: never[]
  ) => infer R
    ? R
    : never;
}

/** Runs `flow` against synchronous ports (memory, SQLite), inside the caller's transaction. */
export function runSync<T>(flow: Workflow<T>, ports: StoragePorts): T {
  let step = flow.next();
  while (!step.done) step = flow.next(invoke(ports, step.value));
  return step.value;
}

/** Runs `flow` against asynchronous ports (PostgreSQL), inside the caller's transaction. */
export async function runAsync<T>(flow: Workflow<T>, ports: AsyncStoragePorts): Promise<T> {
  let step = flow.next();
  while (!step.done) step = flow.next(await invoke(ports, step.value));
  return step.value;
}

function invoke(ports: StoragePorts | AsyncStoragePorts, request: PortCall): unknown {
  const port = ports[request.port] as unknown as Record<string, (...args: readonly unknown[]) => unknown>;
  return (port[request.method] as (...args: readonly unknown[]) => unknown).apply(port, [...request.args]);
}
