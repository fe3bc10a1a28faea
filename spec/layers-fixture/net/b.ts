// Fixture for spec/layers.test.ts: an upward type import and an upward dynamic import.
import type { A } from '../exec/a.js';
export const b = 1;
export const later = () => import('../tools/c.js');
export type B = A;
