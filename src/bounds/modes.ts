// The bounds an operator chooses, named once: the write mode (one setting for zodexd, the
// publisher and zodex-agent), the sandbox and its network switch, their defaults, and the one
// function each reader uses to take the write mode from a flag or the environment.

export const WRITE_MODES = ['read-only', 'publish-pr', 'direct'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];
// Governed by default: commands reach no write credential, and the one route to GitHub is the
// publisher (which publishes nothing unless the operator runs one). read-only differs only in
// that the publisher's socket is masked too.
export const DEFAULT_WRITE_MODE: WriteMode = 'publish-pr';
// zodexd sets it in every command's environment (zodex-agent reads it); the publisher and
// zodexd read it when their --write-mode is absent.
export const WRITE_MODE_ENV = 'ZODEX_WRITE_MODE';

export const SANDBOX_MODES = ['off', 'read-only', 'workspace-write'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const NETWORK_SETTINGS = ['on', 'off'] as const;
export type NetworkSetting = (typeof NETWORK_SETTINGS)[number];

// read-only and publish-pr: commands run confined so that no same-user route reaches a write credential.
export function isGoverned(mode: WriteMode): boolean {
  return mode !== 'direct';
}

// --write-mode FLAG, else $ZODEX_WRITE_MODE, else the default; `source` says which, for messages
// that name both sides of a disagreement. Throws a plain Error naming the bad value.
export function resolveWriteMode(flag: string | undefined, env: NodeJS.ProcessEnv, flagName = '--write-mode'): { mode: WriteMode; source: string } {
  const fromEnv = env[WRITE_MODE_ENV] || undefined;
  const value = flag ?? fromEnv;
  const source = flag !== undefined ? flagName : fromEnv !== undefined ? WRITE_MODE_ENV : 'the default';
  if (value === undefined) return { mode: DEFAULT_WRITE_MODE, source };
  if (!(WRITE_MODES as readonly string[]).includes(value)) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    throw new Error(
      `${source === WRITE_MODE_ENV ? WRITE_MODE_ENV : flagName} ${shown} is not one of ${WRITE_MODES.join(', ')}; write e.g. ${flagName} ${DEFAULT_WRITE_MODE}`,
    );
  }
  return { mode: value as WriteMode, source };
}
