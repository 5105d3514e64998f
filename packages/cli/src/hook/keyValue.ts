/**
 * After a key's `:` in a shell command, the value it is set to (trust71): a JSON, YAML or TOML key
 * written (`"loopguard": {`, `"LOOPGUARD_HOOK": "off"`, a `sed` replacement's `"loopguard":/`) is
 * followed by one; a search for the key (`grep '"loopguard":' ~/.claude.json`) ends at it, the
 * pattern's quote closing before a space, a separator or the command's end. Only a command is read
 * so: an `Edit`'s new text may end at a key whose value the file keeps (`"loopguard":` for
 * `"github":`).
 */
export const VALUE_FOLLOWS = /(?=\s*(?:[^\s'"]|['"][^\s;&|)]))/.source;
