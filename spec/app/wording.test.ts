// What zodex shows people and models never names the spec's files ("seed 003", seeds/…,
// DESIGN.md): help texts are checked whole, and every string in src/ outside comments is
// scanned, so a message cannot bring one back.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/app/config/usage.js';
import { code, sourceFiles } from '../source-text.js';
import { COMMANDS, usage } from '../../src/cli/zodex.js';

const SPEC_NAMES = /seed \d{3}|\(seed|seeds\/|\b\d{3}-[a-z0-9-]+\.md\b|DESIGN\.md|ENVIRONMENT\.md|STYLE\.md/i;

describe('no spec file names in user-facing text', () => {
  it('zodexd --help, zodex --help and every subcommand help', async () => {
    expect(USAGE).not.toMatch(SPEC_NAMES);
    expect(usage()).not.toMatch(SPEC_NAMES);
    for (const [name, entry] of Object.entries(COMMANDS)) expect((await entry.load()).usage, name).not.toMatch(SPEC_NAMES);
  });

  it('every string in src/ outside comments', () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    const hits = sourceFiles(src).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ where: `${path.relative(src, file)}:${index + 1}`, text: code(line) }))
        .filter(({ text }) => SPEC_NAMES.test(text))
        .map(({ where, text }) => `${where}: ${text.trim()}`),
    );
    expect(hits).toEqual([]);
  });
});
