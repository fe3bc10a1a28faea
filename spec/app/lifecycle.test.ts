// The process's lifetime belongs to app/ alone: the stop order of each transport, driven with
// fakes, and a scan of src/ showing that nothing below app/ exits or installs signal handlers.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { once, onStopSignals, stopHttp, stopStdio } from '../../src/app/lifecycle.js';

function recorder() {
  const steps: string[] = [];
  const step = (name: string) => async () => void steps.push(name);
  return { steps, step };
}

describe('the stop order', () => {
  it('HTTP: 503 and drain, then kill commands, then close the conversations, then the store, then exit 0', async () => {
    const { steps, step } = recorder();
    let exitCode: number | undefined;
    const serving = {
      drain: async (reason: string, ms: number) => void steps.push(`drain ${reason} ${ms}`),
      close: step('close conversations and listener'),
    };
    await stopHttp(serving, { killCommands: step('kill commands'), close: step('close store') }, 'SIGTERM', 8000, (code) => {
      steps.push('exit');
      exitCode = code;
    });
    expect(steps).toEqual(['drain SIGTERM 8000', 'kill commands', 'close conversations and listener', 'close store', 'exit']);
    expect(exitCode).toBe(0);
  });

  it('HTTP: a failing step does not keep the process from exiting', async () => {
    const { steps, step } = recorder();
    const failing = async () => Promise.reject(new Error('boom'));
    await stopHttp({ drain: step('drain'), close: failing }, { killCommands: failing, close: step('close store') }, 'SIGINT', 0, () => steps.push('exit'));
    expect(steps).toEqual(['drain', 'close store', 'exit']);
  });

  it('stdio: the conversation closes (its commands die), then the store, then exit 0', async () => {
    const { steps, step } = recorder();
    let exitCode: number | undefined;
    await stopStdio(Promise.resolve({ close: step('close conversation') }), { close: step('close store') }, (code) => {
      steps.push('exit');
      exitCode = code;
    });
    expect(steps).toEqual(['close conversation', 'close store', 'exit']);
    expect(exitCode).toBe(0);
  });

  it('stdio: exits even when the transport never started', async () => {
    const { steps, step } = recorder();
    await stopStdio(Promise.reject(new Error('no stdin')), { close: step('close store') }, () => steps.push('exit'));
    expect(steps).toEqual(['close store', 'exit']);
  });

  it('runs a stop once, whoever asks first', async () => {
    const calls: string[] = [];
    const stop = once(async (why) => void calls.push(why));
    stop('SIGTERM');
    stop('stdin closed');
    stop('SIGINT');
    expect(calls).toEqual(['SIGTERM']);
  });

  it('installs and removes its signal handlers', () => {
    const before = process.listenerCount('SIGHUP');
    const remove = onStopSignals(['SIGHUP'], () => {});
    expect(process.listenerCount('SIGHUP')).toBe(before + 1);
    remove();
    expect(process.listenerCount('SIGHUP')).toBe(before);
  });
});

describe('who owns the process', () => {
  const src = path.resolve(import.meta.dirname, '../../src');
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? files(full) : entry.name.endsWith('.ts') ? [full] : [];
    });

  it('nothing below app/ calls process.exit or installs signal handlers', () => {
    const offenders: string[] = [];
    for (const file of files(src)) {
      const layer = path.relative(src, file).split(path.sep)[0];
      if (layer === 'app' || layer === 'cli') continue;
      const text = fs.readFileSync(file, 'utf8');
      if (/process\.(exit|on|once|addListener)\(\s*['"](SIG[A-Z]+|exit)/.test(text) || /process\.exit\(/.test(text)) offenders.push(path.relative(src, file));
    }
    expect(offenders).toEqual([]);
  });
});
