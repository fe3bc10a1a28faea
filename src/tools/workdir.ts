// Seed 002's workdir rules, shared by exec_command and apply_patch: required (unless the
// server has a default), absolute, existing, a directory. Checked before any side effect.

import fs from 'node:fs';
import path from 'node:path';
import { ZodexError, errorCode, quote } from '../errors.js';

// The one text for a missing workdir, whichever check finds it (the schema or this module).
export const WORKDIR_REQUIRED_MESSAGE = '`workdir` is required: pass the absolute path of an existing directory, e.g. "workdir": "/home/me/project"';

export function resolveWorkdir(workdir: string | undefined, fallback: string | undefined): string {
  const value = workdir ?? fallback;
  if (value === undefined || value === '') {
    throw new ZodexError('WORKDIR_REQUIRED', WORKDIR_REQUIRED_MESSAGE);
  }
  if (!path.isAbsolute(value)) {
    throw new ZodexError('WORKDIR_NOT_ABSOLUTE', `workdir must be an absolute path; got ${quote(value)}. Send the full path, e.g. "/home/me/project"`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(value);
  } catch (error) {
    const code = errorCode(error);
    const why = code === undefined || code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be reached (${code})`;
    throw new ZodexError('WORKDIR_NOT_FOUND', `workdir ${quote(value)} ${why}; check the path or create the directory first`);
  }
  if (!stat.isDirectory()) {
    throw new ZodexError('WORKDIR_NOT_A_DIRECTORY', `workdir ${quote(value)} is not a directory; pass the directory that contains it instead`);
  }
  return path.normalize(value);
}
