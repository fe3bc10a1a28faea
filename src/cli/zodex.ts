#!/usr/bin/env node
// zodex: the operator CLI. The first argument names a subcommand from COMMANDS; its module is
// loaded only when used and runs with the remaining arguments. Usage errors exit 2, failures 1.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigUsageError } from '../app/config/errors.js';
import { VERSION } from '../app/version.js';
import { CliUsageError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type CliIo, type CommandModule } from './commands/command.js';

interface CommandEntry {
  summary: string;
  load: () => Promise<CommandModule>;
}

// One line per subcommand.
export const COMMANDS: Record<string, CommandEntry> = {
  history: { summary: 'recorded tool invocations, oldest first', load: () => import('./commands/history.js') },
  agents: { summary: 'agents (MCP conversations) and their aliases', load: () => import('./commands/agents.js') },
  publisher: { summary: 'the GitHub publisher daemon: holds the write token, serves zodex-agent', load: () => import('./commands/publisher.js') },
  liveboard: { summary: 'the operator web page: agents, timelines, live sessions (input, kill)', load: () => import('./commands/liveboard.js') },
  oauth: { summary: 'zodexd --oauth: pairing codes, approved clients (grants), revoking them', load: () => import('./commands/oauth.js') },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return `Usage: zodex <command> [options]

Operator commands for zodex, the MCP shell server (zodexd).

Commands:
${lines.join('\n')}

Run zodex <command> --help for a command's options.
  -h, --help      this text
  -V, --version   the version
`;
}

export async function runZodex(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      if (name === undefined) {
        io.stderr(usage());
        return EXIT_USAGE;
      }
      io.stdout(usage());
      return EXIT_OK;
    }
    return runZodex([topic, '--help'], io);
  }
  if (name === '-V' || name === '--version') {
    io.stdout(`zodex ${VERSION}\n`);
    return EXIT_OK;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr(`zodex: unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')} (see zodex --help)\n`);
    return EXIT_USAGE;
  }
  try {
    const command = await entry.load();
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof CliUsageError || error instanceof ConfigUsageError) {
      io.stderr(`zodex ${name}: ${error.message}; see zodex ${name} --help\n`);
      return EXIT_USAGE;
    }
    io.stderr(`zodex ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    now: Date.now,
  };
}

// Run only as the program (bin symlinks resolve to this file), not when imported by tests.
function invokedAsProgram(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return fs.realpathSync(entry) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedAsProgram()) {
  process.stdout.on('error', () => process.exit(EXIT_OK)); // `zodex history | head`
  runZodex(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`zodex: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT_FAILURE;
    },
  );
}
