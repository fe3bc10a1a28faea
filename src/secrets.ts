// The secret values zodex knows, each with the name it is shown under in place of the value
// (`[REDACTED:NAME]`): zodex's own (the HTTP token, OAuth tokens as they are minted, the
// publisher's token where zodexd has it) and the operator's `--redact-env` values. One registry per
// process, filled by app/ at start and grown while it runs; readers follow its version.
// Flow: add(name, value) -> version++ -> list() read by exec/output/redact.ts (the output stream) and
// redactText() (whole texts: tool results, error texts, log lines, history rows).

export interface SecretEntry {
  readonly name: string;
  readonly value: string;
  // Epoch ms after which the value is worthless (an access token's expiry): dropped then.
  readonly expiresAt?: number | undefined;
}

// How a value is shown in its place.
export function redactionMark(name: string): string {
  return `[REDACTED:${name}]`;
}

export class SecretRegistry {
  private readonly byValue = new Map<string, SecretEntry>();
  private sorted: readonly SecretEntry[] = [];
  private changes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  // Changes whenever the set of values does: a reader that saw this version has the current set.
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.byValue.size;
  }

  // Longest first, so that of two values where one contains the other, the longer one is replaced.
  list(): readonly SecretEntry[] {
    return this.sorted;
  }

  // Registers a value under a name (an empty value is nothing to hide; a value already known keeps
  // its first name). Expired values are dropped at the same time.
  add(name: string, value: string, expiresAt?: number): void {
    const known = this.byValue.get(value);
    const expired = this.dropExpired();
    if (value === '' || (known && (known.expiresAt === undefined || (expiresAt !== undefined && expiresAt <= known.expiresAt)))) {
      if (expired) this.changed();
      return;
    }
    this.byValue.set(value, { name: known?.name ?? name, value, ...(expiresAt !== undefined ? { expiresAt } : {}) });
    this.changed();
  }

  // Forgets a value that can no longer be used (a refresh token that was exchanged).
  delete(value: string): void {
    if (this.byValue.delete(value)) this.changed();
  }

  // `text` with every known value replaced by its mark (longest values first), also where the
  // text is JSON that holds the value escaped (a value with a quote, backslash or line break).
  redactText(text: string): string {
    let out = text;
    for (const { name, value } of this.sorted) {
      if (out.includes(value)) out = out.split(value).join(redactionMark(name));
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value && out.includes(escaped)) out = out.split(escaped).join(redactionMark(name));
    }
    return out;
  }

  private dropExpired(): boolean {
    const now = this.now();
    let dropped = false;
    for (const [value, entry] of this.byValue) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        this.byValue.delete(value);
        dropped = true;
      }
    }
    return dropped;
  }

  private changed(): void {
    this.sorted = [...this.byValue.values()].sort((a, b) => b.value.length - a.value.length);
    this.changes++;
  }
}
