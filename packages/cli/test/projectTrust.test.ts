import { describe, expect, it } from 'vitest';
import { codexTrusts, geminiTrusts } from '../src/hook/projectTrust.js';

// trust65: an agent's trust in a project, read as Gemini CLI 0.61.0 and Codex 0.169.0 read it
describe("the agents' trust in a project", () => {
  it("Gemini CLI: the longest rule holding the project decides; TRUST_PARENT trusts its rule's parent", () => {
    expect(geminiTrusts('{"/work": "TRUST_FOLDER"}', '/work/app')).toBe(true);
    expect(geminiTrusts('{"/work": "TRUST_FOLDER", "/work/app": "DO_NOT_TRUST"}', '/work/app')).toBe(false);
    expect(geminiTrusts('{"/work/app/x": "TRUST_PARENT"}', '/work/app')).toBe(true);
    expect(geminiTrusts('{\n  // mine\n  "/work/app": "TRUST_FOLDER",\n}', '/work/app')).toBe(true);
    expect(geminiTrusts('{"/work/application": "TRUST_FOLDER"}', '/work/app')).toBe(false);
    expect(geminiTrusts(undefined, '/work/app')).toBe(false);
    expect(geminiTrusts('{', '/work/app')).toBe(false);
  });

  it('Codex: the nearest project table\'s trust_level decides, only "trusted" trusts', () => {
    const config = (dir: string, level: string) => `[projects."${dir}"]\ntrust_level = "${level}"\n`;
    expect(codexTrusts(config('/work/app', 'trusted'), '/work/app')).toBe(true);
    expect(codexTrusts(config('/work', 'trusted'), '/work/app/sub')).toBe(true);
    expect(codexTrusts(config('/work', 'trusted') + config('/work/app', 'untrusted'), '/work/app')).toBe(
      false,
    );
    expect(codexTrusts(`[projects.'/work/app']\ntrust_level = 'trusted'\n`, '/work/app')).toBe(true);
    // a key of the next table is not the project's
    expect(codexTrusts(`[projects."/work/app"]\n[tui]\ntrust_level = "trusted"\n`, '/work/app')).toBe(false);
    expect(codexTrusts('model = "o3"\n', '/work/app')).toBe(false);
    expect(codexTrusts(undefined, '/work/app')).toBe(false);
  });

  // trust66: Codex 0.169.0 reads its config as TOML, so the project's trust in any of its forms
  it("Codex: a project's trust_level in an inline table or a dotted key is read", () => {
    const app = '"/work/app"';
    expect(codexTrusts(`projects = { ${app} = { trust_level = "trusted" } }\n`, '/work/app')).toBe(true);
    expect(codexTrusts(`[projects]\n${app} = { trust_level = "trusted" }\n`, '/work/app')).toBe(true);
    expect(codexTrusts(`[projects]\n${app}.trust_level = "trusted"\n`, '/work/app')).toBe(true);
    expect(codexTrusts(`projects.${app}.trust_level = 'trusted' # mine\n`, '/work/app')).toBe(true);
    expect(
      codexTrusts(`[projects.${app}]\nx = { a = [1, { b = "}" }] }\ntrust_level = "trusted"\n`, '/work/app'),
    ).toBe(true);
    const both = `projects = { "/work" = { trust_level = "trusted" }, ${app} = { trust_level = "untrusted" } }\n`;
    expect(codexTrusts(both, '/work/app')).toBe(false);
    expect(codexTrusts(`[projects]\n"/other" = { trust_level = "trusted" }\n`, '/work/app')).toBe(false);
    expect(codexTrusts(`[tui]\nprojects = { ${app} = { trust_level = "trusted" } }\n`, '/work/app')).toBe(
      false,
    );
    for (const broken of ['x = [#]', 'x = ["a', 'x = [1, 2', 'x = { a = [ }', 'projects = { "/work/app" = {'])
      expect(
        codexTrusts(`${broken}\n[projects.${app}]\ntrust_level = "trusted"\n`, '/work/app'),
        broken,
      ).toBe(true);
    expect(codexTrusts(`# projects = { ${app} = { trust_level = "trusted" } }\n`, '/work/app')).toBe(false);
  });
});

// trust67: TOML values over several lines, as Codex 0.169.0's TOML parser reads them: a
// multi-line string holds text, not tables; an array or an inline table may span lines.
describe("trust67: Codex's config.toml with values over several lines", () => {
  const app = '"/work/app"';
  const table = `[projects.${app}]\ntrust_level = "trusted"\n`;
  it('a trust inside a multi-line string is no trust', () => {
    expect(codexTrusts(`notes = """\n${table}"""\n`, '/work/app')).toBe(false);
    expect(codexTrusts(`notes = '''\n${table}'''\n`, '/work/app')).toBe(false);
    expect(codexTrusts(`notes = """a "quoted" line\n${table}"""\n`, '/work/app')).toBe(false);
  });
  it('a trust after a multi-line string or array, or in an inline table over lines, is read', () => {
    expect(codexTrusts(`notes = """\n[tui]\n"""\n${table}`, '/work/app')).toBe(true);
    expect(
      codexTrusts(`[projects.${app}]\nx = [\n  1, # one\n  "]",\n]\ntrust_level = "trusted"\n`, '/work/app'),
    ).toBe(true);
    expect(codexTrusts(`projects = {\n  ${app} = { trust_level = "trusted" },\n}\n`, '/work/app')).toBe(true);
    expect(codexTrusts(`[projects.${app}]\ntrust_level = """trusted"""\n`, '/work/app')).toBe(true);
  });
});
