// --git-read-credentials FILE: a git-credentials file (one `https://USER:PASSWORD@HOST[/PATH]`
// per line, git's `store` format) holding a credential that can only read. In the governed write
// modes a command's git gets it through git's own store helper, after every helper of the user's
// configuration is reset, so a private clone or fetch works while a push has nothing to push with.
// Flow: loadReadCredentials (start: checked, values registered as secrets) -> readCredentialEnv
// (every command's GIT_CONFIG_COUNT/KEY/VALUE, after any the environment already has).

import fs from 'node:fs';
import path from 'node:path';

export interface ReadCredential {
  url: string; // without the password, for logs
  username: string;
  password: string;
}

export function loadReadCredentials(file: string): { file: string; credentials: ReadCredential[] } {
  if (!path.isAbsolute(file)) throw new Error(`--git-read-credentials must be an absolute path; got ${JSON.stringify(file.slice(0, 200))}`);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--git-read-credentials ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`);
  }
  const credentials: ReadCredential[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let url: URL;
    try {
      url = new URL(line);
    } catch {
      throw new Error(`--git-read-credentials ${file} line ${index + 1} is not a URL; write one https://USER:TOKEN@HOST per line (git's store format)`);
    }
    if (!url.username || !url.password || !/^https?:$/.test(url.protocol)) {
      throw new Error(`--git-read-credentials ${file} line ${index + 1} has no user and password (or is not http/https); write https://USER:TOKEN@HOST`);
    }
    credentials.push({
      url: `${url.protocol}//${url.username}@${url.host}${url.pathname === '/' ? '' : url.pathname}`,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
  });
  if (credentials.length === 0) throw new Error(`--git-read-credentials ${file} holds no credential; write https://USER:TOKEN@HOST`);
  return { file, credentials };
}

// git's configuration through the environment, after whatever GIT_CONFIG_* entries `env`
// already holds: every credential helper reset (an empty value clears the list), then git's own
// store helper reading only FILE.
export function readCredentialEnv(file: string, env: Readonly<Record<string, string>>): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10);
  const start = Number.isSafeInteger(count) && count > 0 ? count : 0;
  const quoted = `'${file.replace(/'/g, `'\\''`)}'`;
  return {
    GIT_CONFIG_COUNT: String(start + 2),
    [`GIT_CONFIG_KEY_${start}`]: 'credential.helper',
    [`GIT_CONFIG_VALUE_${start}`]: '',
    [`GIT_CONFIG_KEY_${start + 1}`]: 'credential.helper',
    [`GIT_CONFIG_VALUE_${start + 1}`]: `store --file=${quoted}`,
  };
}
