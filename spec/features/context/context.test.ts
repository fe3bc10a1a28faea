import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConversationContext,
  DEFAULT_AGENTS_MAX_BYTES,
  defaultContextOptions,
  globalContext,
  workdirContext,
  type ContextOptions,
} from '../../../src/features/context/index.js';
import { readBounded } from '../../../src/features/context/files.js';
import { scanSkills } from '../../../src/features/context/skills.js';
import { tempDir } from '../store/support/temp.js';

function write(file: string, text: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function skill(dir: string, folder: string, frontMatter: string): string {
  return write(path.join(dir, folder, 'SKILL.md'), `---\n${frontMatter}\n---\n\n# ${folder}\nInstructions.\n`);
}

function options(codexHome: string, change: (o: ContextOptions) => void = () => {}): ContextOptions {
  const o = defaultContextOptions(codexHome);
  change(o);
  return o;
}

describe('global context (Codex home)', () => {
  it('carries AGENTS.md and the skill catalog', () => {
    const home = tempDir();
    write(path.join(home, 'AGENTS.md'), '# Global rules\nAlways run the tests.\n\n');
    skill(path.join(home, 'skills'), 'pdf', 'name: pdf\ndescription: Read and write PDF files.');
    skill(path.join(home, 'skills'), 'imagegen', 'name: imagegen\ndescription: >\n  Generate images\n  with the API.');
    const text = globalContext(options(home))!;
    expect(text).toBe(
      [
        `Global instructions (${path.join(home, 'AGENTS.md')}):`,
        '# Global rules',
        'Always run the tests.',
        '',
        `Skills in ${path.join(home, 'skills')} (each is a SKILL.md with instructions; open it when a task matches):`,
        `- imagegen: Generate images with the API. (file: ${path.join(home, 'skills', 'imagegen', 'SKILL.md')})`,
        `- pdf: Read and write PDF files. (file: ${path.join(home, 'skills', 'pdf', 'SKILL.md')})`,
      ].join('\n'),
    );
  });

  it('prefers AGENTS.override.md, as Codex does, unless it is empty', () => {
    const home = tempDir();
    write(path.join(home, 'AGENTS.md'), 'base rules');
    write(path.join(home, 'AGENTS.override.md'), 'override rules');
    expect(globalContext(options(home))).toContain('override rules');
    expect(globalContext(options(home))).not.toContain('base rules');
    write(path.join(home, 'AGENTS.override.md'), '');
    expect(globalContext(options(home))).toContain('base rules');
  });

  it('caps the instructions in bytes, on a character boundary, and says how much is left and where', () => {
    const home = tempDir();
    const file = write(path.join(home, 'AGENTS.md'), 'é'.repeat(100)); // 200 bytes
    const text = globalContext(options(home, (o) => (o.caps.agentsMaxBytes = 51)))!;
    expect(text).toContain('é'.repeat(25) + `\n[truncated: 150 more bytes in ${file}]`);
    expect(text).not.toContain('\uFFFD');
    expect(DEFAULT_AGENTS_MAX_BYTES).toBe(32 * 1024);
    const big = write(path.join(home, 'AGENTS.md'), 'x'.repeat(DEFAULT_AGENTS_MAX_BYTES + 10));
    expect(globalContext(options(home))).toContain(`[truncated: 10 more bytes in ${big}]`);
  });

  it('caps the number of skills and the length of each description', () => {
    const home = tempDir();
    const skills = path.join(home, 'skills');
    for (let i = 0; i < 7; i += 1) skill(skills, `s${i}`, `name: skill-${i}\ndescription: ${'word '.repeat(100)}`);
    const text = globalContext(options(home, (o) => Object.assign(o.caps, { maxSkills: 3, descriptionMaxChars: 20 })))!;
    const lines = text.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`- skill-0: ${'word '.repeat(4).trimEnd()}… (file: ${path.join(skills, 's0', 'SKILL.md')})`);
    expect(lines[3]).toBe(`- [4 more skills in ${skills} not listed]`);
  });

  it('skips malformed, incomplete and hidden skills, and folders without SKILL.md, without failing', () => {
    const home = tempDir();
    const skills = path.join(home, 'skills');
    skill(skills, 'good', 'name: good\ndescription: works');
    write(path.join(skills, 'no-front-matter', 'SKILL.md'), '# just markdown\n');
    write(path.join(skills, 'unterminated', 'SKILL.md'), '---\nname: x\ndescription: y\n');
    skill(skills, 'no-description', 'name: lonely');
    skill(skills, 'no-name', 'description: nameless');
    skill(skills, '.hidden', 'name: hidden\ndescription: secret');
    write(path.join(skills, 'binary', 'SKILL.md'), Buffer.from([0xff, 0xfe, 0x00, 0x2d, 0x2d, 0x2d]));
    fs.mkdirSync(path.join(skills, 'empty-folder'));
    fs.mkdirSync(path.join(skills, 'dir-as-skill-file', 'SKILL.md'), { recursive: true });
    write(path.join(skills, 'stray-file.md'), 'not a skill folder');
    const catalog = scanSkills(skills, { maxSkills: 50, descriptionMaxChars: 300 })!;
    expect(catalog.skills.map((s) => s.name)).toEqual(['good']);
    expect(catalog.skipped.map((s) => path.basename(path.dirname(s.file))).sort()).toEqual(
      ['binary', 'no-description', 'no-front-matter', 'no-name', 'unterminated'].sort(),
    );
    expect(globalContext(options(home))).toBe(
      `Skills in ${skills} (each is a SKILL.md with instructions; open it when a task matches):\n- good: works (file: ${path.join(skills, 'good', 'SKILL.md')})`,
    );
  });

  it('follows a symlinked skill folder', () => {
    const home = tempDir();
    const elsewhere = tempDir();
    skill(elsewhere, 'shared', 'name: shared\ndescription: linked in');
    fs.mkdirSync(path.join(home, 'skills'));
    fs.symlinkSync(path.join(elsewhere, 'shared'), path.join(home, 'skills', 'shared'));
    expect(globalContext(options(home))).toContain('- shared: linked in');
  });

  it('is undefined when there is nothing, or when switched off (wholly or by part)', () => {
    const home = tempDir();
    expect(globalContext(options(home))).toBeUndefined();
    expect(globalContext(options(path.join(home, 'does-not-exist')))).toBeUndefined();
    write(path.join(home, 'AGENTS.md'), 'rules');
    skill(path.join(home, 'skills'), 'a', 'name: a\ndescription: b');
    expect(globalContext(options(home, (o) => (o.globalEnabled = false)))).toBeUndefined();
    const noInstructions = globalContext(options(home, (o) => (o.parts.globalInstructions = false)))!;
    expect(noInstructions).not.toContain('rules');
    expect(noInstructions).toContain('- a: b');
    const noSkills = globalContext(options(home, (o) => (o.parts.globalSkills = false)))!;
    expect(noSkills).toContain('rules');
    expect(noSkills).not.toContain('- a: b');
  });
});

describe('workdir context', () => {
  it('hints at AGENTS.md and lists .agents/skills directly under the workdir', () => {
    const workdir = tempDir();
    write(path.join(workdir, 'AGENTS.md'), 'project rules: not quoted, only hinted');
    skill(path.join(workdir, '.agents', 'skills'), 'deploy', 'name: deploy\ndescription: "Ship it: build, tag, push."');
    skill(path.join(workdir, '.agents', 'skills', 'deploy'), 'nested', 'name: nested\ndescription: too deep');
    const text = workdirContext(workdir, options(tempDir()))!;
    expect(text).toBe(
      [
        `${workdir} has AGENTS.md: read ${path.join(workdir, 'AGENTS.md')} for project instructions before working here.`,
        `Skills in ${path.join(workdir, '.agents', 'skills')} (each is a SKILL.md with instructions; open it when a task matches):`,
        `- deploy: Ship it: build, tag, push. (file: ${path.join(workdir, '.agents', 'skills', 'deploy', 'SKILL.md')})`,
      ].join('\n'),
    );
    expect(text).not.toContain('project rules');
  });

  it('names AGENTS.override.md first when both exist; ignores empty files', () => {
    const workdir = tempDir();
    write(path.join(workdir, 'AGENTS.md'), 'x');
    write(path.join(workdir, 'AGENTS.override.md'), 'y');
    expect(workdirContext(workdir, options(tempDir()))).toBe(
      `${workdir} has AGENTS.override.md (it takes precedence over the AGENTS.md beside it): read ${path.join(workdir, 'AGENTS.override.md')} for project instructions before working here.`,
    );
    write(path.join(workdir, 'AGENTS.override.md'), '');
    expect(workdirContext(workdir, options(tempDir()))).toContain(`${workdir} has AGENTS.md:`);
    write(path.join(workdir, 'AGENTS.md'), '');
    expect(workdirContext(workdir, options(tempDir()))).toBeUndefined();
  });

  it('each part can be switched off', () => {
    const workdir = tempDir();
    write(path.join(workdir, 'AGENTS.md'), 'x');
    skill(path.join(workdir, '.agents', 'skills'), 'a', 'name: a\ndescription: b');
    expect(
      workdirContext(
        workdir,
        options(tempDir(), (o) => (o.workdirEnabled = false)),
      ),
    ).toBeUndefined();
    expect(
      workdirContext(
        workdir,
        options(tempDir(), (o) => (o.parts.workdirInstructionsHint = false)),
      ),
    ).not.toContain('AGENTS.md');
    expect(
      workdirContext(
        workdir,
        options(tempDir(), (o) => (o.parts.workdirSkills = false)),
      ),
    ).not.toContain('- a: b');
  });
});

describe('a conversation gets each part once', () => {
  it('global on the first result, workdir on the first success in each workdir', () => {
    const home = tempDir();
    write(path.join(home, 'AGENTS.md'), 'global rules');
    const repoA = tempDir();
    const repoB = tempDir();
    write(path.join(repoA, 'AGENTS.md'), 'a');
    write(path.join(repoB, 'AGENTS.md'), 'b');
    fs.symlinkSync(repoA, path.join(repoB, 'link-to-a'));
    const conversation = new ConversationContext(options(home));

    const first = conversation.forResult({ workdir: repoA, succeeded: false })!; // a failed first call still gets the global part
    expect(first).toContain('global rules');
    expect(first).not.toContain(`${repoA} has AGENTS.md`);
    expect(conversation.forResult({ workdir: repoA, succeeded: true })).toBe(
      `${repoA} has AGENTS.md: read ${path.join(repoA, 'AGENTS.md')} for project instructions before working here.`,
    );
    expect(conversation.forResult({ workdir: repoA, succeeded: true })).toBeUndefined();
    expect(conversation.forResult({ workdir: path.join(repoB, 'link-to-a'), succeeded: true })).toBeUndefined(); // same directory
    expect(conversation.forResult({ workdir: repoB, succeeded: true })).toContain(`${repoB} has AGENTS.md`);
    expect(conversation.forResult({ succeeded: true })).toBeUndefined();

    // A second conversation starts over.
    const other = new ConversationContext(options(home));
    const both = other.forResult({ workdir: repoB, succeeded: true })!;
    expect(both).toContain('global rules');
    expect(both).toContain(`${repoB} has AGENTS.md`);
  });

  it('reads nothing when both parts are off', () => {
    const calls: string[] = [];
    const conversation = new ConversationContext(
      options(tempDir(), (o) => Object.assign(o, { globalEnabled: false, workdirEnabled: false })),
      {
        globalContext: (o) => (calls.push('global'), globalContext(o)),
        workdirContext: (w, o) => (calls.push('workdir'), workdirContext(w, o)),
      },
    );
    expect(conversation.forResult({ workdir: tempDir(), succeeded: true })).toBeUndefined();
    expect(calls).toEqual(['global']); // asked once, answered nothing; workdir never read
  });
});

describe('bounded reads', () => {
  it('never splits a UTF-8 character', () => {
    const file = write(path.join(tempDir(), 'f'), '😀😀😀'); // 4 bytes each
    for (let max = 0; max <= 12; max += 1) {
      const read = readBounded(file, max)!;
      expect(read.text).toBe('😀'.repeat(Math.floor(max / 4)));
      expect(read.omittedBytes).toBe(12 - Math.floor(max / 4) * 4);
    }
  });

  it('is undefined for a directory or a missing file', () => {
    const dir = tempDir();
    expect(readBounded(dir, 10)).toBeUndefined();
    expect(readBounded(path.join(dir, 'missing'), 10)).toBeUndefined();
  });
});
