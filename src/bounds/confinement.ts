// What confines a command, as data: the seam between the bounds feature, which computes it once
// per zodexd from the bounds the operator chose (write mode, sandbox, network; features/bounds/
// prepare.ts), and the engine, to which app/ hands it, which sends it to
// zodex-spawn with every command (exec/launch/wire.ts encodes it; native/PROTOCOL.md, "The confinement
// entry"). zodex-spawn applies it right before the command's shell starts.

import type { SandboxMode } from './modes.js';

export interface Confinement {
  // read-only / publish-pr: the stores masked, Landlock, no capabilities, same-user sockets masked.
  governed: boolean;
  sandbox: SandboxMode;
  networkOff: boolean;
  // Files and folders masked where they exist when the command starts (credential stores, the
  // publisher's socket folder in read-only, token files).
  masks: string[];
  // DIR/PREFIX: every entry of DIR named PREFIX… masked (every zodexd's private folders).
  maskPrefixes: string[];
  // Folders bound onto themselves so that the stores below cannot be moved away.
  pins: string[];
  // Listening sockets of the user's that stay reachable (the publisher's in publish-pr).
  allowedSockets: string[];
  // Redacted copies bound over the files they were made from (startup files holding a token).
  binds: Array<{ source: string; target: string }>;
  // Folders made read-only (governed root: the system's programs and configuration).
  readOnly: string[];
  // workspace-write: writable besides the call's workdir (--writable-root).
  writableRoots: string[];
  // The sandbox's /tmp: a folder of this zodexd, shared by its commands.
  privateTmp: string | undefined;
  // Paths under /tmp that stay readable (read-only) inside the private /tmp where they exist: the
  // spill folder, whose files results name as output_file.
  visible: string[];
  // $XDG_RUNTIME_DIR, replaced by an empty folder of the command's own; `keep` bound back into it.
  runtimeDir: string | undefined;
  keep: string[];
}
