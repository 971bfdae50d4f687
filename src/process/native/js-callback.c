#define _GNU_SOURCE
#include "js-callback.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>

void call_js(napi_env env, napi_async_context context, napi_value callback, size_t argc, napi_value *argv) {
  napi_value receiver, result;
  if (napi_get_global(env, &receiver) != napi_ok) return;
  if (napi_make_callback(env, context, receiver, callback, argc, argv, &result) == napi_ok) return;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) return;
  napi_value error;
  napi_get_and_clear_last_exception(env, &error);
  napi_fatal_exception(env, error);
}

pid_t peek_exited_child(void) {
  siginfo_t found;
  int result;
  do {
    /* WNOHANG leaves si_pid untouched when nothing has exited: zero it first. */
    memset(&found, 0, sizeof found);
    result = waitid(P_ALL, 0, &found, WEXITED | WNOHANG | WNOWAIT);
  } while (result == -1 && errno == EINTR);
  return result == -1 ? -1 : found.si_pid;
}
