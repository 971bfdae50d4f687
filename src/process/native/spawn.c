/*
 * Sidecars, init steps and the app, started here rather than by
 * node:child_process whenever none of their output passes through
 * sidecar-init: loading child_process at every start brings net, dgram and
 * the streams (each compiled from source under --jitless), and a child
 * started here is reaped by the reaper's pass (child-watch.c) like any
 * other, so libuv owns none of them. Output that is piped (prefix, json, a
 * log probe) and an fd:N readiness pipe still go through child_process
 * (src/process/spawn-libuv.ts).
 */
#include <errno.h>
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

/* spawnChild(path, argv, envp, cwd, uid, gid, nullStdin): number. Forks and
 * execs path in a session of its own with argv and exactly envp, in cwd, as
 * uid and gid (-1: unchanged; a gid clears the supplementary groups), stdout
 * and stderr inherited, stdin inherited or from /dev/null. Returns its pid
 * once exec has succeeded; throws with the errno of a failed fork, or of the
 * chdir, setgid, setuid or exec that failed (the child is reaped here then). */
static napi_value spawn_child(napi_env env, napi_callback_info info) {
  napi_value args[7];
  struct child_exec exec = {0};
  napi_value result = NULL;
  if (!read_args(env, info, 7, args) || !read_child_exec(env, args, "spawnChild", &exec) ||
      !read_boolean(env, args[6], "spawnChild: nullStdin", &exec.null_stdin)) {
    goto done;
  }
  exec.place = enter_session;
  int report;
  pid_t pid = fork_child(&exec, &report);
  if (pid == -1) {
    throw_errno(env, "fork", errno);
    goto done;
  }
  int err = await_exec(pid, report);
  if (err != 0) {
    throw_errno(env, "exec", err);
    goto done;
  }
  napi_create_int32(env, pid, &result);
done:
  free_child_exec(&exec);
  return result;
}

napi_status define_spawn(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"spawnChild", NULL, spawn_child, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
