// Shell words as the README writes them (quotes, $(...) kept as one word), and zodexd's parser.
export { parseCli } from '../../src/app/config/parse.js';

export function splitWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\$\([^)]*\)\S*|\S+)/g;
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}
