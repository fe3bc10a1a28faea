// The process's lifetime, kept here alone: which signals stop zodexd, the order of a stop and
// the exit. Order: stop accepting (HTTP: 503 to newcomers) -> let calls in flight finish (up to
// --drain-ms) -> kill commands -> close the conversations -> close the store -> exit 0.

import type { HttpServing } from '../transport/http/serve.js';
import type { Serving } from '../transport/serving.js';
import type { Runtime } from './runtime.js';

// A terminal hangup ends a stdio zodexd like Ctrl-C; an HTTP one is stopped by INT and TERM.
export const STDIO_STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
export const HTTP_STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

// Calls `stop` with the signal's name on each of `signals`; returns what removes the handlers.
export function onStopSignals(signals: readonly NodeJS.Signals[], stop: (signal: string) => void): () => void {
  const handlers = signals.map((signal) => [signal, () => stop(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

// Runs `step` once, whoever asks first (a signal, stdin's end, a broken stdout).
export function once(step: (why: string) => Promise<void>): (why: string) => void {
  let started = false;
  return (why) => {
    if (started) return;
    started = true;
    void step(why);
  };
}

type Exit = (code: number) => void;
const exitProcess: Exit = (code) => process.exit(code);

// stdio: the one conversation ends (its commands are killed), then everything else, then exit 0.
export async function stopStdio(serving: Promise<Serving>, runtime: Pick<Runtime, 'close'>, exit: Exit = exitProcess): Promise<void> {
  await serving.then(
    (served) => served.close('stopping'),
    () => undefined,
  );
  await runtime.close().catch(() => undefined);
  exit(0);
}

// HTTP: newcomers get 503 while calls in flight finish (up to drainMs); then the commands still
// running are killed (their calls answer "killed"), the conversations and the listener close,
// then the store; exit 0.
export async function stopHttp(
  serving: Pick<HttpServing, 'drain' | 'close'>,
  runtime: Pick<Runtime, 'killCommands' | 'close'>,
  signal: string,
  drainMs: number,
  exit: Exit = exitProcess,
): Promise<void> {
  await serving.drain(signal, drainMs);
  await runtime.killCommands().catch(() => undefined);
  await serving.close(signal).catch(() => undefined);
  await runtime.close().catch(() => undefined);
  exit(0);
}
