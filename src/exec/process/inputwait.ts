// Is a command waiting for someone to type? Decided from the kernel's view of its processes,
// never from what it printed. Linux only: elsewhere createInputProbe() returns undefined.
// Flow: the tree under zodex-spawn -> every thread asleep? -> some thread blocked on the session's
// terminal: read/readv on it, epoll_wait on an epoll that watches it for input, or poll/select
// while the terminal is the only descriptor that could block (pointer args are unreadable) ->
// is that wait bounded? A program that waits on the terminal with a timeout (a tick loop that
// checks for a key between lines, top between redraws, vim until its swap timer) or whose main
// thread sleeps on a timer while another thread reads (it will wake and go on by itself) is only
// 'timed': the caller takes it for a prompt once the command has also printed nothing for a
// while. A wait without a timeout, in a process whose main thread is not on a timer, is 'input'.

import fs from 'node:fs';
import { descendantProcesses, readDir, readText, statFields } from './kill.js';

// Syscall numbers (/proc/PID/syscall prints the number, then the arguments in hex), and where
// each wait keeps its timeout: an int of milliseconds (negative: none) or a pointer (0: none).
interface SyscallTable {
  read: number[]; // the fd is the first argument
  epoll: number[];
  poll: number[]; // poll, ppoll: second argument is the number of pollfds
  select: number[]; // select, pselect6: first argument is the highest fd + 1
  timeoutMs: Record<number, number>; // syscall -> argument index of an int timeout in ms
  timeoutPointer: Record<number, number>; // syscall -> argument index of a timeout pointer
  sleep: number[]; // nanosleep, clock_nanosleep: always bounded
  futex: number; // bounded when its op is a wait and its timeout pointer (argument 3) is set
}

const SYSCALLS: Partial<Record<string, SyscallTable>> = {
  x64: {
    read: [0, 17, 19, 295, 327],
    epoll: [232, 281, 441],
    poll: [7, 271],
    select: [23, 270],
    timeoutMs: { 7: 2, 232: 3, 281: 3 }, // poll, epoll_wait, epoll_pwait
    timeoutPointer: { 23: 4, 270: 4, 271: 2, 441: 3, 128: 2 }, // select, pselect6, ppoll, epoll_pwait2, rt_sigtimedwait
    sleep: [35, 230],
    futex: 202,
  },
  arm64: {
    read: [63, 65, 67, 69, 286],
    epoll: [22, 441],
    poll: [73],
    select: [72],
    timeoutMs: { 22: 3 }, // epoll_pwait
    timeoutPointer: { 72: 4, 73: 2, 441: 3, 137: 2 }, // pselect6, ppoll, epoll_pwait2, rt_sigtimedwait
    sleep: [101, 115],
    futex: 98,
  },
};

// What one sleeping thread waits for: the terminal (with or without a timeout), a timer or a
// timeout elsewhere ('timed': it wakes by itself), or anything else.
type Wait = 'terminal' | 'terminal-timed' | 'timed' | 'other';

// What a look found: a prompt ('input'), a wait on the terminal that ends by itself ('timed'), or neither.
export type InputState = 'input' | 'timed' | 'none';

// Descriptors on which poll/select never block (regular files, directories, /dev/null and
// kin): they cannot be what a sleeping process waits for.
function alwaysReady(fdPath: string): boolean {
  try {
    const stat = fs.statSync(fdPath);
    if (stat.isFile() || stat.isDirectory()) return true;
  } catch {
    return false;
  }
  return /^\/dev\/(null|zero|full|u?random)$/.test(link(fdPath) ?? '');
}

export interface InputProbe {
  // 'input': every thread asleep, one blocked on the terminal without a timeout, in a process
  // whose main thread is not on a timer; 'timed': every thread asleep and one waits on the
  // terminal, but the command may go on by itself; 'none': otherwise (or not known).
  check(): InputState;
}

function link(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}

// The state letter and controlling terminal (tty_nr) from a stat line.
function stateAndTty(stat: string): { state: string; tty: string } {
  const fields = statFields(stat);
  return { state: fields[0] ?? '?', tty: fields[4] ?? '0' };
}

class LinuxInputProbe implements InputProbe {
  private terminal: { path: string; tty: string } | undefined;

  constructor(
    private readonly leader: number,
    private readonly table: SyscallTable,
  ) {}

  private sessionTerminal(): { path: string; tty: string } | undefined {
    if (this.terminal) return this.terminal;
    const path = link(`/proc/${this.leader}/fd/0`);
    const stat = readText(`/proc/${this.leader}/stat`);
    if (!path?.startsWith('/dev/pts/') || !stat) return undefined;
    return (this.terminal = { path, tty: stateAndTty(stat).tty });
  }

  check(): InputState {
    const terminal = this.sessionTerminal();
    if (!terminal) return 'none';
    let found: InputState = 'none';
    for (const pid of descendantProcesses(this.leader)) {
      if (pid === this.leader) continue; // zodex-spawn, the reporter, waits for the shell
      const stat = readText(`/proc/${pid}/stat`);
      if (!stat) continue; // ended meanwhile
      const isTerminal = (fd: string) => {
        const target = link(`/proc/${pid}/fd/${fd}`);
        return target === terminal.path || (target === '/dev/tty' && stateAndTty(stat).tty === terminal.tty);
      };
      let blocked = false; // a thread of this process blocked on the terminal without a timeout
      let onTerminal = false;
      let mainTimed = false; // its main thread will wake by itself
      for (const task of readDir(`/proc/${pid}/task`)) {
        const state = stateAndTty(readText(`/proc/${pid}/task/${task}/stat`) ?? 'x) Z').state;
        if (state === 'R' || state === 'D' || state === 'W') return 'none'; // working
        if (state !== 'S' || found === 'input') continue;
        const syscall = readText(`/proc/${pid}/task/${task}/syscall`);
        const wait = syscall === undefined ? 'other' : this.classify(pid, syscall, isTerminal);
        if (wait === 'terminal') blocked = true;
        if (wait === 'terminal' || wait === 'terminal-timed') onTerminal = true;
        if (task === String(pid) && (wait === 'timed' || wait === 'terminal-timed')) mainTimed = true;
      }
      if (blocked && !mainTimed) found = 'input';
      else if (onTerminal && found === 'none') found = 'timed';
    }
    return found;
  }

  private classify(pid: number, syscall: string, isTerminal: (fd: string) => boolean): Wait {
    const [nr, ...args] = syscall.trim().split(' ');
    const number = Number(nr);
    const arg = (i: number) => Number.parseInt(args[i] ?? '', 16);
    // An int argument: the low 32 bits of the register (-1 may be printed sign-extended to 64).
    const int = (i: number) => Number.parseInt((args[i] ?? '').replace(/^0x/, '').slice(-8), 16) | 0;
    const { timeoutMs, timeoutPointer } = this.table;
    // A timeout in ms is an int (negative: none); a timeout pointer is set or 0 (none).
    const bounded =
      this.table.sleep.includes(number) ||
      (number in timeoutMs && int(timeoutMs[number]!) >= 0) ||
      (number in timeoutPointer && arg(timeoutPointer[number]!) !== 0) ||
      (number === this.table.futex && [0, 9].includes(arg(1) & 0x7f) && arg(3) !== 0); // FUTEX_WAIT(_BITSET) with a timeout
    const onTerminal = this.waitsOnTerminal(pid, number, arg, isTerminal);
    if (onTerminal) return bounded ? 'terminal-timed' : 'terminal';
    return bounded ? 'timed' : 'other';
  }

  private waitsOnTerminal(pid: number, number: number, arg: (i: number) => number, isTerminal: (fd: string) => boolean): boolean {
    if (this.table.read.includes(number)) return isTerminal(String(arg(0)));
    if (this.table.epoll.includes(number)) return this.epollWatches(pid, arg(0), isTerminal);
    const poll = this.table.poll.includes(number);
    if (!poll && !this.table.select.includes(number)) return false;
    if (poll ? arg(1) === 0 : arg(0) === 0) return false; // a plain sleep
    return this.onlyTerminalCanBlock(pid, poll ? Infinity : arg(0), isTerminal);
  }

  // An epoll descriptor's fdinfo lists what it watches: "tfd: N events: MASK ...".
  private epollWatches(pid: number, epfd: number, isTerminal: (fd: string) => boolean): boolean {
    const info = readText(`/proc/${pid}/fdinfo/${epfd}`) ?? '';
    for (const match of info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)) {
      if ((Number.parseInt(match[2]!, 16) & 0x1) !== 0 && isTerminal(match[1]!)) return true; // EPOLLIN
    }
    return false;
  }

  // poll/select arguments are pointers: which descriptors they watch cannot be read without
  // ptrace. Exact only in one case: among the descriptors they could watch (select: those below
  // nfds), the session's terminal is the only one on which a wait can block.
  private onlyTerminalCanBlock(pid: number, below: number, isTerminal: (fd: string) => boolean): boolean {
    let terminal = false;
    for (const fd of readDir(`/proc/${pid}/fd`)) {
      if (Number(fd) >= below) continue;
      if (isTerminal(fd)) terminal = true;
      else if (!alwaysReady(`/proc/${pid}/fd/${fd}`)) return false;
    }
    return terminal;
  }
}

// Whether this kernel shows /proc/PID/syscall, read once (not on every command's start).
let syscallsReadable: boolean | undefined;

// A probe for the command led by `leader` (zodex-spawn), or undefined where none can be made.
export function createInputProbe(leader: number): InputProbe | undefined {
  const table = SYSCALLS[process.arch];
  if (process.platform !== 'linux' || !table) return undefined;
  // Whether the file exists (no CONFIG_HAVE_ARCH_TRACEHOOK: it does not), not whether zodexd can
  // read its own: a non-dumpable zodexd (app/secrets.ts) cannot, while its commands' stay readable.
  syscallsReadable ??= fs.existsSync('/proc/self/syscall');
  return syscallsReadable ? new LinuxInputProbe(leader, table) : undefined;
}
