// Fixture for spec/layers.test.ts: one half of a circle inside one folder, type-only on this side.
import type { B } from './b.js';
export const a = 1;
export type A = B;
