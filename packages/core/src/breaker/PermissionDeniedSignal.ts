import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, StagnationSignal } from './StagnationSignal.js';

/**
 * Stalled when tool calls were denied a permission in the iteration (Claude Code's
 * `permission_denials`, or tool results saying a permission was denied): an agent that cannot get
 * the permission it needs will not progress by trying again. The detail names the tools. Unavailable
 * when the iteration's denials are unknown.
 * @example
 * new PermissionDeniedSignal(2).observe({ iteration: 1, permissionDenials: ['Bash'] }).detail;
 * // 'permission denied for tool Bash'
 */
export class PermissionDeniedSignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'permission_denied' as const;

  protected judge({ permissionDenials }: IterationObservation): SignalJudgement {
    if (permissionDenials === null || permissionDenials === undefined)
      return { status: 'unavailable', detail: 'permission denials unknown' };
    if (permissionDenials.length === 0) return { status: 'clear', detail: 'no permission denied' };
    const tools = [...new Set(permissionDenials)].sort();
    return {
      status: 'stalled',
      key: 'denied',
      detail: `permission denied for tool${tools.length > 1 ? 's' : ''} ${tools.join(', ')}`,
    };
  }
}
