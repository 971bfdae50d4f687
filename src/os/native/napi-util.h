/*
 * What every function of the addon repeats, once: reading its arguments with
 * their types checked, throwing an Error for a failed system call, calling
 * back into JavaScript from the event loop.
 *
 * Errors follow Node's own conventions, so JavaScript handles the addon's
 * failures as it handles node:fs's: a failed system call throws an Error whose
 * `.code` is the errno name ("EPERM", "ESRCH") and `.syscall` the call; an
 * argument of the wrong type throws a TypeError (code ERR_INVALID_ARG_TYPE)
 * and one out of range a RangeError (ERR_OUT_OF_RANGE), each naming the
 * function and the argument. Every reader returns false with the exception
 * already pending: the caller returns NULL at once.
 */
#ifndef SIDECAR_INIT_NAPI_UTIL_H
#define SIDECAR_INIT_NAPI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <node_api.h>

/* The errno name of err ("EPERM"), or "EUNKNOWN" for a number Linux does not define. */
const char *errno_name(int err);

/* Throws Error("CALL failed: STRERROR (NAME, errno N)") with .code NAME and .syscall CALL. Returns NULL, for `return throw_errno(...)`. */
napi_value throw_errno(napi_env env, const char *call, int err);

/* Throws Error(message), for what is no system call's failure (out of memory, a second watch). Returns NULL. */
napi_value throw_message(napi_env env, const char *message);

/* The call's first `count` arguments into argv; those not passed read as undefined (and fail their reader). */
bool read_args(napi_env env, napi_callback_info info, size_t count, napi_value *argv);

/* An integer from minimum to maximum. `name` is what the message calls it, "reapPid: pid". */
bool read_integer(napi_env env, napi_value value, const char *name, int64_t minimum, int64_t maximum, int64_t *out);

/* An int from minimum to maximum: a pid, a descriptor, a signal number. */
bool read_int(napi_env env, napi_value value, const char *name, int minimum, int maximum, int *out);

/* A boolean. */
bool read_boolean(napi_env env, napi_value value, const char *name, bool *out);

/* An object (a Set, a Map, an array). */
bool read_object(napi_env env, napi_value value, const char *name);

/* An array, and its length. */
bool read_array(napi_env env, napi_value value, const char *name, uint32_t *length);

/* A function. */
bool read_function(napi_env env, napi_value value, const char *name);

/* A string, copied into memory the caller frees. */
bool read_string(napi_env env, napi_value value, const char *name, char **out);

/* An array of strings, copied into a NULL-terminated list (argv, envp) the caller frees with free_strings. */
bool read_strings(napi_env env, napi_value value, const char *name, char ***out);
void free_strings(char **strings);

/* object[name] = value, a number. */
napi_status set_number(napi_env env, napi_value object, const char *name, int64_t value);

/* Calls `callback` with argv, as any libuv callback into JavaScript does
 * (napi_make_callback: the microtasks run after it); an exception it throws
 * goes to the process's uncaughtException handler. Needs an open handle scope. */
void call_js(napi_env env, napi_async_context context, napi_value callback, size_t argc, napi_value *argv);

#endif
