// The requirements manifest: every behaviour the suite proves, keyed by a stable id, with the
// sentence of the spec it comes from, the profile it belongs to and what a test of it needs.
//   profile: 'portable' (portable(...)) - the contract of the three tools that seeds 000 and 002 and
//              DESIGN.md's tool contract ask of any implementation: exec, stdin, yield, spill and
//              patch semantics, the workdir rules, the result shape. Checked through the tools
//              alone, every scratch folder under the runner's --workspace, never assuming zodex's
//              text, error code names, extra fields, flags or process: a failure that leaves no
//              side effect is asserted as an isError result, its code name is zodex-surface.
//            'zodex-surface' (surface(...)) - what zodex shows a client beyond that contract, over
//              MCP alone: its instructions, tool descriptions, annotations, error code names and
//              texts, and its own arguments and result fields (since_offset, output_head, …).
//            'zodexd' (r(...), the default) - zodexd itself: its flags, its process, its transports
//              and their guardrails, the 2026-07-28 wire, its features (Local mode, history,
//              context, publisher, Liveboard, OAuth, images), and behaviour it chose where the
//              seeds are silent (early return on an answer, cancellation, input strictness).
//            A requirement added without choosing is zodexd's: never held against another
//              implementation until someone decides it is part of the contract.
//   source: '000' | '002' | '003' are the seeds (../shared/seeds/), 'DESIGN' is DESIGN.md,
//           'issue N' an issue's own words where it goes beyond the seeds.
//   needs:  'flags'  - starts zodexd with its own flags (managed targets only)
//           'local'  - looks at the server's process or host from outside (managed only)
//           'stdio' / 'http' - a behaviour of that transport only
//           'local-mode' - a behaviour of Local mode (the sandbox runs in Sprite mode)
//           'container' / 'sandbox' / 'browser' - proved by that target alone
//           'legacy' - the 2025-11-25 era's wire (initialize, sessions): the -modern projects skip it
//                      and prove the 2026-07-28 counterpart (a 'modern' requirement)
//           'modern' - the 2026-07-28 era's wire: only the -modern projects run it
//           'era-neutral' - nothing of either era: argv, stdio framing, timeouts before the body,
//                      and the tool engine's own behaviour (output, spill, patch, process hygiene,
//                      prompts, publisher), the same code whichever era delivered the call:
//                      proved by the legacy projects only, to keep CI lean
// A test registers with requirement(id, ...); the table reporter writes id x target results.

export type Need = 'flags' | 'local' | 'stdio' | 'http' | 'container' | 'sandbox' | 'browser' | 'local-mode' | 'legacy' | 'modern' | 'era-neutral';

export type Profile = 'portable' | 'zodex-surface' | 'zodexd';
export const PROFILES: readonly Profile[] = ['portable', 'zodex-surface', 'zodexd'];

export interface Requirement {
  profile: Profile;
  source: string;
  quote: string; // the spec's own words
  behaviour: string; // what the test checks, in one line
  needs?: Need[];
}

const requirementOf =
  (profile: Profile) =>
  (source: string, quote: string, behaviour: string, needs?: Need[]): Requirement => ({ profile, source, quote, behaviour, ...(needs ? { needs } : {}) });
const portable = requirementOf('portable');
const surface = requirementOf('zodex-surface');
const r = requirementOf('zodexd');

export const REQUIREMENTS = {
  // --- the MCP surface (seed 000)
  'surface.three-tools': r(
    '000',
    'zodexd exposes exactly three MCP tools: exec_command write_stdin apply_patch',
    'sprite mode lists exactly exec_command, write_stdin, apply_patch',
    ['flags'],
  ),
  'surface.instructions': surface(
    '000',
    'The MCP server instructions are: zodex remote execution tools',
    'initialize returns instructions starting "zodex remote execution tools"',
  ),
  'surface.list-never-changes': surface(
    'issue 23',
    'tools are advertised with listChanged: true, though the list never changes',
    'the server declares the tools capability alone, without listChanged, in both eras',
  ),
  'surface.annotations': surface(
    '000',
    'Each tool is registered with these annotations: read_only_hint = true destructive_hint = false open_world_hint = false',
    'every tool has readOnlyHint true, destructiveHint false, openWorldHint false',
  ),
  'surface.annotations-truthful': r(
    'issue 17, issue 23',
    '`--annotations seed|truthful` (default `seed`, as seed 000 requires): `truthful` marks exec_command and apply_patch `readOnlyHint: false, destructiveHint: true` and write_stdin the same … "seed" means nothing to a user; name the value after what it does',
    'with --annotations truthful, exec_command, write_stdin and apply_patch are readOnlyHint false, destructiveHint true; set_agent_alias stays read-only; --annotations all-read-only is the default, and seed, its old name, still works with a notice on stderr',
    ['flags'],
  ),
  'surface.instructions-start-dir': r(
    '002, issue 23',
    'The Local start directory is supplied to ChatGPT as guidance for the first explicit workdir, not as a filesystem boundary. … with --default-workdir, the instructions say both "always pass an absolute workdir" and "may omit workdir"; with a start directory longer than about 70 characters, the set_agent_alias nudge falls out of the first 512 characters',
    'in Local mode the first 512 characters of the instructions name the directory zodexd was started in as the first workdir, and set_agent_alias (also with a start directory over 200 characters); with --default-workdir they say exec_command may omit workdir and nothing contradicts it; Sprite mode names neither',
    ['flags', 'local-mode'],
  ),
  'surface.descriptions': surface(
    '000',
    'Description: Run a shell command … Write to or poll a running session … Apply a Codex-style patch to files',
    "each tool description starts with the seed's sentence",
  ),
  'surface.required-inputs': portable(
    '000',
    'session_handle is required. … workdir is required.',
    "input schemas require session_handle (write_stdin), workdir and patch (apply_patch), cmd (exec_command), and name the seed's inputs",
  ),
  'surface.no-control-plane': surface(
    '000',
    'No publisher or PR tool is exposed directly over MCP. … There is no ChatGPT-facing MCP tool for: starting/stopping Local; changing Local config; reading Local history; managing the OpenAI tunnel; granting Sprite GitHub push/YOLO permissions; operating Sprite infrastructure.',
    'no tool publishes, opens PRs, reads history, changes config or controls the server',
  ),
  'surface.structured-results': portable(
    'DESIGN',
    'Results of exec_command and write_stdin are objects, returned as structuredContent (with an outputSchema) and as the same JSON in the first text block',
    'exec results are structuredContent mirrored by the first text block, and tools declare an outputSchema',
  ),
  'surface.input-names': surface(
    '000',
    'Input: { "cmd": …, "workdir": …, "yield_time_ms": 1000, "timeout_ms": 7200000 }',
    "exec_command's inputs are exactly the seed's four: cmd, workdir, yield_time_ms, timeout_ms",
  ),
  'surface.workdir-codes': surface(
    'DESIGN',
    'Invalid workdir (missing, relative, not existing, not a directory) fails before any side effect, with an error that says which rule it broke.',
    "the workdir rules' failures are WORKDIR_REQUIRED, WORKDIR_NOT_ABSOLUTE (quoting the path), WORKDIR_NOT_FOUND and WORKDIR_NOT_A_DIRECTORY, for exec_command and apply_patch",
  ),
  'surface.session-codes': surface(
    'issue 2',
    'An unknown handle, or one whose exit was already reported, is an error with code UNKNOWN_SESSION',
    'made-up handles and a handle whose exit was reported fail with UNKNOWN_SESSION, the latter pointing to exec_command',
  ),
  'surface.patch-errors': surface(
    '002',
    'The MCP error text lists the files already changed and the specific operations that failed. Retry only the failed file operations after reading their current content.',
    'apply_patch errors in zodex\'s words: PATCH_PARSE naming the line and the valid headers; a partial failure listing "M"/"A" lines, the stale line and "re-read"; overlap and ambiguity named, with the candidate lines',
  ),

  // --- exec_command (seeds 000, 002)
  'exec.finishes-in-window': portable(
    '002',
    'If the command finishes during the initial yield window, Zodex returns its final output/status immediately.',
    'a quick command returns exited, its output and no handle, well before the yield ends',
  ),
  'exec.exit-code': portable(
    '000',
    'or, after exit: … "status": "exited", … "exit_code": 0, "termination_reason": "exit"',
    'exit codes 0 and non-zero are reported with termination_reason exit',
  ),
  'exec.pty': portable('002', 'writes the decoded PTY stream', 'stdin, stdout and stderr of a command are a terminal'),
  'exec.ansi-stripped': portable(
    '000',
    'output is stripped of ANSI color/control escape sequences before it is returned.',
    'colour, cursor, OSC and charset sequences never reach output',
  ),
  'exec.summary': portable(
    '000',
    'summary is a single scan-friendly line such as exited 1 after 0.2s, still running after 30.1s; use session_handle session-token to poll, timed out after 120.0s, or killed after 12.6s.',
    'summaries match the four forms exactly, seconds with one decimal',
  ),
  'exec.cwd': portable('000', '"cwd": "/workspace/zodex"', 'cwd is the workdir and the command runs there'),
  'exec.running-handle': portable(
    '002',
    'If it is still running, Zodex returns a random session_handle.',
    'a command outliving the yield returns status running and a handle',
  ),
  'exec.handle-random': portable(
    'DESIGN',
    'session_handle: only while running; a random capability token (≥128 bits), never a pid or counter.',
    'handles are unique, at least 22 characters (128 bits of base64), without whitespace, and contain no pid',
  ),
  'exec.timeout': portable(
    '000',
    'timeout_ms: command timeout, capped by max_exec_timeout_ms',
    'a command past timeout_ms is killed with its group and reports timeout',
  ),
  'exec.timeout-capped': r('000', 'timeout_ms: command timeout, capped by max_exec_timeout_ms', 'timeout_ms above the server maximum is capped to it', [
    'flags',
  ]),
  'exec.yield-window': portable(
    '000',
    'yield_time_ms: how long to wait before returning partial output',
    'a command outliving yield_time_ms returns after about that long, with its output so far',
  ),
  'exec.runs-as-user': r(
    '002',
    'In Local mode, commands run as the trusted logged-in host user',
    'commands run with the uid and home of the user running zodexd',
    ['local'],
  ),
  'exec.yield-clamped': r('issue 2', 'clamp an out-of-range yield rather than reject it', 'negative and huge yield_time_ms are clamped, not rejected'),
  'exec.environment': r(
    'issue 2',
    'Set PAGER=cat, GIT_PAGER=cat and a fixed terminal size; document the environment you set.',
    'commands see PAGER=cat, GIT_PAGER=cat and a 200x50 terminal',
  ),
  'exec.login-environment': r(
    '002, issue 23',
    "In Local mode, commands run as the trusted logged-in host user with the captured developer environment. Linux and macOS use the captured login shell … The login shell comes from $SHELL, not from the user's passwd entry.",
    "local mode runs commands in the login shell the user's passwd entry names (not $SHELL) and its environment; --shell picks another",
    ['flags', 'local'],
  ),
  'exec.no-lost-output': portable(
    'issue 2',
    'a conformance test writes N bytes from a command that exits at once, 100 times, and every run receives exactly N',
    '100 runs of a command writing N bytes and exiting at once each deliver exactly N bytes',
    ['era-neutral'],
  ),

  // --- workdir rules (seed 002)
  'workdir.required': portable(
    '002',
    'the field is required;',
    "apply_patch without workdir fails with nothing written; exec_command without workdir fails likewise, or runs where its result's cwd says (a server with a default workdir, as seed 000 allows)",
  ),
  'workdir.absolute': portable('002', 'it must be absolute;', 'a relative workdir fails (isError) for exec_command and apply_patch, with nothing written'),
  'workdir.exists': portable(
    '002',
    'the directory must exist;',
    'a workdir that does not exist fails (isError) for exec_command and apply_patch, with nothing written',
  ),
  'workdir.directory': portable(
    'DESIGN',
    'Invalid workdir (missing, relative, not existing, not a directory) fails before any side effect, with an error that says which rule it broke.',
    'a file as workdir fails (isError) for exec_command and apply_patch, with nothing written',
  ),
  'workdir.no-side-effect': portable(
    '002',
    'invalid workdir input fails before the command/patch side effect.',
    'a call rejected for its workdir (relative, missing, a file; apply_patch also without one) creates no file and starts nothing',
  ),
  'workdir.default': r(
    'DESIGN',
    'required, unless zodexd is started with --default-workdir DIR; then exec_command may omit it. apply_patch always requires it.',
    'with --default-workdir, exec_command may omit workdir; apply_patch still may not',
    ['flags'],
  ),
  'workdir.required-exec': r(
    'DESIGN',
    'required, unless zodexd is started with --default-workdir DIR',
    'zodexd started without --default-workdir: exec_command without workdir fails with WORKDIR_REQUIRED and runs nothing',
    ['flags'],
  ),

  // --- tool inputs: every argument that cannot be honoured exactly is refused (issue 12)
  'inputs.bounded-quotes': surface(
    'issue 12',
    'Error texts quote at most ~200 characters of any input, then say how many more there were.',
    'a 1 MB session_handle and a 4 MB workdir get error texts under 1 KB that say how many more characters there were',
  ),
  'inputs.unknown-argument': surface(
    'issue 12',
    'unknown argument names (say which, and the nearest valid name: "`timeout`: did you mean `timeout_ms`?")',
    'an unknown argument name gets UNKNOWN_ARGUMENT naming it and the nearest valid name, nothing runs; every input schema says additionalProperties false',
  ),
  'inputs.nul': surface(
    'issue 12',
    'A NUL byte in `cmd` runs a different command. `"echo A\u0000; touch X"` runs only `echo A`',
    'a NUL in cmd or workdir gets NUL_CHARACTER naming the field; nothing runs, no X is created',
  ),
  'inputs.surrogate-cmd': surface(
    'issue 12',
    'Lone surrogates in `cmd`, `chars` or patch text become U+FFFD without a word',
    'a lone surrogate in cmd gets INVALID_UNICODE naming cmd and the position; nothing runs',
  ),
  'inputs.surrogate-chars': surface(
    'issue 12',
    'Lone surrogates in `cmd`, `chars` or patch text become U+FFFD without a word',
    'a lone surrogate in chars gets INVALID_UNICODE; nothing is typed, the session still runs',
  ),
  'inputs.surrogate-patch': surface(
    'issue 12',
    'Lone surrogates in `cmd`, `chars` or patch text become U+FFFD without a word, also in the files apply_patch writes.',
    'a lone surrogate in a patch gets INVALID_UNICODE naming patch; no file is written',
  ),
  'inputs.coded-errors': surface(
    'issue 12',
    'Every input that cannot be honoured exactly gets an `isError` result (or a JSON-RPC error where no tool runs) with a stable code, naming the field, what was wrong and how to fix it',
    'missing, mistyped and out-of-range arguments get isError "CODE: message" results naming the field, one text per condition whichever check finds it; non-object arguments get JSON-RPC -32602 and the server keeps serving',
  ),

  // --- write_stdin (seeds 000, 002)
  'stdin.poll': portable(
    '002',
    'Send no characters and no kill flag. Zodex waits for more output or exit and returns the current state.',
    'polling returns new output, then the exit',
  ),
  'stdin.poll-ends-on-output': r(
    '002, issue 23',
    'Send no characters and no kill flag. Zodex waits for more output or exit and returns the current state. … A 4 s poll of a command that printed a line after 0.5 s returned after 4,004 ms.',
    'a poll returns soon after new output (a burst whole, a never-pausing command within seconds), at exit, or at its yield_time_ms, which a silent command waits out',
  ),
  'stdin.output-since-last': portable(
    'DESIGN',
    'output: the output since the previous call on this session',
    'each result carries only output not returned before',
  ),
  'stdin.input': portable('002', 'For an interactive prompt: chars: "y\\n"', 'typed characters reach the program and its answer comes back'),
  'stdin.answer': r(
    '002',
    'Send input … For an interactive prompt: chars: "y\\n"',
    'typed input returns as soon as the program answers (not at the yield), and the echo of the input alone is no answer',
  ),
  'stdin.kill': portable('002', 'Kill it kill_process: true', 'kill_process ends the command; the result says killed'),
  'stdin.kill-grandchildren': r(
    'issue 2',
    'No process outlives the server; killing reaches grandchildren.',
    'kill_process also ends grandchildren and background jobs',
  ),
  'stdin.unknown-handle': portable(
    'issue 2',
    'An unknown handle, or one whose exit was already reported, is an error with code UNKNOWN_SESSION',
    'a made-up handle is an isError result',
  ),
  'stdin.spent-handle': portable(
    'issue 2',
    'An unknown handle, or one whose exit was already reported, is an error with code UNKNOWN_SESSION',
    'a handle whose exit was reported is an isError result',
  ),
  'stdin.handle-not-conversation': portable(
    '002',
    'A session handle is a process continuation capability. It is not a ChatGPT conversation ID.',
    'a handle works from another conversation of the same server',
    ['http'],
  ),

  // --- transports (seed 003)
  'transport.same-tools': r(
    '003',
    'The tool set is identical either way — the transport changes only who may connect and from where.',
    'tools/list over stdio and over HTTP are identical',
    ['local', 'era-neutral'],
  ),
  'stdio.stdout-protocol-only': r(
    '003',
    'The server speaks newline-delimited JSON-RPC 2.0 over stdin/stdout … Diagnostics go to stderr; stdout carries only the protocol.',
    'every stdout line is one JSON-RPC message, even when commands print and the server logs',
    ['stdio', 'local', 'era-neutral'],
  ),
  'stdio.parse-error': r(
    'issue 12',
    'malformed JSON gets -32700 … (with the id when it can be read); the server keeps serving and its sessions keep running',
    'a truncated line and a non-JSON line each get -32700 (the id when its start shows it); the server answers after, a running session survives',
    ['stdio', 'local', 'era-neutral'],
  ),
  'stdio.invalid-request': r(
    'issue 12',
    'an invalid request -32600 (with the id when it can be read)',
    'wrong or missing jsonrpc, id null/object/1.5/true, string params, no method: each gets -32600 naming the field; server and session live on',
    ['stdio', 'local', 'era-neutral'],
  ),
  'stdio.no-batches': r(
    'issue 12',
    'Malformed JSON-RPC over stdio gets no reply at all (… batches, empty batch …)',
    'a batch and an empty batch get -32600 saying MCP has no batches, and none of their requests run; server and session live on',
    ['stdio', 'local', 'era-neutral'],
  ),
  'stdio.message-too-large': r(
    'issue 12',
    'stdio: a message larger than the limit (the same 16 MiB as HTTP bodies, a flag) gets a JSON-RPC error naming the limit',
    'a 17 MiB line gets -32600 MESSAGE_TOO_LARGE with its id, naming 16777216 and --max-body-bytes; server and session live on',
    ['stdio', 'local', 'era-neutral'],
  ),
  'stdio.reply-fits-client': r(
    'issue 12',
    'No reply line is ever larger than what a stock SDK client accepts.',
    'a tool result too large for the SDK stdio client (10 MiB) arrives as an isError REPLY_TOO_LARGE result and the connection lives on',
    ['stdio', 'flags', 'local', 'era-neutral'],
  ),

  // --- lifecycle
  // --- process hygiene (issue 12)
  'hygiene.hopping-daemon-kill': r(
    'issue 12',
    "A daemon that keeps changing pid escapes kill. … A test runs a pid-hopping daemon 20 times; 20 of 20 are gone after kill_process, after a timeout and after the command's normal end.",
    'a daemon that setsid-s a copy of itself and exits, over and over, stops hopping once kill_process reports killed, 20 of 20',
    ['local', 'era-neutral'],
  ),
  'hygiene.hopping-daemon-timeout': r(
    'issue 12',
    'Kill reaches every descendant, including processes that keep re-forking with setsid … 20 of 20 are gone … after a timeout',
    'the same daemon stops hopping once the timeout is reported, 20 of 20',
    ['local', 'era-neutral'],
  ),
  'hygiene.hopping-daemon-exit': r(
    'issue 12',
    "Kill reaches every descendant … 20 of 20 are gone … after the command's normal end",
    'the same daemon, left behind by a command that exits 0, stops hopping within 2 s of the exit, 20 of 20',
    ['local', 'era-neutral'],
  ),
  'hygiene.cmd-any-bytes': r(
    'issue 12',
    'A NUL byte in `cmd` runs a different command. … The spawn protocol must carry any byte sequence in cmd without ambiguity (length-prefixed, not separator-based).',
    'control characters, quotes, an end-marker look-alike and non-ASCII in cmd reach the shell byte for byte; a NUL in cmd is an error and nothing of the command runs',
    ['era-neutral'],
  ),

  'lifecycle.stdin-close': r(
    'DESIGN',
    'when stdin closes, zodexd kills its sessions and exits.',
    'closing stdin ends zodexd within 1 s and kills its commands',
    ['stdio', 'local'],
  ),
  'lifecycle.signals': r(
    'issue 2',
    'SIGINT and SIGTERM do the same. No process outlives the server',
    'SIGTERM and SIGINT end zodexd and every command it started',
    ['local', 'era-neutral'],
  ),
  'cli.refusals': r(
    '003, issue 23',
    'Passing --listen with --transport=stdio is an error rather than a silently ignored flag. … Wildcard binds are refused. … ZODEX_LISTEN=0.0.0.0:7391 is refused with a message naming --listen, not the variable; unknown keys in config.json are silently ignored',
    'each refused flag combination (or environment value, or config file key) exits 2 with one stderr line naming the flag (or the variable) and the fix, nothing on stdout',
    ['local', 'era-neutral'],
  ),
  'cli.terminal-hint': r(
    'issue 17',
    'on a terminal zodexd says on stderr what it is waiting for and how to connect (stdio client config, or `--transport http`)',
    'with stdin a terminal, zodexd over stdio says on stderr that it waits for an MCP client, the client config and --transport http, writes nothing on stdout and ends on Ctrl-D; with stdin a pipe it says nothing of it',
    ['local', 'era-neutral'],
  ),
  'cli.npm-start-protocol-only': r(
    'issue 17',
    '`npm start` writes nothing to stdout that is not protocol',
    'npm start in the checkout, sent initialize on stdin: every stdout line is JSON-RPC, the first the initialize result',
    ['local', 'stdio', 'era-neutral'],
  ),

  // --- streamable HTTP (seed 003, issue 5)
  'http.serving-line': r(
    '003',
    'Once bound, the server logs the resolved URL to stderr … Port 0 binds an ephemeral port, which that line then reports.',
    'stderr says "serving over http on http://HOST:PORT/mcp" with the real port',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'http.path-404': r(
    '003',
    'zordon mcp --transport=http serves the streamable-HTTP transport … at http://HOST:PORT/mcp. Any other path returns 404.',
    '/, /mcp/x, /MCP and /sse answer 404; /mcp serves MCP',
    ['http', 'legacy'],
  ),
  'http.stateful': r(
    'issue 5',
    'stateful (Mcp-Session-Id), protocol revision 2025-11-25 (older ones the SDK negotiates still work)',
    'initialize returns an Mcp-Session-Id and negotiates 2025-11-25 and 2025-03-26',
    ['http', 'legacy'],
  ),
  'http.host-loopback': r(
    '003',
    'On a loopback bind, a request whose Host header is not itself loopback is rejected',
    'Host 127.0.0.1, 127.1.2.3, localhost and [::1], with and without port, are served',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.host-foreign': r(
    '003',
    'a request whose Host header is not itself loopback is rejected with 403 Forbidden: invalid Host header … the 403 body names the flag that would admit it.',
    'a foreign Host gets 403 "Forbidden: invalid Host header" naming --allow-host, on every path and method',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.allow-host': r(
    '003',
    '--allow-host widens the accepted Host headers without giving up the protection for everything else … The flag is repeatable',
    'each --allow-host name is admitted (any port, any case) and nothing else',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.non-loopback-bind': r(
    '003',
    'Binding a non-loopback address is allowed and logs a warning. … (a non-loopback bind was already a deliberate act and imposes no Host rule)',
    'a non-loopback bind warns, applies no Host rule, and requires a token unless --insecure-no-auth',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.origin': r(
    'issue 5',
    'Origin (MCP spec 2025-11-25: MUST): a request carrying an Origin whose host is not loopback and not allowed gets 403; no Origin is fine.',
    'a foreign Origin gets 403; loopback, allowed or absent Origins are served',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.token': r(
    'issue 5',
    'When set, every request needs Authorization: Bearer TOKEN (constant-time comparison), else 401 with WWW-Authenticate: Bearer. The token never appears in logs.',
    'missing or wrong token: 401 with WWW-Authenticate; right token: served; token absent from stderr',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.body-size': r(
    'issue 5',
    'an 8 MiB apply_patch request must pass … beyond your documented limit, 413 with a clear message.',
    'an 8 MiB apply_patch succeeds; a body over --max-body-bytes gets 413 naming the limit',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.drain': r(
    '003',
    'The process runs in the foreground until interrupted; SIGINT/SIGTERM drain in-flight requests before it exits.',
    'a call in flight when SIGTERM arrives completes, then zodexd exits 0',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.drop-cancels': r(
    'issue 12',
    'HTTP: a request whose connection drops is cancelled like any other cancelled call (its command is killed, its slot freed).',
    'five exec_command calls whose connections drop on a --max-sessions 5 server leave it able to start a command',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.body-timeout': r(
    'issue 12',
    'Request bodies and headers have timeouts (408, then close).',
    'a body sent at 1 byte per second gets 408 naming --body-timeout-ms and the connection closes; the server keeps serving',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'http.headers-timeout': r(
    'issue 12',
    'Request bodies and headers have timeouts (408, then close).',
    'headers sent at 1 byte per second get 408 after --headers-timeout-ms and the connection closes; the server keeps serving',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'http.conversation-cap': r(
    'issue 12',
    'Open conversations are capped (flag; a sensible default); when the cap is reached, idle conversations with no running command are evicted oldest first, and a request that still cannot be admitted gets 503 with Retry-After and a message naming the flag.',
    'at --max-conversations, the oldest idle session is evicted; when all are busy, initialize gets 503, Retry-After and the flag',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.guard-bounded-quotes': r(
    'issue 12',
    'Error texts quote at most ~200 characters of any input, then say how many more there were.',
    'a 403 for a 4,000-character Host header or Origin quotes at most 200 characters of it and says how many more there were',
    ['http', 'flags', 'era-neutral'],
  ),
  'http.drain-503': r(
    'issue 12',
    'During drain, new connections are refused at the socket instead of getting the documented 503.',
    'a new connection during drain gets 503 with Retry-After and Connection: close while the call in flight completes',
    ['http', 'flags', 'local', 'legacy'],
  ),
  // --- the operations listener and fleet logs (issue 24)
  'ops.paths': r(
    'issue 24',
    'An operations listener, off by default: `--ops-listen HOST:PORT` … serving `/healthz` …, `/readyz` … and `/metrics` in the Prometheus text format … The MCP listener keeps answering 404 for every path but `/mcp`.',
    'with --ops-listen 127.0.0.1:0 the bound URL is logged; /healthz and /readyz answer 200 JSON, /metrics 200 in the Prometheus text format (version 0.0.4) with zodex_ and process_ metrics, HEAD too; any other path 404, POST 405; the MCP listener answers 404 for /healthz, /readyz and /metrics',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'ops.refusals': r(
    'issue 24',
    '`--ops-listen HOST:PORT` (env `ZODEX_OPS_LISTEN`; the same wildcard refusal as `--listen`; port 0 logs the bound URL)',
    '--ops-listen 0.0.0.0:PORT, [::]:PORT and :PORT exit 2 naming the flag, as ZODEX_OPS_LISTEN naming the variable; a foreign Host on a loopback ops listener gets 403; without the flag no ops listener is logged',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'ops.readiness-drain': r(
    'issue 24',
    '`/readyz` (accepting new work; 503 from the moment a drain starts)',
    'a call in flight at SIGTERM: /readyz turns 503 at once (reason draining), /healthz stays 200 and zodex_draining reads 1 while the call finishes with its output; then zodexd exits 0',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'ops.metrics-move': r(
    'issue 24',
    'tool calls by tool and outcome, call latency histogram, running commands, HTTP conversations and agents, spill bytes on disk, sandbox refusals …, drain state, plus the process metrics',
    "metrics move with calls in both eras: zodex_tool_calls_total by tool and outcome (ok, an error code), the latency histogram's count, commands started/running/ended, HTTP sessions and 2026-07-28 agents, spill files and bytes after a spill",
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'ops.log-json': r(
    'issue 24',
    '`--log-format text|json` (env `ZODEX_LOG_FORMAT`); JSON lines with a level, a message, and the agent, handle prefix and request id where they apply; never a secret, never raw client-supplied control characters.',
    'with --log-format json every stderr line is one JSON object with time, level and message, a usage error too; the token never appears; a line about a cancelled request carries its id and session',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'ops.hundred-agents': r(
    'issue 24',
    '100 concurrent HTTP agents with no failure',
    'a zodexd with default limits serves 100 agents at once (50 MCP 2025-11-25 sessions, 50 2026-07-28 agents), each running exec_command three times: all 300 calls succeed, and /metrics counts them',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'http.delete-kills': r(
    'issue 5',
    "Sessions own their processes: DELETE, or an idle expiry you choose and document, kills that session's process groups.",
    'DELETE of an MCP session kills its running commands',
    ['http', 'legacy'],
  ),
  'http.idle-expiry': r(
    'issue 5',
    "Sessions own their processes: DELETE, or an idle expiry you choose and document, kills that session's process groups.",
    'an idle session expires after --http-idle-ms and its commands are killed',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'http.concurrent-sessions': r(
    'issue 5',
    'Many concurrent sessions work independently.',
    'eight conversations run commands at once, each seeing only its own output',
    ['http'],
  ),
  'http.official-suite': r(
    'issue 5',
    'The official suite: @modelcontextprotocol/conformance@0.1.13 … passes in CI for server-initialize, ping, tools-list, server-sse-multiple-streams and dns-rebinding-protection',
    'the official conformance scenarios pass against zodexd',
    ['http', 'flags', 'local', 'legacy'],
  ),
  'interop.inspector-cli': r(
    'issue 5',
    'A third-party client: @modelcontextprotocol/inspector-cli@1.0.3 lists the tools and runs exec_command over HTTP and over stdio.',
    'inspector-cli lists the tools and runs exec_command',
    ['local', 'legacy'],
  ),
  'progress.long-yield': r(
    'issue 5',
    'when a call carries a progressToken, send notifications/progress at least every 10 s while a yield is waiting … Works on stdio too.',
    'a 25 s yield with a progressToken receives progress notifications at most 10 s apart',
  ),

  // --- MCP 2026-07-28 beside 2025-11-25 (issue 15)
  'modern.discover': r(
    'issue 15',
    'server/discover is required … zodexd serves both revisions on stdio and on HTTP at the same /mcp, chosen per request as the revision says',
    'server/discover is answered before any initialize, on stdio and HTTP: supportedVersions ["2026-07-28"], capabilities.tools, instructions, serverInfo in _meta, ttlMs and cacheScope, resultType complete',
    ['modern', 'local'],
  ),
  'modern.results': r(
    'issue 15',
    'results carry `resultType`, `tools/list` carries a TTL',
    'tools/list and tools/call results carry resultType complete and _meta serverInfo; tools/list carries ttlMs and cacheScope public; the tools equal the 2025 list',
    ['modern', 'local'],
  ),
  'modern.stdio-era': r(
    'issue 15',
    'a 2025-11-25 client still initializes, gets a session, and everything it gets today',
    'stdio: a server/discover probe then initialize (2025-06-18, as Codex sends) is served as 2025; a modern request pins the process modern and a later initialize gets -32022',
    ['modern', 'stdio', 'local'],
  ),
  'modern.http-both-eras': r(
    'issue 15',
    'zodexd serves both revisions on stdio and on HTTP at the same `/mcp`, chosen per request',
    'one /mcp serves a 2025 session (Mcp-Session-Id) and session-less 2026-07-28 requests side by side; a 2026-07-28 request mints no session id; GET with the modern version header is 405',
    ['modern', 'http'],
  ),
  'modern.header-ladder': r(
    'issue 15',
    "version, client capabilities and client identity travel in each request's `_meta` (mirrored in the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers)",
    'a missing or mismatched MCP-Protocol-Version, Mcp-Method or Mcp-Name gets 400 and -32020 and runs nothing; a Base64-sentinel Mcp-Name is decoded',
    ['modern', 'http'],
  ),
  'modern.version-method-envelope': r(
    'issue 15',
    'The new revision removes the initialize handshake',
    'an unserved version gets -32022 with data.supported (HTTP 400); an unknown method (ping, initialize with _meta) -32601 (HTTP 404); a missing envelope key -32602 (HTTP 400); an unknown tool -32602, on stdio and HTTP',
    ['modern', 'local'],
  ),
  'modern.listen': r(
    'issue 15',
    '`subscriptions/listen` if a client opens it (Claude Code does) — answer correctly even if zodex has nothing to notify',
    'subscriptions/listen is acknowledged first with an empty filter and its subscriptionId, stays open, and at SIGTERM ends with a resultType complete response',
    ['modern', 'local'],
  ),
  'modern.stream-close-cancels': r(
    'issue 15',
    'a cancelled request (its stream closed) cancels its call',
    'HTTP: closing a tools/call stream kills the exec_command it ran (a --max-sessions 1 server can start a command again); stdio: notifications/cancelled does the same and gets no response',
    ['modern', 'flags'],
  ),
  'modern.handle-idle': r(
    'issue 15',
    "a running command belongs to its handle; a handle unused for `--handle-idle-ms` (default as today's HTTP idle) is killed",
    'with --handle-idle-ms 1500 a command whose handle nobody uses is killed (write_stdin reports killed), one polled meanwhile keeps running',
    ['modern', 'flags'],
  ),
  'modern.agent-id': r(
    'issue 15',
    'the Local-mode Agent ID (seed 002: "resolved from conversation metadata, not passed as a model-visible input"): from the request\'s `_meta` … with a stable fallback',
    'calls with the same _meta threadId share one Agent ID, another threadId gets another; calls carrying no conversation id share the clientInfo fallback; the first result of each agent carries its zodex_context',
    ['modern', 'flags', 'local-mode'],
  ),
  'modern.progress-own-stream': r(
    'issue 15',
    "progress: on the request's own stream",
    'HTTP: a tools/call with a progressToken is answered as its own SSE stream: progress notifications, then the result',
    ['modern', 'http'],
  ),
  'modern.guardrails': r(
    'issue 15',
    'Every guardrail holds in both eras: Host and Origin rules, token, body limit, the 404 for other paths.',
    '2026-07-28 POSTs get the 403 Host and Origin refusals, 401 without the token, 413 over --max-body-bytes and 404 on other paths, as 2025 ones do',
    ['modern', 'http', 'flags', 'local'],
  ),
  'modern.agent-cap': r(
    'issue 12',
    'Open conversations are capped … a request that still cannot be admitted gets 503 with Retry-After and a message naming the flag.',
    'with --max-conversations 1, a 2026-07-28 call of a second agent while the first has a command running gets 503 naming the flag; after that command ends it is served',
    ['modern', 'http', 'flags', 'local'],
  ),
  'modern.drain': r(
    '003',
    'SIGINT/SIGTERM drain in-flight requests before it exits.',
    'a 2026-07-28 call in flight at SIGTERM completes and a new one gets 503, then zodexd exits 0',
    ['modern', 'http', 'flags', 'local'],
  ),
  'modern.client-text-escaped': r(
    'issue 22',
    'The same comes through … the 2026 "first request from CLIENT" line (`clientInfo.name`/`version`). … one escaping function for every client-supplied value on every log line',
    'a 2026-07-28 request whose clientInfo carries an OSC 52 write, a line erase, a carriage return and a forged line is logged with the name quoted and every control character escaped, on stdio and HTTP',
    ['modern', 'local'],
  ),
  'modern.lease-any-era': r(
    'issue 22',
    "A 2026 poll puts a 2025 session's command under the 2026 lease: later polls from its own 2025 session do not renew it … one lease rule for a command whatever era polls it",
    "with --handle-idle-ms 3000, a 2025 session's command polled once in the 2026 era and a 2026 command polled only by a 2025 session both keep running while polled; left alone, the 2026 command is killed and the 2025 one lives with its session",
    ['modern', 'http', 'flags', 'local'],
  ),
  'modern.stdio-refusal-pins-nothing': r(
    'issue 22',
    'stdio: a refused first request pins the era. … only served requests pin the stdio era',
    'stdio: a first request refused for a 2025 version in _meta (-32022) or a malformed 2026 envelope (-32602) pins nothing, and an initialize after it is served as 2025',
    ['modern', 'stdio', 'local'],
  ),
  'modern.listen-bounded': r(
    'issue 22',
    'Also decide, and document: `subscriptions/listen` under a reused stdio id can never be cancelled and 6,000 of them hold ~40 MiB',
    'at most --max-conversations subscriptions are open: with 2, a third ends the oldest with its complete result, on stdio and HTTP',
    ['modern', 'flags', 'local'],
  ),
  'modern.listen-id-in-use': r(
    'issue 22',
    'Also decide, and document: `subscriptions/listen` under a reused stdio id can never be cancelled',
    'stdio: a request whose id is still in flight is refused with -32600, so cancelling that id ends the first subscription (no result for it at SIGTERM)',
    ['modern', 'stdio', 'local'],
  ),

  // --- long and interactive commands (issue 13)
  'wait.max-yield': r(
    'issue 13',
    'The yield is capped by --max-yield-ms (default 30 000 …); a longer yield_time_ms is clamped, never rejected, and the result says what was used. A command still running at the cap returns running with its handle as now.',
    'with --max-yield-ms 1500 a longer yield returns running with its handle at the cap, yield_time_ms 1500 in the result, on exec_command and write_stdin',
    ['flags'],
  ),
  'wait.max-yield-default': surface(
    'issue 13',
    'The yield is capped by --max-yield-ms (default 30 000 …)',
    'by default a yield_time_ms above 30 000 is reported as clamped to 30 000, and one within it carries no yield_time_ms',
  ),
  'wait.input.read': r(
    'issue 13',
    'Detected, each with a test: a shell read',
    'a shell read -p prompt returns at once: running, waiting_for_input true, the prompt in output',
    ['local', 'era-neutral'],
  ),
  'wait.input.read-silent': r(
    'issue 13',
    'a password prompt that reads with echo off (read -s, the way sudo asks)',
    'read -s returns at once with waiting_for_input true, and typing the answer returns at the next prompt',
    ['local', 'era-neutral'],
  ),
  'wait.input.python': r('issue 13', "Python's input()", "python3 -c 'input()' returns at once with waiting_for_input true", ['local', 'era-neutral']),
  'wait.input.node-readline': r('issue 13', 'a Node readline prompt', 'a Node readline question returns at once with waiting_for_input true', [
    'local',
    'era-neutral',
  ]),
  'wait.input.child': r(
    'issue 13',
    'a prompt in a child while the parent shell waits for it (cd "$HOME" && python3 -c \'input()\')',
    'a child prompting while its shell waits returns at once with waiting_for_input true',
    ['local', 'era-neutral'],
  ),
  'wait.no-early.sleep': r('issue 13', 'No false early return, each with a test: sleep', 'sleep runs out the yield; waiting_for_input false', [
    'local',
    'era-neutral',
  ]),
  'wait.no-early.compute': r(
    'issue 13',
    'a command computing silently for 2 s before it reads (returns at the read, not before)',
    'a 2 s silent computation then a read returns after 2 s, at the read',
    ['local', 'era-neutral'],
  ),
  'wait.no-early.pipe': r(
    'issue 13',
    'a program blocked on a pipe or socket rather than the terminal',
    'cat on a pipe, recv on a socketpair and read < fifo run out the yield; waiting_for_input false',
    ['local', 'era-neutral'],
  ),
  'wait.no-early.timed': r(
    'issue 23',
    'a program that checks the terminal between progress ticks (select([stdin], [], [], 0.05) between lines printed every 50 ms for 2 s) returned after 128 ms with waiting_for_input: true, before its stream ended; so did a program whose worker thread blocks in stdin.readline() while the main thread prints and exits on its own',
    'both run to their exit: a wait on the terminal with a timeout, or a main thread on a timer, is no prompt while output keeps coming',
    ['local', 'era-neutral'],
  ),
  'wait.input.timed': r(
    'issue 23',
    'A program that would finish on its own must not end the wait; one that truly waits … still must … add … `top` to the false-alarm set and decide `top` (it would never end alone) explicitly',
    'a prompt that waits on the terminal with a 60 s timeout, and top between its redraws, return with waiting_for_input true once quiet for 1 s; q quits top',
    ['local', 'era-neutral'],
  ),
  'wait.no-early.printing': r('issue 13', 'a program printing continuously', 'a program printing all the time runs out the yield; waiting_for_input false', [
    'local',
    'era-neutral',
  ]),
  'cancel.exec-kills': r(
    'issue 13',
    'State one rule for a cancelled call on both transports (notifications/cancelled, a dropped HTTP request, a closed stdio), document it in the README, and test it. Killing the command is acceptable',
    'a cancelled exec_command kills its command (nobody received its handle)',
  ),
  'cancel.poll-keeps': r(
    'issue 13',
    'A cancelled call loses nothing it did not have to.',
    'a cancelled write_stdin leaves the command running and its output for the next call',
  ),
  'cancel.stdio-close': r(
    'issue 13',
    'State one rule for a cancelled call on both transports (… a closed stdio)',
    'closing stdin during an exec_command call ends zodexd and kills the command',
    ['stdio', 'local'],
  ),

  // --- output that never floods (seed 002, issue 3)
  'spill.inline': portable('002', 'Command output is bounded for model delivery.', 'output within the inline limit comes back whole, with no output_file', [
    'era-neutral',
  ]),
  'spill.large-output': portable(
    '002',
    'When a command exceeds the inline output limit, Zodex keeps the tool call responsive, writes the decoded PTY stream to a private temporary file, and returns a short tail preview plus output_file, output_chars, output_lines, and output_file_truncated.',
    '3 MB of output: a 0600 file in a 0700 folder holding the whole stream, exact counts, a preview ending with the last marker',
    ['era-neutral'],
  ),
  'spill.cap': portable(
    '002',
    'Spill files are capped at 16 MiB each … the saved file contains the first 16 MiB while the returned tail preview still reflects the latest output and the counts describe the full stream.',
    '20 MiB of output: the file is exactly the first 16 MiB, truncated is true, counts cover 20 MiB, the preview ends with the last marker',
    ['era-neutral'],
  ),
  'spill.later-results': portable(
    'issue 3',
    'every later result of that session carries output_file, output_chars and output_lines for the whole stream so far',
    'a running session that spilled reports the file and growing counts on every poll',
    ['era-neutral'],
  ),
  'spill.folder-cap': r(
    'issue 23',
    'Spill files have no total cap: 40 commands of 2 MB each leave 80 MB in the spill folder for 24 hours … Add a total cap per spill folder (flag; sensible default), removing the oldest files of ended sessions first, and say so in results when a file was removed.',
    "with --spill-folder-max-bytes, the folder stays under it: the oldest ended command's files go first (never a running one's), the result that needed the room lists them in output_files_removed, and a removed file's own session says so in output_file_error",
    ['flags', 'era-neutral'],
  ),
  'spill.cleanup': r('002', 'stale files are cleaned up after 24 hours', 'at start, a spill file older than the max age is removed and a fresh one kept', [
    'flags',
    'local',
    'era-neutral',
  ]),
  'spill.utf8-split': portable(
    'issue 3',
    'UTF-8 split across read chunks decodes correctly (no U+FFFD for a split multi-byte character)',
    'a character split across writes, reads and results arrives whole, in the preview and in the file',
    ['era-neutral'],
  ),
  'spill.unwritable': r(
    'issue 3',
    'spill folder not writable or disk full → the command keeps running, the result says that spilling failed (a clear field or message), the preview still works, the server does not crash.',
    'with an unusable spill folder the result carries output_file_error, the preview and counts still work',
    ['flags', 'local', 'era-neutral'],
  ),
  'output.head': surface(
    'issue 18',
    'Once a stream spills, `output` stays the tail preview seed 002 describes, and the result also carries `output_head`: the start of what is new (about 1 KiB, a flag), with one line saying how many lines and bytes lie between head and tail and where to read them. The two fit the preview budget a model sees today',
    '3 MB of numbered lines: output_head holds the first lines, output_omitted names lines A-B and a sed command whose lines join head and output into the whole stream; head and output fit 4 KiB',
    ['era-neutral'],
  ),
  'output.tail-file': r(
    'issue 18',
    'Past the cap, the file still holds the first 16 MiB (seed 002), and the last 1 MiB (a flag) of the stream stays readable in a second private file named in the result (`output_tail_file`), so both ends of any stream can be read.',
    'past a small cap: output_tail_file is 0600 beside output_file and holds exactly the last bytes of the stream from output_tail_file_offset; output_omitted says which bytes were not kept and how to read the rest',
    ['flags', 'era-neutral'],
  ),
  'output.progress': surface(
    'issue 18',
    '`\\r`-rewritten lines collapse to their last state in `output` and the preview (the spill file keeps the decoded stream as seed 002 says); counts are unchanged. A test with real progress output (e.g. a script that redraws a bar 10,000 times).',
    'a shell loop redrawing a bar 10,000 times returns only its last state; the counts and the spill file keep every frame',
  ),
  'output.offset': surface(
    'issue 18',
    'Every result carries `output_offset`: how many bytes of the stream have been delivered up to and including this result. `write_stdin` accepts `since_offset` to deliver again from there (from memory while the stream is small, from the spill file after), so a client that lost a reply loses no output.',
    'offsets grow with each result; since_offset delivers the same bytes again, from memory and from the spill file; an offset past the end is SINCE_OFFSET_AHEAD, a malformed one SINCE_OFFSET_INVALID, and neither changes anything',
    ['era-neutral'],
  ),
  'output.not-retained': r(
    'issue 18',
    'past what is retained, a clear error or a documented partial with a stable code',
    'since_offset in bytes neither the spill file nor the tail keeps is SINCE_OFFSET_NOT_RETAINED, naming the kept ranges, and changes nothing',
    ['flags', 'era-neutral'],
  ),

  // --- apply_patch (seeds 000, 002, issue 4)
  'patch.corpus': portable(
    'issue 4',
    "Codex's scenarios are run the same way",
    "every scenario of our corpus and of Codex's, sent through MCP, leaves exactly the expected tree",
    ['era-neutral'],
  ),
  'patch.success-text': surface(
    'issue 4, issue 23',
    "Success text in Codex's form (Success. Updated the following files: then A/M/D lines) … the success summary lists files in patch order; Codex lists all A, then M, then D.",
    'a successful patch answers "Success. Updated the following files:" and one line per file: every A, then every M (a move by its destination), then every D',
  ),
  'patch.partial': portable(
    '002',
    'When a valid multi-file patch contains stale context in one file, Zodex still applies independent file operations that match. The MCP error text lists the files already changed and the specific operations that failed. … A successful file operation is not rolled back because a different file failed.',
    'stale context in one file: the other files change, nothing is rolled back, and the isError text names the changed files and the failed one',
    ['era-neutral'],
  ),
  'patch.malformed': portable(
    '002',
    'Malformed patch syntax is rejected before applying any file operations.',
    'each malformed patch (unknown header, empty update, no Begin or End, empty) is an isError result that changes nothing',
    ['era-neutral'],
  ),
  'patch.out-of-order': portable(
    '002',
    'Within one file, Zodex only recovers out-of-order edits when all original regions match uniquely and do not overlap.',
    'unique out-of-order chunks apply; overlapping ones are an isError result with no change',
    ['era-neutral'],
  ),
  'patch.ambiguous': portable(
    '002',
    'Ambiguous context stays an error; Zodex never guesses which occurrence the agent intended.',
    'context matching two places is an isError result, and nothing changes',
    ['era-neutral'],
  ),
  'patch.relative-paths': portable(
    '000',
    'Relative paths in the patch are resolved against workdir.',
    'relative paths land under workdir, in nested folders created as needed',
    ['era-neutral'],
  ),
  'patch.absolute-paths': portable(
    '002',
    'The declared workdir is routing context, not confinement: a deliberately absolute path in a supported patch/command can still reach elsewhere',
    'an absolute path outside workdir (in another folder of the workspace) is honoured',
    ['era-neutral'],
  ),
  'patch.crash-temp-swept': r(
    'issue 12',
    'A SIGKILL mid-patch leaves temp files (`.NAME.zodex-XXXX.tmp`, up to 65 KB of partial content) beside the targets forever. … temp files from a crash never accumulate (swept by the next apply in that folder, or journaled under the state dir and swept at start; your call, documented).',
    "zodexd SIGKILLed while writing a big file leaves a temp file; the next zodexd's first apply in that folder removes it",
    ['local', 'era-neutral'],
  ),
  'patch.concurrent-writer': r(
    'issue 12',
    'A file that changed between read and rename (size, mtime or inode) fails that operation with its own code and a message saying another process wrote it; the other operations still apply.',
    'a shell appending 20,000 lines while patches rewrite the file: each patch applies or fails with FILE_CHANGED_DURING_PATCH, and no line is lost',
    ['era-neutral'],
  ),

  // --- Local mode: agents, aliases, history, zodex_context (seed 002, issue 7)
  'agent.ids': r(
    '002',
    'If it is the first tool call, Local assigns the conversation its normal four-character Agent ID',
    'each conversation gets its own four-character Agent ID, stable for its life',
    ['http', 'local-mode'],
  ),
  'agent.meta-2025': r(
    '002, issue 23',
    'The Agent ID is resolved from conversation metadata, not passed as a model-visible input. … Over 2025-11-25, three tool calls in one MCP session with _meta conversation ids conv-1, conv-2 and a threadId all got the same Agent ID.',
    "in one 2025-11-25 session, calls naming different conversations in _meta get different Agent IDs (the same id again, or from another session, the same), a call naming none the session's, and its command runs as that agent",
    ['local-mode', 'legacy'],
  ),
  'alias.local-only': r(
    '002',
    'Local also offers the optional set_agent_alias tool … This tool is not available in Sprite mode.',
    'set_agent_alias is listed in local mode and absent in sprite mode',
    ['flags'],
  ),
  'alias.limits': r(
    '002',
    'alias    required string (max 80 characters; empty string clears the alias)',
    'an 80-character alias is accepted, 81 refused with no change, "" clears it',
    ['local-mode'],
  ),
  'alias.first-call': r(
    '002',
    'If it is the first tool call, Local assigns the conversation its normal four-character Agent ID without recording a timeline invocation.',
    'an alias as first call gives the agent its ID and leaves no history row',
    ['flags', 'local'],
  ),
  'alias.persistent-lww': r(
    '002',
    'Agent alias updates and manual pencil-button edits are persistent, last-write-wins',
    'the last alias set is the one stored, across conversations and after the server exits',
    ['flags', 'local'],
  ),
  'alias.no-effect': r(
    '002',
    'Alias changes do not appear in the execution timeline or affect process routing, permissions, or history.',
    'renaming changes no history row and does not disturb a running session',
    ['flags', 'local'],
  ),
  'history.records': r(
    'issue 7',
    'Every tool invocation is recorded: agent, tool, workdir, command or patch summary, start and end, result summary, exit code, termination reason, and which session it created or touched (stored as an opaque id, never the handle itself: a handle is a capability). Output is not stored, except the spill file path.',
    'zodex history --json holds one row per call with those fields, never a handle or output',
    ['flags', 'local'],
  ),
  'history.rejected': r(
    'issue 17, issue 23',
    'calls rejected by input validation (missing workdir, …) are not in the history, though the README says every call is recorded … a set_agent_alias call rejected by validation (81 characters) is recorded in the timeline, though the seed says alias changes do not appear there; a call to an unknown tool is not recorded in history',
    'calls rejected by validation (missing workdir, an unknown argument) and calls of an unknown tool are history rows with isError and their error code; a refused alias leaves none',
    ['flags', 'local'],
  ),
  'context.first-result': r(
    '002',
    "By default the first result in a ChatGPT conversation includes the user's Codex-style global AGENTS instructions and global skill catalog",
    'the first result carries the global AGENTS.md and skills in zodex_context; later ones do not',
    ['flags', 'local'],
  ),
  'context.workdir': r(
    '002',
    'the first successful invocation in a workdir may include a one-line AGENTS.md/AGENTS.override.md hint plus a compact catalog of skills found directly under <workdir>/.agents/skills',
    'the first success in a workdir names its AGENTS.md and .agents/skills; a failure or a second call does not',
    ['flags', 'local'],
  ),
  'context.result-unchanged': r(
    '002',
    'exec_command and write_stdin expose this through an optional zodex_context structured field; text/error results keep the original result first and append context in the same text block. Stdout, status, cwd, exit code, and stored invocation evidence remain unchanged.',
    'context is a separate field, appended after the result text; output, status, cwd and exit code are as without it',
    ['flags', 'local'],
  ),
  'context.switches': r(
    'issue 7',
    'Each part can be turned off (flags and a config file you define)',
    '--global-context off, --workdir-context off and the config file each remove their part',
    ['flags', 'local'],
  ),

  // --- publishing through zodex-agent (seed 000, issue 9)
  'publisher.publish-pr': r(
    '000',
    'publish-pr is exposed through zodex-agent github publish-pr; it routes branch publication and PR creation through the local publisher daemon without exposing a write token to MCP tools.',
    'a commit made under exec_command is published by zodex-agent: the branch reaches the remote and the PR request carries the token',
    ['flags', 'local', 'era-neutral'],
  ),
  'publisher.no-leak': r(
    'issue 9',
    "The token never reaches the process environment of exec_command sessions, their output, the spill files, the history, or the daemon's logs; a test greps all of them for it.",
    'the token is in no session environment, output, spill file, history row or daemon log',
    ['flags', 'local', 'era-neutral'],
  ),
  'publisher.write-mode': r(
    '002',
    "GitHub clone/fetch and direct push availability are determined by the Sprite's GitHub Apps and active write mode.",
    'in read-only mode zodex-agent is refused, and commands run without GITHUB_TOKEN/GH_TOKEN unless the mode is direct',
    ['flags', 'local', 'era-neutral'],
  ),

  // --- secrets out of commands and transcripts (issue 26)
  'secrets.output-redacted': r(
    'issue 26',
    "zodex's own secrets (the HTTP bearer token, OAuth access and refresh tokens, the publisher token) and the values of `--redact-env NAME` … never appear in `output`, `output_head`, spill and tail files, history or the Liveboard: they are replaced by `[REDACTED:NAME]`, also when a value arrives split across reads",
    "a command printing the HTTP token in parts with sleeps between them and colour codes inside, a --redact-env value and a value its login shell exports shows [REDACTED:NAME] in its results (the start of the token held back until it can be told), output_head, the spill and tail files and the Liveboard tail; no value is in them, the history database, an error text or zodexd's stderr",
    ['flags', 'local', 'local-mode', 'era-neutral'],
  ),
  'secrets.minted-token': r(
    'issue 26',
    "OAuth tokens as they are minted (a live set the matcher can grow; a token minted after a command started must also be redacted from that command's later output)",
    'a command started before an OAuth access and refresh token were minted prints both afterwards: its next result shows [REDACTED:OAUTH_ACCESS_TOKEN] and [REDACTED:OAUTH_REFRESH_TOKEN]',
    ['http', 'flags', 'local'],
  ),
  'secrets.no-environ': r(
    'issue 26',
    'a token given as `ZODEX_AUTH_TOKEN` is not readable afterwards in `/proc/<zodexd pid>/environ` … and commands never inherit it',
    "with ZODEX_AUTH_TOKEN and ZODEX_PUBLISHER_TOKEN set, neither value is in /proc/PID/environ of zodexd or of any process it started (zygote, standbys, commands), nor in what a command reads of zodexd's environ",
    ['flags', 'local', 'era-neutral'],
  ),
  // --- the bounds: the write mode enforced by the OS, the opt-in sandbox (issue 26)
  'bounds.default-mode': r(
    'issue 26',
    'The default is a governed mode; `direct` only when chosen. zodexd prints the mode at start; the instructions say it in one short sentence.',
    'a zodexd started without --write-mode says "write mode: publish-pr (the default)" on stderr, its instructions hold the write-mode sentence, and its commands see ZODEX_WRITE_MODE=publish-pr and none of the token variables',
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.routes-governed': r(
    'issue 26',
    "In `read-only` and `publish-pr`, a command started by zodexd as the same OS user cannot write to a git remote or GitHub by any same-user route: credential helpers (`store`, `cache`, libsecret), `~/.git-credentials`, `~/.netrc`, gh's `hosts.yml`, `GH_TOKEN`/`GITHUB_TOKEN` (also when a login rc file exports them), `~/.ssh` private keys, an ssh-agent socket, `/proc/<pid>/environ` of zodexd or the publisher, the publisher's token file. In `publish-pr` the one route is `zodex-agent github publish-pr` through the publisher.",
    "against a real git smart-HTTP server (Basic auth), sshd, ssh-agent, git's cache daemon and two publishers, every route tried from exec_command leaves no branch on the remote in read-only and only the pull request's in publish-pr; a private clone works with --git-read-credentials, its push does not; no credential value reaches the output",
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.routes-direct': r(
    'issue 26',
    'In `direct` everything works as the user. … `direct` is the control that proves the setup works.',
    'in direct mode every one of the same routes pushes its branch',
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.own-code': r(
    'issue 26',
    'Enforced by the operating system, not by scrubbing variables. … also as root',
    "as root, a governed command can change nothing that runs unconfined next: /etc (ld.so.preload) and /usr are read-only, the zodex-spawn zodexd runs (a private copy) and every zodexd's private folder are masked, and the next command is as confined as the first",
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.patch-stores': r(
    'issue 26',
    'a command started by zodexd as the same OS user cannot write to a git remote or GitHub by any same-user route',
    'in a governed mode apply_patch fails an operation on a credential store (update, move away, add inside) with CREDENTIAL_STORE_DENIED and applies the others',
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.sandbox-workspace-write': r(
    'issue 26',
    "`workspace-write`: a command may write only under the call's `workdir`, a private `/tmp`, and each `--writable-root DIR` (repeatable) … apply_patch obeys the same rule (a patch outside the writable roots fails that file operation with its own code; the others still apply) … The result says when a write … was refused by the sandbox",
    "with --sandbox workspace-write a command writes in its workdir, /tmp (private: the host's /tmp does not see it) and a --writable-root, a write anywhere else fails with sandbox_refused in the result; apply_patch fails a file outside (a symlink in the workdir included) with SANDBOX_WRITE_DENIED and applies the rest",
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.sandbox-read-only': r(
    'issue 26',
    '`read-only`: only its private `/tmp`.',
    'with --sandbox read-only a command cannot write its workdir, can write /tmp, and apply_patch in the workdir fails with SANDBOX_WRITE_DENIED',
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.sandbox-spill-visible': r(
    '002',
    'The Agent can inspect that file with later tool calls instead of forcing a multi-megabyte MCP result through the model context.',
    'under --sandbox read-only and workspace-write (a private /tmp), the output_file a spilled result names is readable, whole, by the next command, and it cannot change it',
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.network-off': r(
    'issue 26',
    '`--sandbox-network on|off` … off means the command cannot open any network connection, not even to a loopback listener on the host. The result says when a … connection was refused by the sandbox',
    "with --sandbox-network off no command reaches a TCP or UDP listener on the host's loopback, and the result counts the refused connections in sandbox_refused; unix sockets still work",
    ['flags', 'local', 'era-neutral'],
  ),
  'bounds.refuses-unenforceable': r(
    'issue 26',
    'When the host cannot enforce what was asked (no user namespaces, no Landlock, macOS without the needed facility), zodexd exits at start with a message naming what is missing and how to get it; it never runs commands with less confinement than the flags say.',
    'a zodexd whose seccomp filter refuses unshare() or landlock_create_ruleset exits 1 at start naming the step and the remedy; with --write-mode direct --sandbox off it starts',
    ['flags', 'local', 'era-neutral'],
  ),

  // --- the Liveboard, in a real browser (seed 002, issue 7, DESIGN)
  'liveboard.own-listener': r(
    'DESIGN',
    'where Liveboard lives: its own listener (--liveboard HOST:PORT), never on the MCP listener, which 404s every path but /mcp.',
    'zodexd --liveboard logs "liveboard on http://HOST:PORT/" with the real port and serves the board there; the MCP listener still 404s /',
    ['browser'],
  ),
  'liveboard.rename-pencil': r(
    '002',
    'Agent alias updates and manual pencil-button edits are persistent, last-write-wins, and reflected immediately in every connected Liveboard.',
    "a pencil rename in one page shows in a second page within 1 s and is stored as the operator's",
    ['browser'],
  ),
  'liveboard.alias-tool': r(
    '002',
    'Agent alias updates and manual pencil-button edits are persistent, last-write-wins, and reflected immediately in every connected Liveboard.',
    'set_agent_alias through MCP shows in both pages within 1 s; the last write wins, and the alias outlives the server',
    ['browser'],
  ),
  'liveboard.timeline-tail': r(
    'issue 7',
    "agents with ID and alias …, each agent's execution timeline (tool, summary, duration, exit), running sessions with a live output tail",
    "two conversations' commands appear on their agents' timelines; a running one's tail keeps updating; its exit and duration show; a screenshot is attached",
    ['browser'],
  ),
  'liveboard.input': r(
    'issue 7',
    'an input box to type into a running session (a human taking over; recorded in history as the operator)',
    'text typed in the page reaches the session: the MCP poll and the tail show the answer; history records operator.input',
    ['browser'],
  ),
  'liveboard.kill': r(
    'issue 7',
    'running sessions with a live output tail, a kill button',
    'Kill in the page ends the session: the MCP poll reports killed; history and the timeline record the operator',
    ['browser'],
  ),
  'liveboard.every-zodexd': r(
    'issue 7',
    'reading the shared store so that it shows every zodexd of this user',
    'a standalone zodex liveboard shows two zodexd processes and their agents, and types into a session of each',
    ['browser'],
  ),
  'liveboard.live': r(
    'issue 7',
    'Live: a change reaches every open page within one second (SSE or WebSocket). No CDN or network fetch: it works offline.',
    'with every request outside the board blocked, the page loads, makes none, and shows a new command within 1 s',
    ['browser'],
  ),
  'liveboard.guardrails': r(
    'issue 7',
    'Same guardrails as the MCP listener: loopback by default, Host and Origin checks, token required on a non-loopback bind; the kill and input actions are protected against cross-site requests.',
    'a page of another origin cannot kill or type (fetch and form POST refused); foreign Host gets 403; a non-loopback --liveboard needs a token, which the page takes once',
    ['browser'],
  ),

  // --- containers (seed 003, issue 6)
  'container.bridge-gateway': r(
    'issue 17',
    'A how-to for driving zodexd from a container, for Docker Desktop and for Linux Docker Engine (host networking, or a bind on the bridge gateway with a token), each tested by the suite.',
    'zodexd bound on the Docker bridge gateway with a token: a container on the default bridge reaching host.docker.internal (host-gateway) gets 401 without the token and passes exec and instructions requirements with it',
    ['container'],
  ),
  'container.allow-host': r(
    '003',
    'A container usually dials the host by name, not by loopback — host.docker.internal on Docker Desktop — so the rule above would reject it. --allow-host widens the accepted Host headers',
    'from a container, host.docker.internal is refused with the 403 naming --allow-host, and admitted with it',
    ['container'],
  ),
  'container.url-only': r(
    '003',
    'Over HTTP the agent needs nothing but the URL: no zordon binary and no alpha socket inside the sandbox.',
    'the client image holds no zodexd, yet the whole suite passes from it',
    ['container'],
  ),
  'compose.demo': r(
    'issue 6',
    'a docker-compose.yml … with a zodexd sandbox service and an agent service (a containerized scripted client that lists tools, runs a command, applies a patch, prints a transcript and exits 0)',
    "the compose demo comes up, its agent's transcript reports every step, and it comes down",
    ['container'],
  ),
  'sandbox.isolated': r('002', 'Sprite: Commands run inside the remote Sprite.', 'commands and patches act inside the sandbox container, not on the host', [
    'sandbox',
  ]),
  'sandbox.token': r(
    'issue 5',
    'Non-loopback bind: allowed, logs a warning, imposes no Host rule, and requires a token',
    'the sandbox answers 401 without its token and 200 with it',
    ['sandbox'],
  ),
  'image.pod': r(
    'issue 24',
    'The image fit for a pod: runs as a non-root user by default, works with a read-only root filesystem when the state dir, spill dir and workspace are volumes … tested with testcontainers the way a pod would run it (non-root, read-only root, volumes, health via the ops port).',
    "zodex:local as a pod runs it (its own user 10001, read-only root, no capabilities, no-new-privileges, /tmp a tmpfs, /workspace and /var/lib/zodex volumes, the token a mounted file) becomes ready and healthy through the ops port (/readyz and the image's HEALTHCHECK); commands run as 10001, cannot write the root or read a root-only service-account token, write the workspace; spill files land on the volume",
    ['container'],
  ),
  'image.sigterm-grace': r(
    'issue 24',
    'handles SIGTERM within `terminationGracePeriodSeconds`',
    'docker stop (SIGTERM, 15 s grace) with a call in flight: /readyz turns 503, the call finishes with its output, the container exits 0 well within the grace period',
    ['container'],
  ),
  'swarm.stack': r(
    'issue 24',
    'A Swarm stack under `deploy/swarm/` … (DNS round-robin endpoints, health check on the ops port, a Docker secret for the token, `stop_grace_period` above `--drain-ms`), tested in CI on a single-node swarm that the test run creates and leaves: deploy, a client container on the overlay runs a command and polls it by handle, `docker service scale … =0` finishes a call in flight and refuses new ones.',
    'on a swarm the test makes: the stack deploys and turns healthy (read-only root, user 10001); a client on the overlay runs a command and polls it by handle; scaled to 0 with a call in flight, a new request gets 503 with Retry-After 5, the call finishes, the task exits 0; the swarm, stack, volumes and client are gone after',
    ['container'],
  ),

  // --- OAuth 2.1 with the operator's approval, --public-url, --listen unix: (issue 16)
  'oauth.discovery': r(
    'issue 16',
    'RFC 9728 protected-resource metadata, `WWW-Authenticate: Bearer resource_metadata=…` (with `scope` where useful) on 401 … RFC 8414 metadata, authorization code with PKCE S256 only, `iss` in the response (RFC 9207), client ID metadata documents, and dynamic client registration (RFC 7591)',
    'with --oauth, a tokenless /mcp request gets 401 with resource_metadata and scope; both well-known resource paths name <base>/mcp and the issuer; the server metadata offers code + S256 only, iss, metadata documents and registration',
    ['http', 'flags', 'local'],
  ),
  'oauth.static-token-only': r(
    'issue 16',
    'The static bearer token keeps working; a server configured with it alone publishes no OAuth discovery',
    'with the static token alone the well-known paths are 404 and the 401 names no metadata; with --oauth the static token still opens /mcp',
    ['http', 'flags', 'local'],
  ),
  'oauth.full-flow': r(
    'issue 16',
    "An OAuth client no one here wrote goes from zodex's 401 to a working tool call through discovery, registration, approval and token exchange, over TCP",
    "the SDK's OAuth client goes from 401 through discovery, registration, approval with the printed pairing code in Chromium, and token exchange, to an exec_command call",
    ['browser'],
  ),
  'oauth.full-flow-modern': r(
    'issue 16',
    "Builds on: the protocol issue (auth must hold in both eras). … An OAuth client no one here wrote goes from zodex's 401 to a working tool call through discovery, registration, approval and token exchange",
    "a 2026-07-28 request's 401 starts the SDK's OAuth provider (discovery from resource_metadata, registration, PKCE), the operator approves in Chromium with the printed pairing code, and a 2026-07-28 client (no initialize, no session) carries the token to an exec_command call",
    ['browser'],
  ),
  'oauth.full-flow-unix': r(
    'issue 16',
    '… and over the Unix socket, with the approval done by hand in a browser',
    'the same flow through a relay (a stand-in for a tunnel client) to zodexd on --listen unix:',
    ['browser'],
  ),
  'oauth.wrong-redirect': r(
    'issue 16',
    'negative tests for a wrong redirect URI',
    'an unregistered redirect_uri gets an error page (400), no redirect and no pairing code',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.pkce-mismatch': r(
    'issue 16',
    'a PKCE mismatch',
    'a wrong code_verifier gets invalid_grant and no token; a missing or plain challenge is refused back to the client',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.code-replay': r(
    'issue 16',
    'a replayed code',
    'a code exchanged twice gets invalid_grant the second time, and the grant it made is revoked (its access token gets 401)',
    ['http', 'flags', 'local'],
  ),
  'oauth.token-expired': r(
    'issue 16',
    'an expired or revoked token',
    'an access token past --oauth-token-ttl-ms gets 401 invalid_token; its refresh token gets a working one',
    ['http', 'flags', 'local'],
  ),
  'oauth.token-revoked': r(
    'issue 16',
    'an expired or revoked token … `zodex oauth clients|revoke`',
    'zodex oauth clients lists the grant; after zodex oauth revoke its access and refresh tokens are refused at once',
    ['http', 'flags', 'local'],
  ),
  'oauth.other-resource': r(
    'issue 16',
    'tokens bound to this resource (RFC 8707 audience), rejected when … meant for another resource',
    'a token issued by one zodexd (same state dir) is refused by another on another port, and a resource naming another server is refused at authorization',
    ['http', 'flags', 'local'],
  ),
  'oauth.never-approved': r(
    'issue 16',
    'a client that was never approved',
    'a registered client without approval gets no token: an invented code is invalid_grant, a wrong pairing code is refused (5 tries, then access_denied), a denial returns access_denied with iss',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.approval-csrf': r(
    'issue 16',
    'CSRF on the approval page',
    "a decision without the page's CSRF header, with a foreign Origin, or not JSON is refused and issues no code",
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.approval-csrf-browser': r(
    'issue 16',
    "the authorization page (served by zodexd, no CDN, the Liveboard's CSP and CSRF rules)",
    'the approval page loads nothing from elsewhere under the nonce CSP, and a page of another origin cannot approve a request',
    ['browser'],
  ),
  'oauth.refresh-rotation': r(
    'issue 16',
    'Short-lived access tokens, rotating refresh tokens, both stored only as hashes in the state store',
    'a refresh gives a new pair; the old refresh token presented again at once is refused and the grant kept (a parallel refresh), presented after the 10 s grace it revokes the grant; the database holds no token, code or pairing code in clear',
    ['http', 'flags', 'local'],
  ),
  'oauth.iss': r('issue 16', '`iss` in the response (RFC 9207)', 'success and error redirects carry iss equal to the metadata issuer, and state', [
    'http',
    'flags',
    'local',
    'era-neutral',
  ]),
  'oauth.client-metadata-document': r(
    'issue 16',
    'client ID metadata documents',
    'a client whose client_id is the URL of its metadata document (loopback http, for testing) is shown by its name, held to its redirect_uris, and refused when the document names another client_id',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.pair-cli': r(
    'issue 16',
    'a one-time pairing code that zodexd prints on its stderr (or that `zodex oauth pair` prints)',
    'a code from zodex oauth pair approves one request, and only once',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.public-url': r(
    'issue 16',
    '`--public-url https://…` sets the resource and issuer URLs; the Host rule admits the public host',
    'with --public-url the metadata names the public URL, its Host is admitted, and tokens are bound to it',
    ['http', 'flags', 'local'],
  ),
  'oauth.unix-socket': r(
    'issue 16',
    '`--listen unix:/path`: HTTP over a Unix socket (0600 in a 0700 folder) … the Host/Origin rules apply as on loopback',
    'the socket is 0600 in a folder made 0700; a folder others can write is refused; a stale socket is replaced, a live one refused; a foreign Host or Origin gets 403; the socket is removed at exit',
    ['http', 'flags', 'local'],
  ),
  'oauth.unix-socket-exit-own': r(
    'issue 22',
    "A server's exit removes whatever socket is at its path … the socket removed at exit only if it is still ours (dev and inode recorded at bind)",
    "with --listen unix:P, when P was replaced by a newer server's live socket, the older server's exit leaves it and the newer one still answers; a server still removes its own socket at exit",
    ['http', 'flags', 'local'],
  ),
  'oauth.session-bound': r(
    'issue 16',
    'tokens bound to this resource … rejected when expired, revoked, or meant for another resource',
    "2025-11-25: an MCP session opened with one grant's token answers 404 to another grant's token and to the static token; both eras: a session_handle started under one grant is UNKNOWN_SESSION to another grant and to the static token, and keeps serving its own",
    ['http', 'flags', 'local'],
  ),
  'oauth.liveboard-grants': r(
    'issue 16',
    'the Liveboard list and revoke grants',
    'the Liveboard lists the approved grant and revokes it, after which its token is refused',
    ['browser'],
  ),
  'oauth.client-text-escaped': r(
    'issue 22',
    "Client-supplied text reaches the operator's terminal raw, unauthenticated. … one escaping function for every client-supplied value on every log line (and control characters refused in redirect URIs at registration)",
    "registration refuses a redirect URI with characters RFC 3986 does not allow (an OSC 52 write and a forged line) and a client_name with control characters, a metadata document's too; a client stored before the rule is named on stderr quoted with every control character escaped",
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.audience-not-host': r(
    'issue 22',
    "A token is accepted by every zodexd that shares the state dir, given the issuer's Host header. … the token audience is the server's own identity (its bound listener or a per-server id stored with the grant), never a request header",
    "a second zodexd on the same state dir refuses the first one's access token (401 invalid_token) and refresh token (invalid_grant) even when the request names the first one's Host; the first still takes both",
    ['http', 'flags', 'local'],
  ),
  'oauth.revoke-kills': r(
    'issue 22',
    "Revoking a grant leaves its commands running … revocation ends the grant's sessions and kills the commands they own",
    "after zodex oauth revoke, the grant's running command and the one whose call is still waiting are killed within seconds, its 2025 session is closed and its waiting call ends, in both eras",
    ['http', 'flags', 'local'],
  ),
  'oauth.metadata-document-bounded': r(
    'issue 22',
    'Client ID metadata documents are read whole before the 64 KiB check … metadata documents streamed and cut at 64 KiB (Content-Length honoured up front), their client rows saved only when admitted',
    "a 128 MiB document is refused, declared (Content-Length) or chunked, and zodexd hangs up after reading no more than its socket buffers; a document's client is stored only when the operator approves it",
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.flood-admits-newcomers': r(
    'issue 22',
    'Floods lock out real clients … pending requests and registrations bounded per client and per source without refusing newcomers (evict the oldest never-approved), no side effect on `HEAD`',
    'a HEAD of an authorization URL prints no pairing code; after 60 pending requests and 1,000 registrations from other sources, a new client registers, is shown the page and is approved with its code; registrations stay at most 1,000',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.decision-atomic': r(
    'issue 22',
    'The five-wrong-codes limit does not cover decisions already in flight … the decision re-checks and consumes the request atomically after the body',
    'of six decisions in flight on one request, five wrong codes refuse it and the sixth, with the right code, gets 404 and no code; two approvals in flight with the right code give one code and one grant',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.redirect-exact': r(
    'issue 22',
    'Loopback `redirect_uri` matching ignores fragment and userinfo … exact redirect matching but the loopback port',
    'for a registered http://127.0.0.1:9/cb, a fragment, userinfo, another case, dot segment, percent-encoding or trailing slash gets the error page and no pairing code; another port is accepted',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.repeated-parameters': r(
    'issue 22',
    'Repeated parameters are served, first value wins, at `/oauth/authorize` and `/oauth/token` (RFC 6749 §3.1, §4.1.2.1, §5.2: `invalid_request`)',
    'a repeated client_id or redirect_uri gets the error page; any other repeated authorization parameter goes back as invalid_request with no pairing code; a repeated token parameter is invalid_request and spends nothing',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.code-intercepted': r(
    'issue 22',
    'Also decide, and document: an intercepted code presented with a wrong verifier or client_id is marked used, so the legitimate exchange then fails (check client and PKCE before consuming, and keep the replay rule)',
    'a code presented with a wrong code_verifier or another client_id is refused and not spent, the legitimate exchange then succeeds, and presenting it again after that revokes the grant',
    ['http', 'flags', 'local', 'era-neutral'],
  ),
  'oauth.refresh-parallel': r(
    'issue 22',
    'Also decide, and document: … parallel refreshes of one token revoke the whole grant (two browser tabs lose it)',
    'two refreshes with one refresh token at once: one gets the new pair, the other invalid_grant naming a parallel refresh, and the grant is kept (its new tokens work)',
    ['http', 'flags', 'local'],
  ),
} as const satisfies Record<string, Requirement>;

export type RequirementId = keyof typeof REQUIREMENTS;

const TAG_OF_NEED: Record<Need, string> = {
  flags: '@flags',
  local: '@local',
  stdio: '@stdio-only',
  http: '@http-only',
  browser: '@browser',
  container: '@container-only',
  sandbox: '@sandbox-only',
  'local-mode': '@local-mode',
  legacy: '@legacy-only',
  modern: '@modern-only',
  'era-neutral': '@era-neutral',
};

// What the table says when a target cannot run a requirement that needs this.
const NEED_REASON: Record<Need, string> = {
  flags: 'starts zodexd with flags of its own: runs against a zodexd the suite starts (npm test in a zodex checkout)',
  local: 'looks at the server process from outside: runs against a zodexd the suite starts (npm test in a zodex checkout)',
  stdio: 'a behaviour of the stdio transport',
  http: 'a behaviour of the HTTP transport',
  browser: 'proved in a browser, by the browser project of a zodex checkout',
  container: 'proved by the container project of a zodex checkout',
  sandbox: 'proved against zodexd in a container, by the sandbox project',
  'local-mode': "a behaviour of zodex's Local mode, which a server the suite did not start need not run",
  legacy: 'the 2025-11-25 wire: the 2026-07-28 client proves its modern.* counterpart',
  modern: 'the 2026-07-28 wire: run with --protocol modern',
  'era-neutral': 'the same engine code in either era: proved once, by the 2025-11-25 projects',
};

export function tagsFor(id: RequirementId): string[] {
  const entry: Requirement = REQUIREMENTS[id];
  return [`@${entry.profile}`, ...(entry.needs ?? []).map((need) => TAG_OF_NEED[need])];
}

// A tag as a pattern for a project's grepInvert: the whole tag, so @local is not @local-mode.
const tagPattern = (tag: string): RegExp => new RegExp(`${tag}(?![\\w-])`);

// What each target cannot run. A project named TARGET-modern runs TARGET with the suite's client
// speaking 2026-07-28 (harness/modern.ts). Remote targets are servers the suite did not start.
const TARGET_EXCLUDED: Record<string, Need[]> = {
  stdio: ['http', 'browser', 'container', 'sandbox'],
  http: ['stdio', 'browser', 'container', 'sandbox'],
  'remote-stdio': ['flags', 'local', 'local-mode', 'http', 'browser', 'container', 'sandbox'],
  'remote-http': ['flags', 'local', 'local-mode', 'stdio', 'browser', 'container', 'sandbox'],
  container: ['flags', 'local', 'local-mode', 'stdio', 'browser', 'sandbox'],
  sandbox: ['flags', 'local', 'local-mode', 'stdio', 'browser', 'container'],
};
// ZODEX_CONFORMANCE_ALL_ERAS=1: the -modern projects also run the era-neutral requirements, so the
// whole table is proved in the 2026-07-28 era too (CI runs them once, in the legacy projects; the
// runner sets it, since against a server it did not start it has one project only).
const ALL_ERAS = process.env.ZODEX_CONFORMANCE_ALL_ERAS === '1';
function excludedNeeds(target: string): Need[] {
  const base = TARGET_EXCLUDED[target.replace(/-modern$/, '')] ?? [];
  if (!target.endsWith('-modern')) return [...base, 'modern'];
  return [...base, 'legacy', ...(ALL_ERAS ? [] : ['era-neutral' as const])];
}

// The profiles this run holds a target to (the runner's --profile), by default all three.
export function selectedProfiles(): Profile[] {
  const chosen = (process.env.ZODEX_CONFORMANCE_PROFILES ?? '').split(',').filter(Boolean);
  const unknown = chosen.filter((name) => !PROFILES.includes(name as Profile));
  if (unknown.length > 0)
    throw new Error(`unknown profile ${JSON.stringify(unknown[0])} in ZODEX_CONFORMANCE_PROFILES: the profiles are ${PROFILES.join(', ')}`);
  return chosen.length > 0 ? (chosen as Profile[]) : [...PROFILES];
}

export const EXCLUDED_TAGS: Record<string, RegExp[]> = Object.fromEntries(
  Object.keys(TARGET_EXCLUDED)
    .flatMap((target) => [target, `${target}-modern`])
    .map((target) => [
      target,
      [
        ...excludedNeeds(target).map((need) => tagPattern(TAG_OF_NEED[need])),
        ...PROFILES.filter((profile) => !selectedProfiles().includes(profile)).map((profile) => tagPattern(`@${profile}`)),
      ],
    ]),
);

// Targets that run only the requirements carrying their tag (the project's grep).
export const ONLY_TAGS: Record<string, RegExp> = { browser: /@browser/ };

// Why `target` does not run requirement `id` in this run, or undefined when it does.
export function notApplicable(id: RequirementId, target: string): string | undefined {
  const entry: Requirement = REQUIREMENTS[id];
  if (!selectedProfiles().includes(entry.profile)) return `profile ${entry.profile} not selected (--profile ${selectedProfiles().join(',')})`;
  if (target === 'browser') return (entry.needs ?? []).includes('browser') ? undefined : 'not a browser requirement: proved by the other projects';
  const need = (entry.needs ?? []).find((candidate) => excludedNeeds(target).includes(candidate));
  return need === undefined ? undefined : NEED_REASON[need];
}

export function appliesTo(id: RequirementId, target: string): boolean {
  return notApplicable(id, target) === undefined;
}
