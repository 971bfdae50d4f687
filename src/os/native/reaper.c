/*
 * The syscalls PID 1 needs and Node does not expose: prctl, waitid and waitpid
 * for the reaper, _exit for the last step. The pass run on every SIGCHLD is in
 * child-watch.c, for its cost in a storm of orphans; the rest of deciding whom
 * to reap (the fallback when a child libuv owns blocks the pass, the final
 * sweep) is in TypeScript (reaper.ts, sweep.ts).
 */
#include <errno.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "exited-child.h"
#include "napi-util.h"

/* setChildSubreaper(): void. Orphans of our descendants are re-parented to us
 * instead of to PID 1 (prctl(2), Linux 3.4+). */
static napi_value set_child_subreaper(napi_env env, napi_callback_info info) {
  (void)info;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return throw_errno(env, "prctl(PR_SET_CHILD_SUBREAPER)", errno);
  return NULL;
}

/* reapPid(pid): number | undefined. Waits for exactly one pid, never -1 or a
 * group: waitpid(-1) would also collect the children libuv spawned, and their
 * exit events (child_process 'exit') would never fire. */
static napi_value reap_pid(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int pid;
  /* From 1: pid 0 and negatives would wait on a group. */
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "reapPid: pid", 1, INT_MAX, &pid)) return NULL;
  int status;
  pid_t result;
  do {
    result = waitpid((pid_t)pid, &status, WNOHANG);
  } while (result == -1 && errno == EINTR);
  /* 0: still running. ECHILD: not our child, or already reaped by someone else. */
  if (result == 0 || (result == -1 && errno == ECHILD)) return NULL;
  if (result == -1) return throw_errno(env, "waitpid", errno);
  napi_value value;
  if (napi_create_int32(env, status, &value) != napi_ok) return NULL;
  return value;
}

/* peekZombie(): number | undefined. The pid of one child that has exited and
 * not been waited for, left in place (WNOWAIT): the caller decides whether it is
 * ours to reap, so a child libuv owns keeps its status for libuv. The kernel
 * answers from our own children lists, so the cost follows our children, not
 * every process on the machine; undefined when there is none (or no child). */
static napi_value peek_zombie(napi_env env, napi_callback_info info) {
  (void)info;
  pid_t pid = peek_exited_child();
  if (pid == -1 && errno == ECHILD) return NULL;
  if (pid == -1) return throw_errno(env, "waitid", errno);
  if (pid == 0) return NULL;
  napi_value value;
  if (napi_create_int32(env, pid, &value) != napi_ok) return NULL;
  return value;
}

/* exitNow(code): never returns. _exit(2) skips atexit handlers and destructors:
 * libuv's joins its thread pool, and a thread stuck writing to a stalled log
 * pipe would keep PID 1 (and so the Job) alive forever. */
static napi_value exit_now(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int code;
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "exitNow: code", INT_MIN, INT_MAX, &code)) return NULL;
  /* The low byte, as process.exit and the kernel keep it. */
  _exit(code & 0xff);
}

napi_status define_reaper(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"setChildSubreaper", NULL, set_child_subreaper, NULL, NULL, NULL, napi_enumerable, NULL},
    {"reapPid", NULL, reap_pid, NULL, NULL, NULL, napi_enumerable, NULL},
    {"peekZombie", NULL, peek_zombie, NULL, NULL, NULL, napi_enumerable, NULL},
    {"exitNow", NULL, exit_now, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
