/*
 * The parts of the addon, each defining its functions on the module's
 * exports (addon.c calls them in turn). Each part's file includes this header,
 * so a definition that drifts from its prototype does not compile.
 */
#ifndef SIDECAR_INIT_ADDON_H
#define SIDECAR_INIT_ADDON_H

#include <node_api.h>

/* reaper.c: subreaper, reaping one pid, peeking at a zombie, _exit. */
napi_status define_reaper(napi_env env, napi_value exports);
/* child-watch.c: the reaper's pass on every SIGCHLD. */
napi_status define_child_watch(napi_env env, napi_value exports);
/* signal-forward.c: a signal for the app passed on from the signal handler. */
napi_status define_signal_forward(napi_env env, napi_value exports);
/* pidfd.c: signalling processes sidecar-init never started, through a pidfd. */
napi_status define_pidfd(napi_env env, napi_value exports);
/* spawn.c: sidecars, init steps and the app, forked and exec'd (child-exec.c), in sessions of their own. */
napi_status define_spawn(napi_env env, napi_value exports);
/* terminal.c: the app as the terminal's foreground group. */
napi_status define_terminal(napi_env env, napi_value exports);
/* unix-socket.c: datagram sockets with credentials, peer credentials, readable and writable watches. */
napi_status define_unix_socket(napi_env env, napi_value exports);
/* memory-trim.c: malloc's free pages back to the kernel once started. */
napi_status define_memory_trim(napi_env env, napi_value exports);
/* process-self.c: what sidecar-init sets on its own process: its name, its parent-death signal. */
napi_status define_process_self(napi_env env, napi_value exports);

#endif
