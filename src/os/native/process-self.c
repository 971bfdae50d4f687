/*
 * What sidecar-init sets on its own process, not on a child's: its name and
 * its parent-death signal. Neither outlives a fork: the kernel gives a child
 * the name only until it execs, and no parent-death signal at all.
 *
 * setProcessName(name): void. prctl(PR_SET_NAME): the name /proc/PID/comm
 * shows, which ps, top and pgrep read. Node names its main thread
 * "MainThread" (through the same call, since thread and process names are one
 * on Linux for the thread whose tid is the pid), so without this PID 1 shows as
 * MainThread and `pgrep sidecar-init` finds nothing. Only the comm changes:
 * /proc/PID/cmdline keeps every argument (process.title would overwrite them).
 * The kernel keeps 15 bytes; longer names are cut, as the kernel does.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include <node_api.h>

#include "addon.h"
#include "napi-util.h"

static napi_value set_process_name(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  char *name;
  if (!read_args(env, info, 1, argv) || !read_string(env, argv[0], "setProcessName: name", &name)) return NULL;
  /* The calling thread's name: called from JavaScript, that is the main thread, whose name is the process's. */
  int result = prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
  int err = errno;
  free(name);
  if (result != 0) return throw_errno(env, "prctl(PR_SET_NAME)", err);
  return NULL;
}

/*
 * setParentDeathSignal(signal): void. prctl(PR_SET_PDEATHSIG): the kernel
 * sends sidecar-init `signal` when its parent exits (tini's -p). Strictly, when
 * the thread that forked it exits: a parent that started sidecar-init from a
 * thread that then ends, its process still running, sends it as well
 * (prctl(2)). A parent that died before this call sends nothing: the caller
 * compares getppid() with the parent it saw at start, after this call.
 */
static napi_value set_parent_death_signal(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int signal;
  /* From 1: 0 would clear it, and the kernel refuses anything above the last real-time signal. */
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "setParentDeathSignal: signal", 1, 64, &signal)) return NULL;
  if (prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0) != 0) return throw_errno(env, "prctl(PR_SET_PDEATHSIG)", errno);
  return NULL;
}

napi_status define_process_self(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"setProcessName", NULL, set_process_name, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setParentDeathSignal", NULL, set_parent_death_signal, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
