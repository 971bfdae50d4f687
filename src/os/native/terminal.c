/*
 * The terminal's foreground process group, for interactive use
 * (`docker run -it IMAGE bash`). The app must lead its own process group and
 * that group must be the terminal's foreground group, so that Ctrl-C and
 * Ctrl-Z reach the app alone and a shell has job control. Node cannot do it:
 * child_process either keeps the child in our group (terminal signals would
 * reach sidecar-init too) or calls setsid() (the child loses the terminal and
 * bash says "no job control in this shell"), and it runs no code between fork
 * and exec where setpgid/tcsetpgrp belong. So the app is forked here, as tini
 * does it. libuv never sees this child: the reaper waits for it (reaper.ts)
 * and hands its status back to the spawner.
 *
 * The terminal must be handed back at the end to the group that had it, or the
 * shell that started sidecar-init finds itself in the background of its own
 * terminal. That needs the group's number, and a PID namespace names only its
 * own processes: as PID 1 of a namespace made by `unshare --pid --fork` (not
 * a session leader), sidecar-init's group leader is outside and getpgrp()
 * says 0. The caller's group then cannot be given the terminal back, so it is
 * never taken from it: the app stays in that group, which keeps the
 * foreground, and sidecar-init leaves it for a group of its own, so that the
 * terminal's Ctrl-C and Ctrl-Z reach the app and not sidecar-init.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <termios.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "child-exec.h"
#include "napi-util.h"

/* tcsetpgrp from a background group sends SIGTTOU (default: stop) unless the
 * caller blocks it (tcsetpgrp(3)). */
static int set_foreground(int fd, pid_t pgrp) {
  sigset_t ttou, previous;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &previous);
  int result = tcsetpgrp(fd, pgrp);
  int saved = errno;
  sigprocmask(SIG_SETMASK, &previous, NULL);
  errno = saved;
  return result;
}

/* foregroundGroup(fd): number. The foreground process group of fd when fd is
 * our controlling terminal and our process group is that foreground group:
 * only then is there a terminal to hand to the app (stdin may be a terminal of
 * someone else, or a pipe). 0: our group is the foreground but our PID
 * namespace cannot name it (see the top of this file); -1: no terminal of ours. */
static napi_value foreground_group(napi_env env, napi_callback_info info) {
  napi_value arg;
  int fd;
  if (!read_args(env, info, 1, &arg) || !read_int(env, arg, "foregroundGroup: fd", 0, INT_MAX, &fd)) return NULL;
  pid_t group = -1;
  if (isatty(fd)) {
    pid_t foreground = tcgetpgrp(fd);
    /* In a namespace that cannot name them, both read 0; a background job reads two different numbers. */
    if (foreground != -1 && foreground == getpgrp()) group = foreground;
  }
  napi_value value;
  napi_create_int32(env, group, &value);
  return value;
}

/* isTerminal(fd): boolean. isatty(3): whether the log's stderr is a terminal
 * (text lines for a person), asked here because node:tty, Node's only isatty,
 * loads node:net and its streams with it. */
static napi_value is_terminal(napi_env env, napi_callback_info info) {
  napi_value arg;
  int fd;
  if (!read_args(env, info, 1, &arg) || !read_int(env, arg, "isTerminal: fd", 0, INT_MAX, &fd)) return NULL;
  napi_value value;
  napi_get_boolean(env, isatty(fd) == 1, &value);
  return value;
}

/* giveTerminal(fd, pgrp): void. Makes pgrp the foreground again (after the app
 * exits): the group that had the terminal before the app, so the last lines
 * and the shell that started us find the terminal as they left it. SIGTTOU is
 * blocked meanwhile (set_foreground). ENOTTY and friends are ignored: the
 * terminal may be gone (a hung-up session), which is not an error of ours. */
static napi_value give_terminal(napi_env env, napi_callback_info info) {
  napi_value args[2];
  int fd, pgrp;
  if (!read_args(env, info, 2, args) || !read_int(env, args[0], "giveTerminal: fd", 0, INT_MAX, &fd) ||
      !read_int(env, args[1], "giveTerminal: pgrp", 0, INT_MAX, &pgrp)) {
    return NULL;
  }
  if (pgrp > 0) set_foreground(fd, pgrp);
  return NULL;
}

/* ignoreTerminalStops(): void. Called once the app is to have the terminal:
 * from then on sidecar-init is a background group of it, and a write there
 * (its log) would stop it under `stty tostop` (SIGTTOU), as a read would
 * (SIGTTIN); ignored, the write simply goes through. Children get default
 * actions back (child-exec.c, and libuv for its own). Not done at load: only
 * the terminal mode needs it, and loading the addon changes nothing. */
static napi_value ignore_terminal_stops(napi_env env, napi_callback_info info) {
  (void)info;
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  if (sigaction(SIGTTOU, &ignore, NULL) != 0 || sigaction(SIGTTIN, &ignore, NULL) != 0) return throw_errno(env, "sigaction", errno);
  return NULL;
}

/* Where the app goes in the child (child-exec.h's place): its own group, made
 * the foreground, or the caller's group, as it was born. */
struct foreground_place {
  int fd;
  bool own_group;
};

static void enter_foreground(const void *context) {
  const struct foreground_place *place = context;
  if (!place->own_group) return;
  setpgid(0, 0);
  /* Also done by the parent: whichever runs first, the group is foreground before exec. */
  set_foreground(place->fd, getpid());
}

/* spawnForeground({ path, argv, envp, cwd, uid, gid, fd, ownGroup }): number.
 * ownGroup true: forks the app into a new process group and makes that group
 * the foreground of terminal fd. false (our group cannot be named, see the top
 * of this file): the app stays in our group, the foreground one, and we leave
 * it for a new group of our own. Either way it execs the app with stdin,
 * stdout and stderr inherited and returns its pid once exec has succeeded;
 * throws with the step of the setup that failed as the error's syscall ("cwd",
 * "setgid", "setuid", "exec") and its errno (the child is reaped here then).
 * uid/gid -1: unchanged. */
static napi_value spawn_foreground(napi_env env, napi_callback_info info) {
  napi_value options, fd_value, own_group_value;
  struct child_exec exec = {0};
  int fd;
  bool own_group;
  napi_value result = NULL;
  if (!read_args(env, info, 1, &options) || !read_child_exec(env, options, "spawnForeground", &exec) ||
      !read_option(env, options, "fd", &fd_value) || !read_option(env, options, "ownGroup", &own_group_value) ||
      !read_int(env, fd_value, "spawnForeground: fd", 0, INT_MAX, &fd) ||
      !read_boolean(env, own_group_value, "spawnForeground: ownGroup", &own_group)) {
    goto done;
  }
  struct foreground_place place = {fd, own_group};
  exec.place = enter_foreground;
  exec.context = &place;
  int report;
  pid_t pid = fork_child(&exec, &report);
  if (pid == -1) {
    throw_errno(env, "fork", errno);
    goto done;
  }
  if (own_group) {
    /* Both sides set the group, so neither order of running can leave a window
     * where the terminal's signals go to sidecar-init's group. */
    setpgid(pid, pid);
    set_foreground(fd, pid);
  } else {
    /* After the fork, so that the app is born in the foreground group. Until
     * here a Ctrl-C reached us too, as it did before the app started. */
    setpgid(0, 0);
  }
  struct exec_failure failed = await_exec(pid, report);
  if (failed.err != 0) {
    /* The terminal goes back to the group that had it: ours when it was
     * moved (own group); when it was not, we have left that group, which
     * keeps it. */
    if (own_group) set_foreground(fd, getpgrp());
    throw_errno(env, failed.step, failed.err);
    goto done;
  }
  napi_create_int32(env, pid, &result);
done:
  free_child_exec(&exec);
  return result;
}

napi_status define_terminal(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"ignoreTerminalStops", NULL, ignore_terminal_stops, NULL, NULL, NULL, napi_enumerable, NULL},
    {"foregroundGroup", NULL, foreground_group, NULL, NULL, NULL, napi_enumerable, NULL},
    {"isTerminal", NULL, is_terminal, NULL, NULL, NULL, napi_enumerable, NULL},
    {"giveTerminal", NULL, give_terminal, NULL, NULL, NULL, napi_enumerable, NULL},
    {"spawnForeground", NULL, spawn_foreground, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
