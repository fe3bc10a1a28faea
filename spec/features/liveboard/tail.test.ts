// Tails: bounded recent output that never splits a character, decoded per reader from where it
// joined, and the pending buffer of a slow reader.

import { describe, expect, it } from 'vitest';
import { keepTail, PendingTail, TAIL_MAX_BYTES, TAIL_MAX_CHARS, TailRings, type TailEvent, type TailSource } from '../../../src/features/liveboard/tail.js';

class FakeSession implements TailSource {
  end: { exitCode: number; reason: string } | undefined;
  private listener: ((bytes: Uint8Array) => void) | undefined;
  private finished: () => void = () => {};
  private readonly ended = new Promise<void>((resolve) => (this.finished = resolve));
  constructor(readonly id: string) {}
  onOutput(listener: (bytes: Uint8Array) => void) {
    this.listener = listener;
    return () => (this.listener = undefined);
  }
  waitForEnd() {
    return this.ended;
  }
  emit(bytes: Uint8Array) {
    this.listener?.(bytes);
  }
  exit(exitCode: number, reason: string) {
    this.end = { exitCode, reason };
    this.finished();
  }
}

describe('keepTail', () => {
  it('keeps the last characters and never starts inside a surrogate pair', () => {
    expect(keepTail('abc', 5)).toBe('abc');
    expect(keepTail('abcdef', 3)).toBe('def');
    expect(keepTail('a😀b', 2)).toBe('b'); // the cut would fall between the halves of 😀
    expect(keepTail('a😀b', 3)).toBe('😀b');
  });
});

describe('TailRings', () => {
  it('decodes a UTF-8 character split across reads whole, and streams pieces then the end', async () => {
    const rings = new TailRings(10);
    const session = new FakeSession('s1');
    rings.track(session);
    const euro = Buffer.from('€'); // 3 bytes
    session.emit(Buffer.concat([Buffer.from('price: '), euro.subarray(0, 1)]));
    const events: TailEvent[] = [];
    const subscription = rings.get('s1')!.subscribe((event) => events.push(event));
    expect(subscription.recent).toBe('price: ');
    session.emit(euro.subarray(1));
    session.emit(Buffer.from('5\n'));
    session.exit(0, 'exit');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toEqual([{ text: '€' }, { text: '5\n' }, { end: { exitCode: 0, reason: 'exit' } }]);
    const late = rings.get('s1')!.subscribe(() => {});
    expect(late).toMatchObject({ recent: 'price: €5\n', ended: { exitCode: 0, reason: 'exit' } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(rings.get('s1')).toBeUndefined(); // forgotten after the retention
  });

  it('keeps only the last TAIL_MAX_BYTES of output', () => {
    const rings = new TailRings();
    const session = new FakeSession('s2');
    rings.track(session);
    for (let i = 0; i < 100; i++) session.emit(Buffer.from(`${String(i).padStart(5, '0')}${'x'.repeat(995)}\n`));
    const { recent } = rings.get('s2')!.subscribe(() => {});
    expect(recent.length).toBe(TAIL_MAX_BYTES);
    expect(recent.endsWith(`${'x'.repeat(995)}\n`)).toBe(true);
    expect(recent).toContain('00099');
    expect(recent).not.toContain('00050');
  });
});

describe('TailRing', () => {
  it('starts the recent output on a character boundary after dropping older bytes', () => {
    const rings = new TailRings();
    const session = new FakeSession('s3');
    rings.track(session);
    session.emit(Buffer.from('€'.repeat(10_000))); // 30,000 bytes in one piece: the cut falls inside a character
    session.emit(Buffer.from('end'));
    const { recent } = rings.get('s3')!.subscribe(() => {});
    expect(recent).not.toContain('\uFFFD');
    expect(recent.endsWith('€end')).toBe(true);
    expect(Buffer.byteLength(recent)).toBeLessThanOrEqual(TAIL_MAX_BYTES);
    expect(Buffer.byteLength(recent)).toBeGreaterThan(TAIL_MAX_BYTES - 4);
  });

  it('decodes for each reader from where it joined, even inside a character', () => {
    const rings = new TailRings();
    const session = new FakeSession('s4');
    rings.track(session);
    const snow = Buffer.from('☃'); // 3 bytes
    session.emit(Buffer.concat([Buffer.from('a'), snow.subarray(0, 2)]));
    const seen: TailEvent[] = [];
    const { recent } = rings.get('s4')!.subscribe((event) => seen.push(event));
    expect(recent).toBe('a');
    session.emit(snow.subarray(2));
    expect(seen).toEqual([{ text: '☃' }]);
  });

  it('keeps its own copy of the output: sessions pass views of a read buffer that the next read reuses', () => {
    const rings = new TailRings();
    const session = new FakeSession('s5');
    rings.track(session);
    const readBuffer = Buffer.alloc(64);
    readBuffer.write('first read\n');
    session.emit(readBuffer.subarray(0, 11));
    readBuffer.write('second one\n'); // the next read lands in the same memory
    session.emit(readBuffer.subarray(0, 11));
    readBuffer.fill('#');
    expect(rings.get('s5')!.subscribe(() => {}).recent).toBe('first read\nsecond one\n');
  });
});

describe('PendingTail', () => {
  it('joins pieces, and past twice the tail size keeps the latest and marks the gap', () => {
    const pending = new PendingTail();
    expect(pending.isEmpty).toBe(true);
    pending.add('a');
    pending.add('b');
    expect(pending.take()).toEqual({ text: 'ab', gap: false });
    expect(pending.isEmpty).toBe(true);
    pending.add('y'.repeat(2 * TAIL_MAX_CHARS));
    pending.add('z');
    const taken = pending.take();
    expect(taken.gap).toBe(true);
    expect(taken.text.length).toBe(TAIL_MAX_CHARS);
    expect(taken.text.endsWith('yz')).toBe(true);
  });
});
