// A text file as lines that remember their own line ending (pure).
// Flow: bytes -> splitLines (UTF-8 check, BOM, LF/CRLF per line, trailing newline or not) ->
// plan edits the line list -> joinLines gives the bytes back; untouched lines keep their endings.

type Eol = '\n' | '\r\n' | '';

export interface FileLines {
  bom: boolean;
  texts: string[];
  /** The ending of each line; only the last line can have none (''). */
  eols: Eol[];
  /** What new lines end with: CRLF when the file contains one, else LF. */
  newline: '\n' | '\r\n';
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
  const texts = content.split('\n');
  const eols: Eol[] = new Array<Eol>(texts.length).fill('\n');
  if (texts[texts.length - 1] === '') {
    texts.pop();
    eols.pop();
  } else {
    eols[eols.length - 1] = '';
  }
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (eols[i] === '\n' && text.endsWith('\r')) {
      texts[i] = text.slice(0, -1);
      eols[i] = '\r\n';
    }
  }
  return { bom, texts, eols, newline: content.includes('\r\n') ? '\r\n' : '\n' };
}

export function joinLines(file: FileLines): string {
  const { texts, eols, newline } = file;
  const last = texts.length - 1;
  if (last < 0) return file.bom ? '\uFEFF' : '';
  const bom = file.bom ? '\uFEFF' : '';
  let uniform = true; // every line but the last ends with `newline`: one native join does it
  for (let i = 0; i < last && uniform; i++) uniform = eols[i] === newline || eols[i] === '';
  if (uniform) return `${bom}${texts.join(newline)}${eols[last] ?? ''}`;
  const parts: string[] = [bom];
  for (let i = 0; i <= last; i++) {
    const eol = eols[i] ?? '';
    parts.push(texts[i] as string, eol === '' && i < last ? newline : eol);
  }
  return parts.join('');
}
