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
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <node_api.h>

napi_status define_terminal(napi_env env, napi_value exports);

static napi_value throw_errno(napi_env env, const char *call, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s failed: %s (errno %d)", call, strerror(err), err);
  napi_throw_error(env, NULL, message);
  return NULL;
}

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
  size_t argc = 1;
  napi_value arg;
  int32_t fd = 0;
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok) return NULL;
  if (argc >= 1) napi_get_value_int32(env, arg, &fd);
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

/* giveTerminal(fd, pgrp): void. Makes pgrp the foreground again (after the app
 * exits): the group that had the terminal before the app, so the last lines
 * and the shell that started us find the terminal as they left it. SIGTTOU is
 * blocked meanwhile (set_foreground). ENOTTY and friends are ignored: the
 * terminal may be gone (a hung-up session), which is not an error of ours. */
static napi_value give_terminal(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  int32_t fd = 0, pgrp = 0;
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "giveTerminal(fd, pgrp)");
    return NULL;
  }
  napi_get_value_int32(env, args[0], &fd);
  napi_get_value_int32(env, args[1], &pgrp);
  if (pgrp > 0) set_foreground(fd, pgrp);
  return NULL;
}

static char *copy_string(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text == NULL) return NULL;
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

/* A NULL-terminated copy of a JS string array (argv, envp). */
static char **copy_strings(napi_env env, napi_value array) {
  uint32_t length;
  if (napi_get_array_length(env, array, &length) != napi_ok) return NULL;
  char **strings = calloc(length + 1, sizeof *strings);
  if (strings == NULL) return NULL;
  for (uint32_t i = 0; i < length; i++) {
    napi_value element;
    if (napi_get_element(env, array, i, &element) != napi_ok || (strings[i] = copy_string(env, element)) == NULL) {
      for (uint32_t j = 0; j < i; j++) free(strings[j]);
      free(strings);
      return NULL;
    }
  }
  return strings;
}

static void free_strings(char **strings) {
  if (strings == NULL) return;
  for (char **s = strings; *s != NULL; s++) free(*s);
  free(strings);
}

/* After fork, before exec: only async-signal-safe calls (the parent is
 * multi-threaded). Any failure is written to the pipe as errno. */
static void child_exec(int fd, bool own_group, const char *path, char **argv, char **envp, const char *cwd, int uid, int gid, int report) {
  /* Signal state as a new process expects it: libuv does the same for its children. */
  for (int n = 1; n < NSIG; n++) {
    if (n != SIGKILL && n != SIGSTOP) signal(n, SIG_DFL);
  }
  /* Node's tty streams reopen the terminal with O_CLOEXEC and O_NONBLOCK over
   * fds 0-2; the app must inherit them, blocking, as libuv does for its own
   * children. */
  for (int std = 0; std <= 2; std++) {
    fcntl(std, F_SETFD, 0);
    int flags = fcntl(std, F_GETFL);
    if (flags != -1) fcntl(std, F_SETFL, flags & ~O_NONBLOCK);
  }
  if (own_group) {
    setpgid(0, 0);
    /* Also done by the parent: whichever runs first, the group is foreground before exec. */
    set_foreground(fd, getpid());
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int err = 0;
  if (cwd[0] != '\0' && chdir(cwd) != 0) err = errno;
  if (err == 0 && gid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0)) err = errno;
  if (err == 0 && uid >= 0 && setuid((uid_t)uid) != 0) err = errno;
  if (err == 0) {
    execve(path, argv, envp);
    err = errno;
  }
  while (write(report, &err, sizeof err) == -1 && errno == EINTR) {
  }
  _exit(err == ENOENT ? 127 : 126);
}

/* spawnForeground(path, argv, envp, cwd, uid, gid, fd, ownGroup): number.
 * ownGroup true: forks the app into a new process group and makes that group
 * the foreground of terminal fd. false (our group cannot be named, see the top
 * of this file): the app stays in our group, the foreground one, and we leave
 * it for a new group of our own. Either way it execs the app with stdin,
 * stdout and stderr inherited and returns its pid once exec has succeeded;
 * throws with the errno of a failed chdir, setgid, setuid or exec (the child
 * is reaped here then). uid/gid -1: unchanged. */
static napi_value spawn_foreground(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value args[8];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok) return NULL;
  if (argc < 8) {
    napi_throw_type_error(env, NULL, "spawnForeground(path, argv, envp, cwd, uid, gid, fd, ownGroup)");
    return NULL;
  }
  int32_t uid, gid, fd;
  bool own_group = true;
  napi_get_value_int32(env, args[4], &uid);
  napi_get_value_int32(env, args[5], &gid);
  napi_get_value_int32(env, args[6], &fd);
  napi_get_value_bool(env, args[7], &own_group);
  /* Everything the child needs is allocated before fork: malloc is not safe after it. */
  char *path = copy_string(env, args[0]);
  char **argv = copy_strings(env, args[1]);
  char **envp = copy_strings(env, args[2]);
  char *cwd = copy_string(env, args[3]);
  napi_value result = NULL;
  int pipe_fds[2] = {-1, -1};
  if (path == NULL || argv == NULL || envp == NULL || cwd == NULL) {
    napi_throw_error(env, NULL, "spawnForeground: out of memory");
    goto done;
  }
  /* The classic exec-failure pipe: closed by a successful exec (CLOEXEC),
   * carries errno otherwise. */
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw_errno(env, "pipe2", errno);
    goto done;
  }
  pid_t pid = fork();
  if (pid == -1) {
    throw_errno(env, "fork", errno);
    goto done;
  }
  if (pid == 0) child_exec(fd, own_group, path, argv, envp, cwd, uid, gid, pipe_fds[1]);
  close(pipe_fds[1]);
  pipe_fds[1] = -1;
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
  int err = 0;
  ssize_t got;
  do {
    got = read(pipe_fds[0], &err, sizeof err);
  } while (got == -1 && errno == EINTR);
  if (got == (ssize_t)sizeof err) {
    int status;
    while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
    }
    /* The terminal goes back to the group that had it: ours when it was
     * moved (own group); when it was not, we have left that group, which
     * keeps it. */
    if (own_group) set_foreground(fd, getpgrp());
    throw_errno(env, "exec", err);
    goto done;
  }
  napi_create_int32(env, pid, &result);
done:
  if (pipe_fds[0] != -1) close(pipe_fds[0]);
  if (pipe_fds[1] != -1) close(pipe_fds[1]);
  free(path);
  free(cwd);
  free_strings(argv);
  free_strings(envp);
  return result;
}

napi_status define_terminal(napi_env env, napi_value exports) {
  /* A write to the terminal from a background group (our log, once the app
   * has the foreground) would stop sidecar-init under `stty tostop`; ignored,
   * the write simply goes through. Children get default actions back. */
  signal(SIGTTOU, SIG_IGN);
  signal(SIGTTIN, SIG_IGN);
  napi_property_descriptor properties[] = {
    {"foregroundGroup", NULL, foreground_group, NULL, NULL, NULL, napi_enumerable, NULL},
    {"giveTerminal", NULL, give_terminal, NULL, NULL, NULL, napi_enumerable, NULL},
    {"spawnForeground", NULL, spawn_foreground, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
