/*
 * zodex-spawn: the first process on every zodex PTY. It exists so that no output is lost.
 *
 * node-pty on Linux loses the tail of a command's output when the command exits right after
 * writing: the terminal's slave side closes, node-pty sees the child exit and destroys its read
 * stream 200 ms later (or on EIO), and whatever the kernel still held is gone (node-pty #72,
 * #85, #726). So zodexd never lets the slave close before it has read everything:
 *
 *   zodexd --node-pty--> zodex-spawn NONCE SHELL ARGS...      (session leader, owns the PTY)
 *                           |  fork + exec
 *                           +--> SHELL ARGS...                  (same session and process group)
 *
 *   1. Output post-processing (OPOST) is turned off before the shell starts, so '\n' reaches
 *      zodexd as '\n' (not "\r\n") and the kernel's per-character output path is skipped.
 *   2. When the shell ends, zodex-spawn writes an end marker, "ESC ] 6972 ; NONCE ; STATUS BEL",
 *      to the terminal. A terminal is a FIFO: once zodexd reads the marker it holds every byte
 *      written before it.
 *   3. zodex-spawn then keeps the terminal open until zodexd, having read the marker and
 *      killed what the command left behind, closes the terminal (SIGHUP).
 *
 * It ignores SIGINT, SIGQUIT, SIGTERM and the job-control stops, so that a ^C typed into the
 * session, or a SIGTERM to the process group, ends the shell but not the reporter. SIGKILL ends
 * it like anything else; zodexd then falls back to node-pty's own exit event.
 *
 * On Linux it is also a child subreaper: orphaned descendants of the command (a daemon that left
 * with setsid included) are re-parented to it rather than to init, so zodexd finds them as its
 * descendants and kills them with the rest.
 *
 * SIGUSR2 is zodexd's kill request (kill_process, a timeout): every descendant is killed, the
 * reporter stays, and the exit is reported as usual with all output read.
 *
 * SIGHUP means nobody is left to report to: the terminal hung up or (Linux: PR_SET_PDEATHSIG)
 * zodexd itself died, even by SIGKILL. zodex-spawn then kills its whole process group, so no
 * command outlives the server that started it.
 *
 * The modes, one file each: the reporter (spawn-reporter.c, `zodex-spawn NONCE PROGRAM ARGS...`),
 * the standby that waits for its command (spawn-standby.c), the zygote that forks standbys
 * (spawn-zygote.c); the kill machinery in spawn-kill.c; bytes, frames and descriptors in
 * spawn-io.c; the command's confinement (the write mode, the sandbox: `--probe`, `--exec` and
 * `--show-policy` besides) in spawn-confine.c. The five wire formats (end marker, command frame,
 * zygote lines, signals, confinement entry) are
 * written down in PROTOCOL.md beside this file, and pinned from both sides by
 * spec/exec/wire.test.ts and spec/exec/spawn-frame.test.ts.
 *
 * Every mode first closes the file descriptors it inherited beyond 0, 1 and 2 (close_range, else
 * every entry of /proc/self/fd, else up to the descriptor limit): zodexd's other terminals and
 * sockets never reach a command, however many there are.
 */
#include "spawn.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  close_inherited();
  if (argc == 3 && strcmp(argv[1], "--zygote") == 0) return zygote(argv[0], argv[2]);
  if (argc == 2 && strcmp(argv[1], "--decode") == 0) return decode_only();
  if (argc == 2 && strcmp(argv[1], "--show-policy") == 0) return show_policy();
  if (argc >= 4 && strcmp(argv[1], "--probe") == 0) return probe(argv[2], &argv[3]);
  if (argc >= 3 && strcmp(argv[1], "--exec") == 0) return exec_confined(&argv[2]);
  if (argc < 3 || (strcmp(argv[2], "--standby") == 0 && argc != 4)) {
    fprintf(stderr, "usage: zodex-spawn NONCE PROGRAM [ARGS...] | zodex-spawn NONCE --standby SOCKET | zodex-spawn --zygote SOCKET\n"
                    "       zodex-spawn --probe DIR PROGRAM [ARGS...] | zodex-spawn --exec PROGRAM [ARGS...]\n");
    return 127;
  }
  if (strcmp(argv[2], "--standby") == 0) return standby(argv[1], argv[3]);
  prepare_reporter(argv[1]);
  run_reporter(argv[1], NULL, &argv[2], NULL);
  return 127; /* not reached */
}
