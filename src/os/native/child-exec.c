/*
 * The fork and exec of every child the addon starts (child-exec.h), in the
 * steps and the order of libuv's uv_spawn, so a child started here and one
 * started by node:child_process begin alike: the same signal state, the same
 * descriptors, the same user, the same failure reported the same way.
 */
#define _GNU_SOURCE /* pipe2 */
#include "child-exec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "napi-util.h"

/* "spawnChild: path": a function's name and an argument's, for the messages. */
#define ARGUMENT_NAME_MAX 64

static const char *argument_name(char *buffer, const char *function, const char *argument) {
  snprintf(buffer, ARGUMENT_NAME_MAX, "%s: %s", function, argument);
  return buffer;
}

bool read_option(napi_env env, napi_value options, const char *property, napi_value *value) {
  return napi_get_named_property(env, options, property, value) == napi_ok;
}

bool read_child_exec(napi_env env, napi_value options, const char *function, struct child_exec *exec) {
  char name[ARGUMENT_NAME_MAX];
  napi_value uid, gid, path, argv, envp, cwd;
  memset(exec, 0, sizeof *exec);
  return read_object(env, options, argument_name(name, function, "options")) && read_option(env, options, "uid", &uid) &&
         read_option(env, options, "gid", &gid) && read_option(env, options, "path", &path) && read_option(env, options, "argv", &argv) &&
         read_option(env, options, "envp", &envp) && read_option(env, options, "cwd", &cwd) &&
         read_integer(env, uid, argument_name(name, function, "uid"), -1, UINT32_MAX - 1, &exec->uid) &&
         read_integer(env, gid, argument_name(name, function, "gid"), -1, UINT32_MAX - 1, &exec->gid) &&
         read_string(env, path, argument_name(name, function, "path"), &exec->path) &&
         read_strings(env, argv, argument_name(name, function, "argv"), &exec->argv) &&
         read_strings(env, envp, argument_name(name, function, "envp"), &exec->envp) &&
         read_string(env, cwd, argument_name(name, function, "cwd"), &exec->cwd);
}

void free_child_exec(struct child_exec *exec) {
  free(exec->path);
  free(exec->cwd);
  free_strings(exec->argv);
  free_strings(exec->envp);
  exec->path = exec->cwd = NULL;
  exec->argv = exec->envp = NULL;
}

/* The exit status of a child whose exec failed, as a shell gives it; only
 * await_exec sees it (it reaps that child), the errno is what it reports. */
#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126
/* What runs a file that is neither a binary nor a `#!` script. */
#define SHELL "/bin/sh"

/* The steps of a child's setup, in order; what the exec-failure pipe carries
 * (an index: the child may not allocate) with the errno, and what the
 * parent's error names as its syscall. */
enum setup_step { STEP_EXEC, STEP_PIPES, STEP_STDIN, STEP_CWD, STEP_SETGID, STEP_SETUID };
static const char *const STEP_NAMES[] = {"exec", "pipes", "stdin", "cwd", "setgid", "setuid"};

struct step_report {
  int step;
  int err;
};

/* Signal state as a new process expects it: every disposition back to its
 * default (Node ignores SIGPIPE; the terminal mode ignores SIGTTOU and
 * SIGTTIN), every signal unblocked just before exec. Until then every signal
 * stays blocked, as it was across the fork, so none of the parent's handlers
 * runs here meanwhile: libuv's would write to the signal pipe it shares with
 * the parent (which would then hear of a signal it never got),
 * signal-forward.c's would pass a signal on to the app. */
static void reset_dispositions(void) {
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  /* Failures are expected and harmless: SIGKILL and SIGSTOP, and the two
   * real-time signals glibc keeps for its threads. */
  for (int n = 1; n < NSIG; n++) sigaction(n, &default_action, NULL);
}

/* Node's tty streams reopen the terminal with O_CLOEXEC and O_NONBLOCK over
 * fds 0-2: the child must inherit them, blocking, as libuv makes them for its
 * own children. stdin from /dev/null when asked, as libuv opens it for 'ignore'. */
static int set_up_stdio(bool null_stdin) {
  for (int std = 0; std <= 2; std++) {
    if (std == 0 && null_stdin) {
      int null = open("/dev/null", O_RDONLY);
      if (null == -1) return errno;
      if (null != 0) {
        if (dup2(null, 0) == -1) return errno;
        close(null);
      }
      continue;
    }
    fcntl(std, F_SETFD, 0);
    int flags = fcntl(std, F_GETFL);
    if (flags != -1) fcntl(std, F_SETFL, flags & ~O_NONBLOCK);
  }
  return 0;
}

/* Each pipe's write end onto its descriptor, as libuv's child init does it:
 * first every write end, and the exec-failure pipe, moved above all the
 * targets (close-on-exec copies), so that no dup2 onto a target can close one
 * still to be placed (a readiness fd N may be the number a write end or
 * *report happens to have). dup2 clears close-on-exec on the target; the
 * copies close at exec. */
static int place_pipes(const struct child_exec *exec, int *report) {
  if (exec->pipe_count == 0) return 0;
  int floor = 3;
  for (int each = 0; each < exec->pipe_count; each++) {
    if (exec->pipe_to[each] >= floor) floor = exec->pipe_to[each] + 1;
  }
  int moved_report = fcntl(*report, F_DUPFD_CLOEXEC, floor);
  if (moved_report == -1) return errno;
  *report = moved_report;
  int moved[CHILD_PIPES_MAX];
  for (int each = 0; each < exec->pipe_count; each++) {
    moved[each] = fcntl(exec->pipe_from[each], F_DUPFD_CLOEXEC, floor);
    if (moved[each] == -1) return errno;
  }
  for (int each = 0; each < exec->pipe_count; each++) {
    if (dup2(moved[each], exec->pipe_to[each]) == -1) return errno;
  }
  return 0;
}

/* After fork, before exec: only async-signal-safe calls (the parent is
 * multi-threaded). The step that failed and its errno go to the pipe. */
static void exec_child(const struct child_exec *exec, char **shell_argv, int report) {
  reset_dispositions();
  if (exec->place != NULL) exec->place(exec->context);
  struct step_report failed = {STEP_PIPES, place_pipes(exec, &report)};
  if (failed.err == 0) failed = (struct step_report){STEP_STDIN, set_up_stdio(exec->null_stdin)};
  if (failed.err == 0 && exec->cwd[0] != '\0' && chdir(exec->cwd) != 0) failed = (struct step_report){STEP_CWD, errno};
  /* As libuv: clearing the supplementary groups fails unless privileged, and
   * then there are none we could drop; the setgid and setuid that follow are
   * what must not fail. */
  if (failed.err == 0 && (exec->uid >= 0 || exec->gid >= 0)) setgroups(0, NULL);
  if (failed.err == 0 && exec->gid >= 0 && setgid((gid_t)exec->gid) != 0) failed = (struct step_report){STEP_SETGID, errno};
  if (failed.err == 0 && exec->uid >= 0 && setuid((uid_t)exec->uid) != 0) failed = (struct step_report){STEP_SETUID, errno};
  if (failed.err == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* path is the program as execvp would pass it (prepare-spawn.ts): the
     * name as written when it has a slash, so a script's interpreter gets
     * `./crash.sh` in its argv, and ps shows what the user wrote. */
    execve(exec->path, exec->argv, exec->envp);
    failed = (struct step_report){STEP_EXEC, errno};
    /* A file the kernel cannot run (an executable script without a `#!` line)
     * is run by /bin/sh, as glibc's execvp does for node:child_process's
     * children, so a process starts the same on both paths. When there is no
     * shell either, the file's own failure is the one to report. */
    if (failed.err == ENOEXEC && shell_argv != NULL) execve(SHELL, shell_argv, exec->envp);
  }
  while (write(report, &failed, sizeof failed) == -1 && errno == EINTR) {
  }
  _exit(failed.step == STEP_EXEC && failed.err == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE);
}

/* The argv of `/bin/sh PATH ARGS…` for a file execve refuses as ENOEXEC
 * (glibc's execvp's own), made before the fork: the child may not allocate.
 * NULL when out of memory: the child then reports ENOEXEC as it is. */
static char **shell_argv_for(const struct child_exec *exec) {
  size_t count = 0;
  while (exec->argv[count] != NULL) count++;
  /* The shell, the path, the arguments after argv[0], the NULL. */
  char **argv = calloc(count + 3, sizeof *argv);
  if (argv == NULL) return NULL;
  argv[0] = (char *)SHELL;
  argv[1] = (char *)exec->path;
  for (size_t each = 1; each < count; each++) argv[each + 1] = exec->argv[each];
  return argv;
}

pid_t fork_child(const struct child_exec *exec, int *report) {
  /* The classic exec-failure pipe: closed by a successful exec (CLOEXEC),
   * carries errno otherwise. */
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  char **shell_argv = shell_argv_for(exec);
  /* Blocked across the fork, as libuv's uv_spawn does (see reset_dispositions);
   * the parent's mask is back at once, so a signal arriving meanwhile only waits. */
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = fork();
  if (pid == 0) exec_child(exec, shell_argv, pipe_fds[1]);
  int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  free(shell_argv);
  close(pipe_fds[1]);
  if (pid == -1) {
    close(pipe_fds[0]);
    errno = fork_error;
    return -1;
  }
  *report = pipe_fds[0];
  return pid;
}

struct exec_failure await_exec(pid_t pid, int report) {
  struct step_report failed = {STEP_EXEC, 0};
  ssize_t got;
  do {
    got = read(report, &failed, sizeof failed);
  } while (got == -1 && errno == EINTR);
  close(report);
  if (got != (ssize_t)sizeof failed || failed.step < STEP_EXEC || failed.step > STEP_SETUID) return (struct exec_failure){0, NULL};
  /* Reaped here, synchronously: no reaper pass runs meanwhile (they run on
   * the event loop this call holds), so the status is ours to take. */
  int status;
  while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
  }
  return (struct exec_failure){failed.err, STEP_NAMES[failed.step]};
}
