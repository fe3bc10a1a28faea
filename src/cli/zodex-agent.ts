#!/usr/bin/env node
// The zodex-agent bin: what an agent runs through exec_command to publish work to GitHub via the
// publisher daemon (src/features/publisher/agent.ts does the work). Exit 0 ok, 1 refused/failed, 2 usage.

import { runAgentCli } from '../features/publisher/agent.js';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

const code = await runAgentCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
});
process.exitCode = code;
