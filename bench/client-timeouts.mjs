// When does each MCP client give up on a long tool call, and does it send a progressToken?
// Every client calls exec_command on its own zodexd (started with --max-yield-ms 200000, so the
// server holds the call) for a command that sleeps HOLD seconds; a tap between them records what
// the client sent. A client that has not given up by then gets the result ("no timeout seen").
//
//   npm install @openai/agents@0.20.0 @ai-sdk/mcp@2.0.99 @langchain/mcp-adapters@1.1.4 \
//     mcp-remote@0.15.1 @modelcontextprotocol/sdk@1.32.2      (in a folder outside the repo)
//   CLIENTS_DIR=/that/folder [ONLY=name-part] node bench/client-timeouts.mjs [HOLD_SECONDS=130]
// Results: bench/results/client-timeouts.json. Codex CLI and Claude Code are measured in interop/.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ROOT, ZODEXD, requireBuild, round, writeResult } from './lib.mjs';

// --- tap mode: `node client-timeouts.mjs --tap LOG zodexd-args...` sits between a stdio client and zodexd
if (process.argv[2] === '--tap') {
  const [log, ...args] = process.argv.slice(3);
  const child = spawn(process.execPath, [ZODEXD, ...args], { stdio: ['pipe', 'inherit', 'ignore'] });
  let pending = '';
  process.stdin.on('data', (chunk) => {
    child.stdin.write(chunk);
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      noteCall(log, pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  process.stdin.on('end', () => child.stdin.end());
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  await main();
}

function noteCall(log, line) {
  try {
    const message = JSON.parse(line);
    for (const one of Array.isArray(message) ? message : [message]) {
      if (one.method === 'tools/call' || one.method === 'notifications/cancelled') {
        fs.appendFileSync(log, JSON.stringify({ at: Date.now(), method: one.method, progressToken: one.params?._meta?.progressToken ?? null }) + '\n');
      }
    }
  } catch {
    // not JSON: not ours to judge
  }
}

function readTap(log) {
  return fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
}

// An HTTP zodexd behind a tap that notes what each POST carried.
async function tappedHttp(log) {
  const child = spawn(process.execPath, [ZODEXD, '--transport', 'http', '--listen', '127.0.0.1:0', '--mode', 'sprite', '--max-yield-ms', '200000'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  process.once('exit', () => child.kill('SIGKILL')); // even when the client failed before close()
  const upstream = await new Promise((resolve) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /serving over http on (\S+)/.exec(text);
      if (match) resolve(new URL(match[1]));
    });
  });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) noteCall(log, body.toString('utf8'));
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      res.on('close', () => res.writableFinished || forward.destroy()); // the client dropped the request
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, close: () => (server.close(), child.kill('SIGTERM')) };
}

async function main() {
  requireBuild();
  const clientsDir = process.env.CLIENTS_DIR;
  if (!clientsDir || !fs.existsSync(path.join(clientsDir, 'node_modules'))) {
    console.error('set CLIENTS_DIR to a folder where the clients are installed (see the header of this file)');
    process.exit(2);
  }
  const holdSeconds = Number(process.argv[2] ?? 130);
  const req = createRequire(path.join(clientsDir, 'package.json'));
  const load = (name) => import(pathToFileURL(req.resolve(name)).href);
  const version = (name) => JSON.parse(fs.readFileSync(path.join(clientsDir, 'node_modules', name, 'package.json'), 'utf8')).version;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-client-timeouts-'));
  const self = path.join(ROOT, 'bench/client-timeouts.mjs');
  const serverArgs = (log) => [self, '--tap', log, '--mode', 'sprite', '--max-yield-ms', '200000'];
  const args = { cmd: `sleep ${holdSeconds}; echo done`, workdir: '/', yield_time_ms: (holdSeconds + 20) * 1000 };

  const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
  const sdkStdio = async (log, command = process.execPath, commandArgs = serverArgs(log)) => {
    const client = new Client({ name: 'client-timeouts', version: '1' });
    await client.connect(new StdioClientTransport({ command, args: commandArgs, stderr: process.env.DEBUG ? 'inherit' : 'ignore' }));
    return client;
  };

  const clients = {
    [`@modelcontextprotocol/sdk ${version('@modelcontextprotocol/sdk')} (Client.callTool, defaults)`]: async (log) => {
      const client = await sdkStdio(log);
      return { call: () => client.callTool({ name: 'exec_command', arguments: args }), close: () => client.close() };
    },
    [`@modelcontextprotocol/sdk ${version('@modelcontextprotocol/sdk')} (onprogress + resetTimeoutOnProgress)`]: async (log) => {
      const client = await sdkStdio(log);
      return {
        call: () => client.callTool({ name: 'exec_command', arguments: args }, undefined, { onprogress: () => {}, resetTimeoutOnProgress: true }),
        close: () => client.close(),
      };
    },
    [`@openai/agents ${version('@openai/agents')} (MCPServerStdio)`]: async (log) => {
      const { MCPServerStdio } = await load('@openai/agents');
      const server = new MCPServerStdio({ name: 'zodex', command: process.execPath, args: serverArgs(log) });
      await server.connect();
      return { call: () => server.callTool('exec_command', args), close: () => server.close() };
    },
    [`@ai-sdk/mcp ${version('@ai-sdk/mcp')} (createMCPClient, stdio)`]: async (log) => {
      const { createMCPClient } = await load('@ai-sdk/mcp');
      const { Experimental_StdioMCPTransport } = await load('@ai-sdk/mcp/mcp-stdio');
      const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: serverArgs(log) }) });
      const tools = await client.tools();
      return { call: () => tools.exec_command.execute(args, { toolCallId: 'call-1', messages: [] }), close: () => client.close() };
    },
    [`@langchain/mcp-adapters ${version('@langchain/mcp-adapters')} (MultiServerMCPClient, stdio)`]: async (log) => {
      const { MultiServerMCPClient } = await load('@langchain/mcp-adapters');
      const client = new MultiServerMCPClient({ mcpServers: { zodex: { transport: 'stdio', command: process.execPath, args: serverArgs(log) } } });
      const tools = await client.getTools();
      const tool = tools.find((one) => one.name.endsWith('exec_command'));
      return { call: () => tool.invoke(args), close: () => client.close() };
    },
    [`mcp-remote ${version('mcp-remote')} (stdio bridge to HTTP; its client an SDK Client with resetTimeoutOnProgress)`]: async (log) => {
      const server = await tappedHttp(log);
      const client = await sdkStdio(log, process.execPath, [req.resolve('mcp-remote/dist/proxy.js'), server.url, '--allow-http', '--transport', 'http-only']);
      return {
        call: () =>
          client.callTool({ name: 'exec_command', arguments: args }, undefined, { timeout: 600_000, onprogress: () => {}, resetTimeoutOnProgress: true }),
        close: async () => (await client.close(), server.close()),
      };
    },
    [`@modelcontextprotocol/inspector-cli ${JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/package.json'), 'utf8')).version} (--method tools/call)`]:
      async (log) => {
        const cli = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
        const toolArgs = Object.entries(args).flatMap(([key, value]) => ['--tool-arg', `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`]);
        let child;
        return {
          call: () =>
            new Promise((resolve, reject) => {
              child = spawn(
                process.execPath,
                [cli, process.execPath, ...serverArgs(log), '--method', 'tools/call', '--tool-name', 'exec_command', ...toolArgs],
                { cwd: path.dirname(cli), stdio: ['ignore', 'pipe', 'pipe'] },
              ); // it finds its package.json from the cwd
              let out = '';
              child.stdout.on('data', (chunk) => (out += chunk));
              child.stderr.on('data', (chunk) => (out += chunk));
              child.on('exit', (code) => (code === 0 && out.includes('done') ? resolve(out) : reject(new Error(`exit ${code}: ${out.slice(0, 300)}`))));
            }),
          close: () => child?.kill(),
        };
      },
  };

  const rows = await Promise.all(
    Object.entries(clients)
      .filter(([name]) => !process.env.ONLY || name.includes(process.env.ONLY))
      .map(async ([name, make], index) => {
        const log = path.join(tmp, `tap-${index}.jsonl`);
        if (process.env.DEBUG) console.error('connecting', name);
        const client = await make(log);
        if (process.env.DEBUG) console.error('connected', name);
        const started = Date.now();
        let outcome;
        try {
          await client.call();
          outcome = { gaveUp: false, afterS: round((Date.now() - started) / 1000, 1) };
        } catch (error) {
          outcome = {
            gaveUp: true,
            afterS: round((Date.now() - started) / 1000, 1),
            error: String(error?.message ?? error)
              .split('\n')[0]
              .slice(0, 160),
          };
        }
        await Promise.resolve(client.close()).catch(() => {});
        const tap = readTap(log);
        const call = tap.find((entry) => entry.method === 'tools/call');
        const row = {
          client: name,
          ...outcome,
          sentProgressToken: call ? call.progressToken !== null : null,
          sentCancelled: tap.some((entry) => entry.method === 'notifications/cancelled'),
        };
        console.log(JSON.stringify(row));
        return row;
      }),
  );
  fs.rmSync(tmp, { recursive: true, force: true });
  const file = writeResult('client-timeouts', { holdSeconds, note: 'afterS: seconds from the call to the client giving up (gaveUp) or to the result', rows });
  console.log(`wrote ${file}`);
}
