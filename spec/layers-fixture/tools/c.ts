// Fixture for spec/layers.test.ts: imports nothing.
export const c = 3;
