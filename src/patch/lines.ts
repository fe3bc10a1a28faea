// A text file as lines that remember their own line ending (pure), split as Codex splits them.
// Flow: bytes -> splitLines (UTF-8 check, BOM, each line's ending: LF, CRLF or a lone CR, the last
// line's possibly none) -> plan edits the line list -> joinLines gives the bytes back; untouched
// lines keep their endings, new lines take the file's first ending, and the result always ends
// with one (Codex: an updated file ends in a newline).

export type Eol = '\n' | '\r\n' | '\r' | '';

export interface FileLines {
  bom: boolean;
  texts: string[];
  /** The ending of each line; only the last line can have none (''). */
  eols: Eol[];
  /** What new lines end with: the file's first line ending (Codex, rustfmt, Ruff), else LF. */
  newline: Exclude<Eol, ''>;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LINE_BREAK = /\r\n|\n|\r/g;

// null when the bytes are not valid UTF-8.
export function splitLines(bytes: Uint8Array): FileLines | null {
  let content: string;
  try {
    content = UTF8.decode(bytes);
  } catch {
    return null;
  }
  const bom = content.startsWith('\uFEFF');
  if (bom) content = content.slice(1);
  const texts: string[] = [];
  const eols: Eol[] = [];
  let start = 0;
  for (const match of content.matchAll(LINE_BREAK)) {
    texts.push(content.slice(start, match.index));
    eols.push(match[0] as Eol);
    start = match.index + match[0].length;
  }
  if (start < content.length) {
    texts.push(content.slice(start));
    eols.push('');
  }
  return { bom, texts, eols, newline: (eols[0] || '\n') as FileLines['newline'] };
}

// The file's bytes as text: every line ends with its own ending, or the file's newline where it
// has none (the last line too, as Codex ends every updated file).
export function joinLines(file: FileLines): string {
  const { texts, eols, newline } = file;
  const parts: string[] = [file.bom ? '\uFEFF' : ''];
  let uniform = true; // every line ends with `newline`: one native join does it
  for (let i = 0; i < texts.length && uniform; i++) uniform = eols[i] === newline || eols[i] === '';
  if (uniform) return texts.length === 0 ? parts[0]! : `${parts[0]}${texts.join(newline)}${newline}`;
  for (let i = 0; i < texts.length; i++) parts.push(texts[i] as string, eols[i] || newline);
  return parts.join('');
}
