// Where a user's write credentials live, in one list: the files and folders a governed command
// must not reach (masked by zodex-spawn where they exist when the command starts, refused to
// apply_patch), the folders between a home and its stores (pinned, so that a command cannot move
// a store away from where the next command masks it), the variables that carry tokens, and the
// shell startup files that may export them. Pure: paths in, paths out.

import path from 'node:path';

// Variables that hold a GitHub (or git host) token a shell could push with: removed from every
// governed command's environment, and their values looked for in startup files.
export const TOKEN_VARIABLES: readonly string[] = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GITHUB_PAT',
  'GITLAB_TOKEN',
  'GL_TOKEN',
  'HOMEBREW_GITHUB_API_TOKEN',
];

// Variables that point at a store or an agent: removed too (the paths they name are masked).
export const AGENT_VARIABLES: readonly string[] = ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'GPG_AGENT_INFO', 'DBUS_SESSION_BUS_ADDRESS'];

// One store: a path, and whether it lies below a home (its folders there are pinned).
export interface Store {
  path: string;
  home?: string;
}

// Below each home: git's store and cache helpers, .netrc (git over HTTP reads it through curl),
// ssh keys, gh and hub, gpg and pass (a `pass`-based helper), GNOME's keyrings, Docker's logins
// (ghcr.io), git-credential-manager's plaintext store, X11's cookie (an X client can type into
// the user's terminals), and ~/.config/zodex (where docs/publishing.md keeps the publisher's token).
const HOME_STORES = [
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  '_netrc',
  '.ssh',
  '.config/gh',
  '.config/hub',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  '.git-credential-cache',
  '.cache/git/credential',
  '.docker',
  '.gcm',
  '.Xauthority',
  '.config/zodex',
];

// Stores named by the environment (each relative to nothing: absolute values only).
const ENV_STORES: ReadonlyArray<[string, string]> = [
  ['GH_CONFIG_DIR', ''],
  ['GNUPGHOME', ''],
  ['PASSWORD_STORE_DIR', ''],
  ['DOCKER_CONFIG', ''],
  ['XAUTHORITY', ''],
  ['SSH_AUTH_SOCK', ''],
  ['XDG_CONFIG_HOME', 'git/credentials'],
  ['XDG_CONFIG_HOME', 'gh'],
  ['XDG_CONFIG_HOME', 'hub'],
  ['XDG_CONFIG_HOME', 'zodex'],
  ['XDG_CACHE_HOME', 'git/credential'],
  ['XDG_DATA_HOME', 'keyrings'],
];

// Machine-wide: the X11 sockets' folder (an X server running as root leaves them open to all), and
// /etc/zodex (where docs/publishing.md keeps a root publisher's token).
const SYSTEM_STORES = ['/tmp/.X11-unix', '/etc/zodex'];

// What a governed command of root sees read-only: the programs, libraries and configuration that
// processes outside every confinement run next (the publisher's git, zodex-spawn's own loader
// reading /etc/ld.so.preload, modprobe.d's install lines on a module autoload, cron). Root owns
// them, and uid 0 writes what it owns with no capability at all.
export const ROOT_SYSTEM_FOLDERS: readonly string[] = [
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/boot',
  '/opt',
  '/var/lib',
  '/var/spool',
];

function absolute(value: string | undefined): string | undefined {
  return value && path.isAbsolute(value) ? path.normalize(value) : undefined;
}

// Every store of these homes and this environment, whether it exists or not (zodex-spawn looks
// when each command starts, so a store made later is masked too).
export function credentialStores(homes: readonly string[], env: NodeJS.ProcessEnv | Readonly<Record<string, string>>): Store[] {
  const stores: Store[] = [];
  const seen = new Set<string>();
  const add = (store: Store) => {
    if (seen.has(store.path)) return;
    seen.add(store.path);
    stores.push(store);
  };
  for (const home of homes) for (const relative of HOME_STORES) add({ path: path.join(home, relative), home });
  for (const [name, below] of ENV_STORES) {
    const base = absolute(env[name]);
    if (!base) continue;
    const full = below ? path.join(base, below) : base;
    add({
      path: full,
      ...(homes.find((home) => full.startsWith(`${home}/`)) !== undefined ? { home: homes.find((home) => full.startsWith(`${home}/`))! } : {}),
    });
  }
  for (const system of SYSTEM_STORES) add({ path: system });
  return stores;
}

// The folders to pin: those strictly between a home and each of its stores, and each home itself
// when its parent is writable (a command could rename the home: root's /root below /).
export function pinnedFolders(stores: readonly Store[], homeMovable: (home: string) => boolean): string[] {
  const pins = new Set<string>();
  for (const store of stores) {
    if (!store.home) continue;
    if (homeMovable(store.home)) pins.add(store.home);
    for (let dir = path.dirname(store.path); dir.startsWith(`${store.home}/`); dir = path.dirname(dir)) pins.add(dir);
  }
  // parents before children: a child pinned first would be hidden by its parent's bind
  return [...pins].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

// Shell startup files: a login or interactive shell runs them, so a token they export comes back
// with `bash -lc`. Relative to each home, then machine-wide.
const HOME_STARTUP_FILES = [
  '.profile',
  '.bash_profile',
  '.bash_login',
  '.bashrc',
  '.bash_aliases',
  '.zshenv',
  '.zprofile',
  '.zshrc',
  '.zlogin',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.pam_environment',
  '.config/fish/config.fish',
];
const SYSTEM_STARTUP_FILES = [
  '/etc/environment',
  '/etc/profile',
  '/etc/bash.bashrc',
  '/etc/zsh/zshenv',
  '/etc/zsh/zprofile',
  '/etc/zsh/zshrc',
  '/etc/zshenv',
  '/etc/zprofile',
  '/etc/zshrc',
];
export const SYSTEM_STARTUP_FOLDER = '/etc/profile.d';

export function startupFiles(homes: readonly string[]): string[] {
  return [...homes.flatMap((home) => HOME_STARTUP_FILES.map((file) => path.join(home, file))), ...SYSTEM_STARTUP_FILES];
}

// The shortest value looked for in files: a shorter "token" would be a word, and replacing a
// word everywhere in a startup file would break it. Real tokens are 36 characters and more.
export const MIN_TOKEN_CHARS = 8;

// Literal assignments of a token variable in a startup file's text: `GH_TOKEN=ghp_…` (sh, with
// export, quoted or not), `set -gx GH_TOKEN …` (fish), `setenv GH_TOKEN …` (csh). The values, so
// that a value a shell would compute no other way is known before any shell runs. (A fish `set`
// without -x exports nothing, and is as likely a word in a comment.)
export function tokenAssignments(text: string): string[] {
  const names = TOKEN_VARIABLES.join('|');
  const value = `(?:"([^"\\n$\`\\\\]{${MIN_TOKEN_CHARS},})"|'([^'\\n]{${MIN_TOKEN_CHARS},})'|([^\\s'"$\`;#&|()<>\\\\]{${MIN_TOKEN_CHARS},}))`;
  const forms = [
    `\\b(?:${names})=${value}`,
    `\\bset\\s+(?:-[a-zA-Z]+\\s+)*(?:-[a-zA-Z]*x[a-zA-Z]*|--export)\\s+(?:-[a-zA-Z]+\\s+)*(?:${names})\\s+${value}`,
    `\\bsetenv\\s+(?:${names})\\s+${value}`,
  ];
  const values: string[] = [];
  for (const form of forms) {
    for (const match of text.matchAll(new RegExp(form, 'g'))) {
      const found = match[1] ?? match[2] ?? match[3];
      if (found) values.push(found);
    }
  }
  return values;
}

// Credentials written into a file in plain sight, whoever reads them: a URL's password
// (`https://user:TOKEN@github.com`, in a git config's remote or insteadOf, or a .npmrc) and an
// HTTP authorization git sends (`extraheader = AUTHORIZATION: basic …`, as CI checkouts leave in
// ~/.gitconfig).
export function writtenCredentials(text: string): string[] {
  const values: string[] = [];
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s:/@'"]+:([^\s@/'"]{8,})@/gi)) values.push(match[1]!);
  for (const match of text.matchAll(/\bextraheader\s*=\s*"?authorization:\s*(?:basic|bearer|token)\s+([A-Za-z0-9+/=._~-]{8,})/gi)) values.push(match[1]!);
  return values;
}
