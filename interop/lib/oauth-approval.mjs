// @ts-check
// The operator's part of an OAuth approval, as the interop tests play it: wait for what a process
// prints (the authorization URL a client asks a person to open, the pairing code zodexd prints on
// its stderr), open the page in Chromium, type the code, press Approve.

import net from 'node:net';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
export const PAIRING_CODE = /pairing code ([0-9A-Z]{5}-[0-9A-Z]{5})/;

/** Resolves with `find()` once it is defined, re-checked every 100 ms. @template T @param {() => T | undefined} find @param {string} what @returns {Promise<T>} */
export function until(find, what, ms = 30_000) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = find();
      if (found !== undefined) return resolve(found);
      if (Date.now() - started > ms) return reject(new Error(`no ${what} within ${ms} ms`));
      setTimeout(check, 100);
    };
    check();
  });
}

/** Types the pairing code zodexd printed into the open approval page and approves. @param {import('@playwright/test').Page} page @param {() => string} zodexdStderr */
export async function approve(page, zodexdStderr) {
  await page.getByLabel('Pairing code').fill(await until(() => PAIRING_CODE.exec(zodexdStderr())?.[1], 'pairing code on zodexd stderr'));
  await page.getByRole('button', { name: 'Approve' }).click();
}

/** A loopback TCP port free at the moment of asking (for a client's callback server). @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}
