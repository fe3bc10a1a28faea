// Streaming removal of terminal escape sequences from PTY bytes, correct across chunk boundaries.
// Flow: raw bytes -> push() (state carried between chunks) -> clean bytes; end() flushes.
// Removed: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (ended by BEL or ESC \), nF
// sequences such as charset selects (ESC ( B), two-byte ESC sequences, and a lone ESC.
// "\r\n" becomes "\n". Every other byte, including UTF-8 multi-byte sequences, passes through:
// ESC (0x1b) and CR (0x0d) never occur inside a UTF-8 multi-byte sequence, so bytes are safe.

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;
const BEL = 0x07;
const BACKSLASH = 0x5c;

const enum State {
  Ground,
  Escape, // saw ESC
  Intermediate, // ESC followed by 0x20-0x2f: waiting for the final byte
  Csi, // ESC [: parameters and intermediates until a final byte
  String, // OSC, DCS, SOS, PM, APC: until BEL or ST
  StringEscape, // ESC inside a string: ST if the next byte is '\'
  CarriageReturn, // saw CR in ground: dropped if LF follows
}

// Clean bytes are written to one buffer per stripper, reused from push to push (no allocation
// per read, which 50 MB of coloured output would turn into tens of MiB of garbage).
const SCRATCH_BYTES = 64 * 1024;

export class AnsiStripper {
  private state: State = State.Ground;
  private scratch = new Uint8Array(0);

  // Returns the clean bytes of this chunk: `chunk` itself or a view of the stripper's own buffer.
  // Either is valid until the next push (and `chunk` only as long as its owner keeps it).
  push(chunk: Uint8Array): Uint8Array {
    const len = chunk.length;
    let nextEsc = chunk.indexOf(ESC);
    let nextCr = chunk.indexOf(CR);
    if (this.state === State.Ground && nextEsc === -1 && nextCr === -1) return chunk;
    if (this.scratch.length < len + 1) this.scratch = new Uint8Array(Math.max(len + 1, SCRATCH_BYTES));
    const out = this.scratch; // len + 1: a CR held back from the previous chunk
    let n = 0;
    let i = 0;
    while (i < len) {
      const b = chunk[i]!;
      switch (this.state) {
        case State.Ground: {
          // Copy the run up to the next ESC or CR in one go (native searches, kept while ahead).
          if (nextEsc !== -1 && nextEsc < i) nextEsc = chunk.indexOf(ESC, i);
          if (nextCr !== -1 && nextCr < i) nextCr = chunk.indexOf(CR, i);
          const end = Math.min(nextEsc === -1 ? len : nextEsc, nextCr === -1 ? len : nextCr);
          if (end > i) {
            out.set(chunk.subarray(i, end), n);
            n += end - i;
            i = end;
            continue;
          }
          this.state = b === ESC ? State.Escape : State.CarriageReturn;
          i++;
          continue;
        }
        case State.CarriageReturn:
          if (b === LF) {
            out[n++] = LF;
            i++;
          } else {
            out[n++] = CR; // a lone CR is kept; the byte itself is read again in ground
          }
          this.state = State.Ground;
          continue;
        case State.Escape:
          if (b === 0x5b /* [ */) this.state = State.Csi;
          else if (b === 0x5d /* ] */ || b === 0x50 /* P */ || b === 0x58 /* X */ || b === 0x5e /* ^ */ || b === 0x5f /* _ */) {
            this.state = State.String;
          } else if (b >= 0x20 && b <= 0x2f) this.state = State.Intermediate;
          else if (b >= 0x30 && b <= 0x7e) this.state = State.Ground;
          else if (b === ESC)
            this.state = State.Escape; // the first ESC was lone
          else {
            this.state = State.Ground; // lone ESC before a control or non-ASCII byte: keep the byte
            continue;
          }
          i++;
          continue;
        case State.Intermediate:
        case State.Csi: {
          // CSI: parameters and intermediates 0x20-0x3f, final 0x40-0x7e.
          // nF (after ESC + intermediate): more intermediates 0x20-0x2f, final 0x30-0x7e.
          const lastInner = this.state === State.Csi ? 0x3f : 0x2f;
          if (b >= 0x20 && b <= lastInner) {
            i++;
          } else if (b > lastInner && b <= 0x7e) {
            this.state = State.Ground;
            i++;
          } else if (b === ESC) {
            this.state = State.Escape;
            i++;
          } else {
            this.state = State.Ground; // malformed: abandon the sequence, keep the byte
          }
          continue;
        }
        case State.String:
          if (b === BEL) this.state = State.Ground;
          else if (b === ESC) this.state = State.StringEscape;
          i++;
          continue;
        case State.StringEscape:
          if (b === BACKSLASH) {
            this.state = State.Ground;
            i++;
          } else {
            this.state = State.Escape; // ESC ended the string and starts a new sequence
          }
          continue;
      }
    }
    return out.subarray(0, n);
  }

  // Flushes what a held-back state still owes: a CR waiting for a possible LF.
  end(): Uint8Array {
    const owed = this.state === State.CarriageReturn ? Uint8Array.of(CR) : new Uint8Array(0);
    this.state = State.Ground;
    return owed;
  }
}

// One-shot convenience for tests and small strings.
export function stripAnsi(text: string): string {
  const stripper = new AnsiStripper();
  const body = stripper.push(Buffer.from(text, 'utf8'));
  const tail = stripper.end();
  return Buffer.concat([body, tail]).toString('utf8');
}
