/*
 * What the addon's libuv callbacks share: calling into JavaScript from the
 * event loop, and peeking at an exited child.
 */
#ifndef SIDECAR_JS_CALLBACK_H
#define SIDECAR_JS_CALLBACK_H

#include <stddef.h>
#include <sys/types.h>

#include <node_api.h>

/* Calls `callback` with argv, as any libuv callback into JavaScript does
 * (napi_make_callback: the microtasks run after it); an exception it throws
 * goes to the process's uncaughtException handler. Needs an open handle scope. */
void call_js(napi_env env, napi_async_context context, napi_value callback, size_t argc, napi_value *argv);

/* The pid of one exited child, left unreaped (waitid with WNOWAIT); 0 when none
 * has exited; -1 with errno set on failure (ECHILD: no child at all). */
pid_t peek_exited_child(void);

#endif
