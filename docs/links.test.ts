import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A link from one page of the docs to another, or to one of its sections, leads somewhere.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCode(readFileSync(join(root, page), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug);
    anchors.add(count === undefined ? slug : `${slug}-${count + 1}`);
    seen.set(slug, (count ?? -1) + 1);
  }
  return anchors;
}

describe('the links between the docs', () => {
  it.each(pages)('%s links to pages and sections that exist', (page) => {
    const broken: string[] = [];
    const text = readFileSync(join(root, page), 'utf8');
    for (const [, target = '', anchor] of text.matchAll(/\]\(([^)\s#]*?\.md)?(?:#([^)\s]+))?\)/g)) {
      const linked = target === '' ? page : normalize(join(dirname(page), target));
      if (target !== '' && !existsSync(join(root, linked))) broken.push(target);
      else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))
        broken.push(`${target}#${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
