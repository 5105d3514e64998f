/** The configuration files loopguard reads from a project directory, first found wins. */
export const CONFIG_FILES = [
  'loopguard.config.json',
  'loopguard.config.yaml',
  'loopguard.config.yml',
] as const;
