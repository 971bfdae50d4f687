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

/* The properties every spawn function's one options object has, { path,
 * argv, envp, cwd, uid, gid }, into exec, copied before the fork (malloc is
 * not safe after it); the rest of exec is zeroed. `function` names the caller
 * in the messages ("spawnChild: uid must be an integer"). False with the
 * exception pending; either way free_child_exec frees what was read. */
bool read_child_exec(napi_env env, napi_value options, const char *function, struct child_exec *exec);

/* options[property], read by `reader`-style callers: false with a TypeError
 * pending when options is no object. */
bool read_option(napi_env env, napi_value options, const char *property, napi_value *value);
void free_child_exec(struct child_exec *exec);

/* Forks a child that execs `exec`, every signal blocked across the fork. The
 * pid, and in *report the read end of the exec-failure pipe for await_exec;
 * -1 with errno set when the pipe or the fork failed (nothing to wait for). */
pid_t fork_child(const struct child_exec *exec, int *report);

/* What a child reports through the exec-failure pipe: the step that failed
 * and its errno. The step is what the parent's error names as its `syscall`
 * ("stdin", "cwd", "setgid", "setuid", "exec"), so JavaScript can say which
 * part of the setup failed rather than blame the program. */
struct exec_failure {
  /* 0: exec'd. */
  int err;
  const char *step;
};

/* Waits on the pipe fork_child returned until the child has exec'd (err 0)
 * or failed: then the step and its errno, the child reaped here. Closes report. */
struct exec_failure await_exec(pid_t pid, int report);

#endif
