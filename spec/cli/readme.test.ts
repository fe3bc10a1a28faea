// The shell blocks of the README and of every docs/ page, line by line, as a newcomer runs them on
// a fresh clone after `npm ci`: every program is one that exists there (npm scripts, the
// package's bins through npx), zodexd's flags parse, zodex's subcommands exist, and no client
// config uses `npm start`.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO as repo, docPages } from './docs-pages.js';
import { parseCli, splitWords } from './readme-words.js';
import { COMMANDS } from '../../src/cli/zodex.js';

const pages = docPages();
const readme = pages.find((page) => page.file === 'README.md')!.text;
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
// The conformance suite is a workspace package: npm ci links its bin beside the server's.
const suitePkg = JSON.parse(fs.readFileSync(path.join(repo, 'packages/conformance/package.json'), 'utf8')) as { bin: Record<string, string> };
const bins = [...Object.keys(pkg.bin), ...Object.keys(suitePkg.bin)];
const interopPkg = JSON.parse(fs.readFileSync(path.join(repo, 'interop/package.json'), 'utf8')) as { devDependencies: Record<string, string> };
// Clients the README configures with their own CLI: not on this machine after npm ci, but installed
// (pinned) by `npm run test:interop`, whose tests run these configurations with the real client.
const CLIENT_PROGRAMS: Record<string, string> = { claude: '@anthropic-ai/claude-code', codex: '@openai/codex' };

function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  let inside = false;
  let pending = '';
  for (const line of markdown.split('\n')) {
    if (/^```sh\s*$/.test(line)) inside = true;
    else if (/^```/.test(line)) inside = false;
    else if (inside && /\\$/.test(line))
      pending += `${line.slice(0, -1)} `; // a continued line
    else if (inside) {
      lines.push(pending + line);
      pending = '';
    }
  }
  return lines;
}

// One command line without its comment, split at && into commands, each without leading VAR=value
// (a line of assignments alone runs no program).
function commands(line: string): string[][] {
  const code = line.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
  return code
    .split('&&')
    .map((part) => splitWords(part.trim().replace(/^(?:[A-Z_]+=(?:\$\([^)]*\)|\S+)(?:\s+|$))+/, ''))) // a bare assignment: no command
    .filter((words) => words.length > 0);
}

describe('README commands', () => {
  const all = pages.flatMap((page) =>
    shellLines(page.text)
      .flatMap(commands)
      .map((words) => ({ page, words })),
  );
  it('has commands to check', () => expect(all.length).toBeGreaterThan(10));

  for (const { page, words } of all) {
    const line = words.join(' ');
    it(`${page.file}: ${line}`, () => {
      const [program, ...args] = words;
      if (program === 'npm') {
        const [verb, script] = args;
        if (verb === 'run') expect(Object.keys(pkg.scripts)).toContain(script);
        // npm install only of a tarball `npm pack` made (the conformance suite, installed alone)
        else if (verb === 'install')
          expect(
            args.slice(1).every((arg) => arg.endsWith('.tgz')),
            'npm install of a packed .tgz only',
          ).toBe(true);
        else expect(['ci', 'start', 'test', 'link', 'pack']).toContain(verb);
      } else if (program === 'npx') {
        const [bin, ...rest] = args;
        expect(bins, 'npx runs one of the bins of the package or its workspace').toContain(bin);
        if (bin === 'zodexd') {
          // the placeholders the README marks: a token for a non-loopback bind, a token file
          const request = parseCli(rest, { ZODEX_AUTH_TOKEN: '0123456789abcdef0123456789abcdef' });
          expect(request.kind).toBe('run');
        }
        if (bin === 'zodex') expect(Object.keys(COMMANDS)).toContain(rest[0]);
      } else if (program === 'zodex-agent') {
        // only inside a session, where the page says how it gets on PATH
        expect(page.text).toMatch(/`zodex-agent` runs inside a session, where\s+it must be on PATH/);
      } else if (program! in CLIENT_PROGRAMS) {
        expect(Object.keys(interopPkg.devDependencies), `${program} is installed by the interop suite`).toContain(CLIENT_PROGRAMS[program!]);
      } else {
        // the package's bins are not on PATH after npm ci; anything else is the system's
        expect(bins, `${program} is not on PATH after npm ci: write npx ${program}`).not.toContain(program);
        expect(spawnSync('sh', ['-c', 'command -v "$0"', program!]).status, `${program} is not a program on this machine`).toBe(0);
      }
    });
  }

  it('marks its placeholder addresses and paths as placeholders', () => {
    expect(readme).toMatch(/`10\.0\.0\.5` is a placeholder/);
    expect(readme).toMatch(/`\/path\/to\/zodex` is a placeholder/);
  });

  it('has no client configuration that starts zodexd with npm start', () => {
    const configs = [
      ...pages.map((page) => page.text),
      ...fs
        .readdirSync(path.join(repo, 'examples/mcp_http/sandbox'))
        .map((file) => fs.readFileSync(path.join(repo, 'examples/mcp_http/sandbox', file), 'utf8')),
    ];
    for (const text of configs) expect(text).not.toMatch(/"command":\s*"npm"|command\s*=\s*"npm"/);
  });
});
