import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';

/**
 * `use` of `path` opened for reading, when it is a regular file. It is opened without waiting: a
 * FIFO in its place (which the model can make) must not hang a hook, the MCP server or the status
 * line until a writer comes. The file is closed whatever `use` does.
 * @param what - the file's kind, named in the error (`transcript`, `rollout`, `config`)
 * @throws Error naming `what` and `path` when it is not a regular file, or when it cannot be opened
 * @example const text = withRegularFile(file, 'config', (fd) => readFileSync(fd, 'utf8'));
 */
export function withRegularFile<T>(path: string, what: string, use: (fd: number, stat: Stats) => T): T {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${what} ${path} is not a regular file`);
    return use(fd, stat);
  } finally {
    closeSync(fd);
  }
}
