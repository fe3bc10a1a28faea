// Fixture for spec/layers.test.ts: the other half of the circle.
import { a } from './a.js';
export const b = a;
export type B = number;
