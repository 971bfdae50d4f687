/*
 * pidfd_open and pidfd_send_signal, for processes sidecar-init never started
 * (a mesh proxy in a sibling container of a shared-process-namespace pod).
 * kill(pid) could hit an unrelated process that got the same PID after the
 * proxy exited and we looked it up in /proc; a pidfd refers to the one process
 * it was opened on and signalling it after it is gone fails with ESRCH.
 *
 * Called through syscall(2), not glibc's wrappers: those exist only since
 * glibc 2.36, and musl has none.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "napi-util.h"
#include "pidfd-syscalls.h"

/* pidfdOpen(pid): number, a file descriptor (close it with fs.closeSync). */
static napi_value pidfd_open_js(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int pid;
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "pidfdOpen: pid", 1, INT_MAX, &pid)) return NULL;
  long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
  if (fd < 0) return throw_errno(env, "pidfd_open", errno);
  napi_value value;
  if (napi_create_int32(env, (int32_t)fd, &value) != napi_ok) return NULL;
  return value;
}

/* pidfdSendSignal(fd, signal): void. Signal 0 checks that the process still
 * exists and may be signalled, as kill(pid, 0). */
static napi_value pidfd_send_signal_js(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int fd, signal;
  if (!read_args(env, info, 2, argv) || !read_int(env, argv[0], "pidfdSendSignal: fd", 0, INT_MAX, &fd) ||
      !read_int(env, argv[1], "pidfdSendSignal: signal", 0, NSIG - 1, &signal)) {
    return NULL;
  }
  if (syscall(SYS_pidfd_send_signal, fd, signal, NULL, 0) != 0) return throw_errno(env, "pidfd_send_signal", errno);
  return NULL;
}

napi_status define_pidfd(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"pidfdOpen", NULL, pidfd_open_js, NULL, NULL, NULL, napi_enumerable, NULL},
    {"pidfdSendSignal", NULL, pidfd_send_signal_js, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
