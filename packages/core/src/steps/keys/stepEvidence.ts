import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';

/** What a verdict shows of one step of the loop: enough to explain it, never a whole output. */
export interface StepEvidence {
  /** 0-based index of the step in the run (the observation's index for a turn). */
  step: number;
  /**
   * 1-based number of the tool call: the turn's action, or for a message the calls before it (0:
   * none). Absent in evidence a detector older than this field kept.
   */
  call?: number;
  /** Tool of the action, when the evidence is a turn. */
  tool?: string;
  /** The action's input, shortened. */
  action?: string;
  /** The observation's output, shortened. */
  output?: string;
  /** Whether the observation was a failure. */
  error?: boolean;
  /** The message text, shortened, when the evidence is a message. */
  message?: string;
}

/** Evidence without the optional fields that are absent (zod gives `undefined` for them). */
export function cleanEvidence(
  evidence: { [K in keyof StepEvidence]?: StepEvidence[K] | undefined } & { step: number },
): StepEvidence {
  const out: StepEvidence = { step: evidence.step };
  for (const key of ['call', 'tool', 'action', 'output', 'error', 'message'] as const) {
    if (evidence[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = evidence[key];
  }
  return out;
}

/** zod schema of a {@link StepEvidence} in a snapshot. */
export const evidenceSchema = lazySchema(() =>
  z.object({
    step: z.number().int(),
    call: z.number().int().nonnegative().optional(),
    tool: z.string().optional(),
    action: z.string().optional(),
    output: z.string().optional(),
    error: z.boolean().optional(),
    message: z.string().optional(),
  }),
);
