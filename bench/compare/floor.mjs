// The floors (workload 7): the same work done with no MCP server at all, in the same run and
// interleaved with the servers: node-pty spawning the shell (`$SHELL -c CMD`) and reading it to
// its end, a node-pty session answering typed lines, and `git apply` as a process.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { barePty } from '../lib.mjs';

const require = createRequire(import.meta.url);
const pty = require('node-pty');
export const SHELL = process.env.SHELL || '/bin/bash';

export const floorParticipant = (label) => ({ id: 'floor', label, kind: 'floor' });

// Spawn + read to exit; resolves { ms, bytes }.
export const ptyRun = (cmd) => barePty(cmd, SHELL);

// A live node-pty session running `program`; ping() types a line and resolves on its answer.
export function ptySession(program) {
  const child = pty.spawn(SHELL, ['-c', program], { cols: 200, rows: 50, cwd: '/', env: process.env });
  let buffer = '';
  let waiter;
  child.onData((data) => {
    buffer += data;
    if (waiter && buffer.includes(waiter.text)) {
      const { resolve } = waiter;
      waiter = undefined;
      buffer = '';
      resolve();
    }
  });
  return {
    ready: () => waitFor('> '),
    ping: (text) => {
      const done = waitFor(`answer:${text}`);
      child.write(`${text}\n`);
      return done;
    },
    close: () => child.kill('SIGKILL'),
  };
  function waitFor(text) {
    return new Promise((resolve, reject) => {
      if (buffer.includes(text)) {
        buffer = '';
        resolve();
        return;
      }
      const timer = setTimeout(() => reject(new Error(`bare PTY: no "${text}" within 5 s`)), 5000);
      waiter = { text, resolve: () => (clearTimeout(timer), resolve()) };
    });
  }
}

export function gitApply(diffFile, cwd) {
  const result = spawnSync('git', ['apply', diffFile], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git apply failed: ${result.stderr}`);
}
