// Shared pieces of the operator subcommands: --since durations, local times,
// short durations, aligned tables, JSON rows with ISO times.

import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliUsageError } from './command.js';

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

// "30m", "2h", "7d", "1.5h", "45s", "2w" -> milliseconds.
export function parseDuration(flag: string, value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/i.exec(value);
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new CliUsageError(`${flag} ${JSON.stringify(value)} is not a duration; write e.g. ${flag} 30m, 2h or 7d`);
  }
  return Math.round(ms);
}

export function parseLimit(flag: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max) {
    throw new CliUsageError(`${flag} ${JSON.stringify(value)} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}

// Strict parseArgs whose errors become one-line usage errors.
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliUsageError((error as Error).message.split('\n')[0]!);
  }
}

const pad2 = (n: number) => String(n).padStart(2, '0');

// Local time, ISO-ish: 2026-11-29 14:03:12.
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

// 0.3s, 12.0s, 4m07s, 2h03m.
export function shortDuration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${pad2(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h${pad2(Math.floor(seconds / 60) % 60)}m`;
}

// One line, cut to `max` characters with an ellipsis.
export function cell(text: string, max = Infinity): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const points = [...line];
  return points.length <= max ? line : points.slice(0, Math.max(0, max - 1)).join('') + '…';
}

// `~` for the home directory, for shorter paths in tables.
export function tildePath(file: string, home = os.homedir()): string {
  return home && (file === home || file.startsWith(home + path.sep)) ? '~' + file.slice(home.length) : file;
}

// Columns padded to their widest cell; the last column is not padded.
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => [...(row[column] ?? '')].length)));
  return (
    all
      .map((row) =>
        row
          .map((value, column) => (column === row.length - 1 ? value : value + ' '.repeat(widths[column]! - [...value].length)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

// A row for --json: every `…At` millisecond field becomes an ISO 8601 (UTC) string.
export function jsonRow<T extends object>(row: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] = key.endsWith('At') && typeof value === 'number' ? new Date(value).toISOString() : value;
  }
  return out;
}
