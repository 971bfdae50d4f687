/*
 * The native part of sidecar-init: what PID 1 needs from the kernel and Node
 * does not expose. Loading it defines functions and nothing else: no signal
 * disposition, handler or process state changes until JavaScript calls one.
 * Each part is one file; addon.h lists them.
 */
#include <node_api.h>

#include "addon.h"

NAPI_MODULE_INIT() {
  if (define_reaper(env, exports) != napi_ok) return NULL;
  if (define_child_watch(env, exports) != napi_ok) return NULL;
  if (define_signal_forward(env, exports) != napi_ok) return NULL;
  if (define_pidfd(env, exports) != napi_ok) return NULL;
  if (define_spawn(env, exports) != napi_ok) return NULL;
  if (define_terminal(env, exports) != napi_ok) return NULL;
  if (define_unix_socket(env, exports) != napi_ok) return NULL;
  if (define_memory_trim(env, exports) != napi_ok) return NULL;
  if (define_process_self(env, exports) != napi_ok) return NULL;
  return exports;
}
