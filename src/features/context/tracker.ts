// One conversation's memory of what context it has been given: the global part rides on its
// first result, the workdir part on its first successful invocation in each workdir.

import fs from 'node:fs';
import path from 'node:path';
import type { ContextOptions } from './options.js';
import { globalContext, workdirContext } from './render.js';

export interface ContextReaders {
  globalContext: (options: ContextOptions) => string | undefined;
  workdirContext: (workdir: string, options: ContextOptions) => string | undefined;
}

function workdirKey(workdir: string): string {
  try {
    return fs.realpathSync(workdir);
  } catch {
    return path.resolve(workdir);
  }
}

export class ConversationContext {
  private globalGiven = false;
  private readonly workdirsGiven = new Set<string>();

  constructor(
    private readonly options: ContextOptions,
    private readonly readers: ContextReaders = { globalContext, workdirContext },
  ) {}

  // The zodex_context for one tool result, or undefined. `workdir` is the invocation's workdir
  // (for write_stdin: its session's cwd); `succeeded` is false for an error result.
  forResult(result: { workdir?: string; succeeded: boolean }): string | undefined {
    const parts: string[] = [];
    if (!this.globalGiven) {
      this.globalGiven = true;
      const text = this.readers.globalContext(this.options);
      if (text) parts.push(text);
    }
    if (result.succeeded && result.workdir && this.options.workdirEnabled) {
      const key = workdirKey(result.workdir);
      if (!this.workdirsGiven.has(key)) {
        this.workdirsGiven.add(key);
        const text = this.readers.workdirContext(result.workdir, this.options);
        if (text) parts.push(text);
      }
    }
    return parts.length ? parts.join('\n\n') : undefined;
  }
}
