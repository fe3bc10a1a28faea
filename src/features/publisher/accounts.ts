// Users and groups by name, for `zodex publisher --user NAME --socket-group GROUP`, through
// getent (so NSS users count), and the drop from root to that user once the socket is open.
// Flow: lookupUser / lookupGroup -> { uid, gid, ... } or PublisherError -> dropPrivileges
// (setgroups to its own group only, setgid, setuid; then checks it cannot go back).

import { execFileSync } from 'node:child_process';
import { PublisherError } from './errors.js';

export interface Account {
  name: string;
  uid: number;
  gid: number;
}

function getent(database: 'passwd' | 'group', key: string): string[] | undefined {
  if (!/^[A-Za-z0-9._-][A-Za-z0-9._$-]{0,63}$/.test(key)) return undefined;
  try {
    return execFileSync('getent', [database, key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')[0]
      ?.split(':');
  } catch {
    return undefined;
  }
}

export function lookupUser(name: string): Account {
  const fields = getent('passwd', name);
  const uid = Number(fields?.[2]);
  const gid = Number(fields?.[3]);
  if (!fields || !Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new PublisherError(
      'BAD_CONFIG',
      `--user ${JSON.stringify(name.slice(0, 64))} is not a user of this machine (getent passwd); create it, e.g. \`useradd --system zodex-publisher\``,
    );
  }
  if (uid === 0) throw new PublisherError('BAD_CONFIG', `--user ${name} is root; name the unprivileged user the publisher should run as`);
  return { name: fields[0] as string, uid, gid };
}

export function lookupGroup(name: string): number {
  const gid = Number(getent('group', name)?.[2]);
  if (!Number.isInteger(gid))
    throw new PublisherError(
      'BAD_CONFIG',
      `--socket-group ${JSON.stringify(name.slice(0, 64))} is not a group of this machine (getent group); create it with groupadd`,
    );
  return gid;
}

// From root to `account` for good: supplementary groups, gid, uid. Throws if any step fails or
// if root could be regained.
export function dropPrivileges(account: Account): void {
  const { setgroups, setgid, setuid, getuid, geteuid, getgid } = process;
  if (!setgroups || !setgid || !setuid || !getuid || !geteuid || !getgid) {
    throw new PublisherError('INTERNAL', '--user works on POSIX systems only');
  }
  setgroups([account.gid]); // no supplementary group of root survives
  setgid(account.gid);
  setuid(account.uid);
  let regained = false;
  try {
    setuid(0);
    regained = true;
  } catch {
    // EPERM: as it should be
  }
  if (regained || getuid() !== account.uid || geteuid() !== account.uid || getgid() !== account.gid) {
    throw new PublisherError('INTERNAL', `could not drop to user ${account.name} (uid ${account.uid}, gid ${account.gid}); refusing to run`);
  }
}
