/* Forking and executing a child, as libuv's uv_spawn does it, for the children
 * the addon starts itself: sidecars, init steps and the app (spawn.c), and the
 * app on a terminal (terminal.c). One copy of what must not differ between
 * them: the signals blocked across the fork, the signal state reset in the
 * child, the standard descriptors made inheritable and blocking, the pipes
 * put in place, the working directory, the user, the exec-failure pipe. */
#ifndef SIDECAR_INIT_CHILD_EXEC_H
#define SIDECAR_INIT_CHILD_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <node_api.h>

/* The most pipes a child gets: stdout, stderr and a readiness fd. */
#define CHILD_PIPES_MAX 3

struct child_exec {
  char *path;
  char **argv;
  char **envp;
  /* "" : the parent's. */
  char *cwd;
  /* -1: unchanged. A gid clears the supplementary groups first. */
  int64_t uid;
  int64_t gid;
  /* stdin from /dev/null (child_process's 'ignore'), else inherited. */
  bool null_stdin;
  /* Pipes the child writes to: pipe_from[i], a write end the parent made,
   * becomes descriptor pipe_to[i] (1, 2, or a readiness fd N). Every other of
   * fds 0-2 is inherited. */
  const int *pipe_from;
  const int *pipe_to;
  int pipe_count;
  /* Where the child goes before anything else of it changes (a session, a
   * process group): called in the child, so only async-signal-safe calls. */
  void (*place)(const void *context);
  const void *context;
};

/* The arguments every spawn function takes first, (path, argv, envp, cwd,
 * uid, gid), from args[0..5] into exec, copied before the fork (malloc is not
 * safe after it); the rest of exec is zeroed. `function` names the caller in
 * the messages ("spawnChild"). False with the exception pending; either way
 * free_child_exec frees what was read. */
bool read_child_exec(napi_env env, const napi_value *args, const char *function, struct child_exec *exec);
void free_child_exec(struct child_exec *exec);

/* Forks a child that execs `exec`, every signal blocked across the fork. The
 * pid, and in *report the read end of the exec-failure pipe for await_exec;
 * -1 with errno set when the pipe or the fork failed (nothing to wait for). */
pid_t fork_child(const struct child_exec *exec, int *report);

/* Waits on the pipe fork_child returned until the child has exec'd (0) or
 * failed: then the errno of the step that failed (chdir, setgid, setuid,
 * execve), the child reaped here. Closes report. */
int await_exec(pid_t pid, int report);

#endif
