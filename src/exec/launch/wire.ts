// The wire formats between zodexd and zodex-spawn, zodexd's side, exactly as native/PROTOCOL.md
// writes them down: the end marker on the terminal, the standby's command frame, the zygote's
// request and report lines, the signals, and the confinement entry. Pure: bytes in, values out
// (spec/exec/wire.test.ts pins each against the C side's own bytes). Imports nothing: what the
// confinement holds is declared here (SpawnConfinement) and computed by the bounds.

// Signals zodexd sends zodex-spawn: a kill request (it kills every descendant and reports), and
// the hang-up node-pty sends on close (it kills what is left and exits).
export const KILL_REQUEST = 'SIGUSR2';
export const HANG_UP = 'SIGHUP';

export interface CommandSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

export interface WireStatus {
  exitCode: number; // 128 + signal when the shell died of a signal, as shells report it
  signal: number | undefined;
  // The end marker's facts: socket() calls the sandbox refused (network off), when there were any.
  networkRefused?: number;
}

// "x<code>" or "s<signal>", as zodex-spawn writes it in its end marker and its zygote in an exit
// report, then in the marker any ";name=value" facts (";net=N"); anything else reads as exit
// code 255.
export function parseStatus(text: string): WireStatus {
  const [status = '', ...facts] = text.split(';');
  const value = /^[xs]\d{1,10}$/.test(status) ? Number.parseInt(status.slice(1), 10) : Number.NaN;
  const parsed: WireStatus =
    status.startsWith('s') && Number.isFinite(value)
      ? { exitCode: 128 + value, signal: value }
      : { exitCode: Number.isFinite(value) ? value : 255, signal: undefined };
  for (const fact of facts) {
    const match = /^net=(\d{1,15})$/.exec(fact);
    if (match) parsed.networkRefused = Number(match[1]);
  }
  return parsed;
}

// The environment entry that carries a command's confinement to zodex-spawn (taken out before
// the command starts): entries KEY LEN ':' VALUE one after the other, LEN the value's UTF-8 byte
// count (PROTOCOL.md, "The confinement entry"). No byte of a path can end a field.
export const CONFINE_ENV = 'ZODEX_CONFINE';

// What zodex-spawn applies right before the command's shell starts, in the order of the entry's
// keys; what it holds is the caller's to compute (the bounds: write mode, sandbox, network).
export interface SpawnConfinement {
  governed: boolean; // g: masks, Landlock, no capabilities
  sandbox: string; // s: 'off', 'read-only' or 'workspace-write'
  networkOff: boolean; // n
  pins: readonly string[]; // p: folders bound onto themselves
  masks: readonly string[]; // m: files and folders masked
  maskPrefixes: readonly string[]; // M: DIR/PREFIX, every entry so named masked
  allowedSockets: readonly string[]; // a
  binds: ReadonlyArray<{ source: string; target: string }>; // b, B
  writableRoots: readonly string[]; // w
  keep: readonly string[]; // k: bound back into the command's own runtime folder
  readOnly: readonly string[]; // o
  privateTmp: string | undefined; // t
  visible: readonly string[]; // v: shown read-only inside the private /tmp
  runtimeDir: string | undefined; // r
}

export function encodeConfinement(confinement: SpawnConfinement): string {
  const entries: Array<[string, string]> = [];
  if (confinement.governed) entries.push(['g', '1']);
  if (confinement.sandbox !== 'off') entries.push(['s', confinement.sandbox]);
  if (confinement.networkOff) entries.push(['n', 'off']);
  for (const pin of confinement.pins) entries.push(['p', pin]);
  for (const mask of confinement.masks) entries.push(['m', mask]);
  for (const prefix of confinement.maskPrefixes) entries.push(['M', prefix]);
  for (const socket of confinement.allowedSockets) entries.push(['a', socket]);
  for (const { source, target } of confinement.binds) entries.push(['b', source], ['B', target]);
  for (const root of confinement.writableRoots) entries.push(['w', root]);
  for (const kept of confinement.keep) entries.push(['k', kept]);
  for (const folder of confinement.readOnly) entries.push(['o', folder]);
  if (confinement.privateTmp) entries.push(['t', confinement.privateTmp]);
  for (const shown of confinement.visible) entries.push(['v', shown]);
  if (confinement.runtimeDir) entries.push(['r', confinement.runtimeDir]);
  return entries.map(([key, value]) => `${key}${Buffer.byteLength(value, 'utf8')}:${value}`).join('');
}

// The command frame zodex-spawn reads (decode_spec in native/spawn-io.c): its length, then ARGC
// and ENVC, then cwd, program, args and NAME=value entries, each string behind its byte length;
// all numbers 32-bit little-endian. No byte of a value can end a field or start another. Callers
// refuse NUL inside a value first (ExecEngine.start): execve cannot carry it, the decoder refuses
// the frame.
// A frozen environment (the engine's, one per conversation) is encoded once and its bytes kept.
export function encodeSpec(spec: CommandSpec): Buffer {
  const env = environmentFields(spec.env);
  const strings = [spec.cwd, spec.file, ...spec.args];
  let size = 12 + env.bytes.length;
  for (const text of strings) size += 4 + Buffer.byteLength(text, 'utf8');
  const frame = Buffer.allocUnsafe(size);
  frame.writeUInt32LE(size - 4, 0);
  frame.writeUInt32LE(1 + spec.args.length, 4);
  frame.writeUInt32LE(env.count, 8);
  let at = 12;
  for (const text of strings) at = putField(frame, at, text);
  env.bytes.copy(frame, at);
  return frame;
}

interface EnvironmentFields {
  count: number;
  bytes: Buffer; // the NAME=value fields, each behind its byte length
}

const encodedEnvironments = new WeakMap<object, EnvironmentFields>();

function environmentFields(env: Readonly<Record<string, string>>): EnvironmentFields {
  const kept = encodedEnvironments.get(env);
  if (kept) return kept;
  const entries = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const bytes = Buffer.allocUnsafe(entries.reduce((sum, text) => sum + 4 + Buffer.byteLength(text, 'utf8'), 0));
  let at = 0;
  for (const text of entries) at = putField(bytes, at, text);
  const fields = { count: entries.length, bytes };
  if (Object.isFrozen(env)) encodedEnvironments.set(env, fields);
  return fields;
}

// One field: its UTF-8 byte length, then its bytes; returns where the next one starts.
function putField(frame: Buffer, at: number, text: string): number {
  const length = frame.write(text, at + 4, 'utf8');
  frame.writeUInt32LE(length, at);
  return at + 4 + length;
}

// A standby's hello on the pool's socket: its nonce and a newline.
export function parseHello(text: string): string | undefined {
  const end = text.indexOf('\n');
  return end === -1 ? undefined : text.slice(0, end);
}

// The zygote's request on its stdin: fork a standby for NONCE onto terminal TTY, one line; or,
// with the command, "NONCE TTY run" and the command's frame: fork its reporter straight onto it.
export function zygoteRequest(nonce: string, tty: string, spec?: CommandSpec): Buffer {
  const line = Buffer.from(spec ? `${nonce} ${tty} run\n` : `${nonce} ${tty}\n`, 'utf8');
  return spec ? Buffer.concat([line, encodeSpec(spec)]) : line;
}

// One line of the zygote's stdout (without its newline): a standby started (pid 0: it could not
// be), or one ended with its status. Undefined for anything else.
export type ZygoteReport = { kind: 'started'; nonce: string; pid: number } | { kind: 'ended'; pid: number; status: WireStatus };

export function parseZygoteReport(line: string): ZygoteReport | undefined {
  const [kind, first, second, extra] = line.split(' ');
  if (extra !== undefined || first === undefined || second === undefined || !/^\d+$/.test(kind === 's' ? second : first)) return undefined;
  if (kind === 's') return { kind: 'started', nonce: first, pid: Number(second) };
  if (kind === 'e') return { kind: 'ended', pid: Number(first), status: parseStatus(second) };
  return undefined;
}

const MARKER_PREFIX = '\x1b]6972;';
const BEL = 0x07;

// Splits a zodex-spawn terminal's bytes into the command's output and its end marker,
// "ESC ] 6972 ; NONCE ; STATUS BEL". Bytes that may be the start of the marker are held back
// until the next read decides; after the marker nothing more is output.
export class EndMarkerReader {
  private readonly marker: Buffer;
  private carry: Buffer | undefined;
  private done = false;

  constructor(nonce: string) {
    this.marker = Buffer.from(`${MARKER_PREFIX}${nonce};`, 'latin1');
  }

  // The output in `data` (maybe empty), and the status once the whole marker has arrived.
  push(data: Buffer): { output: Buffer | undefined; status?: WireStatus } {
    if (this.done) return { output: undefined };
    let bytes = data;
    if (this.carry) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = undefined;
    }
    const at = bytes.indexOf(this.marker);
    if (at === -1) {
      const keep = possibleMarkerStart(bytes, this.marker);
      if (keep > 0) this.carry = Buffer.from(bytes.subarray(bytes.length - keep));
      const output = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
      return { output: output.length > 0 ? output : undefined };
    }
    const output = at > 0 ? bytes.subarray(0, at) : undefined;
    const bel = bytes.indexOf(BEL, at + this.marker.length);
    if (bel === -1) {
      this.carry = Buffer.from(bytes.subarray(at)); // the status has not fully arrived yet
      return { output };
    }
    this.done = true;
    return { output, status: parseStatus(bytes.subarray(at + this.marker.length, bel).toString('latin1')) };
  }

  // The terminal closed without a marker: what was held back was output after all.
  end(): Buffer | undefined {
    const rest = this.done ? undefined : this.carry;
    this.carry = undefined;
    this.done = true;
    return rest;
  }
}

// How many trailing bytes of `bytes` could be the beginning of `marker`. Only an ESC can start
// it, so most reads hold back nothing.
function possibleMarkerStart(bytes: Buffer, marker: Buffer): number {
  const from = Math.max(0, bytes.length - marker.length + 1);
  let at = bytes.indexOf(0x1b, from);
  while (at !== -1) {
    const tail = bytes.subarray(at);
    if (marker.subarray(0, tail.length).equals(tail)) return tail.length;
    at = bytes.indexOf(0x1b, at + 1);
  }
  return 0;
}
