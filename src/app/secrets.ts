// Which values zodexd never shows, and where they come from: the HTTP token (flag file or
// ZODEX_AUTH_TOKEN), the publisher's token variables where zodexd's environment has them, and the
// values of --redact-env NAME / PREFIX*; each resolved against zodexd's own environment at start
// and against the login shell's once it is captured (an rc file may export them). OAuth tokens
// join as they are minted (features/oauth/token.ts). Values under 8 characters are still redacted, with a
// warning: they will replace ordinary text.
// Flow: Config + process.env -> startSecrets() -> SecretRegistry (src/secrets.ts) -> engine, store,
// results, log; the login capture -> addEnvironmentSecrets() -> the same registry. Before anything
// is started, concealSecrets() erases zodex's own secret variables from zodexd's environment and
// makes it non-dumpable, so no child inherits them and no command reads them from /proc.

import { concealProcess } from '../native.js';
import { PUBLISHER_SECRET_ENV } from '../features/publisher/paths.js';
import { SecretRegistry } from '../secrets.js';
import type { Config } from './config/defaults.js';

export const AUTH_TOKEN_ENV = 'ZODEX_AUTH_TOKEN';
// Variables holding zodex's own secrets: never in a command's environment, nor in zodexd's own
// once read (scrubbed from /proc/PID/environ at start), and their values never shown.
export const SERVER_SECRET_ENV: readonly string[] = [AUTH_TOKEN_ENV, ...PUBLISHER_SECRET_ENV];
// A value this short will also match ordinary text; it is redacted all the same, with a warning.
const SHORT_VALUE_CHARS = 8;

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

// Adds the values `env` holds for zodex's own secret variables and for --redact-env; returns the
// warnings to log (a short value, named with its length, never shown).
export function addEnvironmentSecrets(
  registry: SecretRegistry,
  redactEnv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string[] {
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    const own = SERVER_SECRET_ENV.includes(name);
    if (!own && !redactEnv.some((pattern) => matches(pattern, name))) continue;
    const known = registry.list().some((entry) => entry.value === value);
    registry.add(name, value);
    if (!own && !known && value.length < SHORT_VALUE_CHARS) {
      warnings.push(
        `--redact-env: ${name} (${where}) is only ${value.length} character(s) long; every occurrence of that text in output is shown as [REDACTED:${name}]`,
      );
    }
  }
  return warnings;
}

// The --redact-env names and patterns that match no variable of any of `envs` (probably a typo).
export function unmatchedRedactNames(redactEnv: readonly string[], envs: readonly Readonly<Record<string, string | undefined>>[]): string[] {
  return redactEnv.filter((pattern) => !envs.some((env) => Object.keys(env).some((name) => matches(pattern, name))));
}

// The registry at start: the HTTP token and what zodexd's own environment holds.
export function startSecrets(config: Pick<Config, 'authToken' | 'redactEnv'>, env: NodeJS.ProcessEnv): { secrets: SecretRegistry; warnings: string[] } {
  const secrets = new SecretRegistry();
  if (config.authToken !== undefined) secrets.add(AUTH_TOKEN_ENV, config.authToken);
  return { secrets, warnings: addEnvironmentSecrets(secrets, config.redactEnv, env, "zodexd's environment") };
}

// Erases zodex's own secret variables from this process's environment (process.env and the
// exec-time block /proc/PID/environ shows) and turns it non-dumpable (Linux), before any child
// exists. Throws when a secret variable is set and cannot be erased (no native addon): zodexd
// (and `zodex liveboard`, which holds the token too) then refuses to start rather than keep it
// readable.
export function concealSecrets(env: NodeJS.ProcessEnv): void {
  try {
    concealProcess(SERVER_SECRET_ENV);
  } catch (error) {
    const present = SERVER_SECRET_ENV.filter((name) => env[name] !== undefined);
    if (present.length > 0)
      throw new Error(
        `cannot erase ${present.join(', ')} from this process's environment, where every process of this user could read it: ${(error as Error).message}`,
      );
  }
}
