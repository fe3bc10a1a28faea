import { describe, expect, it } from 'vitest';
import { annotationsFor, instructionsFor, INSTRUCTIONS_ESSENTIAL_CHARS } from '../../src/server/instructions.js';
import { formatBytes } from '../../src/tools/schemas.js';

// Codex shows the model only the first 512 characters of the instructions.
const prefix = (text: string) => text.slice(0, INSTRUCTIONS_ESSENTIAL_CHARS);

describe('server instructions', () => {
  const startDir = `/home/${'u'.repeat(8)}/src/${'p'.repeat(40)}`; // a 58-character start directory
  it('hold the essentials of Local mode within the first 512 characters', () => {
    const text = prefix(instructionsFor({ mode: 'local', startDir, defaultWorkdir: undefined }));
    expect(text).toMatch(/^zodex remote execution tools\. /);
    for (const word of ['exec_command', 'absolute workdir', 'write_stdin', 'apply_patch', 'set_agent_alias', 'again when it changes.'])
      expect(text).toContain(word);
    expect(text).toContain(`First workdir: ${startDir} (where zodexd was started; guidance, not a boundary)`);
  });

  it('in Sprite mode name neither a start directory nor set_agent_alias', () => {
    const text = instructionsFor({ mode: 'sprite', startDir, defaultWorkdir: undefined });
    expect(text).toMatch(/^zodex remote execution tools\. /);
    expect(text).not.toContain(startDir);
    expect(text).not.toContain('set_agent_alias');
    for (const word of ['exec_command', 'write_stdin', 'apply_patch']) expect(prefix(text)).toContain(word);
  });

  it('with --default-workdir say that exec_command may omit workdir, and nothing that contradicts it', () => {
    const text = prefix(instructionsFor({ mode: 'local', startDir, defaultWorkdir: '/srv/work' }));
    expect(text).toContain('exec_command runs a shell command (pass an absolute workdir, or omit it for the default below)');
    expect(text).toContain('apply_patch edits files with a Codex-style patch (always pass an absolute workdir).');
    expect(text).toContain('Default workdir of exec_command: /srv/work.');
    expect(text).not.toMatch(/exec_command[^.;]*always pass/);
    expect(text).not.toContain(startDir);
    expect(text).toContain('set_agent_alias');
  });

  it('keep the set_agent_alias nudge within the first 512 characters whatever the start directory (issue 23)', () => {
    for (const length of [70, 150, 300, 4000]) {
      const long = `/${'d'.repeat(length - 1)}`;
      const text = prefix(instructionsFor({ mode: 'local', startDir: long, defaultWorkdir: undefined }));
      expect(text, `start directory of ${length} characters`).toContain(
        'Call set_agent_alias early with a 2-7 word label for your task, and again when it changes.',
      );
      expect(text).toContain('always pass an absolute workdir');
      expect(text).toContain('First workdir: /ddd');
    }
  });
});

describe('tool annotations', () => {
  it('all-read-only: every tool read-only, not destructive, closed world', () => {
    for (const tool of ['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias'] as const) {
      expect(annotationsFor('all-read-only', tool)).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    }
  });
  it('truthful: the acting tools are destructive, set_agent_alias stays read-only', () => {
    for (const tool of ['exec_command', 'write_stdin', 'apply_patch'] as const) {
      expect(annotationsFor('truthful', tool)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(annotationsFor('truthful', 'set_agent_alias')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });
});

describe('byte counts in descriptions', () => {
  it('print MiB, KiB or bytes, whichever is exact', () => {
    expect(formatBytes(16 * 1024 * 1024)).toBe('16 MiB');
    expect(formatBytes(16 * 1024)).toBe('16 KiB');
    expect(formatBytes(1536 * 1024)).toBe('1536 KiB');
    expect(formatBytes(1000)).toBe('1000 bytes');
  });
});
