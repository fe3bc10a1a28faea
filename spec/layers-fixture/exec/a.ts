// Fixture for spec/layers.test.ts: a downward import and a downward re-export.
import { b } from '../net/b.js';
export { quote } from '../errors.js';
export const a = b;
export type A = number;
