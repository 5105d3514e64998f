import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { TERMINAL_SHELL_REFUSED, terminalShellRefusal } from '../src/hook/terminalShellCall.js';
import { claudeEvent, codexShellCall, shellCall, tempProject } from './hookHelpers.js';

// Codex 0.169.0 hands `write_stdin` to no hook: a shell or interpreter it keeps open for typed
// commands would run them unseen (stdin63). Its start is refused; a command given to it is not.

describe('a shell or interpreter started for typed commands (Codex)', () => {
  it.each([
    'sh',
    'bash',
    'bash -i',
    '/bin/bash --norc --noprofile',
    'exec zsh -l',
    'env -i TERM=xterm sh',
    'TERM=dumb bash',
    'bash -s',
    'sh -s -- a b',
    'python3',
    'python3 -i',
    'python -',
    'node',
    'node --interactive',
    'deno repl',
    'irb',
    'perl',
    'php -a',
    'cd src && bash',
    'sh | tee log.txt',
    '"sh"',
    // trust64: the shapes stdin63 left, each a terminal the model types into through write_stdin
    'python3 -i x.py',
    'python3 -i -c "import app"',
    'python3 -m pdb app.py',
    'python3 -c \'import pty; pty.spawn("/bin/bash")\'',
    'node -r dotenv/config',
    'node --require ts-node/register',
    'perl -Mstrict',
    'bash -o vi',
    'busybox sh',
    'cat | sh',
    'cat - | bash -s',
    'sh -c sh',
    'bash -lc "exec bash -i"',
    'script',
    'script -q /dev/null',
    'script -c bash /dev/null',
    'tmux',
    'tmux new -s work',
    'tmux attach -t work',
    'screen -S work',
    'ssh build-host',
    'ssh -p 2222 -i ~/.ssh/id me@host',
    'ssh host bash',
    'sudo -s',
    'sudo -u postgres -i',
    'sudo bash',
    'su',
    'su - postgres',
    'lua -i',
    // shell66: `-T` asks for no remote terminal, but the remote shell still reads the local one
    'ssh -T build-host',
    'ssh -T -l deploy build-host',
    'ssh -o StrictHostKeyChecking=no build-host',
    'ssh -oStrictHostKeyChecking=no -lgitlab build-host',
    // shell66: a prompt with a shell escape (`.shell`, `\\!`, `system`, `shell`, `:!`, `!`) is a shell
    'sqlite3 app.db',
    'sqlite3 -cmd ".mode box" app.db',
    'psql -U postgres app',
    'psql -f - app',
    'mysql -u root -proot app',
    'gdb ./app',
    "gdb -ex 'break main' ./app",
    'lldb ./app',
    'vim src/app.ts',
    'vi +10 notes.txt',
    'nvim',
    'nano README.md',
    'emacs -nw app.py',
    'less build.log',
    'git diff | less',
    'more build.log',
    'docker run -it ubuntu',
    'docker run --rm -it -v $(pwd):/src -w /src node:20 sh',
    'docker exec -it app bash',
    'podman run -i alpine',
    'docker container exec -i app sh -i',
    'kubectl exec -it web-0 -- sh',
    'kubectl exec --stdin --tty web-0 -c app -- /bin/bash',
    'kubectl run tmp --rm -it --image=busybox',
    'kubectl attach -i web-0',
  ])('%s is refused', (command) => {
    expect(terminalShellRefusal(shellCall(command))).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'bash -lc "npm test"',
    'sh -c ls',
    'sh -ec "make"',
    'bash script.sh',
    'sh < setup.sh',
    "bash <<'EOF'\nls\nEOF",
    'curl -fsSL https://example.com/install.sh | sh',
    'echo ls | bash',
    'python3 -c "print(1)"',
    'python3 -m pytest -q',
    'python3 manage.py test',
    'node -e "console.log(1)"',
    'node --eval=1',
    'node dist/bin.js',
    'perl -pe s/a/b/ f.txt',
    'ruby -e "p 1"',
    'php -r "echo 1;"',
    'git status',
    'shellcheck a.sh',
    'npm test',
    'python3 --version',
    'node -v',
    'bash --help',
    '#!/bin/bash\nset -e',
    // trust64: the same programs given something to run, or no terminal
    'node -i app.js',
    'node -r dotenv/config dist/server.js',
    'perl -Mstrict -e "print 1"',
    'bash -o pipefail -c "make"',
    'busybox ls -la',
    'cat log.txt | sh',
    'cat setup.sh | bash',
    'sh -c "npm test"',
    'script -q -c "npm test" /dev/null',
    'tmux new -d -s work "npm run dev"',
    'tmux send-keys -t work "npm test" Enter',
    'tmux ls',
    'screen -dmS work npm run dev',
    'ssh build-host "make -j4"',
    'ssh -N -L 5432:localhost:5432 db-host',
    'sudo apt-get install -y jq',
    'sudo -u postgres psql -c "select 1"',
    'su - postgres -c "pg_dump app"',
    'python3 -m pytest -x',
    'lua -e "print(1)"',
    // shell66: a git host's account runs no shell (its greeting, then exit); `-n` reads no terminal
    'ssh -T git@github.com',
    'ssh -T -p 443 git@ssh.github.com',
    'ssh -l git gitlab.com',
    'ssh -n build-host',
    // shell66: the same programs given their commands, their input, or no terminal
    'sqlite3 app.db "select count(*) from users"',
    'sqlite3 -json app.db .tables',
    'sqlite3 app.db < schema.sql',
    'sqlite3 --version',
    'psql -c "select 1" app',
    'psql -U postgres -f setup.sql app',
    'psql --version',
    'psql -l',
    'mysql -u root -proot -e "CREATE DATABASE t"',
    'mysql --version',
    'gdb -batch -ex run -ex bt ./app',
    'gdb --version',
    'lldb --batch -o run ./app',
    'vim --version',
    "vim -es -c '%s/a/b/g' -c wq notes.txt",
    'nvim --headless +qa',
    'emacs --batch -l build.el',
    'less build.log | head',
    'git log --oneline | less > log.txt',
    'docker run --rm node:20 node -v',
    'docker run -d -p 3306:3306 mysql:8.0',
    'docker run -v $(pwd):/src -w /src openjdk:11 ./mvnw test',
    'docker run -i --rm hadolint/hadolint < Dockerfile',
    'docker run --rm -it node:20 npm test',
    'docker exec app ls /srv',
    'docker exec -it app bash -lc "npm test"',
    'kubectl exec web-0 -- ls',
    'kubectl exec -it web-0 -- cat /etc/hosts',
    'kubectl run tmp --image=busybox --restart=Never -- echo hi',
  ])('%s is left alone', (command) => {
    expect(terminalShellRefusal(shellCall(command))).toBeUndefined();
  });

  it("Codex's call is denied with why and what to do instead, and recorded as refused", async () => {
    const dir = tempProject();
    const reply = JSON.parse(
      await answerHookEvent('codex', JSON.stringify(codexShellCall(dir, 'bash')), { env: {}, cwd: dir }),
    );
    expect(reply.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: TERMINAL_SHELL_REFUSED.replace(/\.$/, ''),
    });
    expect(TERMINAL_SHELL_REFUSED).toContain('run each command as a call of its own');
  });

  it("Claude Code's `Bash` keeps no shell open for typed commands: its `bash` is left alone", async () => {
    const dir = tempProject();
    const event = claudeEvent(dir, 's1', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'bash' },
      tool_use_id: 'toolu_1',
    });
    const reply = await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });
    expect(reply).not.toContain('deny');
  });
});

// Ordinary work of three corpora of real agent runs (../shared/corpora, read at run time, never
// copied) must not meet the rule; without the corpora there is nothing to read.
const CORPORA = fileURLToPath(new URL('../../../../shared/corpora/', import.meta.url));

describe.skipIf(!existsSync(CORPORA))('the corpora: no ordinary command is refused', () => {
  it.each(['openhands-claude35-dev', 'swe-agent-java-dev', 'swe-trajectories-dev'])('%s', (corpus) => {
    let seen = 0;
    const refused: string[] = [];
    const root = join(CORPORA, corpus);
    for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.jsonl')) continue;
      for (const line of readFileSync(join(root, name), 'utf8').split('\n')) {
        if (line === '') continue;
        const step = JSON.parse(line) as { type?: string; input?: unknown };
        if (step.type !== 'action') continue;
        const input = typeof step.input === 'string' ? { command: step.input } : step.input;
        const command = (input as { command?: unknown } | null)?.command;
        if (typeof command !== 'string') continue;
        seen++;
        if (terminalShellRefusal(shellCall(command)) !== undefined) refused.push(command.slice(0, 80));
      }
    }
    expect(seen).toBeGreaterThan(1000);
    expect(refused).toEqual([]);
  });
});

// trust67: programs shell66 left, read by its principle (what the model could type through
// `write_stdin` that no hook sees). A pager reads its keys from the terminal and runs a shell at
// `!`: git's and man's page only where the command gives them one, since Codex 0.169.0 starts
// `exec_command` with `PAGER=cat` and `GIT_PAGER=cat` (`UNIFIED_EXEC_ENV`); man's `MANPAGER` is
// the user's. `node inspect`'s debugger runs code (`exec`), telnet's prompt `!`, mosh is a remote
// login, and expect with no script or `interact` hands over the terminal.
describe('trust67: a pager, a debugger or a remote login that reads the terminal (Codex)', () => {
  const refusal = (command: string, env: Record<string, string | undefined> = {}) =>
    terminalShellRefusal(shellCall(command), env);

  it.each([
    'GIT_PAGER=less git log',
    'GIT_PAGER="less -R" git show HEAD',
    'env -u GIT_PAGER git log -p',
    'env -i PATH=/usr/bin git diff',
    'cd sub && GIT_PAGER=more git blame a.c',
    'PAGER=less man ls',
    'man -P less ls',
    'man --pager=most 3 printf',
    'MANPAGER=vim man git',
    'env -i man ls',
    'node inspect app.js',
    'node inspect -p 4242',
    'telnet example.com 80',
    'telnet',
    'mosh build-host',
    'mosh deploy@build-host -- bash',
    'expect',
    'expect -i run.exp',
    `expect -c 'spawn ssh build-host; interact'`,
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it('man with the user’s own MANPAGER is refused', () => {
    expect(refusal('man ls', { MANPAGER: 'less -R' })).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('man ls', { MANPAGER: 'cat' })).toBeUndefined();
    expect(refusal('man ls | col -b', { MANPAGER: 'less' })).toBeUndefined();
  });

  it.each([
    'git log --oneline -5',
    'git diff',
    'git show HEAD~1',
    'GIT_PAGER=cat git log',
    'GIT_PAGER= git log',
    'GIT_PAGER=less git --no-pager log',
    'GIT_PAGER=less git -P diff',
    'GIT_PAGER=less git log | head',
    'GIT_PAGER=less git log > log.txt',
    'env -u GIT_PAGER git --no-pager diff',
    'man ls',
    'man -k socket',
    'MANPAGER=cat man ls',
    'PAGER=less man ls > ls.txt',
    'node --inspect app.js',
    'node inspect.js',
    'echo quit | telnet mail 25',
    'mosh build-host -- uptime',
    'expect run.exp',
    `expect -c 'spawn ls; expect eof'`,
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });
});

// trust71: git's fallback to `PAGER` where the command leaves `GIT_PAGER` unset and sets `PAGER`
// itself: git pages with `core.pager` (or `pager.<command>`) first, then `PAGER`; so the configuration
// git reads is read too, and one that names a pager (or that loopguard cannot read) keeps the refusal.
describe("trust71: git's fallback to the command's own PAGER (Codex)", () => {
  const refusal = (command: string, dir: string, env: Record<string, string | undefined> = {}) =>
    terminalShellRefusal(shellCall(command, dir), env);
  /** A project with a git repository whose config is `config`, and a HOME whose `.gitconfig` is `global`. */
  const repo = (config = '[core]\n\tbare = false\n', global = '[user]\n\tname = me\n') => {
    const dir = tempProject();
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'config'), config);
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(dir, 'home', '.gitconfig'), global);
    return { dir, env: { HOME: join(dir, 'home') } };
  };

  it.each([
    'env -i PAGER=cat git log',
    'env -i PATH=/usr/bin PAGER=cat git diff HEAD~1',
    'env -u GIT_PAGER PAGER=cat git show',
    'unset GIT_PAGER; export PAGER=cat; git log -5',
  ])('%s is left alone where no configuration names a pager', (command) => {
    const { dir, env } = repo();
    expect(refusal(command, dir, env)).toBeUndefined();
    expect(refusal(command, join(dir, 'src'), env), 'from a subfolder').toBeUndefined();
  });

  it('is refused where the configuration git reads names a pager, includes another file, or is not the one read', () => {
    const command = 'env -u GIT_PAGER PAGER=cat git log';
    expect(refusal(command, repo('[core]\n\tpager = less\n').dir)).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal(command, repo('[pager]\n\tlog = less -R\n').dir)).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal(command, repo('[include]\n\tpath = ~/more.gitconfig\n').dir)).toBe(TERMINAL_SHELL_REFUSED);
    const global = repo(undefined, '[core]\n\tpager = delta\n');
    expect(refusal(command, global.dir, global.env)).toBe(TERMINAL_SHELL_REFUSED);
    // `env -i` drops HOME: git reads no global file then
    expect(refusal('env -i PAGER=cat git log', global.dir, global.env)).toBeUndefined();
    const { dir, env } = repo();
    for (const other of [
      'env -i PAGER=cat git -c core.pager=less log',
      'env -i PAGER=cat git -C ../other log',
      'env -i PAGER=cat GIT_CONFIG_GLOBAL=/tmp/g git log',
      'cd ../other && env -i PAGER=cat git log',
      'env -i PAGER=less git log',
      'env -i PAGER=cat GIT_PAGER=less git log',
    ])
      expect(refusal(other, dir, env), other).toBe(TERMINAL_SHELL_REFUSED);
  });
});

// trust68: what trust67 left, by the same principle. An expect script's `interact` hands the
// spawned program the terminal; ftp's and sftp's prompts run a local shell at `!`; gh pages
// through `GH_PAGER` (Codex sets it to `cat`), else its config's pager; `docker start -i` and
// `docker compose exec|run` give the container's process the terminal as `docker attach` does.
describe('trust68: an expect script, ftp, sftp, gh and a container started or composed (Codex)', () => {
  const refusal = (command: string, dir = '/repo', env: Record<string, string | undefined> = {}) =>
    terminalShellRefusal(shellCall(command, dir), env);

  it.each([
    'ftp ftp.example.com',
    'ftp -n 10.0.0.5',
    'sftp deploy@build-host',
    'sftp -P 2222 build-host:/srv',
    'sftp -b - build-host',
    'lftp build-host',
    'GH_PAGER=less gh pr view 12',
    'env -u GH_PAGER gh issue list',
    'env -i gh pr diff',
    'docker start -ai app',
    'docker start --attach --interactive app',
    'podman start -i app',
    'docker compose exec app bash',
    'docker compose run --rm app sh',
    'docker-compose exec -T web python3',
    'docker attach app',
    'docker attach --no-stdin=false app',
    // a pager set for the rest of the command: exported, or assigned (Codex's variable is exported)
    'export GIT_PAGER=less; git log',
    'GIT_PAGER=less; git log',
    'export GH_PAGER=less && gh pr view 1',
    'unset GIT_PAGER; git log',
    'export PAGER=less; man ls',
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'ftp -n host < commands.txt',
    'sftp -b batch.txt build-host',
    'lftp -c "open host; mirror dist"',
    'gh pr view 12',
    'PAGER=less gh pr view 12',
    'GH_PAGER=less gh pr view 12 | head',
    'GH_PAGER=less gh pr list > prs.txt',
    'gh --version',
    'docker start app',
    'docker start -a app',
    'docker compose exec app npm test',
    'docker compose exec -T app pytest -q',
    'docker compose run --rm app npm test',
    'docker compose up -d',
    'docker compose exec --interactive=false app sh',
    'docker attach --no-stdin app',
    'export GIT_PAGER=cat; git log',
    'export PAGER=less; git log',
    'export FOO=1 && man ls',
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });

  it('an expect script that calls `interact` is refused; one that waits for its end is not', () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'login.exp'), 'spawn ssh build-host\nexpect "$ "\ninteract\n');
    writeFileSync(join(dir, 'tunnel.exp'), 'spawn ssh host\nif {1} { interact }\n');
    writeFileSync(join(dir, 'run.exp'), '# no interact here\nspawn npm test\nexpect eof\n');
    expect(refusal('expect login.exp', dir)).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal(`expect -f ${join(dir, 'tunnel.exp')}`, dir)).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('expect run.exp', dir)).toBeUndefined();
    // written by the same command: its text is in the command
    const written = "cat > go.exp <<'EOF'\nspawn ssh build-host\ninteract\nEOF\nexpect go.exp";
    expect(refusal(written, dir)).toBe(TERMINAL_SHELL_REFUSED);
  });
});
