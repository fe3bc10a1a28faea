// The docs hold every fact a user acts on, checked against the code: the README stays short;
// every flag of zodexd, zodex and zodex-agent, every environment variable zodexd reads, and every
// conformance requirement a page cites is on a page (README.md or docs/), the table of
// environment variables in docs/transports.md is zodexd --help's, flag for flag, and every file
// of the repository a page names exists (a move cannot leave a page pointing at nothing).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, docPages } from './docs-pages.js';
import { USAGE } from '../../src/app/config/usage.js';
import { COMMANDS, usage } from '../../src/cli/zodex.js';
import { AGENT_USAGE } from '../../src/features/publisher/agent.js';
import { REQUIREMENTS } from '../../packages/conformance/requirements.js';
import { code, sourceFiles } from '../source-text.js';

const pages = docPages();
const docs = pages.map((page) => page.text).join('\n');
const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*(?![a-z0-9-])/g)].map((match) => match[0]));
const documentedFlags = flagsIn(docs);

describe('the docs and the code', () => {
  it('keep the README at most 200 lines', () => {
    const lines = pages
      .find((page) => page.file === 'README.md')!
      .text.trimEnd()
      .split('\n').length;
    expect(lines, 'README.md lines: move detail to a page under docs/ and link it').toBeLessThanOrEqual(200);
  });

  it('document every flag of zodexd --help', () => {
    expect([...flagsIn(USAGE)].filter((flag) => !documentedFlags.has(flag))).toEqual([]);
  });

  it('document every flag of zodex, its subcommands and zodex-agent', async () => {
    const helps = [usage(), AGENT_USAGE, ...(await Promise.all(Object.values(COMMANDS).map(async (entry) => (await entry.load()).usage)))];
    expect(helps.flatMap((help) => [...flagsIn(help)]).filter((flag) => !documentedFlags.has(flag))).toEqual([]);
    for (const name of Object.keys(COMMANDS)) expect(docs, `zodex ${name} is on a page`).toMatch(new RegExp(`zodex ${name}\\b`));
  });

  it('list the environment fallbacks of zodexd --help in docs/transports.md, flag for flag', () => {
    // --help: a flag's line, then "[env NAME…]" on it or on a continuation line below
    const fromHelp: Record<string, string> = {};
    let flag = '';
    for (const line of USAGE.split('\n')) {
      flag = /^\s+(--[a-z][a-z0-9-]*)/.exec(line)?.[1] ?? flag;
      const variable = /\[env ([A-Z_]+)/.exec(line)?.[1];
      if (variable) fromHelp[flag] = variable;
    }
    const page = pages.find((page) => page.file === 'docs/transports.md')!.text;
    const table = Object.fromEntries([...page.matchAll(/^\| `(--[a-z-]+)` \| `([A-Z_]+)`/gm)].map((match) => [match[1], match[2]]));
    expect(Object.keys(fromHelp).length).toBeGreaterThan(10);
    expect(table).toEqual(fromHelp);
  });

  it('document every ZODEX_ variable the code reads (docs/, or native/PROTOCOL.md for the helper protocol)', () => {
    const protocol = fs.readFileSync(path.join(REPO, 'native/PROTOCOL.md'), 'utf8');
    const read = new Set(
      sourceFiles(path.join(REPO, 'src'), /\.(ts|js)$/).flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .map(code)
          .flatMap((line) => line.match(/\bZODEX_[A-Z0-9_]+\b/g) ?? []),
      ),
    );
    expect(read.size).toBeGreaterThan(15);
    expect([...read].filter((name) => !new RegExp(`\\b${name}\\b`).test(docs) && !protocol.includes(name)).sort()).toEqual([]);
  });

  it('cite only requirement ids the conformance manifest has', () => {
    const prefixes = new Set(Object.keys(REQUIREMENTS).map((id) => id.split('.')[0]));
    const cited = pages.flatMap((page) =>
      [...page.text.matchAll(/`([a-z]+(?:-[a-z]+)*)\.([a-z0-9-]+)`/g)]
        .filter((match) => prefixes.has(match[1]!) && !/^(ts|js|mjs|md|json|yml|yaml|toml|sh|c|svg|txt)$/.test(match[2]!))
        .map((match) => `${page.file}: ${match[1]}.${match[2]}`),
    );
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter((entry) => !Object.hasOwn(REQUIREMENTS, entry.split(': ')[1]!))).toEqual([]);
  });

  it('name only files and folders of the repository that exist', () => {
    // A name in backticks that starts at a top folder of the repository (src/exec/engine.ts,
    // spec/features/bounds/) is read from the root; on the architecture page, one that starts at
    // a folder of src/ (exec/launch/wire.ts) is read from src/, as the page says.
    const tops = new Set(
      fs
        .readdirSync(REPO, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules' && entry.name !== 'dist')
        .map((entry) => entry.name),
    );
    const srcFolders = new Set(
      fs
        .readdirSync(path.join(REPO, 'src'), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    );
    // Names with a placeholder (src/features/NAME/) are patterns; the research notes and Rust
    // files (Codex's src/lib.rs) are other repositories' paths.
    const named = pages
      .filter((page) => !page.file.startsWith('docs/research/'))
      .flatMap((page) =>
        [...page.text.matchAll(/`([a-z][\w.-]*(?:\/[\w.-]+)+\/?)`/g)].flatMap((match) => {
          const name = match[1]!;
          const top = name.split('/')[0]!;
          if (/\/[A-Z]+(\/|$)|\*/.test(name)) return [];
          if (tops.has(top) && !name.endsWith('.rs')) return [{ page: page.file, file: name }]; // src/lib.rs: Codex's
          if (page.file === 'docs/architecture.md' && srcFolders.has(top) && /\.\w+$|\/$/.test(name)) return [{ page: page.file, file: `src/${name}` }];
          return [];
        }),
      );
    expect(named.length).toBeGreaterThan(100);
    // What a run writes (packages/conformance/results/, build/) is named before it exists: a
    // name .gitignore covers counts as the output it is, not as a file to find.
    const missing = named.filter(({ file }) => !fs.existsSync(path.join(REPO, file)));
    const ignored = new Set(
      missing.length === 0
        ? []
        : spawnSync('git', ['check-ignore', '--no-index', '--stdin'], {
            cwd: REPO,
            input: missing.map(({ file }) => file).join('\n'),
            encoding: 'utf8',
          }).stdout.split('\n'),
    );
    expect(missing.filter(({ file }) => !ignored.has(file)).map(({ page, file }) => `${page}: ${file}`)).toEqual([]);
  });
});
