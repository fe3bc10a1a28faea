// Runs programs side by side: the first with its output on the terminal as it comes, the others
// with theirs captured and printed, each under a header, once the first has ended. The exit code
// is the first non-zero one among them (in the order given). Used by `npm test` (the client tests
// beside the conformance suite) and by spec/run.mjs (the packed-suite test and the typecheck
// beside the other spec files): each of those mostly waits, so beside the rest it no longer adds
// its whole time to the run.
// As a program: node scripts/beside.mjs 'COMMAND' 'COMMAND' ...   (each run by the shell)

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts one program; resolves with its exit code (1 if killed by a signal) and, when captured, its output.
 * @param {string} label @param {string} file @param {string[]} args @param {{ captured: boolean, cwd?: string, shell?: boolean }} options
 * @returns {{ label: string, done: Promise<{ code: number, output: string }> }}
 */
export function start(label, file, args, { captured, cwd, shell = false }) {
  const child = spawn(file, args, { cwd, shell, stdio: ['ignore', captured ? 'pipe' : 'inherit', captured ? 'pipe' : 'inherit'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const done = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: `${output}\n${label}: ${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
  return { label, done };
}

/**
 * Waits for the first (output on the terminal), then prints each other's output; returns the exit code.
 * @param {{ label: string, done: Promise<{ code: number, output: string }> }} first
 * @param {{ label: string, done: Promise<{ code: number, output: string }> }[]} others
 */
export async function beside(first, others) {
  const codes = [(await first.done).code];
  for (const other of others) {
    const { code, output } = await other.done;
    console.log(`\n--- ${other.label} (run beside ${first.label}): ${code === 0 ? 'passed' : `FAILED (exit ${code})`} ---\n${output}`);
    codes.push(code);
  }
  return codes.find((code) => code !== 0) ?? 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [main, ...rest] = process.argv.slice(2);
  if (!main) {
    console.error("usage: node scripts/beside.mjs 'COMMAND' ['COMMAND' ...]");
    process.exit(2);
  }
  console.log(`beside: ${rest.map((command) => `\`${command}\``).join(', ')} run beside \`${main}\`; their output follows its own`);
  const others = rest.map((command) => start(command, command, [], { captured: true, shell: true }));
  process.exitCode = await beside(start(main, main, [], { captured: false, shell: true }), others);
}
