/**
 * A unified diff of two texts, line by line, with `context` unchanged lines around each change
 * (longest common subsequence; settings files are small). Empty when the texts are equal.
 * @example lineDiff('a\nb\n', 'a\nc\n', 'settings.json'); // '--- settings.json\n+++ settings.json\n@@ ... @@\n a\n-b\n+c\n'
 */
export function lineDiff(before: string, after: string, name: string, context = 3): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const lines: Array<{ mark: ' ' | '-' | '+'; text: string; oldLine: number; newLine: number }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ mark: ' ', text: a[i] as string, oldLine: i++, newLine: j++ });
    } else if (i < a.length && (j >= b.length || (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      lines.push({ mark: '-', text: a[i] as string, oldLine: i++, newLine: j });
    } else {
      lines.push({ mark: '+', text: b[j] as string, oldLine: i, newLine: j++ });
    }
  }
  const out = [`--- ${name}`, `+++ ${name}`];
  let k = 0;
  while (k < lines.length) {
    if (lines[k]?.mark === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    while (end < lines.length) {
      const nextChange = lines.slice(end).findIndex((line) => line.mark !== ' ');
      if (nextChange === -1 || nextChange > 2 * context) break;
      end += nextChange + 1;
    }
    const stop = Math.min(lines.length, end + context);
    const hunk = lines.slice(start, stop);
    const first = hunk[0] as (typeof lines)[number];
    const oldCount = hunk.filter((line) => line.mark !== '+').length;
    const newCount = hunk.filter((line) => line.mark !== '-').length;
    out.push(`@@ -${first.oldLine + 1},${oldCount} +${first.newLine + 1},${newCount} @@`);
    for (const line of hunk) out.push(`${line.mark}${line.text}`);
    k = stop;
  }
  return `${out.join('\n')}\n`;
}
