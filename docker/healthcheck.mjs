// The image's HEALTHCHECK, with nothing written to disk (the root filesystem may be read-only):
// it finds zodexd in /proc, reads its flags and environment the way zodexd does (flags win; the
// environment as environmentOf says), then
// asks GET /healthz on its ops listener; without one, an HTTP zodexd must accept a TCP connection,
// and a stdio zodexd is healthy while it runs. Exit 0: healthy; 1: not.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const ZODEXD = '/app/dist/cli/zodexd.js';
const TIMEOUT_MS = 3_000;

// zodexd makes itself non-dumpable (it erases its secrets and closes its /proc files, even to its
// own user), so its /proc/PID/environ is readable only to root. Then the check's own environment
// stands in: a HEALTHCHECK runs with the container's, the one the entrypoint started zodexd with.
function environmentOf(pid) {
  try {
    const entries = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  } catch {
    return process.env;
  }
}

function zodexd() {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf(ZODEXD);
      if (at === -1) continue;
      return { args: argv.slice(at + 1), env: environmentOf(pid) };
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

function flag(args, name) {
  let value;
  args.forEach((arg, i) => {
    if (arg === name) value = args[i + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

function hostPort(address) {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) };
}

const found = zodexd();
if (!found) process.exit(1);
const { args, env } = found;
const ops = flag(args, '--ops-listen') ?? (env.ZODEX_OPS_LISTEN || undefined);
const transport = flag(args, '--transport') ?? env.ZODEX_TRANSPORT ?? 'stdio';
const listen = flag(args, '--listen') ?? env.ZODEX_LISTEN;
const fail = () => process.exit(1);
setTimeout(fail, TIMEOUT_MS).unref();

if (ops) {
  const { host, port } = hostPort(ops);
  http
    .get({ host, port, path: '/healthz', headers: { host: `${host.includes(':') ? `[${host}]` : host}:${port}` } }, (res) => {
      res.resume();
      process.exit(res.statusCode === 200 ? 0 : 1);
    })
    .on('error', fail);
} else if (transport === 'http' && listen && !listen.startsWith('unix:')) {
  const socket = net.connect(hostPort(listen), () => {
    socket.destroy();
    process.exit(0);
  });
  socket.on('error', fail);
} else {
  process.exit(0);
}
