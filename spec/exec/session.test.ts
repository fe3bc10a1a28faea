// The session core driven through a fake terminal (no process): yield, poll, exit, kill,
// timeout, answers to typed input, waiting for input, and the accounting of output bytes.
import { describe, expect, it } from 'vitest';
import { ZodexError } from '../../src/errors.js';
import { SecretRegistry } from '../../src/secrets.js';
import { FakeProbe, fakeSession } from './fake-terminal.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(promise: Promise<unknown>): Promise<number> {
  const start = Date.now();
  await promise;
  return Date.now() - start;
}

describe('Session with a fake terminal', () => {
  it('yields at the deadline while running, with the output so far and its handle', async () => {
    const { session, terminal } = fakeSession();
    terminal.print('hello\r\n');
    const waited = await timed(session.wait({ deadline: Date.now() + 60 }));
    expect(waited).toBeGreaterThanOrEqual(50);
    const report = session.report();
    expect(report).toMatchObject({ status: 'running', output: 'hello\n', outputOffset: 6, handle: 'zs_test', cwd: '/fake', exitCode: undefined });
    expect(report.summary).toMatch(/^still running after \d+\.\ds; use session_handle zs_test to poll$/);
    expect(report.waitingForInput).toBeUndefined(); // no probe: cannot be told
    expect(session.isSpent).toBe(false);
    session.kill('killed');
  });

  it('ends a poll once new output has paused (outputSettle), a burst whole, at most maxMs after it began', async () => {
    const poll = { quietMs: 100, maxMs: 1_000 };
    const { session, terminal } = fakeSession();
    setTimeout(() => terminal.print('a\n'), 200);
    setTimeout(() => terminal.print('b\n'), 250);
    setTimeout(() => terminal.print('c\n'), 300);
    const waited = await timed(session.wait({ deadline: Date.now() + 10_000, outputSettle: poll }));
    expect(waited).toBeGreaterThanOrEqual(390); // 100 ms after the burst's last piece
    expect(waited).toBeLessThan(5_000);
    expect(session.report().output).toBe('a\nb\nc\n');
    // output that never pauses: maxMs after it began
    const ticking = setInterval(() => terminal.print('t\n'), 20);
    const busy = await timed(session.wait({ deadline: Date.now() + 10_000, outputSettle: poll }));
    clearInterval(ticking);
    expect(busy).toBeGreaterThanOrEqual(990);
    expect(busy).toBeLessThan(5_000);
    // output waiting since before the poll, quiet since: at once
    session.report();
    terminal.print('waiting\n');
    await sleep(150);
    expect(await timed(session.wait({ deadline: Date.now() + 10_000, outputSettle: poll }))).toBeLessThan(2_000);
    expect(session.report().output).toBe('waiting\n');
    // nothing new: the deadline
    expect(await timed(session.wait({ deadline: Date.now() + 300, outputSettle: poll }))).toBeGreaterThanOrEqual(290);
    session.kill('killed');
  });

  it('ends the wait at the exit, reports it once and then the handle is spent', async () => {
    const { session, terminal } = fakeSession();
    setTimeout(() => {
      terminal.print('done\n');
      terminal.exit({ exitCode: 3 });
    }, 20);
    expect(await timed(session.wait({ deadline: Date.now() + 10_000 }))).toBeLessThan(5_000);
    const report = session.report();
    expect(report).toMatchObject({ status: 'exited', output: 'done\n', exitCode: 3, terminationReason: 'exit', handle: undefined, signal: undefined });
    expect(report.summary).toMatch(/^exited 3 after \d+\.\ds$/);
    expect(session.isSpent).toBe(true);
    session.write('ignored');
    expect(terminal.typed).toEqual([]);
    await sleep(30);
    expect(terminal.disposed).toBe(true); // the terminal is closed once the command ended
  });

  it('delivers only what is new at each poll, and counts every byte of the stream', async () => {
    const { session, terminal } = fakeSession();
    terminal.print('\x1b[31mred\x1b[0m\n');
    expect(session.report()).toMatchObject({ output: 'red\n', outputOffset: 4 });
    expect(session.report()).toMatchObject({ output: '', outputOffset: 4 });
    // a multi-byte character split across two chunks arrives whole
    const euro = Buffer.from('€\n', 'utf8');
    terminal.print(euro.subarray(0, 1));
    terminal.print(euro.subarray(1));
    expect(session.report()).toMatchObject({ output: '€\n', outputOffset: 8 });
    session.kill('killed');
  });

  it('rewinds to a stream offset, and refuses one past the end without changing anything', async () => {
    const { session, terminal } = fakeSession();
    terminal.print('one\ntwo\n');
    session.report();
    session.rewind(4);
    expect(session.report()).toMatchObject({ output: 'two\n', outputOffset: 8 });
    let error: unknown;
    try {
      session.rewind(9);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ZodexError);
    expect((error as ZodexError).code).toBe('SINCE_OFFSET_AHEAD');
    terminal.print('three\n');
    expect(session.report()).toMatchObject({ output: 'three\n', outputOffset: 14 });
    session.kill('killed');
  });

  it('kills through the terminal: the reason is set once, by whoever ends it first', async () => {
    const { session, terminal } = fakeSession();
    terminal.onKill = undefined; // the reporter has not answered yet
    session.kill('killed');
    session.kill('timeout'); // asked again, but the first reason stands
    expect(terminal.killRequests).toBe(2);
    terminal.exit({ exitCode: 137, signal: 9 });
    const report = session.report();
    expect(report).toMatchObject({ status: 'exited', terminationReason: 'killed', exitCode: 137, signal: 9 });
    expect(report.summary).toMatch(/^killed after /);
    session.kill('killed'); // after the end: nothing more is asked
    expect(terminal.killRequests).toBe(2);
  });

  it('times out: the terminal is asked to kill and the result says timeout', async () => {
    const { session, terminal } = fakeSession({ timeoutMs: 20 });
    await session.waitForEnd(Date.now() + 5_000);
    expect(terminal.killRequests).toBe(1);
    expect(session.report()).toMatchObject({ status: 'exited', terminationReason: 'timeout', exitCode: 137 });
  });

  it('after typed input, returns once the program answered beyond the echo, not at the yield', async () => {
    const { session, terminal } = fakeSession();
    session.write('y\r');
    expect(terminal.typed).toEqual(['y\r']);
    const wait = session.wait({ deadline: Date.now() + 10_000, answerSettleMs: 10 });
    terminal.print('y\n'); // the echo (CR as LF) is no answer
    await sleep(40);
    terminal.print('ok\n');
    expect(await timed(wait)).toBeLessThan(5_000);
    expect(session.report().output).toBe('y\nok\n');
    session.kill('killed');
  });

  it('ends a wait early when the command waits for input, and says so', async () => {
    const probe = new FakeProbe();
    const { session, terminal } = fakeSession({ inputProbe: probe });
    terminal.print('Continue? [y/N] ');
    probe.waiting = true;
    expect(await timed(session.wait({ deadline: Date.now() + 10_000, untilInput: true }))).toBeLessThan(5_000);
    expect(probe.looks).toBeGreaterThanOrEqual(2); // a yes is taken only when a second look agrees
    expect(session.report()).toMatchObject({ status: 'running', waitingForInput: true, output: 'Continue? [y/N] ' });
    probe.waiting = false;
    expect(session.report().waitingForInput).toBe(false);
    session.kill('killed');
  });

  it('a prompt still on its way to the reader when the wait for input is confirmed is in the result', async () => {
    const probe = new FakeProbe();
    const { session, terminal } = fakeSession({ inputProbe: probe });
    terminal.printInFlight('name? ');
    probe.waiting = true;
    await session.wait({ deadline: Date.now() + 10_000, untilInput: true });
    expect(session.report()).toMatchObject({ status: 'running', waitingForInput: true, output: 'name? ' });
    session.kill('killed');
  });

  it('ends a wait when the call is aborted', async () => {
    const { session } = fakeSession();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await timed(session.wait({ deadline: Date.now() + 10_000, signal: controller.signal }))).toBeLessThan(5_000);
    expect(session.hasEnded).toBe(false);
    session.kill('killed');
  });

  it('moves a stream past the inline limit to the spill sink and reports its counts', async () => {
    const { session, terminal, sink } = fakeSession({ inlineBytes: 64 });
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join('');
    terminal.print(lines);
    terminal.exit();
    const report = session.report();
    expect(report.spill).toMatchObject({ file: '/memory/spill.txt', lines: 20, chars: lines.length, truncated: false });
    expect(sink.file.toString('utf8')).toBe(lines);
    expect(report.outputOffset).toBe(Buffer.byteLength(lines));
    session.close();
  });
});

describe('Session with secrets to redact', () => {
  const TOKEN = 'zodex-token-0123456789abcdef';
  const secrets = () => {
    const registry = new SecretRegistry();
    registry.add('ZODEX_AUTH_TOKEN', TOKEN);
    return registry;
  };

  it('shows a value split across reads, coloured inside, as [REDACTED:NAME] in the output, the spill file and to live observers; counts and offsets are of that stream', async () => {
    const { session, terminal, sink } = fakeSession({ secrets: secrets(), inlineBytes: 256 });
    const seen: Buffer[] = [];
    session.onOutput((bytes) => seen.push(Buffer.from(bytes)));
    terminal.print('token: zodex-tok');
    expect(session.report().output).toBe('token: '); // the start of the value is held back
    terminal.print('en-\x1b[31m0123456789\x1b[0mabcdef\r\n');
    const shown = 'token: [REDACTED:ZODEX_AUTH_TOKEN]\n';
    expect(session.report()).toMatchObject({ output: '[REDACTED:ZODEX_AUTH_TOKEN]\n', outputOffset: Buffer.byteLength(shown) });
    const filler = `${'x'.repeat(300)}\n`;
    terminal.print(`${filler}${TOKEN.slice(0, 5)}`);
    terminal.print(`${TOKEN.slice(5)} end\n`);
    terminal.exit();
    const report = session.report();
    const stream = `${shown}${filler}[REDACTED:ZODEX_AUTH_TOKEN] end\n`;
    expect(sink.file.toString('utf8')).toBe(stream);
    expect(Buffer.concat(seen).toString('utf8')).toBe(stream);
    expect(report.spill).toMatchObject({ chars: stream.length, lines: 3 });
    expect(report.outputOffset).toBe(Buffer.byteLength(stream));
    session.close();
  });

  it('shows a held-back start of a value that never completed once the command ends', async () => {
    const { session, terminal } = fakeSession({ secrets: secrets() });
    terminal.print('prefix zodex-tok');
    terminal.exit();
    expect(session.report().output).toBe('prefix zodex-tok');
  });

  it('still tells the echo of typed input from an answer when the answer is held back', async () => {
    const { session, terminal } = fakeSession({ secrets: secrets() });
    session.write('y\r');
    const wait = session.wait({ deadline: Date.now() + 10_000, answerSettleMs: 10 });
    terminal.print('y\n');
    await sleep(40);
    terminal.print('zodex-'); // an answer, though nothing of it can be shown yet
    expect(await timed(wait)).toBeLessThan(5_000);
    expect(session.report().output).toBe('y\n');
    session.kill('killed');
  });
});
