import fc from 'fast-check';
import { findNodeAtLocation, type Node, parseTree } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import type { HookAgent } from '../src/hook/hookEvent.js';
import {
  commandEntries,
  hasHooks,
  hookEventsOf,
  installHooks,
  removeHooks,
} from '../src/install/hookSettings.js';
import { InvalidSettingsError, readSettingsText, settingsFileText } from '../src/install/settingsText.js';

// Settings files as people and other tools write them: other tools' hooks (some with commands
// that look like loopguard's), odd but valid JSON (numbers beyond a double, escapes, `__proto__`),
// every shape of an event list, any layout; comments in Gemini CLI's, a byte order mark in
// Claude Code's. `init` then `--remove` must give the file back byte for byte, and `init` must
// leave every value it does not own with the same text, at the same place.

/** A JSON value as text, built from parts so that it can be laid out in any style. */
type Json =
  | { kind: 'raw'; text: string }
  | { kind: 'object'; members: Array<{ key: string; value: Json; comment: boolean }> }
  | { kind: 'array'; items: Json[] };

const raw = (text: string): Json => ({ kind: 'raw', text });
const str = (value: string): Json => raw(JSON.stringify(value));
const object = (members: Array<[string, Json]>, comments: boolean[] = []): Json => ({
  kind: 'object',
  members: members.map(([key, value], i) => ({ key, value, comment: comments[i] ?? false })),
});

const oddNumber = fc.constantFrom(
  '12345678901234567890',
  '1e400',
  '-1e400',
  '-0',
  '1.0',
  '1E+2',
  '0.1e-5',
  '5e-324',
  '-12',
  '0',
);
const oddString = fc.constantFrom(
  '"\\u00e9"',
  '"\\/"',
  '"a\\"b"',
  '"tab\\t"',
  '"😀"',
  '""',
  '"\\ud83d"',
  '"// not a comment"',
  '"/* nor this */"',
);
const leaf: fc.Arbitrary<Json> = fc.oneof(
  oddNumber.map(raw),
  oddString.map(raw),
  fc.integer().map((n) => raw(String(n))),
  fc.string({ maxLength: 6 }).map(str),
  fc.constantFrom('true', 'false', 'null').map(raw),
);
// keys of values loopguard does not own; never its marker
const anyKey = fc.constantFrom('a', 'b', '__proto__', 'constructor', 'timeout', 'name', 'x y', 'é', '');

function objectOf(
  keys: fc.Arbitrary<string>,
  value: fc.Arbitrary<Json>,
  maxLength: number,
): fc.Arbitrary<Json> {
  return fc
    .uniqueArray(fc.tuple(keys, value, fc.boolean()), { maxLength, selector: ([key]) => key })
    .map((members) =>
      object(
        members.map(([key, v]) => [key, v]),
        members.map(([, , c]) => c),
      ),
    );
}

const { value } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    objectOf(anyKey, tie('value'), 3),
    fc.array(tie('value'), { maxLength: 3 }).map((items): Json => ({ kind: 'array', items })),
  ),
}));

const commands = fc.constantFrom(
  'node /opt/othertool/bin.js hook claude',
  'node /opt/othertool/bin.js hook gemini',
  'loopguard hook claude',
  'npx -y @loopguard/cli hook gemini',
  'echo pre',
);
const entry: fc.Arbitrary<Json> = fc.oneof(
  fc
    .tuple(commands, objectOf(anyKey, value, 2))
    .map(([command, extra]) =>
      object([
        ['type', str('command')],
        ['command', str(command)],
        ...(extra.kind === 'object'
          ? extra.members.map(({ key, value: v }): [string, Json] => [key, v])
          : []),
      ]),
    ),
  value,
);
const group: fc.Arbitrary<Json> = fc.oneof(
  fc
    .tuple(
      fc.option(fc.constantFrom('*', 'Bash', '.*', ''), { nil: undefined }),
      fc.array(entry, { maxLength: 3 }),
    )
    .map(([matcher, entries]) =>
      object([
        ...(matcher === undefined ? [] : [['matcher', str(matcher)] as [string, Json]]),
        ['hooks', { kind: 'array', items: entries }],
      ]),
    ),
  objectOf(anyKey, value, 2),
  value,
);
const eventList: fc.Arbitrary<Json> = fc
  .array(group, { maxLength: 3 })
  .map((items) => ({ kind: 'array', items }));

function settingsFor(agent: HookAgent): fc.Arbitrary<Json> {
  const events = fc.constantFrom(
    ...hookEventsOf(agent),
    'Notification',
    'SessionStart',
    '__proto__',
    'BeforeModel',
  );
  // mostly lists; sometimes another value (kept for other events, refused for loopguard's)
  const hooks = fc.oneof(
    { arbitrary: objectOf(events, fc.oneof({ arbitrary: eventList, weight: 6 }, value), 5), weight: 9 },
    value,
  );
  const others = fc.uniqueArray(
    fc.tuple(fc.constantFrom('model', 'env', '__proto__', 'n', 'permissions'), value),
    {
      maxLength: 3,
      selector: ([key]) => key,
    },
  );
  return fc
    .tuple(
      others,
      fc.option(hooks, { nil: undefined, freq: 4 }),
      fc.nat(3),
      fc.array(fc.boolean(), { maxLength: 4 }),
    )
    .map(([rest, hooksValue, at, comments]) => {
      const members: Array<[string, Json]> = [...rest];
      if (hooksValue !== undefined) members.splice(at % (members.length + 1), 0, ['hooks', hooksValue]);
      return object(members, comments);
    });
}

interface Layout {
  indent: string;
  eol: string;
  comments: boolean;
  bom: boolean;
  finalEol: boolean;
}

function layoutFor(agent: HookAgent): fc.Arbitrary<Layout> {
  return fc.record({
    indent: fc.constantFrom('', '  ', '    ', '\t'),
    eol: fc.constantFrom('\n', '\r\n'),
    comments: fc.constant(agent === 'gemini'),
    bom: agent === 'claude' ? fc.boolean() : fc.constant(false),
    finalEol: fc.boolean(),
  });
}

function render(json: Json, layout: Layout, depth = 0): string {
  if (json.kind === 'raw') return json.text;
  const [open, close] = json.kind === 'object' ? ['{', '}'] : ['[', ']'];
  const parts =
    json.kind === 'object'
      ? json.members.map(({ key, value: v, comment }) => {
          const member = `${JSON.stringify(key)}: ${render(v, layout, depth + 1)}`;
          return comment && layout.comments && layout.indent !== '' ? `// about ${key}\n${member}` : member;
        })
      : json.items.map((item) => render(item, layout, depth + 1));
  if (parts.length === 0) return `${open}${close}`;
  if (layout.indent === '') return `${open}${parts.join(layout.comments ? ', /* c */ ' : ',')}${close}`;
  const inner = layout.indent.repeat(depth + 1);
  const lines = parts.map((part) => part.replaceAll('\n', `${layout.eol}${inner}`));
  return `${open}${layout.eol}${inner}${lines.join(`,${layout.eol}${inner}`)}${layout.eol}${layout.indent.repeat(depth)}${close}`;
}

function fileText(json: Json, layout: Layout): string {
  return `${layout.bom ? '\uFEFF' : ''}${render(json, layout)}${layout.finalEol ? layout.eol : ''}`;
}

const install = (text: string, agent: HookAgent, command = `lg hook ${agent}`) =>
  settingsFileText(installHooks(readSettingsText(text, agent), commandEntries(agent, command, 10)));
const remove = (text: string, agent: HookAgent) =>
  settingsFileText(removeHooks(readSettingsText(text, agent)));

/** Every value of `text` that loopguard does not own, by its path, with its exact text. */
function foreignValues(text: string, agent: HookAgent): Array<[path: Array<string | number>, text: string]> {
  const body = text.replace(/^\uFEFF/, '');
  const root = parseTree(body, [], { disallowComments: agent === 'claude' }) as Node;
  const slice = (node: Node) => body.slice(node.offset, node.offset + node.length);
  const found: Array<[Array<string | number>, string]> = [];
  for (const property of root.children ?? []) {
    const [key, v] = property.children as [Node, Node];
    if (key.value !== 'hooks' || v.type !== 'object') {
      found.push([[key.value], slice(v)]);
      continue;
    }
    for (const event of v.children ?? []) {
      const [name, list] = event.children as [Node, Node];
      if (list.type !== 'array') found.push([['hooks', name.value], slice(list)]);
      else
        for (const [i, g] of (list.children ?? []).entries())
          found.push([['hooks', name.value, i], slice(g)]);
    }
  }
  return found;
}

function textAt(text: string, agent: HookAgent, path: Array<string | number>): string | undefined {
  const body = text.replace(/^\uFEFF/, '');
  const root = parseTree(body, [], { disallowComments: agent === 'claude' }) as Node;
  const node = findNodeAtLocation(root, path);
  return node === undefined ? undefined : body.slice(node.offset, node.offset + node.length);
}

describe.each(['claude', 'gemini'] as const)(
  'init/--remove round trip over generated %s settings files',
  (agent) => {
    const files = fc
      .tuple(settingsFor(agent), layoutFor(agent))
      .map(([json, layout]) => fileText(json, layout));

    it('--remove after init gives the file back byte for byte; init twice changes nothing', () => {
      let installs = 0;
      fc.assert(
        fc.property(files, (text) => {
          readSettingsText(text, agent); // every generated file is one the CLI reads
          let installed: string;
          try {
            installed = install(text, agent);
          } catch (error) {
            // only a file whose hooks or planned event lists are not what the CLI reads as such
            expect(error).toBeInstanceOf(InvalidSettingsError);
            expect((error as Error).message).toMatch(/^"hooks(\.\w+)?" must be (an object|a list)$/);
            return;
          }
          installs += 1;
          expect(hasHooks(readSettingsText(installed, agent))).toBe(true);
          expect(install(installed, agent)).toBe(installed);
          expect(remove(installed, agent)).toBe(text);
          // another --command replaces loopguard's entries, it does not add to them
          const replaced = install(installed, agent, 'other hook');
          expect(replaced.match(/"loopguard": \{|"loopguard":\{/g)).toHaveLength(hookEventsOf(agent).length);
          expect(remove(replaced, agent)).toBe(text);
        }),
        { numRuns: 400 },
      );
      // most generated files are ones init edits, not ones it refuses
      expect(installs).toBeGreaterThan(200);
    });

    it('init leaves every value it does not own with the same text at the same place', () => {
      fc.assert(
        fc.property(files, (text) => {
          let installed: string;
          try {
            installed = install(text, agent);
          } catch {
            return;
          }
          for (const [path, expected] of foreignValues(text, agent)) {
            expect(textAt(installed, agent, path), JSON.stringify(path)).toBe(expected);
          }
        }),
        { numRuns: 400 },
      );
    });
  },
);
