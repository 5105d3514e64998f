import { describe, expect, it } from 'vitest';
import { TERMINAL_SHELL_REFUSED, terminalShellRefusal } from '../src/hook/terminalShellCall.js';
import { shellCall } from './hookHelpers.js';

// trust70, Codex's terminal rule: (2) `sudo`/`doas` resets the environment (sudoers' `env_reset`),
// so a `GIT_PAGER=cat` or `PAGER=cat` before it does not reach the command it runs, whose pager is
// then the default `less`; the command after it is judged as the one that runs, wherever its stdin
// comes from. (3) `tftp` with no `-c` opens its prompt (`get` writes files), as ftp's does. (4) git
// pages only for the commands that page: `GIT_PAGER=less git commit` opens no pager.

const refusal = (command: string, env: Record<string, string | undefined> = {}) =>
  terminalShellRefusal(shellCall(command), env);

describe('sudo and doas: the command they run, in the environment they give it', () => {
  it.each([
    'GIT_PAGER=cat sudo git log',
    'PAGER=cat sudo man ls',
    'export GIT_PAGER=cat; sudo git diff',
    'sudo -u deploy git show HEAD',
    'doas git log',
    'GIT_PAGER=cat sudo --preserve-env=HOME git log',
    'echo x | sudo vim notes.txt',
    'sudo GIT_PAGER=less git log',
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'sudo apt-get install -y jq',
    'sudo git status',
    'sudo git commit -m "fix"',
    'sudo git log | head',
    'sudo git --no-pager log',
    'sudo GIT_PAGER=cat git log',
    'sudo -E git log',
    'sudo --preserve-env=GIT_PAGER git log',
    'sudo -u postgres psql -c "select 1"',
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });
});

describe('tftp: its prompt, unless given its commands', () => {
  it.each(['tftp 10.0.0.5', 'tftp -v host 69', 'tftp'])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each(['tftp 10.0.0.5 -c get firmware.bin', 'tftp -V', 'tftp host < commands.txt'])(
    '%s is left alone',
    (command) => {
      expect(refusal(command)).toBeUndefined();
    },
  );
});

describe('git pages only for the commands that page', () => {
  it.each([
    'GIT_PAGER=less git log',
    'GIT_PAGER=less git -C sub diff',
    'GIT_PAGER=less git -c color.ui=always show',
    'GIT_PAGER=less git -p status',
    'GIT_PAGER=less git --paginate push',
    'GIT_PAGER=less git branch',
    'GIT_PAGER=less git branch -a',
    'GIT_PAGER=less git tag -l "v1*"',
    'GIT_PAGER=less git grep foo',
    'GIT_PAGER=less git stash list',
    'GIT_PAGER=less git reflog',
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'GIT_PAGER=less git commit -m "fix"',
    'GIT_PAGER=less git status',
    'GIT_PAGER=less git push origin main',
    'GIT_PAGER=less git add -A',
    'GIT_PAGER=less git checkout -b feature',
    'GIT_PAGER=less git branch feature',
    'GIT_PAGER=less git branch -d old',
    'GIT_PAGER=less git tag v1.2',
    'GIT_PAGER=less git stash',
    'GIT_PAGER=less git fetch --all',
    'env -i PATH=/usr/bin git rev-parse HEAD',
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });
});

// codex71: `git commit` with no message opens an editor (vim: `:!` runs a shell) that the model
// types into through `write_stdin`, or that waits until Codex's timeout. git takes its editor from
// `GIT_EDITOR`, then `core.editor` (the repository's config, which the model can write: `git config
// core.editor vim`), then `EDITOR` (Codex's `TERM=dumb` skips `VISUAL` and git's default `vi`):
// only `GIT_EDITOR` or `-c core.editor=…` tell that no editor reads the terminal.
describe('git commit that opens an editor', () => {
  it.each([
    'git commit',
    'git commit -a',
    'git commit --amend',
    'git add -A && git commit',
    'git -C sub commit -v',
    'git commit -m "wip" -e',
    'git commit -am "wip" --edit',
    'git commit -c HEAD',
    'git commit --reedit-message=HEAD',
    'git commit --squash HEAD~1',
    'git commit --fixup=amend:HEAD',
    'git commit -t .gitmessage',
    'EDITOR=true git commit',
    'GIT_EDITOR=vim git commit',
    'GIT_EDITOR="code --wait" git commit',
    'git -c core.editor=nano commit',
    'export GIT_EDITOR=vim; git commit',
    'GIT_EDITOR=true sudo git commit',
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it('the user’s own GIT_EDITOR decides: an editor is refused, `true` is not', () => {
    expect(refusal('git commit', { GIT_EDITOR: 'vim' })).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('git commit', { GIT_EDITOR: 'true' })).toBeUndefined();
    expect(refusal('git commit', { EDITOR: 'true' })).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'git commit -m "fix"',
    'git commit -am "fix"',
    'git commit -m"fix" -a',
    'git commit --message=fix',
    'git commit --message fix --amend',
    'git commit -F msg.txt',
    'git commit --file=-',
    'git commit -C HEAD',
    'git commit --reuse-message=HEAD --amend',
    'git commit --amend --no-edit',
    'git commit --fixup HEAD~1',
    'git commit --fixup=HEAD~1',
    'git commit --dry-run',
    'git commit -h',
    'GIT_EDITOR=true git commit',
    'GIT_EDITOR=: git commit --amend',
    'GIT_EDITOR="sed -i 1s/^/x/" git commit',
    'export GIT_EDITOR=true; git commit',
    'git -c core.editor=true commit',
    'sudo GIT_EDITOR=true git commit',
    'git status',
    'git commit-tree HEAD^{tree} -m x',
    'echo git commit',
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });
});

// gitedit71: the other git commands that open the editor, read by the same rule (checked with git
// 2.39, an editor that records its call): an annotated or signed tag without `-m`/`-F` (or with
// `-e`), `rebase -i` and `--edit-todo` (the sequence editor: `GIT_SEQUENCE_EDITOR`, then
// `sequence.editor`, which the model can write, then the editor; and the message editor, which the
// list's `reword` and `squash` open), `cherry-pick`/`revert`/`merge`
// with `-e`, and `notes add|append|edit` without `-m`/`-F`/`-C`. `revert` and `merge` without `-e`
// edit only when stdin is a terminal, which the rule does not know: left alone.
describe('the other git commands that open an editor', () => {
  it.each([
    'git tag -a v1',
    'git tag -s v1',
    'git tag -u KEY v1',
    'git tag --annotate v1 HEAD',
    'git tag -a --no-edit v1',
    'git tag -e -m "v1" v1',
    'git tag -am "v1" --edit v1',
    'EDITOR=true git tag -a v1',
    'GIT_EDITOR=vim git tag -a v1',
    'git rebase -i HEAD~3',
    'git rebase --interactive --autosquash main',
    'git rebase -ir HEAD~2',
    'git rebase --edit-todo',
    'GIT_EDITOR=true git rebase -i HEAD~3',
    'git -c core.editor=true rebase -i HEAD~3',
    'GIT_SEQUENCE_EDITOR=vim git rebase -i HEAD~3',
    'git -c sequence.editor=nano rebase -i HEAD~3',
    // a quiet list editor, the message editor not: the list's `reword`/`squash` open it
    'GIT_SEQUENCE_EDITOR="sed -i s/pick/reword/" git rebase -i HEAD~2',
    'GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash HEAD~3',
    'git -c sequence.editor=true rebase -i HEAD~3',
    'git cherry-pick -e abc123',
    'git cherry-pick --edit abc123',
    'git revert -e HEAD',
    'git revert --no-edit --edit HEAD',
    'git merge -e feature',
    'git merge --no-ff -m "merge" --edit feature',
    'git notes add',
    'git notes add HEAD~1',
    'git notes append',
    'git notes edit',
    'git notes --ref=review add',
    'git notes add -c abc123',
    'git notes add -m "x" -e',
    'git -C sub notes edit HEAD',
  ])('%s is refused', (command) => {
    expect(refusal(command)).toBe(TERMINAL_SHELL_REFUSED);
  });

  it('the user’s GIT_SEQUENCE_EDITOR and GIT_EDITOR decide for rebase -i, GIT_EDITOR for the others', () => {
    expect(
      refusal('git rebase -i HEAD~2', { GIT_SEQUENCE_EDITOR: 'true', GIT_EDITOR: 'true' }),
    ).toBeUndefined();
    expect(refusal('git rebase -i HEAD~2', { GIT_SEQUENCE_EDITOR: 'true' })).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('git rebase -i HEAD~2', { GIT_SEQUENCE_EDITOR: 'vim' })).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('git rebase -i HEAD~2', { GIT_EDITOR: 'true' })).toBe(TERMINAL_SHELL_REFUSED);
    expect(refusal('git tag -a v1', { GIT_EDITOR: 'true' })).toBeUndefined();
    expect(refusal('git tag -a v1', { GIT_SEQUENCE_EDITOR: 'true' })).toBe(TERMINAL_SHELL_REFUSED);
  });

  it.each([
    'git tag v1',
    'git tag -a -m "v1" v1',
    'git tag -am "v1" v1',
    'git tag -sm"v1" v1',
    'git tag -a -F notes.txt v1',
    'git tag --annotate --message=v1 v1',
    'git tag -m "v1" v1',
    'git tag -e v1',
    'git tag -l',
    'git tag -d v1',
    'git tag',
    'GIT_EDITOR=true git tag -a v1',
    'git -c core.editor=true tag -s v1',
    'git rebase main',
    'git rebase --onto main topic',
    'git rebase --abort',
    'git rebase -x "make -i" main',
    'GIT_SEQUENCE_EDITOR=: GIT_EDITOR=true git rebase -i --autosquash HEAD~3',
    'GIT_EDITOR=true GIT_SEQUENCE_EDITOR="sed -i 2s/pick/fixup/" git rebase -i HEAD~2',
    'git -c sequence.editor=true -c core.editor=true rebase -i HEAD~3',
    'export GIT_SEQUENCE_EDITOR=true GIT_EDITOR=:; git rebase --interactive main',
    'git cherry-pick abc123',
    'git cherry-pick -x abc123',
    'git cherry-pick -e --no-edit abc123',
    'git revert HEAD',
    'git revert --no-edit HEAD',
    'git merge feature',
    'git merge --no-edit feature',
    'git merge -m "merge" feature',
    'GIT_EDITOR=true git merge -e feature',
    'git notes add -m "x"',
    'git notes add -F note.txt HEAD',
    'git notes add -C abc123',
    'git notes append --message=x',
    'git notes edit -m y',
    'git notes show',
    'git notes list',
    'GIT_EDITOR=true git notes add',
    'echo git rebase -i',
  ])('%s is left alone', (command) => {
    expect(refusal(command)).toBeUndefined();
  });
});
