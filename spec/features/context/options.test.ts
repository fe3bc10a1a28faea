import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_FLAG_OPTIONS,
  ContextConfigError,
  contextFlagsFrom,
  DEFAULT_CAPS,
  loadContextOptions,
  type LoadContextInput,
} from '../../../src/features/context/index.js';
import { tempDir } from '../store/support/temp.js';

function setup(config?: unknown) {
  const stateDir = tempDir();
  const home = tempDir();
  if (config !== undefined) fs.writeFileSync(path.join(stateDir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  const load = (input: Partial<LoadContextInput> = {}) => loadContextOptions({ stateDir, homeDir: home, env: {}, ...input });
  return { stateDir, home, load };
}

function configError(body: () => unknown): string {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(ContextConfigError);
    expect((error as ContextConfigError).code).toBe('CONFIG_INVALID');
    return (error as Error).message;
  }
  throw new Error('expected a ContextConfigError');
}

describe('context options: defaults', () => {
  it('turns everything on, reads ~/.codex, and uses the documented caps', () => {
    const { load, home } = setup();
    expect(load()).toEqual({
      codexHome: path.join(home, '.codex'),
      globalEnabled: true,
      workdirEnabled: true,
      parts: { globalInstructions: true, globalSkills: true, workdirInstructionsHint: true, workdirSkills: true },
      caps: { agentsMaxBytes: 32_768, maxSkills: 50, descriptionMaxChars: 300 },
    });
    expect(DEFAULT_CAPS).toEqual({ agentsMaxBytes: 32_768, maxSkills: 50, descriptionMaxChars: 300 });
  });
});

describe('context options: each switch, by flag, config file and default', () => {
  it.each([
    ['global', 'globalContext', 'globalEnabled'],
    ['workdir', 'workdirContext', 'workdirEnabled'],
  ] as const)('%s: flag > config file > default', (configKey, flagKey, optionKey) => {
    expect(setup().load()[optionKey]).toBe(true); // default
    const off = setup({ context: { [configKey]: false } });
    expect(off.load()[optionKey]).toBe(false); // config file
    expect(off.load({ flags: { [flagKey]: 'on' } })[optionKey]).toBe(true); // flag beats the file
    expect(setup({ context: { [configKey]: true } }).load({ flags: { [flagKey]: 'off' } })[optionKey]).toBe(false);
    expect(setup().load({ flags: { [flagKey]: 'OFF' } })[optionKey]).toBe(false);
  });

  it('finer parts and caps come from the config file', () => {
    const { load } = setup({
      context: {
        globalInstructions: false,
        globalSkills: true,
        workdirInstructionsHint: false,
        workdirSkills: false,
        agentsMaxBytes: 1024,
        maxSkills: 5,
        descriptionMaxChars: 80,
      },
    });
    expect(load()).toMatchObject({
      parts: { globalInstructions: false, globalSkills: true, workdirInstructionsHint: false, workdirSkills: false },
      caps: { agentsMaxBytes: 1024, maxSkills: 5, descriptionMaxChars: 80 },
    });
  });

  it('the Codex home: --codex-home > config > $CODEX_HOME > ~/.codex, with ~ expanded', () => {
    const { load, home } = setup({ context: { codexHome: '~/from-config' } });
    expect(load({ flags: { codexHome: '/from/flag' }, env: { CODEX_HOME: '/from/env' } }).codexHome).toBe('/from/flag');
    expect(load({ env: { CODEX_HOME: '/from/env' } }).codexHome).toBe(path.join(home, 'from-config'));
    expect(setup().load({ env: { CODEX_HOME: '/from/env' } }).codexHome).toBe('/from/env');
  });

  it('reads another file from --config or $ZODEX_CONFIG, and the flag wins', () => {
    const dir = tempDir();
    const viaFlag = path.join(dir, 'flag.json');
    const viaEnv = path.join(dir, 'env.json');
    fs.writeFileSync(viaFlag, JSON.stringify({ context: { maxSkills: 1 } }));
    fs.writeFileSync(viaEnv, JSON.stringify({ context: { maxSkills: 2 } }));
    const { load } = setup({ context: { maxSkills: 3 } });
    expect(load({ flags: { config: viaFlag }, env: { ZODEX_CONFIG: viaEnv } }).caps.maxSkills).toBe(1);
    expect(load({ env: { ZODEX_CONFIG: viaEnv } }).caps.maxSkills).toBe(2);
    expect(load().caps.maxSkills).toBe(3);
  });

  it('plugs into parseArgs', () => {
    const { values } = parseArgs({
      args: ['--global-context', 'off', '--codex-home', '/c', '--config', '/x.json', '--workdir-context', 'on'],
      options: CONTEXT_FLAG_OPTIONS,
      strict: true,
    });
    expect(contextFlagsFrom(values)).toEqual({ globalContext: 'off', workdirContext: 'on', codexHome: '/c', config: '/x.json' });
  });
});

describe('context options: clear errors', () => {
  it('names an unknown key, the key it likely meant and the known ones', () => {
    const message = configError(() => setup({ context: { gloabl: false } }).load());
    expect(message).toMatch(/config\.json is invalid: context: unknown key "gloabl" \(did you mean "global"\?\); the known keys are global, workdir, /);
  });

  it('names an unknown top-level key: a misspelt section is not silently ignored (issue 23)', () => {
    const message = configError(() => setup({ contxt: { global: false } }).load());
    expect(message).toMatch(/config\.json is invalid: \(top level\): unknown key "contxt" \(did you mean "context"\?\); the known keys are context$/);
    expect(configError(() => setup({ context: {}, theme: 'dark' }).load())).toMatch(/unknown key "theme"; the known keys are context$/);
  });

  it('names a wrong type or an out-of-range cap, with the key path', () => {
    expect(configError(() => setup({ context: { global: 'no' } }).load())).toMatch(/context\.global: .*boolean/);
    expect(configError(() => setup({ context: { maxSkills: -1 } }).load())).toMatch(/context\.maxSkills: .*>=0/);
    expect(configError(() => setup({ context: { agentsMaxBytes: 1.5 } }).load())).toMatch(/context\.agentsMaxBytes: .*int/i);
    expect(configError(() => setup({ context: { codexHome: 'relative/dir' } }).load())).toMatch(/context\.codexHome: must be an absolute path/);
    expect(configError(() => setup({ context: 'yes' }).load())).toMatch(/context: .*object/);
  });

  it('reports malformed JSON with the file name', () => {
    const { load, stateDir } = setup('{ "context": { "global": false, } }');
    const message = configError(() => load());
    expect(message).toContain(path.join(stateDir, 'config.json'));
    expect(message).toContain('is not valid JSON');
  });

  it('requires a file named explicitly, but not the default one', () => {
    const { load } = setup();
    expect(configError(() => load({ flags: { config: '/no/such/zodex.json' } }))).toMatch(/\/no\/such\/zodex\.json cannot be read \(ENOENT\)/);
    expect(() => load()).not.toThrow();
  });

  it('rejects a switch that is not on or off', () => {
    expect(configError(() => setup().load({ flags: { globalContext: 'maybe' } }))).toBe(
      '--global-context "maybe" is not on or off; write e.g. --global-context off',
    );
  });
});
