// A tool call's arguments, checked before any side effect against the tool's strict zod shape.
// Flow: unknown names (with the nearest valid name) -> string fields (lone surrogates anywhere,
// NUL where it cannot be carried) -> zod -> typed arguments; each failure is one ZodexError.

import { z } from 'zod';
import { ZodexError, isErrorCode, nearestName, quote, type ErrorCode } from '../errors.js';
import { nulCharacterError } from '../exec/nul.js';

// Fields whose value goes where a NUL cannot: an execve argument, a path.
export const NO_NUL_FIELDS: ReadonlySet<string> = new Set(['cmd', 'workdir']);

const SHOWN_ISSUES = 3;

// The strict object of each tool shape, built once: zod compiles an object's parser on its first
// parse, and a schema made per call paid that (about 0.3 ms) on every call.
const strictSchemas = new WeakMap<z.ZodRawShape, z.ZodObject>();

export function strictSchema<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  let schema = strictSchemas.get(shape);
  if (!schema) strictSchemas.set(shape, (schema = z.strictObject(shape)));
  return schema as z.ZodObject<S, z.core.$strict>;
}

export function parseArguments<S extends z.ZodRawShape>(tool: string, shape: S, raw: Record<string, unknown>): z.infer<z.ZodObject<S>> {
  const names = Object.keys(shape);
  const unknown = Object.keys(raw).filter((key) => !Object.hasOwn(shape, key));
  if (unknown.length > 0) throw unknownArguments(tool, unknown, names);
  for (const name of names) {
    const value = raw[name];
    if (typeof value === 'string') checkString(name, value);
  }
  const parsed = strictSchema(shape).safeParse(raw);
  if (parsed.success) return parsed.data;
  throw fromIssues(parsed.error.issues);
}

// The name a reader sees: `timeout` for a plain name, a bounded JSON string otherwise.
export function argumentName(name: string): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? `\`${name}\`` : quote(name, 64);
}

function unknownArguments(tool: string, unknown: string[], names: string[]): ZodexError {
  const parts = unknown.slice(0, SHOWN_ISSUES).map((key) => {
    const near = nearestName(key, names);
    return `${argumentName(key)}: ${tool} has no such argument${near ? ` (did you mean \`${near}\`?)` : ''}`;
  });
  if (unknown.length > SHOWN_ISSUES) parts.push(`and ${unknown.length - SHOWN_ISSUES} more unknown arguments`);
  return new ZodexError('UNKNOWN_ARGUMENT', `${parts.join('; ')}. Its arguments are ${names.join(', ')}. Nothing was run.`);
}

function checkString(name: string, value: string): void {
  // With the u flag a paired surrogate is one code point, so \p{Cs} matches only lone ones.
  const index = value.search(/\p{Cs}/u);
  if (index >= 0) {
    const unit = value.charCodeAt(index).toString(16).toUpperCase();
    throw new ZodexError(
      'INVALID_UNICODE',
      `${argumentName(name)} holds an unpaired UTF-16 surrogate (U+${unit}) at index ${index.toLocaleString('en-US')}: ` +
        'it has no UTF-8 encoding, so it cannot be passed on as given. Send well-formed Unicode; to produce other bytes, let the command print them (e.g. with printf). Nothing was run or written.',
    );
  }
  if (NO_NUL_FIELDS.has(name)) {
    const nul = value.indexOf('\0');
    if (nul >= 0) throw nulCharacterError(name, nul);
  }
}

// zod issues -> one error: the first issue's code, every issue's text (at most SHOWN_ISSUES).
// Schema messages carry their code as a "CODE: " prefix (see tools/schemas.ts).
function fromIssues(issues: readonly z.core.$ZodIssue[]): ZodexError {
  const described = issues.slice(0, SHOWN_ISSUES).map((issue): { code: ErrorCode; text: string } => {
    const match = /^([A-Z][A-Z0-9_]+): ([\s\S]*)$/.exec(issue.message);
    if (match && isErrorCode(match[1])) return { code: match[1], text: match[2]! };
    const field = issue.path.length > 0 ? argumentName(issue.path.map(String).join('.')) : 'arguments';
    return { code: 'INVALID_VALUE', text: `${field}: ${issue.message}` };
  });
  const more = issues.length > SHOWN_ISSUES ? `; and ${issues.length - SHOWN_ISSUES} more problems` : '';
  return new ZodexError(described[0]!.code, `${described.map((d) => d.text).join('; ')}${more}`);
}
