// Fixture for spec/layers.test.ts: a downward import and a downward re-export.
import { b } from '../store/b.js';
export { quote } from '../errors.js';
export const a = b;
export type A = number;
