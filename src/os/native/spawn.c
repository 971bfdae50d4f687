/*
 * Sidecars, init steps and the app, started here rather than by
 * node:child_process: loading child_process at every start brings net, dgram
 * and the streams (each compiled from source under --jitless), and a child
 * started here is reaped by the reaper's pass (child-watch.c) like any
 * other, so one reaper owns every long-lived child and libuv none of them.
 * Output that passes through sidecar-init (prefix, json, a log probe,
 * capture) and an fd:N readiness pipe are pipes made here: the child gets the
 * write ends, JavaScript the read ends (src/process/spawn-piped.ts).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "child-exec.h"
#include "napi-util.h"

/* setsid(), as child_process's `detached`: the child leads a session and a
 * process group of its own, so a stop signal reaches its whole tree and a
 * terminal's Ctrl-C reaches only sidecar-init, which forwards it. */
static void enter_session(const void *context) {
  (void)context;
  setsid();
}

/* The descriptors the child is to get a pipe at (1, 2, a readiness fd N), into targets. */
static bool read_pipe_targets(napi_env env, napi_value value, int *targets, int *count) {
  uint32_t length;
  if (!read_array(env, value, "spawnChild: pipeTo", &length)) return false;
  if (length > CHILD_PIPES_MAX) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "spawnChild: pipeTo holds at most 3 descriptors (stdout, stderr, a readiness fd)");
    return false;
  }
  for (uint32_t each = 0; each < length; each++) {
    napi_value element;
    if (napi_get_element(env, value, each, &element) != napi_ok ||
        !read_int(env, element, "spawnChild: pipeTo[]", 1, INT_MAX, &targets[each])) {
      return false;
    }
  }
  *count = (int)length;
  return true;
}

static void close_all(const int *fds, int count) {
  for (int each = 0; each < count; each++) close(fds[each]);
}

/* { pid, pipes }: the read ends, in the order of pipeTo. */
static napi_value spawned(napi_env env, pid_t pid, const int *read_ends, int count) {
  napi_value result, pipes;
  if (napi_create_object(env, &result) != napi_ok || set_number(env, result, "pid", pid) != napi_ok ||
      napi_create_array_with_length(env, (size_t)count, &pipes) != napi_ok) {
    return NULL;
  }
  for (int each = 0; each < count; each++) {
    napi_value fd;
    if (napi_create_int32(env, read_ends[each], &fd) != napi_ok || napi_set_element(env, pipes, (uint32_t)each, fd) != napi_ok) return NULL;
  }
  if (napi_set_named_property(env, result, "pipes", pipes) != napi_ok) return NULL;
  return result;
}

/* spawnChild({ path, argv, envp, cwd, uid, gid, nullStdin, pipeTo }): { pid, pipes }.
 * Forks and execs path in a session of its own with argv and exactly envp,
 * in cwd, as uid and gid (-1: unchanged; a gid clears the supplementary
 * groups), stdin inherited or from /dev/null, and a pipe's write end at each
 * descriptor of pipeTo (1, 2, a readiness fd N); stdout and stderr not in it
 * are inherited. Returns once exec has succeeded: its pid, and in pipes the
 * read end of each pipe, non-blocking and close-on-exec (no later child
 * inherits one, so each sees end-of-file when its own child's writers are
 * gone), for JavaScript to read and close. Throws with the errno of a failed
 * pipe2 or fork, or with the step of the child's setup that failed as the
 * error's syscall ("pipes", "stdin", "cwd", "setgid", "setuid", "exec") and
 * its errno (the child is reaped here then, and every pipe closed). */
static napi_value spawn_child(napi_env env, napi_callback_info info) {
  napi_value options, null_stdin, pipe_to;
  struct child_exec exec = {0};
  int targets[CHILD_PIPES_MAX], read_ends[CHILD_PIPES_MAX], write_ends[CHILD_PIPES_MAX];
  int count = 0, opened = 0;
  napi_value result = NULL;
  if (!read_args(env, info, 1, &options) || !read_child_exec(env, options, "spawnChild", &exec) ||
      !read_option(env, options, "nullStdin", &null_stdin) || !read_option(env, options, "pipeTo", &pipe_to) ||
      !read_boolean(env, null_stdin, "spawnChild: nullStdin", &exec.null_stdin) || !read_pipe_targets(env, pipe_to, targets, &count)) {
    goto done;
  }
  for (; opened < count; opened++) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      throw_errno(env, "pipe2", errno);
      goto done;
    }
    read_ends[opened] = fds[0];
    write_ends[opened] = fds[1];
  }
  exec.place = enter_session;
  exec.pipe_from = write_ends;
  exec.pipe_to = targets;
  exec.pipe_count = count;
  int report;
  pid_t pid = fork_child(&exec, &report);
  int fork_error = errno;
  /* The child has its copies; ours would keep each pipe from ever ending. */
  close_all(write_ends, opened);
  if (pid == -1) {
    throw_errno(env, "fork", fork_error);
    close_all(read_ends, opened);
    opened = 0;
    goto done;
  }
  struct exec_failure failed = await_exec(pid, report);
  if (failed.err != 0) {
    throw_errno(env, failed.step, failed.err);
    close_all(read_ends, opened);
    opened = 0;
    goto done;
  }
  /* Blocking only in the child: a read here must never stall PID 1. */
  for (int each = 0; each < count; each++) fcntl(read_ends[each], F_SETFL, fcntl(read_ends[each], F_GETFL) | O_NONBLOCK);
  result = spawned(env, pid, read_ends, count);
  /* Once handed over they are JavaScript's to close; if they could not be, nobody else will. */
  if (result == NULL) close_all(read_ends, count);
  opened = 0;
done:
  if (opened > 0) {
    close_all(read_ends, opened);
    close_all(write_ends, opened);
  }
  free_child_exec(&exec);
  return result;
}

napi_status define_spawn(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"spawnChild", NULL, spawn_child, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
