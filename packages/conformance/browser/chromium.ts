// Which browser the browser project drives: Debian's Chromium (`npx playwright install` cannot
// download here), with the flags a root CI container needs. ZODEX_CHROMIUM names another binary.

import fs from 'node:fs';

export const CHROMIUM = process.env.ZODEX_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

export function chromiumMissing(): string | undefined {
  return fs.existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
}
