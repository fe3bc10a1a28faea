// stdin from the first moment of a stdio zodexd, before the SDK, the tools and the runtime have
// loaded: frames each line as the transport would; a well-formed server/discover request is
// answered at once (the AI SDK's client waits 1 s for it), every other frame waits, in order,
// for the transport that takes over (handOff), as do stdin's end and the framer's partial line.

import type { Readable, Writable } from 'node:stream';
import { discoverResponse, noteClient, type DiscoverInfo } from '../../wire/rev2026-07-28/discover.js';
import { readEnvelope } from '../../wire/rev2026-07-28/envelope.js';
import { LineFramer, type Frame } from './framing.js';
import { REQUEST_KEYS } from './jsonrpc.js';

export interface HeldInput {
  framer: LineFramer; // continues the partial line the front had read
  pending: Frame[]; // frames the front did not answer, in arrival order
  ended: boolean; // stdin ended (or closed) before the handoff
  broken: boolean; // stdout failed before the handoff
}

export interface StdioFrontOptions {
  input: Readable;
  output: Writable;
  maxMessageBytes: number;
  discover: DiscoverInfo;
  seenClients: Set<string>; // the 2026-07-28 server goes on with the same set: one log line per client
  log: (line: string) => void;
}

export interface StdioFront {
  // Stops answering, pauses stdin (the transport resumes it) and hands over what was held; once.
  handOff(): HeldInput;
}

export function holdStdio(options: StdioFrontOptions): StdioFront {
  const { input, output } = options;
  const framer = new LineFramer(options.maxMessageBytes);
  const pending: Frame[] = [];
  let ended = false;
  let broken = false;
  const ondata = (chunk: Buffer | string) => {
    for (const frame of framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      const reply = frame.kind === 'line' ? answer(frame.bytes, options) : undefined;
      if (reply === undefined) pending.push(frame);
      else output.write(reply);
    }
  };
  const onend = () => void (ended = true);
  const onerror = () => void (broken = true);
  input.on('data', ondata);
  input.on('end', onend);
  input.on('close', onend);
  output.on('error', onerror);
  return {
    handOff() {
      input.off('data', ondata);
      input.off('end', onend);
      input.off('close', onend);
      output.off('error', onerror);
      input.pause();
      return { framer, pending, ended, broken };
    },
  };
}

// The reply line to a well-formed 2026-07-28 server/discover request; undefined for anything else
// (the transport answers it, errors included, exactly as it would have).
function answer(bytes: Buffer, options: StdioFrontOptions): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  // Only a request the transport would pass as is (the SDK's strict JSON-RPC request shape).
  if (Object.keys(message).some((key) => !REQUEST_KEYS.has(key))) return undefined;
  if (jsonrpc !== '2.0' || method !== 'server/discover' || !(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  const checked = readEnvelope(params);
  if (!checked.ok) return undefined;
  noteClient(options.seenClients, checked.envelope, method, options.log);
  return `${JSON.stringify(discoverResponse(options.discover, id as string | number))}\n`;
}
