// Sprite mode runs without loading a feature it does not use (issue 25): the modules of
// src/features/ a stdio zodexd had loaded once it answered initialize, listed by a module
// resolve hook (--import), exactly. What it loads, and why: the bounds (the default write mode,
// publish-pr, confines every command and apply_patch), the history store (every invocation is
// recorded), the control socket with its tails (a Liveboard in another process tails, types into
// and kills this zodexd's commands through it), the publisher's client and paths (the bounds ask
// a running publisher its mode; commands get its socket and their Agent ID), the JSON-lines
// protocol both sockets speak, and the context feature's options (the flags and the config file
// are checked in every mode). Local mode, as the control, also loads zodex_context and set_agent_alias.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ZODEXD = path.resolve(import.meta.dirname, '../../dist/cli/zodexd.js');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-features-lazy-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

fs.writeFileSync(
  path.join(scratch, 'hooks.mjs'),
  "import fs from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  fs.appendFileSync(process.env.ZODEX_LOADED_OUT, result.url + '\\n');\n  return result;\n}\n",
);
fs.writeFileSync(path.join(scratch, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;

// The modules under dist/features/ a stdio zodexd in `mode` had loaded once it answered
// initialize and stdin closed, as paths below dist/, sorted.
function loadedFeatures(mode: 'sprite' | 'local'): Promise<string[]> {
  const out = path.join(scratch, `loaded-${mode}.txt`);
  const env = { ...process.env, ZODEX_LOADED_OUT: out, CODEX_HOME: path.join(scratch, 'codex') };
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', path.join(scratch, 'register.mjs'), ZODEXD, '--mode', mode, '--state-dir', path.join(scratch, `state-${mode}`)],
      { stdio: ['pipe', 'pipe', 'pipe'], env },
    );
    child.on('error', reject);
    child.stdout.on('data', () => child.stdin.end()); // the answer came: everything zodexd loads at start is in
    child.on('exit', () => {
      const urls = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
      const features = urls.map((url) => /\/dist\/(features\/.*)$/.exec(url)?.[1]).filter((file): file is string => file !== undefined);
      resolve([...new Set(features)].sort());
    });
    child.stdin.write(INITIALIZE);
  });
}

describe('the features a zodexd loads', () => {
  it('in Sprite mode over stdio without flags: only those it uses, and the rest in Local mode', async () => {
    const [sprite, local] = await Promise.all([loadedFeatures('sprite'), loadedFeatures('local')]);
    expect(sprite).toEqual([
      'features/bounds/patch.js',
      'features/bounds/prepare.js',
      'features/bounds/probe.js',
      'features/bounds/readcreds.js',
      'features/bounds/startfiles.js',
      'features/bounds/stores.js',
      'features/context/options.js',
      'features/liveboard/control.js',
      'features/liveboard/paths.js',
      'features/liveboard/protocol.js',
      'features/liveboard/tail.js',
      'features/publisher/client.js',
      'features/publisher/errors.js',
      'features/publisher/paths.js',
      'features/publisher/protocol.js',
      'features/shared/jsonlines.js',
      'features/store/database.js',
      'features/store/degrade.js',
      'features/store/errors.js',
      'features/store/identity.js',
      'features/store/index.js',
      'features/store/liveness.js',
      'features/store/mirror.js',
      'features/store/oauth-schema.js', // the schema's migrations create the OAuth tables too
      'features/store/rows.js',
      'features/store/safe.js',
      'features/store/schema.js',
      'features/store/sqlite.js',
      'features/store/writebehind.js',
    ]);
    expect(local.filter((file) => !sprite.includes(file))).toEqual([
      'features/context/files.js',
      'features/context/frontmatter.js',
      'features/context/render.js',
      'features/context/skills.js',
      'features/context/tracker.js',
      'features/liveboard/set_agent_alias.js',
    ]);
  }, 30_000);
});
