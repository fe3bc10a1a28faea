// @ts-check
// Build step: the Liveboard's browser script goes to dist/ as written (tsc checks it, see
// src/liveboard/browser/tsconfig.json, but does not emit it), beside the page.js that reads it.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'dist/liveboard/browser');
fs.mkdirSync(target, { recursive: true });
fs.copyFileSync(path.join(root, 'src/liveboard/browser/board.js'), path.join(target, 'board.js'));
