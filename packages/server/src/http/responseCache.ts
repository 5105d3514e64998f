import type { Clock } from '@loopguard/core';

/** Entries kept at most; the cache is emptied when full (queries are few: pages and filters). */
const MAX_ENTRIES = 1000;

/**
 * A cache of JSON answers: an answer is reused for the same key while the stamp is unchanged and it
 * is younger than `cacheMs`, so many dashboards polling one server cost one query a second. Requests
 * that miss together share one build (no stampede on a slow store).
 */
export interface ResponseCache {
  /** The JSON text for `key`: cached when fresh, else built by `build`. */
  json(key: string, stamp: () => Promise<string>, build: () => Promise<unknown>): Promise<string>;
}

/**
 * Creates a {@link ResponseCache}; `cacheMs` 0 disables it (every call builds).
 * @example const cache = createResponseCache(1000, systemClock);
 */
export function createResponseCache(cacheMs: number, clock: Clock): ResponseCache {
  const entries = new Map<string, { body: Promise<string>; stamp: string; at: number }>();
  return {
    async json(key, stamp, build) {
      if (cacheMs <= 0) return JSON.stringify(await build());
      const current = await stamp();
      const now = clock.now();
      const hit = entries.get(key);
      if (hit && hit.stamp === current && now - hit.at >= 0 && now - hit.at < cacheMs) return hit.body;
      const body = build().then((value) => JSON.stringify(value));
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const entry = { body, stamp: current, at: now };
      entries.set(key, entry);
      body.catch(() => {
        if (entries.get(key) === entry) entries.delete(key); // a failed build is not reused
      });
      return body;
    },
  };
}
