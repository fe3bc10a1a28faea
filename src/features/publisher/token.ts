// The write credential: how the daemon reads it, how it hands it to git, and how every text
// that leaves the daemon is scrubbed of it.
// Flow: readTokenFile(path) | readTokenEnv(env) -> Secret (prints as ***) -> gitAuthConfig() puts
// it in an http.<origin>/.extraHeader set through GIT_CONFIG_* in one git child's environment
// (never argv, never a URL) -> redactor() replaces it with *** in anything logged or returned.

import fs from 'node:fs';
import { inspect } from 'node:util';
import { PublisherError } from './errors.js';
import { PUBLISHER_SECRET_ENV, PUBLISHER_TOKEN_ENV } from './paths.js';

// A value that refuses to print itself: String(), JSON.stringify and console.log all show ***.
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '***';
  }

  toJSON(): string {
    return '***';
  }

  [inspect.custom](): string {
    return 'Secret(***)';
  }
}

// Printable ASCII without spaces: anything else could break out of an HTTP header.
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;
const MIN_TOKEN_LENGTH = 8;

function checkToken(value: string, source: string): Secret {
  const token = value.trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new PublisherError('BAD_TOKEN', `${source} holds no token (or one shorter than ${MIN_TOKEN_LENGTH} characters); put the GitHub token there`);
  }
  if (!TOKEN_CHARACTERS.test(token)) {
    throw new PublisherError('BAD_TOKEN', `${source} holds spaces, line breaks or non-ASCII characters inside the token; keep only the token itself`);
  }
  return new Secret(token);
}

// Reads a token file that only its owner can read: a regular file (symlinks are followed, the
// target is what counts), owned by this user, mode 0600 or stricter.
export function readTokenFile(file: string): Secret {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY);
  } catch (error) {
    throw new PublisherError('UNSAFE_TOKEN_FILE', `--token-file ${file} cannot be opened (${(error as NodeJS.ErrnoException).code}); check the path`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new PublisherError('UNSAFE_TOKEN_FILE', `--token-file ${file} is not a regular file`);
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
      throw new PublisherError(
        'UNSAFE_TOKEN_FILE',
        `--token-file ${file} belongs to uid ${stat.uid}, not to this user (uid ${process.getuid()}); \`chown\` it to the user running the publisher`,
      );
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
      throw new PublisherError('UNSAFE_TOKEN_FILE', `--token-file ${file} has mode ${mode}, readable by others; run \`chmod 600 ${file}\``);
    }
    return checkToken(fs.readFileSync(fd, 'utf8'), `--token-file ${file}`);
  } finally {
    fs.closeSync(fd);
  }
}

// Takes the token from ZODEX_PUBLISHER_TOKEN, and removes every publisher secret name from
// `env` (the daemon passes process.env) so that no child process inherits it.
export function takeTokenFromEnv(env: NodeJS.ProcessEnv): Secret | undefined {
  const value = env[PUBLISHER_TOKEN_ENV];
  for (const name of PUBLISHER_SECRET_ENV) delete env[name];
  if (value === undefined || value === '') return undefined;
  return checkToken(value, PUBLISHER_TOKEN_ENV);
}

// The header git sends: Basic with the x-access-token user, which GitHub accepts for personal
// access tokens, fine-grained tokens and App installation tokens alike.
export function gitAuthorizationHeader(token: Secret): string {
  return `Authorization: Basic ${Buffer.from(`x-access-token:${token.reveal()}`).toString('base64')}`;
}

// Environment entries (GIT_CONFIG_COUNT/KEY_n/VALUE_n) that give one git child the credential
// for pushUrl's origin only, plus extra operator settings. A local path gets no header: there
// is no HTTP to send it on, and the entries are built the same way regardless.
export function gitConfigEnv(pushUrl: string, token: Secret | undefined, extra: Record<string, string>): Record<string, string> {
  const entries: Array<[string, string]> = Object.entries(extra);
  entries.push(['http.followRedirects', 'false']);
  if (token && /^https?:\/\//i.test(pushUrl)) {
    entries.push([`http.${new URL(pushUrl).origin}/.extraHeader`, gitAuthorizationHeader(token)]);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

// A function that replaces the token, and the encodings of it we ever produce, with ***.
export function redactor(token: Secret | undefined): (text: string) => string {
  const needles: string[] = [];
  if (token) {
    const value = token.reveal();
    needles.push(Buffer.from(`x-access-token:${value}`).toString('base64'), Buffer.from(value).toString('base64'), encodeURIComponent(value), value);
  }
  const unique = [...new Set(needles)].filter((needle) => needle.length > 0).sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text.replace(/(authorization:\s*(?:basic|bearer|token)\s+)\S+/gi, '$1***');
    for (const needle of unique) out = out.split(needle).join('***');
    return out;
  };
}
