// Where the Liveboard runs: zodexd's --liveboard flag, and `zodex liveboard` standalone. Both
// take HOST:PORT with the listen rules (port 0, no wildcards) and want a token off loopback.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIVEBOARD_LISTEN, parseLiveboardArgs } from '../../../src/cli/commands/liveboard.js';
import type { CliIo } from '../../../src/cli/commands/command.js';
import { ConfigUsageError } from '../../../src/app/config/errors.js';
import { configFor } from '../../../src/app/config/parse.js';
import { USAGE } from '../../../src/app/config/usage.js';
import { runZodex } from '../../../src/cli/zodex.js';
import { scratch } from './support.js';

const TOKEN = 'a-token-of-at-least-16-characters';

const configOf = configFor;

describe('zodexd --liveboard', () => {
  it('is off by default and takes HOST:PORT, port 0 included', () => {
    expect(configOf([]).liveboard).toBeUndefined();
    expect(configOf(['--liveboard', '127.0.0.1:0']).liveboard).toEqual({ host: '127.0.0.1', port: 0 });
    expect(configOf(['--transport', 'http', '--liveboard', '[::1]:7392']).liveboard).toEqual({ host: '::1', port: 7392 });
  });

  it('refuses wildcards and malformed addresses, naming the flag', () => {
    expect(() => configOf(['--liveboard', '0.0.0.0:7392'])).toThrow(ConfigUsageError);
    expect(() => configOf(['--liveboard', '0.0.0.0:7392'])).toThrow(/--liveboard 0\.0\.0\.0:7392 is a wildcard bind/);
    expect(() => configOf(['--liveboard', ':7392'])).toThrow(/wildcard/);
    expect(() => configOf(['--liveboard', 'localhost'])).toThrow(/--liveboard "localhost" is not HOST:PORT/);
  });

  it('needs a token on a non-loopback address', () => {
    expect(() => configOf(['--liveboard', '192.0.2.7:7392'])).toThrow(/--liveboard 192\.0\.2\.7 is not a loopback address, so the Liveboard needs a token/);
    expect(configOf(['--liveboard', '192.0.2.7:7392'], { ZODEX_AUTH_TOKEN: TOKEN }).liveboard).toEqual({ host: '192.0.2.7', port: 7392 });
  });

  it('is in the usage text', () => {
    expect(USAGE).toMatch(/--liveboard HOST:PORT/);
  });
});

describe('zodex liveboard', () => {
  it('defaults to 127.0.0.1:7392 and the usual state dir', () => {
    const request = parseLiveboardArgs([], { XDG_STATE_HOME: '/x/state' });
    expect(request).toEqual({
      kind: 'run',
      settings: { listen: { host: '127.0.0.1', port: 7392 }, stateDir: '/x/state/zodex', allowHosts: [], token: undefined },
    });
    expect(DEFAULT_LIVEBOARD_LISTEN).toBe('127.0.0.1:7392');
  });

  it('takes --listen, --state-dir, --allow-host (repeatable) and --auth-token-file', () => {
    const dir = scratch('cli');
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, `${TOKEN}\n`);
    const request = parseLiveboardArgs(
      ['--listen', '127.0.0.1:0', '--state-dir', dir, '--allow-host', 'Board.Example', '--allow-host', 'tunnel.example', '--auth-token-file', tokenFile],
      {},
    );
    expect(request).toEqual({
      kind: 'run',
      settings: { listen: { host: '127.0.0.1', port: 0 }, stateDir: dir, allowHosts: ['board.example', 'tunnel.example'], token: TOKEN },
    });
  });

  it('exits 2 on a wildcard, a non-loopback bind without a token, or an unknown flag', async () => {
    const run = async (argv: string[]) => {
      let stderr = '';
      const io: CliIo = { stdout: () => {}, stderr: (text) => void (stderr += text), env: {}, now: Date.now };
      return { code: await runZodex(['liveboard', ...argv], io), stderr };
    };
    expect(await run(['--listen', '0.0.0.0:7392'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/wildcard bind/) });
    expect(await run(['--listen', '192.0.2.7:7392'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs a token/) });
    expect(await run(['--allow-host', 'a.example:80'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/without a port/) });
    expect(await run(['--bogus'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/bogus/) });
  });

  it('prints its usage', async () => {
    let stdout = '';
    const io: CliIo = { stdout: (text) => void (stdout += text), stderr: () => {}, env: {}, now: Date.now };
    expect(await runZodex(['liveboard', '--help'], io)).toBe(0);
    expect(stdout).toMatch(/^Usage: zodex liveboard \[--listen HOST:PORT\]/);
  });
});

describe('zodex liveboard with ZODEX_AUTH_TOKEN', () => {
  it('keeps the token out of /proc/PID/environ once read', async () => {
    const { spawn } = await import('node:child_process');
    const dir = scratch('env');
    const child = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, '../../../dist/cli/zodex.js'), 'liveboard', '--listen', '127.0.0.1:0', '--state-dir', path.join(dir, 'state')],
      {
        env: { ...process.env, ZODEX_AUTH_TOKEN: TOKEN },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const deadline = Date.now() + 20_000;
      while (!log.includes('liveboard on')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`zodex liveboard did not start:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const environ = fs.readFileSync(`/proc/${child.pid}/environ`, 'latin1');
      expect(environ).toContain('PATH=');
      expect(environ).not.toContain(TOKEN);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve)));
    }
  }, 30_000);
});
