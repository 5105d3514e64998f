import { isSystemProgram } from './systemProgram.js';

/**
 * Shell writes whose whole text is in the command (shell66): what they leave is known, as a
 * `Write`'s content is. Read by the hooks-file rule (`hooksRemovedCall.ts`, judged by what they
 * leave) and the own-state rule (`ownStateCall.ts`, their text read as a file's, not a command's).
 */

/**
 * `cat > FILE <<'EOF'` (or `cat <<EOF > FILE` whose body expands nothing: no `$`, backquote or
 * backslash), with a `&& mv …` on the heredoc's line (trust68), and `echo '…' > FILE` (no
 * backslash, which `dash`'s `echo` reads).
 */
const HEREDOC_WRITES = [
  /(?<=^|[;&|\n(]\s*)cat\s+>\s*(?<word>[^\s;&|<>'"]+)\s+<<\s*(?<quote>['"]?)(?<end>[\w.-]+)\k<quote>(?<andMv>[ \t]*&&[ \t]*mv\s[^\n;&|]*)?[ \t]*\n(?<body>[\s\S]*?)\n\k<end>(?=\n|$)/g,
  /(?<=^|[;&|\n(]\s*)cat\s+<<\s*(?<quote>['"]?)(?<end>[\w.-]+)\k<quote>\s+>\s*(?<word>[^\s;&|<>'"]+)[ \t]*\n(?<body>[\s\S]*?)\n\k<end>(?=\n|$)/g,
];
const ECHO_WRITE =
  /(?<=^|[;&|\n(]\s*)echo\s+'(?<body>[^'\\]*)'\s*>\s*(?<word>[^\s;&|<>'"]+)(?=\s*(?:$|[;&|\n)]))/g;

/**
 * What makes `cat`, `echo` or `mv` another program than the one read (trust68): a function or an
 * alias of that name, a `PATH` set, a builtin switched (`enable`) or a path hashed (`hash -p`).
 */
const RENAMED =
  /\b(?:cat|echo|mv)\s*\(\s*\)|\bfunction\s+(?:cat|echo|mv)\b|\balias\s|\bPATH\+?=|\benable\s|\bhash\s/;

/** A `mv` right after a write (`&& mv -f tmp FILE`, `; mv`, the next line): its source and its target. */
const THEN_MV =
  /^[ \t]*(?:&&|;|\n)\s*mv\s+(?:(?:-f|--force|-v|--verbose)\s+)*([^\s;&|<>'"-][^\s;&|<>'"]*)\s+([^\s;&|<>'"]+)(?=[ \t]*(?:$|&&|;|\n))/;

/** A shell write whose text is known. */
export interface LiteralWrite {
  /** The write's text in the command (with a `&& mv …` on its heredoc's line). */
  whole: string;
  /** The file it names, as the command writes it. */
  word: string;
  /** The text it leaves there. */
  text: string;
  /** The text as it stands in the command (a heredoc's body, an `echo`'s word). */
  body: string;
  /** The `mv` that follows it at once, by its words (`from`, `to`) and its text in the command (`command`). */
  then?: { from: string; to: string; command: string };
  /** Whether `then` is part of `whole` (on the heredoc's line). */
  thenInWhole: boolean;
}

/**
 * The literal writes of `shell`; none in a command that, outside their texts, renames the programs
 * read ({@link RENAMED}), nor where the `cat` or `mv` they use is not the system's on `env`'s
 * `PATH` (trust70: `isSystemProgram`; `echo` is the shell's own).
 * @param env - the environment the command runs in (default: this process's, a child of the agent).
 * @param dir - the folder the command runs in, where a relative folder of `PATH` is.
 * @example literalWrites(`echo '{}' > a.json && mv a.json b.json`); // [{ word: 'a.json', text: '{}\n', then: { from: 'a.json', to: 'b.json', … }, … }]
 */
export function literalWrites(
  shell: string,
  env: Record<string, string | undefined> = process.env,
  dir = process.cwd(),
): LiteralWrite[] {
  const writes: LiteralWrite[] = [];
  // the command outside the texts written (a text may say "enable" or "alias"), by their places
  let outside = shell;
  for (const pattern of [...HEREDOC_WRITES, ECHO_WRITE])
    for (const { 0: whole, groups, index } of shell.matchAll(pattern)) {
      const { word = '', quote, body = '', andMv = '' } = groups ?? {};
      if (quote === '' && /[$`\\]/.test(body)) continue;
      if (pattern !== ECHO_WRITE && !isSystemProgram('cat', env.PATH, dir)) return [];
      const from = index + whole.indexOf(pattern === ECHO_WRITE ? "'" : '\n') + 1;
      outside = outside.slice(0, from) + ' '.repeat(body.length) + outside.slice(from + body.length);
      const mv = THEN_MV.exec(andMv || shell.slice(index + whole.length));
      if (mv !== null && !isSystemProgram('mv', env.PATH, dir)) return [];
      const then = mv === null ? undefined : { from: mv[1] as string, to: mv[2] as string, command: mv[0] };
      writes.push({ whole, word, text: `${body}\n`, body, ...(then && { then }), thenInWhole: andMv !== '' });
    }
  return RENAMED.test(outside) ? [] : writes;
}
