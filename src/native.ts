// The native addon (native/zodex-native.c, built by node-gyp beside zodex-spawn): peer
// credentials of a unix socket, whether any process holds a file open for writing, erasing
// variables from the process's environment for good, and the dumpable flag.
// Flow: first use -> require build/Release/zodex_native.node (or $ZODEX_NATIVE_ADDON) -> the
// call; without the addon peerCredentials, eraseEnvironment and setDumpable throw and
// openForWriting answers null (unknown).

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PeerCredentials {
  uid: number;
  gid: number;
  pid?: number;
}

interface Addon {
  peerCredentials(fd: number): PeerCredentials;
  openForWriting(fd: number): boolean | null;
  eraseEnvironment(names: readonly string[]): number;
  setDumpable(on: boolean): boolean;
}

let addon: Addon | Error | undefined;

export function nativeAddonPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return process.env.ZODEX_NATIVE_ADDON ?? path.resolve(here, '../build/Release/zodex_native.node');
}

function load(): Addon | Error {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url)(nativeAddonPath()) as Addon;
    } catch (error) {
      addon = new Error(`the native addon ${nativeAddonPath()} cannot be loaded (${(error as Error).message.split('\n')[0]}); run \`npm run build:native\``);
    }
  }
  return addon;
}

/** Loads the addon now, or throws saying why: for a process about to lose the right to read it
 * (`zodex publisher --user` from a checkout its user cannot enter). */
export function loadNativeAddon(): void {
  loaded();
}

function loaded(): Addon {
  const addon = load();
  if (addon instanceof Error) throw addon;
  return addon;
}

/** Unsets each variable (process.env loses it) and overwrites its NAME=value strings with NUL
 * bytes, also where the kernel put them at exec, which /proc/PID/environ shows for the process's
 * whole life. Returns how many strings were erased. */
export function eraseEnvironment(names: readonly string[]): number {
  return loaded().eraseEnvironment(names);
}

/** PR_SET_DUMPABLE (Linux): false makes the process's /proc files root's and refuses ptrace to
 * the same uid. Returns false where the system has no such flag. */
export function setDumpable(on: boolean): boolean {
  return loaded().setDumpable(on);
}

/** What a process that holds secrets does once it has read them (zodexd, the publisher): erases
 * the variables `names` from its environment and, on Linux, turns non-dumpable, so that a process
 * of the same uid (a command) can read neither its /proc/PID/environ nor its memory. Throws,
 * saying why, without the addon. */
export function concealProcess(names: readonly string[]): void {
  eraseEnvironment(names);
  setDumpable(false);
}

/** The uid, gid (and pid where known) of the process at the other end of a unix socket. */
export function peerCredentials(fd: number): PeerCredentials {
  return loaded().peerCredentials(fd);
}

/** Whether some process holds the file behind `fd` (opened read-only) open for writing; null: cannot tell. */
export function openForWriting(fd: number): boolean | null {
  const loaded = load();
  return loaded instanceof Error ? null : loaded.openForWriting(fd);
}
