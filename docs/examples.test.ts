import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Runs every code example of README.md and docs/*.md that imports a loopguard package, in a fresh
 * project that depends on the built packages. An example may be preceded by
 * `<!-- example-context ... -->`, code that the reader can imagine (a clock, an input file) and that
 * runs before it, or by `<!-- example-skip: reason -->`. Blocks marked `<!-- example:FILE -->`
 * are run by their own test (embedding.test.ts, scale-out.test.ts).
 */
const docs = dirname(fileURLToPath(import.meta.url));
const root = dirname(docs);
const markdownFiles = [
  join(root, 'README.md'),
  ...readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(docs, f)),
];

interface Example {
  name: string;
  code: string;
  context: string;
  skip: string | null;
  runElsewhere: boolean;
}

function examplesOf(file: string): Example[] {
  const markdown = readFileSync(file, 'utf8');
  const examples: Example[] = [];
  for (const match of markdown.matchAll(/```(js|ts)\n([\s\S]*?)```/g)) {
    const code = match[2] ?? '';
    if (!/from '@loopguard\//.test(code)) continue;
    const before = markdown.slice(0, match.index);
    // each comment ends at its own `-->`: a lazy match could span back over earlier blocks
    const markers = /((?:<!--(?:(?!-->)[\s\S])*-->\s*)*)$/.exec(before)?.[1] ?? '';
    const line = before.split('\n').length;
    examples.push({
      name: `${file.slice(root.length + 1)}:${line}`,
      code,
      context: /<!-- example-context\n([\s\S]*?)-->/.exec(markers)?.[1] ?? '',
      skip: /<!-- example-skip: ([\s\S]*?)-->/.exec(markers)?.[1]?.trim() ?? null,
      runElsewhere: /<!-- example:/.test(markers),
    });
  }
  return examples;
}

/** The example as a module: its imports first, the rest in an async function so that `return` works. */
function moduleOf(example: Example): string {
  const source = `${example.context}\n${example.code}`;
  const js = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
  }).outputText;
  const imports: string[] = [];
  const body = js.replace(/^import [\s\S]*?from '[^']+';\n/gm, (statement) => {
    imports.push(statement);
    return '';
  });
  return `${imports.join('')}\nasync function example() {\n${body}\n}\nawait example();\nprocess.exit(0);\n`;
}

const tmp = mkdtempSync(join(tmpdir(), 'loopguard-doc-examples-'));
mkdirSync(join(tmp, 'node_modules', '@loopguard'), { recursive: true });
for (const name of readdirSync(join(root, 'packages'))) {
  symlinkSync(join(root, 'packages', name), join(tmp, 'node_modules', '@loopguard', name), 'dir');
}
// The agent frameworks docs/agents.md imports: the pinned dev dependencies of @loopguard/agents.
const frameworks = join(root, 'packages', 'agents', 'node_modules');
for (const name of ['ai', 'zod', '@anthropic-ai', '@langchain', '@openai']) {
  symlinkSync(join(frameworks, name), join(tmp, 'node_modules', name), 'dir');
}
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const refuseFixedPorts = pathToFileURL(join(docs, 'refuseFixedPorts.mjs')).href;

const all = markdownFiles.flatMap(examplesOf);

describe('documentation examples', () => {
  it('finds the examples', () => {
    expect(all.length).toBeGreaterThanOrEqual(8);
  });

  for (const [index, example] of all.entries()) {
    if (example.runElsewhere) continue;
    if (example.skip !== null) {
      it(`${example.name} is not run: ${example.skip}`, () => {
        expect(example.skip?.length).toBeGreaterThan(20);
      });
      continue;
    }
    it(`${example.name} runs`, async () => {
      const dir = join(tmp, `example-${index}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'example.mjs'), moduleOf(example));
      symlinkSync(join(tmp, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const { stderr } = await promisify(execFile)(
        process.execPath,
        ['--import', refuseFixedPorts, 'example.mjs'],
        {
          cwd: dir,
          timeout: 60_000,
        },
      );
      expect(stderr).toBe('');
    });
  }
});
