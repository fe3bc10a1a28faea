// Writes the requirements table of a run: id x target -> pass / fail / not applicable, with the
// spec sentence each id proves, as results/requirements.md and results/requirements.json.
// A requirement that applies to a target but had no test there is listed as "missing" and
// fails the run, so coverage cannot quietly shrink.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { REQUIREMENTS, appliesTo, type RequirementId } from '../requirements.js';

type Cell = 'pass' | 'fail' | 'skipped' | 'n/a' | 'missing';

export default class TableReporter implements Reporter {
  private readonly cells = new Map<string, Cell>(); // `${id}\t${target}`
  private targets: string[] = [];
  private readonly outputDir: string;
  private filtered = false;

  constructor(options: { outputDir?: string } = {}) {
    this.outputDir = options.outputDir ?? process.env.ZODEX_CONFORMANCE_RESULTS ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.targets = suite.suites.map((projectSuite) => projectSuite.project()?.name ?? projectSuite.title);
    this.filtered = process.argv.some((arg) => arg === '-g' || arg.startsWith('--grep') || arg.endsWith('.spec.ts') || /:\d+$/.test(arg));
    void config;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const id = test.annotations.find((annotation) => annotation.type === 'requirement')?.description;
    const target = test.parent.project()?.name;
    if (!id || !target) return;
    const key = `${id}\t${target}`;
    const cell: Cell = result.status === 'passed' ? 'pass' : result.status === 'skipped' ? 'skipped' : 'fail';
    const previous = this.cells.get(key);
    if (previous === 'fail' || (previous === 'pass' && cell === 'skipped')) return;
    this.cells.set(key, cell);
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const rows: { id: string; source: string; quote: string; results: Record<string, Cell> }[] = [];
    let missing = 0;
    for (const [id, entry] of Object.entries(REQUIREMENTS)) {
      const results: Record<string, Cell> = {};
      for (const target of this.targets) {
        const cell = this.cells.get(`${id}\t${target}`) ?? (appliesTo(id as RequirementId, target) ? 'missing' : 'n/a');
        if (cell === 'missing') missing++;
        results[target] = cell;
      }
      rows.push({ id, source: entry.source, quote: entry.quote, results });
    }
    const dir = path.resolve(process.cwd(), this.outputDir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'requirements.json'), JSON.stringify({ targets: this.targets, status: result.status, rows }, null, 2) + '\n');
    const header = `| requirement | source | ${this.targets.join(' | ')} | spec sentence |\n|---|---|${this.targets.map(() => '---|').join('')}---|\n`;
    const body = rows
      .map((row) => `| ${row.id} | ${row.source} | ${this.targets.map((t) => row.results[t]).join(' | ')} | ${row.quote.replace(/\|/g, '\\|')} |`)
      .join('\n');
    fs.writeFileSync(path.join(dir, 'requirements.md'), `# Conformance: requirements x targets\n\n${header}${body}\n`);
    if (process.env.ZODEX_CONFORMANCE_PRINT) {
      const target = this.targets[0]!;
      for (const row of rows) {
        const cell = row.results[target]!;
        const mark = { pass: 'PASS', fail: 'FAIL', skipped: 'SKIP', 'n/a': 'n/a ', missing: 'MISS' }[cell];
        process.stdout.write(`${mark} ${row.id}  ${REQUIREMENTS[row.id as RequirementId].behaviour}\n`);
      }
    }
    const counts = rows.flatMap((row) => Object.values(row.results)).reduce<Record<string, number>>((acc, cell) => ({ ...acc, [cell]: (acc[cell] ?? 0) + 1 }), {});
    const total = Object.entries(counts).map(([cell, count]) => `${count} ${cell === 'pass' ? 'passed' : cell === 'fail' ? 'failed' : cell}`).join(', ');
    process.stdout.write(`\n${this.targets.join(' + ')}: ${total}\n`);
    if (counts.skipped) {
      process.stdout.write(`\n*** ${counts.skipped} requirement/target pairs were SKIPPED (see ${path.join(dir, 'requirements.md')}); ZODEX_NO_SKIP=1 makes a skip a failure ***\n`);
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
