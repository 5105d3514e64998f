import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file the server serves as is.
 * @example { body: Buffer.from('<!doctype html>…'), type: 'text/html; charset=utf-8' }
 */
export interface StaticAsset {
  /** The file's bytes. */
  body: Buffer;
  /** Its content type. */
  type: string;
}

const require = createRequire(import.meta.url);
const publicFile = (name: string): string => fileURLToPath(new URL(`../public/${name}`, import.meta.url));
/** Core's money rule as a browser module (one file, no imports): the page says dollars as every door does. */
const formatUsdModule = (): string =>
  join(dirname(require.resolve('@loopguard/core')), 'kernel', 'formatUsd.js');

/**
 * The dashboard's files by URL path: the page, its script and style (from the package's `public/`),
 * core's `formatUsd` (the page's dollars) and the pinned uPlot chart library (from its npm package).
 * Read once.
 * @example loadStaticAssets().get('/')?.type // 'text/html; charset=utf-8'
 */
export function loadStaticAssets(): Map<string, StaticAsset> {
  const files: [string, string, string][] = [
    ['/', publicFile('index.html'), 'text/html; charset=utf-8'],
    ['/dashboard.js', publicFile('dashboard.js'), 'text/javascript; charset=utf-8'],
    ['/dashboard.css', publicFile('dashboard.css'), 'text/css; charset=utf-8'],
    ['/formatUsd.js', formatUsdModule(), 'text/javascript; charset=utf-8'],
    [
      '/vendor/uPlot.iife.min.js',
      require.resolve('uplot/dist/uPlot.iife.min.js'),
      'text/javascript; charset=utf-8',
    ],
    ['/vendor/uPlot.min.css', require.resolve('uplot/dist/uPlot.min.css'), 'text/css; charset=utf-8'],
  ];
  return new Map(files.map(([path, file, type]) => [path, { body: readFileSync(file), type }]));
}
