// The native addon (native/zodex-native.c, built by node-gyp beside zodex-spawn): peer
// credentials of a unix socket, and whether any process holds a file open for writing.
// Flow: first use -> require build/Release/zodex_native.node (or $ZODEX_NATIVE_ADDON) -> the
// call; without the addon peerCredentials throws and openForWriting answers null (unknown).

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
  const loaded = load();
  if (loaded instanceof Error) throw loaded;
}

/** The uid, gid (and pid where known) of the process at the other end of a unix socket. */
export function peerCredentials(fd: number): PeerCredentials {
  const loaded = load();
  if (loaded instanceof Error) throw loaded;
  return loaded.peerCredentials(fd);
}

/** Whether some process holds the file behind `fd` (opened read-only) open for writing; null: cannot tell. */
export function openForWriting(fd: number): boolean | null {
  const loaded = load();
  return loaded instanceof Error ? null : loaded.openForWriting(fd);
}
