// Opening the state database for a subcommand: a missing database is "nothing yet" (null), any
// other failure is one line on stderr and exit code 1.

import { describeStoreFailure, databasePath, openStoreReader, StoreError, type SqliteStore } from '../../features/store/index.js';
import type { CliIo } from './command.js';

export type Opened = { store: SqliteStore } | { store: null; exitCode: number };

export function openForReading(command: string, stateDir: string, io: CliIo, whenMissing: () => void): Opened {
  try {
    return { store: openStoreReader(stateDir, { now: io.now }) };
  } catch (error) {
    if (error instanceof StoreError && error.code === 'NO_DATABASE') {
      whenMissing();
      return { store: null, exitCode: 0 };
    }
    io.stderr(`zodex ${command}: ${describeStoreFailure(error, databasePath(stateDir))}\n`);
    return { store: null, exitCode: 1 };
  }
}
