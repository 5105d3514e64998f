import fc from 'fast-check';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { pathTree } from '../src/install/jsonPathTree.js';
import { memberValue } from '../src/install/jsonText.js';
import { InvalidClaudeConfigError, mcpServerEntry, withServer } from '../src/install/mcpRegistration.js';

// Claude Code's ~/.claude.json as it may be: any JSON around the path init edits (keys and strings
// with quotes, brackets and escapes, long arrays of strings), on one line or indented. The partial
// tree must find what a full parser finds, the edit must give what JSON says it should, and
// --remove must give the text back byte for byte.

const DIR = '/home/me/my "repo" [x]';
const PATH = ['projects', DIR, 'mcpServers', 'loopguard'];
const ENTRY = mcpServerEntry(['/usr/bin/node', '/opt/loopguard/bin.js']);

const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('"', '\\', '\\"', '{', '}', '[', ']', '{"projects":', '\\\\"]', DIR, 'mcpServers'),
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    tricky,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A configuration: other keys, and maybe `projects` holding other projects, and maybe this one. */
const config = fc
  .record({
    before: fc.dictionary(tricky, value, { maxKeys: 3 }),
    projects: fc.option(
      fc.record({
        others: fc.dictionary(tricky, value, { maxKeys: 3 }),
        mine: fc.option(fc.record({ mcpServers: fc.option(fc.dictionary(tricky, value, { maxKeys: 2 })) })),
      }),
    ),
    after: fc.dictionary(tricky, value, { maxKeys: 3 }),
  })
  .map(({ before, projects, after }) => {
    const root: Record<string, unknown> = { ...before };
    delete root.projects;
    if (projects !== null) {
      const all: Record<string, unknown> = { ...projects.others };
      delete all[DIR];
      if (projects.mine !== null) {
        const mine: Record<string, unknown> = {};
        if (projects.mine.mcpServers !== null) {
          const servers = { ...projects.mine.mcpServers };
          delete servers.loopguard;
          mine.mcpServers = servers;
        }
        all[DIR] = mine;
      }
      root.projects = all;
    }
    for (const [key, item] of Object.entries(after)) if (key !== 'projects') root[key] = item;
    return root;
  });
const layout = fc.constantFrom<string | number | undefined>(undefined, 2, 4, '\t');

describe('editing ~/.claude.json along the path only', () => {
  it('finds the same nodes as a full parser, adds exactly the server, and --remove gives the text back', () => {
    fc.assert(
      fc.property(config, layout, (root, indent) => {
        const text = `${JSON.stringify(root, null, indent)}${indent === undefined ? '' : '\n'}`;
        const full = parseTree(text) as NonNullable<ReturnType<typeof parseTree>>;
        const partial = pathTree(text, PATH);
        for (let depth = 1; depth <= PATH.length; depth++) {
          const keys = PATH.slice(0, depth);
          const expected = findNodeAtLocation(full, keys);
          let found = partial as ReturnType<typeof memberValue>;
          for (const key of keys) found = memberValue(found, key);
          expect(found?.offset).toBe(expected?.offset);
          expect(found?.length).toBe(expected?.length);
        }
        const added = withServer(text, PATH, ENTRY);
        expect(added.added).toBe(true);
        const wanted = JSON.parse(text);
        wanted.projects ??= {};
        wanted.projects[DIR] ??= {};
        wanted.projects[DIR].mcpServers ??= {};
        wanted.projects[DIR].mcpServers.loopguard = ENTRY;
        expect(JSON.parse(added.text)).toEqual(wanted);
        expect(added.text.trim().includes('\n')).toBe(indent !== undefined || text.trim() === '{}');
        expect(withServer(added.text, PATH, ENTRY).text).toBe(added.text);
        expect(withServer(added.text, PATH, undefined, added.owned).text).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a key twice on the path, and leaves keys twice elsewhere alone', () => {
    expect(() => withServer('{"projects": {}, "projects": {}}', PATH, ENTRY)).toThrow(
      InvalidClaudeConfigError,
    );
    const twiceElsewhere = '{"a": 1, "a": 2, "projects": {"/other": {}, "/other": {}}}';
    expect(
      JSON.parse(withServer(twiceElsewhere, PATH, ENTRY).text).projects[DIR].mcpServers.loopguard,
    ).toEqual(ENTRY);
  });

  it('skips a long array of strings and a string of escapes without exhausting a stack', () => {
    const strings = JSON.stringify({
      tips: Array.from({ length: 400_000 }, (_, i) => `s${i}`),
      escapes: '\\"\n'.repeat(400_000),
      projects: {},
    });
    const { text } = withServer(strings, PATH, ENTRY);
    expect(text.slice(0, strings.length - 2)).toBe(strings.slice(0, -2));
    expect(JSON.parse(text).projects[DIR].mcpServers.loopguard).toEqual(ENTRY);
  });
});
