// What zodexd's command line can say: the Config it parses into, and every default with its unit
// and why. app/ alone knows this type; it builds each layer's own options from it (options.ts).

import type { ContextOptions } from '../../features/context/options.js';
import type { ListenAddress } from '../../net/address.js';
import type { LogFormat } from '../../log.js';
import type { BoundsConfig } from '../../features/bounds/prepare.js';
import type { Annotations, Mode } from '../../server/options.js';
import type { OAuthConfig } from './oauth.js';

export const DEFAULT_LISTEN = '127.0.0.1:7391';
export const DEFAULT_MAX_EXEC_TIMEOUT_MS = 7_200_000; // 2 h, the seed's example
export const DEFAULT_INLINE_LIMIT_BYTES = 16 * 1024; // ~4k tokens: a screenful or two of logs
export const DEFAULT_PREVIEW_BYTES = 4 * 1024; // head + tail shown once a stream spilled
export const DEFAULT_HEAD_BYTES = 1024; // of the preview, the start of what is new
export const DEFAULT_TAIL_FILE_BYTES = 1024 * 1024; // last bytes kept past the spill cap
export const DEFAULT_SPILL_CAP_BYTES = 16 * 1024 * 1024; // seed 002: 16 MiB per file
export const DEFAULT_SPILL_MAX_AGE_MS = 24 * 3_600_000; // seed 002: 24 hours
// Every spill file of one server together (tail files included): 16 full spill files and their
// tails, so a loop of large outputs cannot fill /tmp.
export const DEFAULT_SPILL_FOLDER_MAX_BYTES = 256 * 1024 * 1024;
// Two per open conversation (DEFAULT_MAX_CONVERSATIONS): 100 agents each running a command at
// once stay under it (at 64, 3 of 500 such calls got SESSION_LIMIT); each running command costs
// about 0.4 MiB (bench/results/scale.json) and one terminal.
export const DEFAULT_MAX_SESSIONS = 256;
// Under every default client request timeout measured (bench/results/client-timeouts.json): 60 s.
export const DEFAULT_MAX_YIELD_MS = 30_000;
export const MAX_MAX_YIELD_MS = 3_600_000;
export const DEFAULT_HTTP_IDLE_MS = 30 * 60_000;
export const DEFAULT_DRAIN_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_CONVERSATIONS = 128;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export type Transport = 'stdio' | 'http';
// The bounds' settings (write mode, sandbox, network...) are declared with them: BoundsConfig.
export interface Config extends BoundsConfig {
  transport: Transport;
  listen: ListenAddress;
  allowHosts: string[]; // lower-case host names, no ports
  mode: Mode;
  annotations: Annotations;
  // The directory zodexd was started in: in Local mode, offered as the first workdir.
  startDir: string;
  defaultWorkdir: string | undefined;
  shell: string | undefined; // --shell / ZODEX_SHELL: the shell commands run in (default: the login shell)
  maxExecTimeoutMs: number;
  maxYieldMs: number; // no exec_command or write_stdin call waits longer
  inlineLimitBytes: number;
  previewBytes: number;
  headBytes: number;
  tailFileBytes: number;
  spillDir: string;
  spillCapBytes: number;
  spillMaxAgeMs: number;
  spillFolderMaxBytes: number;
  maxSessions: number;
  authToken: string | undefined;
  insecureNoAuth: boolean;
  httpIdleMs: number;
  handleIdleMs: number; // 2026-07-28 era: a session_handle unused this long has its command killed
  drainMs: number;
  maxBodyBytes: number; // HTTP bodies and stdio lines alike
  maxConversations: number; // open HTTP sessions
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  stateDir: string;
  context: ContextOptions;
  // --redact-env: variables (NAME, or PREFIX*) whose values no output, history or log shows.
  redactEnv: string[];
  // The operator's Liveboard page on its own listener (--liveboard HOST:PORT); off when undefined.
  liveboard: ListenAddress | undefined;
  // /healthz, /readyz and /metrics on their own listener (--ops-listen HOST:PORT); off when undefined.
  opsListen: ListenAddress | undefined;
  logFormat: LogFormat; // --log-format text|json
  // --oauth, --public-url, --oauth-token-ttl-ms (oauth.ts).
  oauth: OAuthConfig;
  // Notes for stderr at start (e.g. an environment variable that was ignored).
  notices: string[];
}
