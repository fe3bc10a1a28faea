// The probe zodexd runs once at start when commands are to be confined: zodex-spawn takes every
// step of the policy in a throwaway child, which then runs the shell (`-c 'exit 0'`). Anything
// the host cannot do (no user namespaces, no Landlock, a seccomp profile that refuses them) comes
// back as zodex-spawn's one line naming the step, and zodexd refuses to start rather than run a
// command less confined than asked. Flow: probeConfinement -> `zodex-spawn --probe DIR SHELL -c
// 'exit 0'` with ZODEX_CONFINE -> "ok" | the failed step.

import { execFile } from 'node:child_process';
import { CONFINE_ENV } from './wire.js';

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
