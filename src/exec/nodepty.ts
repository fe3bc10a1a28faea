// Everything zodexd takes from node-pty, in one place: its public spawn (zodex-spawn on a new
// terminal, node-pty forking zodexd to start it), and its native module's private openpty
// (a terminal opened without a fork, for the zygote: zygote.ts). node-pty's `loadNativeModule`
// is not part of its public API; if a node-pty release moves it, openTerminal() throws and the
// zygote is not used (the pool falls back to spawn).

import { createRequire } from 'node:module';
import type { IPty } from 'node-pty';
import type { HelperTerminal } from './pty.js';

const require = createRequire(import.meta.url);
const nodePty = require('node-pty') as typeof import('node-pty');

interface NativePty {
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
}

let nativePty: NativePty | Error | undefined;

// A new terminal pair and the slave's name (/dev/pts/N), as node-pty's own open makes it.
export function openTerminal(cols: number, rows: number): { master: number; slave: number; pty: string } {
  if (nativePty === undefined) {
    try {
      // node-pty's own loader (build/Release, build/Debug or prebuilds), as node-pty itself loads it.
      nativePty = (require('node-pty/lib/utils') as { loadNativeModule(name: string): { module: NativePty } }).loadNativeModule('pty').module;
    } catch (error) {
      nativePty = error as Error;
    }
  }
  if (nativePty instanceof Error) throw nativePty;
  return nativePty.open(cols, rows);
}

// Starts zodex-spawn on a new PTY with these arguments (after its nonce).
export function startHelper(spawnHelper: string, nonce: string, args: string[], terminal: { cols: number; rows: number; cwd: string; env: Record<string, string> }): HelperTerminal {
  const pty = nodePty.spawn(spawnHelper, [nonce, ...args], {
    name: terminal.env.TERM ?? 'dumb',
    cols: terminal.cols,
    rows: terminal.rows,
    cwd: terminal.cwd,
    env: terminal.env,
    encoding: null,
  } as Parameters<typeof nodePty.spawn>[2]);
  return {
    get pid() {
      return pty.pid;
    },
    started: Promise.resolve(pty.pid),
    onData: (listener) => void pty.onData((data) => listener(data as unknown as Buffer)), // encoding null: bytes
    onExit: (listener) => void pty.onExit(listener),
    write: (data) => pty.write(data),
    settled: () => {},
    destroy: () => (pty as IPty & { destroy(): void }).destroy(), // the typings omit it
  };
}
