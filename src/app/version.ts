// The package's version, as zodexd and zodex report it (--version, the MCP server info).

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const VERSION: string = (require('../../package.json') as { version: string }).version;
