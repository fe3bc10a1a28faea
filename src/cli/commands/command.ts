// The contract between `zodex` (../zodex.ts) and its subcommands: a module exporting `usage`
// and `run(argv, io)` that returns the exit code. Output goes through `io` so tests can capture it.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  now(): number;
}

export interface CommandModule {
  usage: string; // full help text of the subcommand, ending with a newline
  run(argv: string[], io: CliIo): Promise<number> | number;
}

// A mistake on the command line: printed as one line, exit code 2.
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
