// The secret values this zodexd knows that are the user's, not its own: the password of
// --git-read-credentials, the token values found in the environment and in startup files. Kept so
// that whoever shows text to the model or writes it to disk can leave them out (output redaction
// takes its list from knownSecrets()). Registered at start by app/, read anywhere.

export interface KnownSecret {
  name: string; // where it came from: "GH_TOKEN", "--git-read-credentials (reader@127.0.0.1)"
  value: string;
}

const known = new Map<string, KnownSecret>(); // by value

export function registerSecret(name: string, value: string): void {
  if (value.length > 0 && !known.has(value)) known.set(value, { name, value });
}

// Every secret value registered so far, longest first (so that a value inside another is
// replaced after it).
export function knownSecrets(): KnownSecret[] {
  return [...known.values()].sort((a, b) => b.value.length - a.value.length);
}
