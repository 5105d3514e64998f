import type { Step } from '../steps/step.js';

/**
 * The agent's text of one turn, held until it is known to be the turn's last word. Text followed by
 * a tool call in the same turn is narration ("Let me check the tests."): no hook sees it, so it is
 * dropped, and every door gives the detector the same steps as the hooks (`Stop` /
 * `AfterAgent` carry only the turn's last message). Thinking is never a step, for the same reason.
 */
export class TurnText {
  private parts: string[] = [];

  /** Adds text of the agent's current reply (ignored when blank). */
  add(text: unknown): void {
    if (typeof text === 'string' && text.trim() !== '') this.parts.push(text);
  }

  /** A tool call followed: the held text was narration. */
  drop(): void {
    this.parts = [];
  }

  /** The turn ended (or another reply began): the held text is a message step. */
  flush(): Step[] {
    if (this.parts.length === 0) return [];
    const text = this.parts.join('\n');
    this.parts = [];
    return [{ type: 'message', text }];
  }
}
