// Fixture for spec/layers.test.ts: a root file.
export const quote = (text: string) => JSON.stringify(text);
