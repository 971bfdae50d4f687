/*
 * The few libuv declarations the addon needs, as in uv.h (libuv 1.x, a stable
 * ABI): the functions are exported by the node binary, but N-API ships no
 * uv.h. The handle type numbers are uv_handle_type's, for uv_handle_size.
 */
#ifndef SIDECAR_UV_DECLARATIONS_H
#define SIDECAR_UV_DECLARATIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct uv_loop_s uv_loop_t;
typedef struct uv_handle_s uv_handle_t;
typedef struct uv_async_s uv_async_t;
typedef struct uv_poll_s uv_poll_t;
typedef struct uv_signal_s uv_signal_t;
typedef struct uv_timer_s uv_timer_t;
typedef void (*uv_async_cb)(uv_async_t *handle);
typedef void (*uv_poll_cb)(uv_poll_t *handle, int status, int events);
typedef void (*uv_signal_cb)(uv_signal_t *handle, int signum);
typedef void (*uv_timer_cb)(uv_timer_t *handle);
typedef void (*uv_close_cb)(uv_handle_t *handle);

size_t uv_handle_size(int type);
void uv_close(uv_handle_t *handle, uv_close_cb close_cb);
void uv_unref(uv_handle_t *handle);
uint64_t uv_now(const uv_loop_t *loop);
int uv_async_init(uv_loop_t *loop, uv_async_t *handle, uv_async_cb cb);
/* Async-signal-safe (libuv's documentation): a signal handler may call it. */
int uv_async_send(uv_async_t *handle);
int uv_poll_init(uv_loop_t *loop, uv_poll_t *handle, int fd);
int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb);
int uv_poll_stop(uv_poll_t *handle);
int uv_signal_init(uv_loop_t *loop, uv_signal_t *handle);
int uv_signal_start(uv_signal_t *handle, uv_signal_cb cb, int signum);
int uv_signal_stop(uv_signal_t *handle);
int uv_timer_init(uv_loop_t *loop, uv_timer_t *handle);
int uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout, uint64_t repeat);
int uv_timer_stop(uv_timer_t *handle);

#define SIDECAR_UV_ASYNC 1    /* UV_ASYNC */
#define SIDECAR_UV_POLL 8     /* UV_POLL */
#define SIDECAR_UV_TIMER 13   /* UV_TIMER */
#define SIDECAR_UV_SIGNAL 16  /* UV_SIGNAL */
#define SIDECAR_UV_READABLE 1 /* UV_READABLE in uv_poll_event */
#define SIDECAR_UV_WRITABLE 2 /* UV_WRITABLE in uv_poll_event */

#endif
