import { createHash, randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopguardHome } from '../files/agentHome.js';
import { geminiProjectRootFile } from './geminiFolder.js';
import type { FileScan } from './scannedSession.js';
import { setupText } from './setupText.js';

/** The cache file's layout; a cache of another layout is ignored (and replaced). */
const LAYOUT = 1;

/** The cache file's first word. */
const MAGIC = 'loopguard-scan-cache';

/** A cache file larger than this is not read (a cache of 100,000 transcripts is ≈ 100 MB). */
const MAX_BYTES = 256 * 1024 * 1024;

/**
 * A file modified this recently (ms before it was looked at) is read but not remembered: a rewrite
 * within the file system's timestamp resolution (2 s on FAT, a clock tick elsewhere) could keep its
 * size and times, as git's "racily clean" index entries.
 */
const SETTLED_MS = 2000;

/**
 * Where `loopguard scan` keeps what it learned: `$XDG_CACHE_HOME/loopguard/scan-cache`, else
 * `~/.cache/loopguard/scan-cache` (`loopguardHome`: a relative `HOME` has no cache). Relative
 * folders are ignored, as the XDG specification says. `LOOPGUARD_SCAN_CACHE=off` turns the cache
 * off (as `--no-cache` does): `undefined`.
 */
export function scanCacheFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env.LOOPGUARD_SCAN_CACHE === 'off') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'loopguard', 'scan-cache');
  const home = loopguardHome(env);
  return home === undefined ? undefined : join(home, '.cache', 'loopguard', 'scan-cache');
}

/** What identifies a file's contents without reading it: device, inode, size, and its times in ns. */
function identity(info: Stats & { mtimeNs?: bigint; ctimeNs?: bigint }): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** Bytes that say which build wrote a cache: the scan's bundles, else the built files' sizes and times. */
function buildStamp(): string {
  const hash = createHash('sha256');
  const bundles = ['../bundle/scan.mjs', '../bundle/scan-worker.mjs'].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  );
  if (bundles.every((file) => existsSync(file))) {
    for (const file of bundles) hash.update(readFileSync(file));
    return hash.digest('hex');
  }
  // unbundled (a development build or the sources): every file of this package's code and core's
  const roots = [
    fileURLToPath(new URL('..', import.meta.url)),
    fileURLToPath(new URL('../../node_modules/@loopguard/core/dist', import.meta.url)),
    fileURLToPath(new URL('../../../core/src', import.meta.url)),
  ];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root, { recursive: true }).map(String).sort()) {
      const info = statSync(join(root, name));
      if (info.isFile()) hash.update(`${name}:${info.size}:${info.mtimeMs}\n`);
    }
  }
  return hash.digest('hex');
}

/** The pricing library's version (it is not in the bundles: loaded from its package), or `none`. */
function pricesVersion(): string {
  try {
    const main = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
    const manifest = JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8'));
    return String(manifest.version);
  } catch {
    return 'none';
  }
}

/**
 * The key of a scan's cache: the layout, the build, the pricing library's version, and everything
 * besides a file's bytes that its result depends on (`setup`: the detector's options and the price
 * book's source). A cache with another key is not read.
 */
export function scanCacheKey(setup: unknown): string {
  return createHash('sha256')
    .update(`${LAYOUT}\n${buildStamp()}\n${pricesVersion()}\n${setupText(setup)}`)
    .digest('hex');
}

/**
 * A temporary file of this cache's (`.scan-cache-<pid>-<12 hex>`) older than this, ms, was left by a
 * scan that died between writing and renaming it: a scan writes and renames its own in milliseconds.
 */
const STALE_TEMP_MS = 10 * 60 * 1000;

/** The name of a temporary file {@link ScanCache.save} writes. */
const TEMP_NAME = /^\.scan-cache-\d+-[0-9a-f]{12}$/;

/**
 * Removes the temporary files of the cache folder `folder` (one of `uid` alone, checked by the
 * caller) that a scan left when it died before renaming them: only regular files (never a link,
 * whatever it points to) owned by `uid`, older than {@link STALE_TEMP_MS}. Never throws.
 */
function removeStaleTemps(folder: string, uid: number, now: number): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!TEMP_NAME.test(name)) continue;
    const path = join(folder, name);
    try {
      const info = lstatSync(path);
      if (info.isFile() && info.uid === uid && info.mtimeMs < now - STALE_TEMP_MS) unlinkSync(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/**
 * Why a cache in `folder` is not for user `uid`: the folder belongs to another user, or it does not
 * exist and the nearest folder above it, where it would be made, is another user's that this process
 * may write in all the same (root's, a group's). A scan run as root with a user's `HOME`
 * (`sudo loopguard scan`) must neither use that user's cache nor make a folder of root's in that
 * user's home, which would turn the user's cache off. A folder above that anyone may make folders in
 * (`/tmp`) is no one's in this sense, and one this process cannot write in makes no folder anyway.
 * `undefined` when the cache may be there, or nothing on the way can be looked at.
 */
function otherUsersFolder(folder: string, uid: number): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    let info: Stats;
    try {
      info = lstatSync(at);
    } catch {
      if (dirname(at) === at) return undefined;
      continue; // not made yet: the folder above decides
    }
    if (info.uid === uid || (at !== folder && ((info.mode & 0o002) !== 0 || !writable(at)))) return undefined;
    return `the cache is off: ${at} belongs to another user (uid ${info.uid}), not to this one (uid ${uid})`;
  }
}

/** Whether this process may make files in the folder `path`. */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `info` is the user's own and no one else's: owner `uid`, no permission for group or others. */
function ownedAlone(info: Stats, uid: number): boolean {
  return info.uid === uid && (info.mode & 0o077) === 0;
}

/** A file's identity at a time, as {@link ScanCache.look} saw it. */
export interface Looked {
  /** {@link identity} of the file. */
  id: string;
  /** Whether it was last changed long enough before it was looked at to be remembered. */
  settled: boolean;
  /** Its size in bytes. */
  size: number;
}

/**
 * What `loopguard scan` remembers of each transcript between runs, in one file of the user's own:
 * per file, its identity (device, inode, size, modification and change times) and its result (the
 * session's report, or the problem). A file whose identity is the same is not read again; any change
 * reads it whole. The file is trusted only when it and its folder belong to the user alone (owner,
 * mode 0600/0700, no symbolic link), its checksum holds and its key (layout, build, options) is this
 * scan's; anything else is ignored, never an error. Written atomically (a new file of mode 0600,
 * then renamed), and only when something changed.
 * @example
 * const cache = ScanCache.open(scanCacheFile(process.env), scanCacheKey(setup));
 * const looked = cache.look(file); const known = looked && cache.result(file, looked);
 */
export class ScanCache {
  private readonly fresh = new Map<string, readonly [string, FileScan]>();
  private changed = false;

  private constructor(
    private readonly file: string | undefined,
    private readonly key: string,
    private readonly uid: number,
    private readonly old: Map<string, unknown>,
    /** Why this cache remembers nothing, to be said once (its folder is another user's); else `undefined`. */
    readonly offReason?: string,
  ) {}

  /**
   * The cache at `file` for scans with `key`: empty when there is none, or it cannot be trusted.
   * No `file` or no user id (Windows): a cache that remembers nothing and writes nothing.
   * @param uid - the user the cache must belong to. @default the process's user
   */
  static open(file: string | undefined, key: string, uid = process.getuid?.()): ScanCache {
    if (file === undefined || uid === undefined) return new ScanCache(undefined, key, -1, new Map());
    const offReason = otherUsersFolder(dirname(file), uid);
    if (offReason !== undefined) return new ScanCache(undefined, key, -1, new Map(), offReason);
    return new ScanCache(file, key, uid, ScanCache.read(file, key, uid));
  }

  private static read(file: string, key: string, uid: number): Map<string, unknown> {
    const none = new Map<string, unknown>();
    let text: Buffer;
    try {
      if (!ScanCache.folderIsOwn(dirname(file), uid)) return none;
      // never through a link, and never blocked on a FIFO put in its place
      const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const info = fstatSync(fd);
        if (!info.isFile() || !ownedAlone(info, uid) || info.size > MAX_BYTES) return none;
        text = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      return none; // none yet, or not to be opened: a cold scan
    }
    const end = text.indexOf(10);
    const [magic, layout, stamp, sum] = text.subarray(0, Math.max(0, end)).toString('latin1').split(' ');
    if (magic !== MAGIC || layout !== String(LAYOUT) || stamp !== key) return none;
    const body = text.subarray(end + 1);
    if (createHash('sha256').update(body).digest('hex') !== sum) return none;
    try {
      const entries = JSON.parse(body.toString('utf8')) as unknown;
      if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return none;
      return new Map(Object.entries(entries));
    } catch {
      return none;
    }
  }

  /** Whether `folder` is a folder (not a link to one) of `uid` alone. */
  private static folderIsOwn(folder: string, uid: number): boolean {
    const info = lstatSync(folder);
    return info.isDirectory() && ownedAlone(info, uid);
  }

  /** Whether this cache remembers and writes anything (a file, a user). */
  get enabled(): boolean {
    return this.file !== undefined;
  }

  /**
   * `file`'s identity now, with that of the file its report also reads (a Gemini CLI chat's
   * `.project_root`, or that it is absent); `undefined` when it cannot be looked at (or the cache is off).
   */
  look(file: string): Looked | undefined {
    if (this.file === undefined) return undefined;
    const now = Date.now();
    let info: Stats & { mtimeMs: number | bigint; ctimeMs: number | bigint };
    try {
      info = statSync(file, { bigint: true }) as unknown as Stats;
    } catch {
      return undefined;
    }
    let latest = Math.max(Number(info.mtimeMs), Number(info.ctimeMs));
    let id = identity(info);
    const also = geminiProjectRootFile(file);
    if (also !== undefined) {
      try {
        const other = statSync(also, { bigint: true }) as unknown as Stats;
        latest = Math.max(latest, Number(other.mtimeMs), Number(other.ctimeMs));
        id += ` ${identity(other)}`;
      } catch (error) {
        id += ` ${(error as NodeJS.ErrnoException).code ?? 'unseen'}`;
      }
    }
    return { id, settled: latest <= now - SETTLED_MS, size: Number(info.size) };
  }

  /** What the last scan found in `file`, if its identity was `looked`'s; else `undefined` (read it). */
  result(file: string, looked: Looked): FileScan | undefined {
    const entry = this.old.get(file);
    if (!Array.isArray(entry) || entry.length !== 2 || entry[0] !== looked.id) return undefined;
    const result = entry[1] as FileScan | null;
    if (typeof result !== 'object' || result === null) return undefined;
    const named = result.session?.file ?? result.problem?.file;
    if (named !== file) return undefined;
    this.fresh.set(file, [looked.id, result]);
    return result;
  }

  /**
   * Remembers `result`, read from `file` after it was `before`, if the file is still the same now
   * and was settled then, and the result holds for another scan (no reply priced at the time of the
   * scan, no failed read); else the next scan reads it again.
   */
  remember(file: string, before: Looked | undefined, result: FileScan): void {
    if (before === undefined || !before.settled || result.pricedToday || result.readFailed) return;
    const after = this.look(file);
    if (after?.id !== before.id) return;
    this.fresh.set(file, [before.id, result]);
    this.changed = true;
  }

  /**
   * Writes the cache when something changed: the files of this scan as it found them, and those of
   * the last outside this scan's `roots` (a file under them that was not found is gone). Never
   * throws: a cache that cannot be written is left as it was.
   */
  save(roots: readonly string[]): void {
    const file = this.file;
    if (file === undefined) return;
    const under = (path: string) =>
      roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
    const entries: Record<string, unknown> = {};
    for (const [path, entry] of this.old) {
      if (under(path)) {
        if (!this.fresh.has(path)) this.changed = true; // gone, or no longer remembered
      } else entries[path] = entry;
    }
    if (!this.changed) return;
    for (const [path, entry] of this.fresh) entries[path] = entry;
    const body = Buffer.from(JSON.stringify(entries), 'utf8');
    const sum = createHash('sha256').update(body).digest('hex');
    const folder = dirname(file);
    const temp = join(folder, `.scan-cache-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      // never a folder of this user's in another user's folder (root's in a home, by sudo)
      if (otherUsersFolder(folder, this.uid) !== undefined) return;
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      if (!ScanCache.folderIsOwn(folder, this.uid)) return;
      removeStaleTemps(folder, this.uid, Date.now());
      // created with its final mode, never over an existing file or link (O_EXCL)
      writeFileSync(temp, Buffer.concat([Buffer.from(`${MAGIC} ${LAYOUT} ${this.key} ${sum}\n`), body]), {
        mode: 0o600,
        flag: 'wx',
      });
      renameSync(temp, file);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        // not made
      }
    }
  }
}
