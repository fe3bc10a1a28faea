// The publisher's rule for exec_command environments, handed to the engine as data: the
// publisher's own credential never reaches a command, and unless the write mode is `direct`
// neither do the GitHub tokens a shell could push with, so writes go through zodex-agent.
// Flow: commandPolicy(writeMode, serverSecrets) -> { remove, set } -> the caller hands it to the
// engine (it has the shape of exec's EnvironmentPolicy; exec and publisher are siblings).

import type { WriteMode } from './config.js';
import { PUBLISHER_SECRET_ENV, WRITE_MODE_ENV } from './paths.js';

// GitHub credentials a shell could push with. (Credentials stored on disk, such as gh's
// hosts.yml or a git credential helper, are not governed by this.)
export const GITHUB_TOKEN_VARIABLES: readonly string[] = ['GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'];

export interface CommandPolicy {
  remove: readonly string[];
  set: Readonly<Record<string, string>>;
}

// serverSecrets: the server's own variables no command may see (e.g. its HTTP token).
// writeMode undefined: writes are not governed, only the secrets are removed.
export function commandPolicy(writeMode: WriteMode | undefined, serverSecrets: readonly string[]): CommandPolicy {
  const remove = [...serverSecrets, ...PUBLISHER_SECRET_ENV];
  if (writeMode === undefined) return { remove, set: {} };
  if (writeMode === 'direct') return { remove, set: { [WRITE_MODE_ENV]: writeMode } };
  return { remove: [...remove, ...GITHUB_TOKEN_VARIABLES], set: { [WRITE_MODE_ENV]: writeMode, GIT_TERMINAL_PROMPT: '0' } };
}
