// NUL where no NUL can be carried: execve takes every argument, the working directory and each
// environment entry as a NUL-terminated string, so a NUL inside one would cut it short and run
// something else. One text for it, whichever check finds it (the tool's validation or the engine).

import { ZodexError } from '../errors.js';

// What each tool field is, as the error says it.
const CARRIERS: Readonly<Record<string, string>> = { cmd: 'a command line', workdir: 'a path' };

// `field` is a tool argument (`cmd`, `workdir`) or a description ("the environment variable X").
// The text never quotes the value (it can be megabytes).
export function nulCharacterError(field: string, index: number): ZodexError {
  const carrier = CARRIERS[field];
  return new ZodexError(
    'NUL_CHARACTER',
    `${carrier === undefined ? field : `\`${field}\``} holds a NUL character (\\u0000) at index ${index.toLocaleString('en-US')}: ` +
      `${carrier ?? 'an environment entry'} cannot carry NUL (execve and file names end at the first one). ` +
      "Remove it; to produce a NUL byte, let the command print it (e.g. printf '\\0'). Nothing was run.",
  );
}

// Refused before anything is spawned; environment names must also be non-empty and hold no "=".
export function refuseNul(request: { cmd: string; cwd: string; env?: Readonly<Record<string, string>> | undefined }): void {
  if (request.cmd.includes('\0')) throw nulCharacterError('cmd', request.cmd.indexOf('\0'));
  if (request.cwd.includes('\0')) throw nulCharacterError('workdir', request.cwd.indexOf('\0'));
  for (const [name, value] of Object.entries(request.env ?? {})) {
    if (name.includes('\0')) throw nulCharacterError('an environment variable name', name.indexOf('\0'));
    if (value.includes('\0')) throw nulCharacterError(`the environment variable ${name.slice(0, 64)}`, value.indexOf('\0'));
    if (name === '' || name.includes('=')) {
      throw new ZodexError(
        'INVALID_ARGUMENT',
        `environment variable names must be non-empty and hold no "=" (got one of ${name.length} characters); nothing was run`,
      );
    }
  }
}
