// @ts-check
// Build step: the Liveboard's browser script files go to dist/ as written (tsc checks them, see
// src/features/liveboard/browser/tsconfig.json, but does not emit them), beside the page.js that reads them.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'dist/features/liveboard/browser');
fs.mkdirSync(target, { recursive: true });
const source = path.join(root, 'src/features/liveboard/browser');
for (const name of fs.readdirSync(source)) if (name.endsWith('.js')) fs.copyFileSync(path.join(source, name), path.join(target, name));
