// zodexd --help: every flag, its environment variable and its default (from defaults.ts).

import { CONTEXT_USAGE } from '../../features/context/options.js';
import { OAUTH_USAGE } from './oauth.js';
import * as defaults from './defaults.js';

export const USAGE = `Usage: zodexd [options]

Serves zodex's MCP tools (exec_command, write_stdin, apply_patch) over stdio or streamable HTTP.

Transport:
  --transport stdio|http      stdio (default) or HTTP at http://HOST:PORT/mcp   [env ZODEX_TRANSPORT]
  --listen HOST:PORT          HTTP address (default ${defaults.DEFAULT_LISTEN}; port 0 = any free port;
                              wildcards 0.0.0.0, ::, :PORT are refused)          [env ZODEX_LISTEN]
  --allow-host HOST           admit this Host header on a loopback bind, any port; repeatable
                                                                          [env ZODEX_ALLOW_HOST, comma list]
  --auth-token-file PATH      require "Authorization: Bearer <token>"        [env ZODEX_AUTH_TOKEN]
  --insecure-no-auth          allow a non-loopback bind without a token (not recommended)
  --http-idle-ms N            end an idle HTTP session and kill its commands (default ${defaults.DEFAULT_HTTP_IDLE_MS})
  --handle-idle-ms N          MCP 2026-07-28 requests (no session): kill a command whose session_handle
                              no call used for N ms, on stdio and HTTP (default ${defaults.DEFAULT_HTTP_IDLE_MS})
  --drain-ms N                on SIGTERM, let calls in flight finish for up to N ms (default ${defaults.DEFAULT_DRAIN_MS})
  --max-body-bytes N          largest HTTP request body, and largest stdio line (default ${defaults.DEFAULT_MAX_BODY_BYTES})
  --max-conversations N       open HTTP sessions (and agents known from 2026-07-28 requests); when
                              full, idle ones without a running command are closed oldest first,
                              else 503 (default ${defaults.DEFAULT_MAX_CONVERSATIONS})
  --headers-timeout-ms N      a request's headers must arrive within N ms, else 408 (default ${defaults.DEFAULT_HEADERS_TIMEOUT_MS})
  --body-timeout-ms N         a request's body must arrive within N ms, else 408 (default ${defaults.DEFAULT_BODY_TIMEOUT_MS})

Execution:
  --mode local|sprite         local (default): login-shell environment, set_agent_alias;
                              sprite: sandbox, bash in the server's environment   [env ZODEX_MODE]
  --annotations all-read-only|truthful
                              all-read-only (default): every tool readOnlyHint true,
                              destructiveHint false (they describe the MCP surface; Codex then
                              runs calls without asking); truthful: exec_command, write_stdin,
                              apply_patch readOnlyHint false, destructiveHint true, so clients
                              that gate on them ask first ("seed", the old name of
                              all-read-only, still works)
                                                                          [env ZODEX_ANNOTATIONS]
  --default-workdir DIR       workdir for exec_command calls that omit it (otherwise required)
  --shell PATH                the shell commands run in (default: in Local mode the login shell of
                              your passwd entry, whose environment is captured; Sprite: bash)
                                                                          [env ZODEX_SHELL]
  --max-exec-timeout-ms N     cap on timeout_ms, and the default (default ${defaults.DEFAULT_MAX_EXEC_TIMEOUT_MS})
  --max-yield-ms N            cap on yield_time_ms of exec_command and write_stdin: no call waits
                              longer (default ${defaults.DEFAULT_MAX_YIELD_MS}, under the 60 s request timeout
                              of common clients, which progress notifications do not extend)
  --max-sessions N            commands running at once (default ${defaults.DEFAULT_MAX_SESSIONS})

Output:
  --inline-limit-bytes N      a stream larger than this spills to a file (default ${defaults.DEFAULT_INLINE_LIMIT_BYTES})
  --preview-bytes N           head + tail shown once spilled (default ${defaults.DEFAULT_PREVIEW_BYTES})
  --head-bytes N              of that, the start of what is new (default ${defaults.DEFAULT_HEAD_BYTES}; at most half)
  --tail-file-bytes N         last bytes kept past the spill cap, in a tail file (default ${defaults.DEFAULT_TAIL_FILE_BYTES})
  --spill-dir DIR             parent of the spill folders (default $TMPDIR/zodex-UID)   [env ZODEX_SPILL_DIR]
  --spill-cap-bytes N         bytes kept per spill file (default ${defaults.DEFAULT_SPILL_CAP_BYTES})
  --spill-max-age-ms N        spill files older than this are removed (default ${defaults.DEFAULT_SPILL_MAX_AGE_MS})
  --redact-env NAME           show the value of variable NAME (of zodexd's or the login shell's
                              environment) as [REDACTED:NAME] in output, history and logs; NAME may
                              end in *; repeatable. zodex's own tokens always are  [env ZODEX_REDACT_ENV, comma list]
  --spill-folder-max-bytes N  all spill files of this server together; past it, files of ended
                              commands are removed, oldest first (default ${defaults.DEFAULT_SPILL_FOLDER_MAX_BYTES})

Liveboard (the operator's web page: agents, timelines, live sessions):
  --liveboard HOST:PORT       serve it at http://HOST:PORT/, on its own listener (default off;
                              port 0 = any free port; wildcards refused; a non-loopback HOST
                              needs --auth-token-file; --allow-host names admit it too)

Operations (health, readiness and metrics for an orchestrator; logs for a fleet):
  --ops-listen HOST:PORT      serve /healthz, /readyz (503 from the moment a drain starts) and
                              /metrics (Prometheus text format) on their own listener, without a
                              token (default off; port 0 = any free port; wildcards refused)
                                                                          [env ZODEX_OPS_LISTEN]
  --log-format text|json      stderr lines as text (default) or as JSON lines with time, level,
                              message, and agent, handle prefix, request id where they apply
                                                                          [env ZODEX_LOG_FORMAT]

State and GitHub:
  --state-dir DIR             history database and settings (default $XDG_STATE_HOME/zodex)
                                                                          [env ZODEX_STATE_DIR]
  --write-mode MODE           publish-pr (default) | read-only | direct. Unless direct, each command
                              runs confined (Linux: namespaces, Landlock, seccomp): git's and gh's
                              credential stores, ssh keys and agents, token variables and other
                              processes' /proc are out of its reach, so nothing it runs can push;
                              publish-pr: \`zodex-agent github publish-pr\` through the publisher is
                              the one route to GitHub; read-only: not even that. direct: commands
                              run as you, unconfined. zodexd exits at start when it cannot
                              confine                                        [env ZODEX_WRITE_MODE]
  --git-read-credentials FILE a git-credentials file (https://USER:TOKEN@HOST per line) holding a
                              read-only credential: governed commands clone and fetch with it
                                                                [env ZODEX_GIT_READ_CREDENTIALS]

Sandbox (opt-in, as Codex's; docs/bounds.md):
  --sandbox MODE              off (default) | read-only | workspace-write: every write outside the
                              call's workdir, a private /tmp and each --writable-root (workspace-
                              write), or outside the private /tmp (read-only), fails; apply_patch
                              obeys the same rule                                 [env ZODEX_SANDBOX]
  --writable-root DIR         also writable in workspace-write; repeatable
                                                             [env ZODEX_WRITABLE_ROOTS, colon list]
  --sandbox-network on|off    off: no command can open a network connection (socket() for
                              anything but unix sockets is refused), with or without --sandbox
                                                                          [env ZODEX_SANDBOX_NETWORK]

${OAUTH_USAGE}
${CONTEXT_USAGE}
  -h, --help                  this text
  -V, --version               the version
`;
