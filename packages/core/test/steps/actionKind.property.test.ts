import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ActionKind, type ActionKindName, classifyAction } from '../../src/steps/actions/actionKind.js';
import {
  CHANGE_COMMANDS,
  GIT_READS,
  PACKAGE_CHANGES,
  PACKAGE_MANAGERS,
  PACKAGE_READS,
  PREFIXES,
  READ_COMMANDS,
} from '../../src/steps/actions/shellCommands.js';
import { shellSegments } from '../../src/steps/actions/shellSegments.js';

// `classifyAction`'s reading of a shell line as it was written before its shortcuts (quotes blanked
// and the redirect pattern run on every segment, the command's folder cut by a pattern): the oracle.
const CLASSIFIED_TEXT = 4000;
/** SWE-agent's editing commands: their first line is the command, the rest is file content. */
const EDITOR_COMMAND = /^\s*(?:edit|insert|append|create)\b(?=\s*\S)/;

function classifyShellOracle(text: string): ActionKind {
  if (EDITOR_COMMAND.test(text))
    return { kind: 'change', probe: '', paths: [], fullWrite: /^\s*create\b/.test(text), editor: true };
  text = text.length > CLASSIFIED_TEXT ? text.slice(0, CLASSIFIED_TEXT) : text;
  const probes: string[] = [];
  const paths: string[] = [];
  const read: string[] = [];
  let changes = false;
  const written = { whole: false };
  for (const segment of shellSegments(text)) {
    const kind = segmentKind(segment, paths, written);
    if (kind === 'read' && !/^cd\s/.test(segment)) read.push(...fileArguments(segment));
    if (kind === 'change') changes = true;
    else if (kind === 'probe') probes.push(collapse(segment).replace(/^python3?\b/, 'python'));
  }
  // A line that writes and runs (`sed -i … && python x.py`) is a change followed by its probe run:
  // the probe is judged after the change, which is what the rule needs.
  if (probes.length > 0 && !changes) return { kind: 'probe', probe: probes.join(' ; '), paths };
  if (changes)
    return { kind: 'change', probe: probes.join(' ; '), paths: paths.slice(0, 4), fullWrite: written.whole };
  return { kind: 'read', probe: '', paths: read.slice(0, 4) };
}

/** The arguments of a command that look like files (`a.py`, `src/x`), quoted text and flags left out. */
function fileArguments(segment: string): string[] {
  return segment
    .replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ' ')
    .split(/\s+/)
    .slice(1)
    .filter((word) => !word.startsWith('-') && (word.includes('/') || /\.[A-Za-z]\w*$/.test(word)));
}

function segmentKind(segment: string, paths: string[], written: { whole: boolean }): ActionKindName {
  const words = segment.split(/\s+/);
  let at = 0;
  while (
    at < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at] as string) || PREFIXES.has(words[at] as string))
  ) {
    if (words[at] === 'timeout') at++;
    at++;
  }
  const command = (words[at] ?? '').replace(/^.*\//, '');
  const rest = words.slice(at + 1);
  // Quoted text is data, not redirection: `python -c "print(1>0)"` writes nothing.
  const unquoted = segment.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  const redirect = /(?:^|[^0-9&>])(>>?)\s*([^\s&|;>]+)/.exec(unquoted);
  if (redirect !== null && redirect[2] !== '/dev/null' && !(redirect[2] as string).startsWith('&')) {
    paths.push(redirect[2] as string);
    if (redirect[1] === '>') written.whole = true;
    return 'change';
  }
  if ((command === 'sed' || command === 'perl') && rest.some((w) => /^-[a-zA-Z]*i/.test(w))) {
    const target = rest[rest.length - 1];
    if (target !== undefined) paths.push(target);
    return 'change';
  }
  // A change command that names nothing to change (`create`, `rm` alone) writes nothing: it fails
  // with its usage, a call like any other.
  if (CHANGE_COMMANDS.has(command)) return rest.some((word) => word !== '') ? 'change' : 'probe';
  if (command === 'git') return GIT_READS.has(rest[0] ?? '') || rest.length === 0 ? 'read' : 'change';
  const sub = /^python[\d.]*$/.test(command) && rest[0] === '-m' ? rest[1] : undefined;
  if (PACKAGE_MANAGERS.has(sub ?? command)) {
    const verb = sub === undefined ? rest[0] : rest[2];
    if (PACKAGE_CHANGES.has(verb ?? '')) return 'change';
    return verb === undefined || PACKAGE_READS.has(verb) ? 'read' : 'probe';
  }
  if (/^python[\d.]*$/.test(command) && rest[0] === 'setup.py') return 'change';
  if (
    command === 'make' &&
    (rest.length === 0 || /^(?:all|build|install|develop|clean)$/.test(rest[0] ?? ''))
  )
    return 'change';
  if (READ_COMMANDS.has(command) || command === '' || command.startsWith('#')) return 'read';
  return 'probe';
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Pieces of shell command lines: commands of each kind, redirects, quotes, `sed -i`, prefixes. */
const SHELL_FRAGMENTS = [
  'cd /repo',
  ' && ',
  ' | ',
  ';',
  '\n',
  ' ',
  "'",
  '"',
  '\\"',
  '>',
  '>>',
  ' > out.txt',
  '2>&1',
  '>&2',
  '> /dev/null',
  "'a > b'",
  '"x > y"',
  'cat',
  'cat a.py',
  'sed -n 1,40p src/m.ts',
  'sed -i s/a/b/ f.py',
  'perl -pi -e',
  'rm',
  'rm x',
  'git status',
  'git checkout -b x',
  'git',
  'pip install x',
  'python -m pip list',
  'python3 -m pytest',
  'python setup.py develop',
  'python x.py',
  '/usr/bin/python3 x.py',
  './run.sh',
  'make',
  'make test',
  'npm test',
  'FOO=1',
  'timeout 5',
  'sudo',
  'env',
  '# note',
  'src/a.py',
  '-v',
  'x.ts',
  "cat <<'EOF' > f.py",
  'EOF',
  'edit 1:2',
  'create',
];
const shellArb = fc
  .array(fc.oneof(fc.constantFrom(...SHELL_FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 24 })
  .map((parts) => parts.join(''));

describe('classifyAction reads a shell line as it did before its shortcuts', () => {
  it('on command lines built from commands, redirects, quotes and separators', () => {
    fc.assert(
      fc.property(shellArb, (text) => {
        expect(classifyAction('bash', text)).toEqual(classifyShellOracle(text));
      }),
      { numRuns: 6000 },
    );
  });

  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(classifyAction('bash', text)).toEqual(classifyShellOracle(text));
      }),
      { numRuns: 3000 },
    );
  });
});
