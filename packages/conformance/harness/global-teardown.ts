// After the run: removes the scratch folders playwright.config.ts made for it (the servers' state
// dir and spill parent), so that runs leave nothing in the temp folder.

import fs from 'node:fs';
import path from 'node:path';

export default function globalTeardown(): void {
  for (const dir of (process.env.ZODEX_CONFORMANCE_SCRATCH ?? '').split(path.delimiter)) {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
