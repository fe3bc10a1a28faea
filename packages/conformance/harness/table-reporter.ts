// Writes the requirements table of a run: id x target -> pass / fail / skipped / n/a, each with its
// profile and, but for a pass, the reason (a failure's first line, a skip's or n/a's why), as
// results/requirements.md and results/requirements.json; the runner (ZODEX_CONFORMANCE_PRINT) also
// prints it with one total per profile. A requirement that applies to a target but had no test
// there is listed as "missing" and fails the run, so coverage cannot quietly shrink.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { PROFILES, REQUIREMENTS, notApplicable, type Profile, type RequirementId } from '../requirements.js';

type Cell = 'pass' | 'fail' | 'skipped' | 'n/a' | 'missing';
interface Outcome {
  cell: Cell;
  reason: string;
}

const MARK: Record<Cell, string> = { pass: 'PASS', fail: 'FAIL', skipped: 'SKIP', 'n/a': 'n/a ', missing: 'MISS' };
const REASON_MAX = 300;

// eslint-disable-next-line no-control-regex
const linesOf = (text: string): string[] =>
  text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((part) => part.trim())
    .filter(Boolean);
const bounded = (line: string): string => (line.length > REASON_MAX ? `${line.slice(0, REASON_MAX)}… (${line.length - REASON_MAX} more characters)` : line);

// One line of a message, as a reader of the table needs it: no colour codes, bounded.
function firstLine(text: string): string {
  return bounded(linesOf(text)[0] ?? '');
}

// A failure in one line: the assertion's first line (its message, when the test gave one), then
// the first two lines of what was expected and received.
function failureReason(result: TestResult): string {
  const error = result.errors[0] ?? result.error;
  if (!error) return result.status === 'timedOut' ? 'timed out' : result.status;
  const lines = linesOf(error.message ?? error.value ?? String(error));
  const head = (lines[0] ?? '').replace(/^Error: /, '');
  const detail = lines
    .slice(1)
    .filter((line) => /^(Expected|Received)\b/.test(line) || (/^[-+]\s+\S/.test(line) && !/^[-+] (Expected|Received)\b/.test(line)))
    .slice(0, 2)
    .map((line) => line.replace(/\s+/g, ' '));
  return bounded([head, ...detail].join(' | '));
}

export default class TableReporter implements Reporter {
  private readonly outcomes = new Map<string, Outcome>(); // `${id}\t${target}`
  private targets: string[] = [];
  private readonly outputDir: string;
  private filtered = false;
  private readonly loadErrors: string[] = [];

  constructor(options: { outputDir?: string } = {}) {
    this.outputDir = options.outputDir ?? process.env.ZODEX_CONFORMANCE_RESULTS ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.targets = suite.suites.map((projectSuite) => projectSuite.project()?.name ?? projectSuite.title);
    this.filtered = process.argv.some((arg) => arg === '-g' || arg.startsWith('--grep') || arg.endsWith('.spec.ts') || /:\d+$/.test(arg));
    void config;
  }

  // Errors outside any test: a spec file that does not load, a global setup that throws.
  onError(error: TestError): void {
    this.loadErrors.push(firstLine(error.message ?? error.value ?? String(error)));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const id = test.annotations.find((annotation) => annotation.type === 'requirement')?.description;
    const target = test.parent.project()?.name;
    if (!id || !target) return;
    const key = `${id}\t${target}`;
    const outcome: Outcome =
      result.status === 'passed'
        ? { cell: 'pass', reason: '' }
        : result.status === 'skipped'
          ? { cell: 'skipped', reason: firstLine(result.annotations.find((annotation) => annotation.type === 'skip')?.description ?? 'skipped') }
          : { cell: 'fail', reason: failureReason(result) };
    const previous = this.outcomes.get(key)?.cell;
    if (previous === 'fail' || (previous === 'pass' && outcome.cell === 'skipped')) return;
    this.outcomes.set(key, outcome);
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const rows: { id: string; profile: Profile; source: string; quote: string; results: Record<string, Cell>; reasons: Record<string, string> }[] = [];
    let missing = 0;
    for (const [id, entry] of Object.entries(REQUIREMENTS)) {
      const results: Record<string, Cell> = {};
      const reasons: Record<string, string> = {};
      for (const target of this.targets) {
        const why = notApplicable(id as RequirementId, target);
        const unrun: Outcome = this.filtered
          ? { cell: 'n/a', reason: "not selected by this run's filter (--grep, a file)" }
          : { cell: 'missing', reason: 'no test ran for it' };
        const outcome = this.outcomes.get(`${id}\t${target}`) ?? (why === undefined ? unrun : { cell: 'n/a' as const, reason: why });
        if (outcome.cell === 'missing') missing++;
        results[target] = outcome.cell;
        if (outcome.reason) reasons[target] = outcome.reason;
      }
      rows.push({ id, profile: entry.profile, source: entry.source, quote: entry.quote, results, reasons });
    }
    const dir = path.resolve(process.cwd(), this.outputDir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'requirements.json'), JSON.stringify({ targets: this.targets, status: result.status, rows }, null, 2) + '\n');
    const cellText = (row: (typeof rows)[number], target: string) =>
      `${row.results[target]}${row.reasons[target] ? `: ${row.reasons[target]!.replace(/\|/g, '\\|')}` : ''}`;
    const header = `| requirement | profile | source | ${this.targets.join(' | ')} | spec sentence |\n|---|---|---|${this.targets.map(() => '---|').join('')}---|\n`;
    const body = rows
      .map(
        (row) =>
          `| ${row.id} | ${row.profile} | ${row.source} | ${this.targets.map((t) => cellText(row, t)).join(' | ')} | ${row.quote.replace(/\|/g, '\\|')} |`,
      )
      .join('\n');
    fs.writeFileSync(path.join(dir, 'requirements.md'), `# Conformance: requirements x targets\n\n${header}${body}\n`);

    for (const error of this.loadErrors) process.stdout.write(`error: ${error}\n`);
    if (this.targets.length === 0) {
      process.stdout.write('\nthe suite did not run (see the error above): no requirement was checked\n');
      return { status: 'failed' };
    }
    if (process.env.ZODEX_CONFORMANCE_PRINT) {
      const target = this.targets[0]!;
      const width = Math.max(...rows.map((row) => row.id.length));
      for (const profile of PROFILES) {
        for (const row of rows.filter((candidate) => candidate.profile === profile)) {
          const reason = row.reasons[target] ?? REQUIREMENTS[row.id as RequirementId].behaviour;
          process.stdout.write(`${profile.padEnd(13)} ${MARK[row.results[target]!]} ${row.id.padEnd(width)}  ${reason}\n`);
        }
      }
    }
    process.stdout.write('\n');
    for (const target of this.targets) {
      const totals = PROFILES.map((profile) => {
        const counts: Partial<Record<Cell, number>> = {};
        for (const row of rows.filter((candidate) => candidate.profile === profile)) counts[row.results[target]!] = (counts[row.results[target]!] ?? 0) + 1;
        const words = (['pass', 'fail', 'skipped', 'missing', 'n/a'] as const)
          .filter((cell) => counts[cell])
          .map((cell) => `${counts[cell]} ${cell === 'pass' ? 'passed' : cell === 'fail' ? 'failed' : cell}`);
        return `${profile} ${words.join(', ')}`;
      });
      process.stdout.write(`${target}: ${totals.join('; ')}\n`);
    }
    const skipped = rows.flatMap((row) => Object.values(row.results)).filter((cell) => cell === 'skipped').length;
    if (skipped) {
      process.stdout.write(
        `\n*** ${skipped} requirement/target pairs were SKIPPED (see ${path.join(dir, 'requirements.md')}); ZODEX_NO_SKIP=1 makes a skip a failure ***\n`,
      );
      if (process.env.ZODEX_NO_SKIP && result.status === 'passed') return { status: 'failed' };
    }
    if (missing > 0 && !this.filtered && result.status === 'passed') {
      process.stdout.write(`${missing} requirement/target pairs have no test: see the table\n`);
      return { status: 'failed' };
    }
    return undefined;
  }

  printsToStdio(): boolean {
    return false;
  }
}
