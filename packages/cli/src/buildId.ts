/**
 * What build of loopguard this is: a checksum of the compiled JavaScript of core, sqlite and the CLI
 * (16 hex digits), written into `dist/buildId.js` by scripts/bundle-hook.mjs after `tsc -b`, so that
 * the modules, the hook's bundles and its startup snapshot all carry the same one. What a build
 * sealed (the hook's configuration, `config.sealed`) is taken only by that build: another one, with
 * other checks under the same defaults, validates it again (trust51). `unbundled` when only `tsc`
 * ran (a checkout being built): such a tree seals under that name.
 */
export const BUILD_ID: string = 'unbundled';
