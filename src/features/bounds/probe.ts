// The probe zodexd runs once at start when commands are to be confined: zodex-spawn takes every
// step of the policy in a throwaway child, which then runs the shell (`-c 'exit 0'`). Anything
// the host cannot do (no user namespaces, no Landlock, a seccomp profile that refuses them) comes
// back as zodex-spawn's one line naming the step, and zodexd refuses to start rather than run a
// command less confined than asked. Flow: probeConfinement -> `zodex-spawn --probe DIR SHELL -c
// 'exit 0'` with ZODEX_CONFINE -> "ok" | the failed step.

import { execFile } from 'node:child_process';
import { CONFINE_ENV } from '../../exec/launch/wire.js';

const PROBE_TIMEOUT_MS = 10_000;

export type ProbeResult = { ok: true } | { ok: false; reason: string };

export function probeConfinement(spawnHelper: string, policy: string, dir: string, shell: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(
      spawnHelper,
      ['--probe', dir, shell, '-c', 'exit 0'],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [CONFINE_ENV]: policy }, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const said = (stdout.trim() || stderr.trim()).split('\n')[0] ?? '';
        if (!error && said === 'ok') return resolve({ ok: true });
        resolve({ ok: false, reason: said || (error ? error.message.split('\n')[0]! : 'no answer') });
      },
    );
  });
}

// What to do about a failed step, for the message zodexd exits with.
export function probeAdvice(reason: string): string {
  if (/user namespaces|CLONE_NEWUSER/.test(reason)) {
    return (
      'unprivileged user namespaces are off or restricted here: `sysctl user.max_user_namespaces` must be above 0 (and ' +
      '`kernel.unprivileged_userns_clone=1` on older Debian); on Ubuntu 23.10+ AppArmor restricts them ' +
      '(`kernel.apparmor_restrict_unprivileged_userns`): give zodex-spawn a profile with `userns,` as bubblewrap has; in a ' +
      "container, Docker's default seccomp profile refuses them"
    );
  }
  if (/Landlock/.test(reason)) return 'Landlock ABI 6 needs Linux 6.12 or later with Landlock enabled (`cat /sys/kernel/security/lsm` lists landlock)';
  if (/seccomp/.test(reason)) return 'seccomp filters are refused here (a container or a seccomp profile that denies seccomp())';
  if (/CLONE_NEWNS|mount|masking|pinning|read-only|binding|cloning|attaching/.test(reason)) {
    return 'mounts in a new mount namespace are refused here (a container without CAP_SYS_ADMIN, or an LSM policy)';
  }
  return 'see the step named above';
}

// What a login shell and an interactive shell print when run confined under `env` (which holds
// the confinement entry): `shell -lc SCRIPT` and `shell -ic SCRIPT` through `zodex-spawn --exec`,
// stdin closed, each for at most timeoutMs. zodexd checks with it that no token value comes back
// through the user's startup files. Undefined for a shell that did not finish in time.
export function runConfinedShells(
  spawnHelper: string,
  shell: string,
  script: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<Array<string | undefined>> {
  const once = (flag: string) =>
    new Promise<string | undefined>((resolve) => {
      execFile(
        spawnHelper,
        ['--exec', shell, flag, script],
        { env, timeout: timeoutMs, encoding: 'utf8', maxBuffer: 16 << 20, killSignal: 'SIGKILL' },
        (error, stdout) => {
          resolve(error && (error as { killed?: boolean }).killed ? undefined : stdout);
        },
      );
    });
  return Promise.all([once('-lc'), once('-ic')]);
}
