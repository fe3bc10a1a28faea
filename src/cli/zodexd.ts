#!/usr/bin/env node
// The zodexd bin: everything it does is composed in app/zodexd.ts (config, runtime, transport,
// signals and exit); this entry only hands it the arguments.

import { runZodexd } from '../app/zodexd.js';

runZodexd(process.argv.slice(2));
