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
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <node_api.h>

#include "pidfd-syscalls.h"

napi_status define_pidfd(napi_env env, napi_value exports);

/* The errno names callers branch on; anything else is reported by number. */
static const char *errno_name(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case EINVAL: return "EINVAL";
    case EBADF: return "EBADF";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENOSYS: return "ENOSYS";
    case ENOMEM: return "ENOMEM";
    default: return "EUNKNOWN";
  }
}

/* Throws an Error whose .code is the errno name, e.g. { code: 'EPERM' }. */
static napi_value throw_errno(napi_env env, const char *call, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s failed: %s (%s, errno %d)", call, strerror(err), errno_name(err), err);
  napi_throw_error(env, errno_name(err), message);
  return NULL;
}

static int read_int_argument(napi_env env, napi_callback_info info, size_t index, int minimum, int *out) {
  size_t argc = 2;
  napi_value argv[2];
  double number;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  /* Written so that NaN fails too. */
  if (argc <= index || napi_get_value_double(env, argv[index], &number) != napi_ok || !(number >= minimum && number <= INT_MAX) ||
      (double)(int)number != number) {
    return 0;
  }
  *out = (int)number;
  return 1;
}

/* pidfdOpen(pid): number, a file descriptor (close it with fs.closeSync). */
static napi_value pidfd_open_js(napi_env env, napi_callback_info info) {
  int pid;
  if (!read_int_argument(env, info, 0, 1, &pid)) {
    napi_throw_range_error(env, NULL, "pidfdOpen: pid must be a positive integer");
    return NULL;
  }
  long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
  if (fd < 0) return throw_errno(env, "pidfd_open", errno);
  napi_value value;
  if (napi_create_int32(env, (int32_t)fd, &value) != napi_ok) return NULL;
  return value;
}

/* pidfdSendSignal(fd, signal): void. Signal 0 checks that the process still
 * exists and may be signalled, as kill(pid, 0). */
static napi_value pidfd_send_signal_js(napi_env env, napi_callback_info info) {
  int fd;
  int signal;
  if (!read_int_argument(env, info, 0, 0, &fd) || !read_int_argument(env, info, 1, 0, &signal) || signal >= NSIG) {
    napi_throw_range_error(env, NULL, "pidfdSendSignal: fd must be a descriptor and signal a signal number");
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
