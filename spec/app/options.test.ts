// The Config -> layer options mapping: each layer gets its own small object, built from the flags
// in one place (app/options.ts); the MCP listener's guard policy follows the bind address.

import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config/defaults.js';
import { configFor } from '../../src/app/config/parse.js';
import { httpOptions, mcpGuardPolicy, schemaLimits, serverOptions, spillOptions } from '../../src/app/options.js';
import { VERSION } from '../../src/app/version.js';

const TOKEN = 't'.repeat(32);

const config = configFor;

describe('layer options', () => {
  it('gives the HTTP listener its flags, its guard policy and what app/ built', () => {
    const c = config(
      [
        '--transport',
        'http',
        '--listen',
        '127.0.0.1:0',
        '--allow-host',
        'sandbox.local',
        '--max-body-bytes',
        '2048',
        '--body-timeout-ms',
        '500',
        '--headers-timeout-ms',
        '400',
        '--http-idle-ms',
        '9000',
        '--max-conversations',
        '3',
      ],
      { ZODEX_AUTH_TOKEN: TOKEN },
    );
    const open = () => ({ connect: async () => {}, close: async () => {} });
    const hasRunningCommand = () => false;
    const log = () => {};
    const options = httpOptions(c, { open, hasRunningCommand, log });
    expect(options).toMatchObject({
      listen: { host: '127.0.0.1', port: 0 },
      maxBodyBytes: 2048,
      bodyTimeoutMs: 500,
      headersTimeoutMs: 400,
      idleMs: 9000,
      maxConversations: 3,
    });
    expect(options.open).toBe(open);
    expect(options.guard).toMatchObject({ loopbackBind: true, allowHosts: ['sandbox.local'], listenHost: '127.0.0.1', token: TOKEN });
    expect(options.guard.cookie).toBeUndefined();
  });

  it('applies no Host rule on a non-loopback bind', () => {
    expect(mcpGuardPolicy(config(['--transport', 'http', '--listen', '10.1.2.3:7391'], { ZODEX_AUTH_TOKEN: TOKEN })).loopbackBind).toBe(false);
  });

  it('gives the MCP server its instructions, limits and mode, never the Config', () => {
    const c = config(['--mode', 'sprite', '--default-workdir', '/', '--max-yield-ms', '1000', '--annotations', 'truthful']);
    const options = serverOptions(c);
    expect(Object.keys(options).sort()).toEqual(['annotations', 'instructions', 'limits', 'mode', 'version']);
    expect(options).toMatchObject({ version: VERSION, mode: 'sprite', annotations: 'truthful' });
    expect(options.limits).toEqual(schemaLimits(c));
    expect(options.limits).toMatchObject({ defaultWorkdir: '/', maxYieldMs: 1000 });
    expect(options.instructions).toContain('Default workdir of exec_command: /.');
  });

  it('gives the spill store its folder, caps and age', () => {
    expect(
      spillOptions(config(['--spill-dir', '/tmp/x', '--spill-cap-bytes', '1234', '--spill-max-age-ms', '60000', '--spill-folder-max-bytes', '99999'])),
    ).toEqual({ parentDir: '/tmp/x', capBytes: 1234, maxAgeMs: 60000, folderMaxBytes: 99999 });
    expect(spillOptions(config([])).folderMaxBytes).toBe(256 * 1024 * 1024);
    expect(spillOptions(config([], { ZODEX_SPILL_DIR: '/tmp/from-env' })).parentDir).toBe('/tmp/from-env');
    expect(spillOptions(config(['--spill-dir', '/tmp/x'], { ZODEX_SPILL_DIR: '/tmp/from-env' })).parentDir).toBe('/tmp/x');
  });
});
