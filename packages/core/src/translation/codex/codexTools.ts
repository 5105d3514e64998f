/**
 * Tool names the Codex steps carry in every door. Codex's own events name no tool for commands and
 * patches (`codex exec --json`), and its rollouts name the command tool by the model's API
 * (`exec_command`, `shell`, `shell_command`, `local_shell_call`): all of them are `shell` here, so
 * one session gives one verdict whichever door reads it.
 */
export const CODEX_TOOLS = { command: 'shell', fileChange: 'apply_patch', webSearch: 'web_search' } as const;

/** The rollouts' names of Codex's command tools. */
const COMMAND_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'local_shell', 'container.exec']);

/**
 * The tool name a Codex call carries as a step: `shell` for its command tools, else its own name.
 * @example codexToolName('exec_command'); // 'shell'
 */
export function codexToolName(name: unknown): string {
  if (typeof name !== 'string' || name === '') return CODEX_TOOLS.command;
  return COMMAND_TOOLS.has(name) ? CODEX_TOOLS.command : name;
}
