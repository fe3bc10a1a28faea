// Seed 002's workdir rules, shared by exec_command and apply_patch: required (unless the
// server has a default), absolute, existing, a directory. Checked before any side effect.

import fs from 'node:fs';
import path from 'node:path';
import { ZodexError } from '../errors.js';

export function resolveWorkdir(workdir: string | undefined, fallback: string | undefined): string {
  const value = workdir ?? fallback;
  if (value === undefined || value === '') {
    throw new ZodexError(
      'WORKDIR_REQUIRED',
      'workdir is required: pass the absolute path of an existing directory, e.g. "workdir": "/home/me/project"',
    );
  }
  if (!path.isAbsolute(value)) {
    throw new ZodexError(
      'WORKDIR_NOT_ABSOLUTE',
      `workdir must be an absolute path; got ${JSON.stringify(value)}. Send the full path, e.g. "/home/me/project"`,
    );
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(value);
  } catch {
    throw new ZodexError(
      'WORKDIR_NOT_FOUND',
      `workdir ${JSON.stringify(value)} does not exist; check the path or create the directory first`,
    );
  }
  if (!stat.isDirectory()) {
    throw new ZodexError(
      'WORKDIR_NOT_A_DIRECTORY',
      `workdir ${JSON.stringify(value)} is not a directory; pass the directory that contains it instead`,
    );
  }
  return path.normalize(value);
}
