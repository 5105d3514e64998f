/**
 * Families of infrastructure error: trouble outside the agent's work, which a caller should wait
 * out (back off, retry later) instead of counting as a repeated failure.
 */
export type InfrastructureKind = 'rate_limit' | 'server_error' | 'timeout' | 'connection';

const INFRASTRUCTURE_PATTERNS: ReadonlyArray<readonly [InfrastructureKind, RegExp]> = [
  [
    'rate_limit',
    /(?:\b(?:HTTP|status|code|error)\D{0,20}429\b|\b429\s+Too Many Requests|\bToo Many Requests\b|\brate[ _-]?limit(?:ed|s|_exceeded| exceeded| reached)?\b|\bRateLimitError\b|\bquota exceeded\b)/i,
  ],
  [
    'server_error',
    /(?:\b(?:HTTP|status|code|error)\D{0,20}5\d\d\b|\b5\d\d\s+(?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b|\b(?:Internal Server Error|Bad Gateway|Service Unavailable)\b|\boverloaded(?:_error)?\b)/i,
  ],
  [
    'timeout',
    /(?:\bE(?:SOCKET)?TIMEDOUT\b|\b(?:request|connection|connect|socket|read|network|gateway|upstream)[\s-]+tim(?:ed[\s-]?out|eout)\b|\bdeadline exceeded\b)/i,
  ],
  [
    'connection',
    /(?:\bECONN(?:RESET|REFUSED|ABORTED)\b|\bEPIPE\b|\bEAI_AGAIN\b|\bENOTFOUND\b|\bE(?:NET|HOST)UNREACH\b|\bsocket hang up\b|\bconnection (?:reset|refused|closed)\b|\bnetwork error\b|\bfetch failed\b)/i,
  ],
];

/** Lines that belong to a test assertion are failures even when they mention a status code. */
const TEST_CONTEXT = /\b(?:assert\w*|expect(?:ed|s)?|test)\b/i;
const TEST_FAILURE = /\bFAIL(?:ED)?\b/;

/**
 * The infrastructure family of one line of output, or `null` when the line is not an
 * infrastructure error. Assertion lines (`expected status 503`) are never infrastructure.
 *
 * @example
 * infrastructureKindOf('Error: 429 Too Many Requests'); // 'rate_limit'
 * infrastructureKindOf('read ECONNRESET');               // 'connection'
 * infrastructureKindOf('AssertionError: expected 503 to be 200'); // null
 */
export function infrastructureKindOf(line: string): InfrastructureKind | null {
  if (TEST_CONTEXT.test(line) || TEST_FAILURE.test(line)) return null;
  for (const [kind, pattern] of INFRASTRUCTURE_PATTERNS) if (pattern.test(line)) return kind;
  return null;
}
