/*
 * Unix sockets with kernel-checked credentials, which node:dgram and node:net
 * cannot give:
 *
 * - the notify socket (systemd's sd_notify protocol): a datagram Unix socket,
 *   which node:dgram does not support at all, read with SO_PASSCRED so each
 *   message carries its sender's pid, uid and gid (SCM_CREDENTIALS) as the
 *   kernel saw them. Descriptors a sender attaches (SCM_RIGHTS: systemd-notify's
 *   BARRIER=1 sends one and waits until it is closed) are handed to JS, which
 *   closes them once the messages before them are handled.
 * - the control socket: a stream socket listening, its connections accepted,
 *   and the peer of each: getsockopt(SO_PEERCRED).
 *
 * Readiness of a descriptor is watched with a libuv poll handle on Node's own
 * loop (uv_poll_*, exported by the node binary; declared here because N-API
 * ships no uv.h). A thread blocked in recvmsg would do too, but costs a thread
 * per socket and a queue to bound; a poll handle costs nothing while idle, and
 * the JS callback drains a bounded number of messages per wake-up, so a flood
 * can neither block the loop nor grow memory: the rest waits in the kernel's
 * socket buffer, whose size the kernel bounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "napi-util.h"
#include "uv-declarations.h"

/* A notify message is a few short assignments; systemd reads up to 4 KiB too (NOTIFY_BUFFER_MAX is larger, but only for fd names). */
#define MESSAGE_MAX 4096
/* systemd-notify attaches one descriptor; more than this are closed unseen. */
#define FDS_MAX 8
/* The most a datagram can carry (SCM_MAX_FD): room for all, so that none is
 * closed by the kernel, which would close it without close_if_socket. */
#define FDS_CARRIED_MAX 253

/* path into address; false with a RangeError pending when it cannot hold it. */
static bool read_socket_path(napi_env env, napi_value value, const char *name, struct sockaddr_un *address) {
  char *path;
  if (!read_string(env, value, name, &path)) return false;
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  size_t length = strlen(path);
  if (length > 0 && length < sizeof address->sun_path - 1) memcpy(address->sun_path, path, length);
  free(path);
  if (length == 0 || length >= sizeof address->sun_path - 1) {
    char message[256];
    snprintf(message, sizeof message, "%s must be a non-empty string shorter than 107 bytes", name);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
    return false;
  }
  return true;
}

/* A Unix socket of `type` bound at address, non-blocking and close-on-exec
 * (no child inherits it), SO_PASSCRED on before the bind when asked, and
 * listening with `backlog` when it is 0 or more. Its fd; on a failure the
 * socket is closed and the call that failed thrown. */
static napi_value bind_socket(napi_env env, int type, const struct sockaddr_un *address, bool pass_credentials, int backlog) {
  int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  int on = 1;
  const char *failed = NULL;
  if (pass_credentials && setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) failed = "setsockopt(SO_PASSCRED)";
  else if (bind(fd, (const struct sockaddr *)address, sizeof *address) != 0) failed = "bind";
  else if (backlog >= 0 && listen(fd, backlog) != 0) failed = "listen";
  if (failed != NULL) {
    int err = errno;
    close(fd);
    return throw_errno(env, failed, err);
  }
  napi_value result;
  if (napi_create_int32(env, fd, &result) != napi_ok) {
    close(fd);
    return NULL;
  }
  return result;
}

/* unixDgramBind(path): fd. A datagram socket bound at path, with SO_PASSCRED on. */
static napi_value unix_dgram_bind(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct sockaddr_un address;
  if (!read_args(env, info, 1, argv) || !read_socket_path(env, argv[0], "unixDgramBind: path", &address)) return NULL;
  return bind_socket(env, SOCK_DGRAM, &address, true, -1);
}

/* unixStreamListen(path, backlog): fd. A stream socket listening at path (the
 * control socket). Not node:net's Server: its listen() loads the cluster
 * module, and with it child_process and dgram, which a plain run otherwise
 * never loads. */
static napi_value unix_stream_listen(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  struct sockaddr_un address;
  int backlog;
  if (!read_args(env, info, 2, argv) || !read_socket_path(env, argv[0], "unixStreamListen: path", &address) ||
      !read_int(env, argv[1], "unixStreamListen: backlog", 0, INT_MAX, &backlog)) {
    return NULL;
  }
  return bind_socket(env, SOCK_STREAM, &address, false, backlog);
}

/* unixAccept(fd): fd | undefined. One waiting connection of listening socket
 * fd, non-blocking and close-on-exec; undefined when none is waiting (or the
 * one that was gave up meanwhile). Never blocks. */
static napi_value unix_accept(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int fd;
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "unixAccept: fd", 0, INT_MAX, &fd)) return NULL;
  int accepted;
  do {
    accepted = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  } while (accepted == -1 && errno == EINTR);
  if (accepted == -1) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) return NULL;
    return throw_errno(env, "accept4", errno);
  }
  napi_value result;
  if (napi_create_int32(env, accepted, &result) != napi_ok) {
    close(accepted);
    return NULL;
  }
  return result;
}

/* Whatever a sender attaches is closed on the event loop. Closing the last
 * copy of a socket that has unsent data and SO_LINGER set blocks for the
 * linger time, which the sender chooses: seconds of PID 1 not answering
 * signals. So a socket is closed here and now, abortively (linger 0, which
 * returns at once), rather than handed to JS to close after the messages
 * before it: the sender, which keeps its own copy, gets no time to set a
 * linger again in between. (Its copy closes abortively too if it is the last:
 * sidecar-init keeps no descriptor it is sent, and a sender that sends a socket
 * it still uses asks for that.) A barrier (systemd-notify's BARRIER=1) is a
 * pipe, and pipes, FIFOs and local files never block in close; a file on FUSE
 * or NFS may. True when fd was a socket, now closed. */
static bool close_if_socket(int fd) {
  struct stat status;
  if (fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) return false;
  struct linger abortive = {.l_onoff = 1, .l_linger = 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  close(fd);
  return true;
}

/* unixDgramReceive(fd): { data: Buffer, pid, uid, gid, fds: number[], truncated }
 * or undefined when nothing is waiting. Never blocks (MSG_DONTWAIT). A message
 * without credentials has pid 0 (cannot happen with SO_PASSCRED on). */
static napi_value unix_dgram_receive(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int fd;
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "unixDgramReceive: fd", 0, INT_MAX, &fd)) return NULL;
  char data[MESSAGE_MAX];
  union {
    char buffer[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * FDS_CARRIED_MAX)];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
  struct msghdr message = {0};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof control.buffer;
  ssize_t size = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (size < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return NULL;
    return throw_errno(env, "recvmsg", errno);
  }
  struct ucred credentials = {0, (uid_t)-1, (gid_t)-1};
  int fds[FDS_MAX];
  int fd_count = 0;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET) continue;
    if (header->cmsg_type == SCM_CREDENTIALS && header->cmsg_len >= CMSG_LEN(sizeof credentials)) {
      memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
    } else if (header->cmsg_type == SCM_RIGHTS) {
      int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int index = 0; index < count; index++) {
        int received;
        memcpy(&received, CMSG_DATA(header) + index * sizeof(int), sizeof received);
        if (close_if_socket(received)) continue;
        /* Kept for JS to close in order; any beyond the bound are closed here. */
        if (fd_count < FDS_MAX) fds[fd_count++] = received;
        else close(received);
      }
    }
  }
  /* With room for the most a datagram carries, the kernel closes no descriptor of ours (MSG_CTRUNC). */
  napi_value result, buffer, list;
  void *bytes;
  int truncated = (message.msg_flags & MSG_TRUNC) != 0;
  if (napi_create_object(env, &result) != napi_ok ||
      napi_create_buffer_copy(env, (size_t)size, data, &bytes, &buffer) != napi_ok ||
      napi_set_named_property(env, result, "data", buffer) != napi_ok || set_number(env, result, "pid", credentials.pid) != napi_ok ||
      set_number(env, result, "uid", (int64_t)credentials.uid) != napi_ok ||
      set_number(env, result, "gid", (int64_t)credentials.gid) != napi_ok || napi_create_array(env, &list) != napi_ok) {
    for (int index = 0; index < fd_count; index++) close(fds[index]);
    return NULL;
  }
  for (int index = 0; index < fd_count; index++) {
    napi_value number;
    napi_create_int32(env, fds[index], &number);
    napi_set_element(env, list, (uint32_t)index, number);
  }
  napi_value flag;
  napi_get_boolean(env, truncated, &flag);
  napi_set_named_property(env, result, "fds", list);
  napi_set_named_property(env, result, "truncated", flag);
  return result;
}

/* peerCredentials(fd): { pid, uid, gid } of a connected Unix stream socket's
 * peer, as the kernel recorded them at connect(2): SO_PEERCRED. */
static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int fd;
  if (!read_args(env, info, 1, argv) || !read_int(env, argv[0], "peerCredentials: fd", 0, INT_MAX, &fd)) return NULL;
  struct ucred credentials;
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return throw_errno(env, "getsockopt(SO_PEERCRED)", errno);
  napi_value result;
  if (napi_create_object(env, &result) != napi_ok || set_number(env, result, "pid", credentials.pid) != napi_ok ||
      set_number(env, result, "uid", (int64_t)credentials.uid) != napi_ok || set_number(env, result, "gid", (int64_t)credentials.gid) != napi_ok) {
    return NULL;
  }
  return result;
}

/* A non-blocking, close-on-exec stream socket connected to path, or -1 with
 * the exception pending: the socket's or the connect's errno. A Unix connect
 * never waits (no EINPROGRESS): it succeeds or fails at once. */
static int connect_stream(napi_env env, napi_value path, const char *name) {
  struct sockaddr_un address;
  if (!read_socket_path(env, path, name, &address)) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw_errno(env, "socket", errno);
    return -1;
  }
  if (connect(fd, (const struct sockaddr *)&address, sizeof address) != 0) {
    int err = errno;
    close(fd);
    throw_errno(env, "connect", err);
    return -1;
  }
  return fd;
}

/* unixConnectAndClose(path): undefined. Connects to path and closes the
 * socket at once; throws the connect's errno (ECONNREFUSED: a socket file
 * nobody listens on; EAGAIN: a listener with a full backlog). The whole check
 * of a socket file left by an earlier run, without node:net. */
static napi_value unix_connect_and_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!read_args(env, info, 1, argv)) return NULL;
  int fd = connect_stream(env, argv[0], "unixConnectAndClose: path");
  if (fd >= 0) close(fd);
  return NULL;
}

/* unixConnect(path): fd. A socket connected to path, for `ctl`: its peer's
 * credentials (peerCredentials) are checked before anything is written to
 * it, which node:net's connect cannot give (it exposes no descriptor).
 * Throws the connect's errno (ENOENT, ECONNREFUSED, EACCES, EAGAIN: a full
 * backlog). */
static napi_value unix_connect(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!read_args(env, info, 1, argv)) return NULL;
  int fd = connect_stream(env, argv[0], "unixConnect: path");
  if (fd < 0) return NULL;
  napi_value result;
  if (napi_create_int32(env, fd, &result) != napi_ok) {
    close(fd);
    return NULL;
  }
  return result;
}

/* One watched descriptor: the poll handle (allocated at libuv's size) and the JS callback. */
typedef struct {
  napi_env env;
  napi_ref callback;
  napi_async_context context;
  uv_poll_t *handle;
  int closed;
} watch_t;

static void on_handle_closed(uv_handle_t *handle) {
  free(handle);
}

static void on_ready(uv_poll_t *handle, int status, int events) {
  (void)status;
  (void)events;
  /* The first field of every libuv handle is `void *data`. */
  watch_t *watch = *(watch_t **)handle;
  if (watch == NULL || watch->closed) return;
  napi_env env = watch->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback;
  if (napi_get_reference_value(env, watch->callback, &callback) == napi_ok && callback != NULL) {
    call_js(env, watch->context, callback, 0, NULL);
  }
  napi_close_handle_scope(env, scope);
}

static void stop_watch(watch_t *watch) {
  if (watch->closed) return;
  watch->closed = 1;
  uv_poll_stop(watch->handle);
  *(void **)watch->handle = NULL;
  uv_close((uv_handle_t *)watch->handle, on_handle_closed);
  napi_delete_reference(watch->env, watch->callback);
  napi_async_destroy(watch->env, watch->context);
}

static napi_value watch_close(napi_env env, napi_callback_info info) {
  watch_t *watch;
  if (napi_get_cb_info(env, info, NULL, NULL, NULL, (void **)&watch) != napi_ok || watch == NULL) return NULL;
  stop_watch(watch);
  return NULL;
}

static void finalize_watch(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  watch_t *watch = data;
  /* A watch dropped without close() is closed here; its memory goes either way. */
  stop_watch(watch);
  free(watch);
}

/* A watch of fd for `events` (SIDECAR_UV_READABLE or SIDECAR_UV_WRITABLE),
 * calling callback (no arguments) on Node's loop each time fd is ready, until
 * close(); close before closing fd. The handle is unref'd: it never keeps the
 * process alive by itself. `what` and `callback` name the function and its
 * argument in its errors. */
static napi_value start_watch(napi_env env, napi_callback_info info, int events, const char *what, const char *callback) {
  napi_value argv[2];
  int fd;
  char fd_name[64], callback_name[64], failed[96];
  snprintf(fd_name, sizeof fd_name, "%s: fd", what);
  snprintf(callback_name, sizeof callback_name, "%s: %s", what, callback);
  if (!read_args(env, info, 2, argv) || !read_int(env, argv[0], fd_name, 0, INT_MAX, &fd) ||
      !read_function(env, argv[1], callback_name)) {
    return NULL;
  }
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, (struct uv_loop_s **)&loop) != napi_ok) return NULL;
  watch_t *watch = calloc(1, sizeof *watch);
  uv_poll_t *handle = calloc(1, uv_handle_size(SIDECAR_UV_POLL));
  if (watch == NULL || handle == NULL) {
    free(watch);
    free(handle);
    return throw_errno(env, "calloc", ENOMEM);
  }
  int err = uv_poll_init(loop, handle, fd);
  if (err != 0) {
    free(watch);
    free(handle);
    /* libuv's errors are negated errnos on Linux. */
    return throw_errno(env, "uv_poll_init", -err);
  }
  *(watch_t **)handle = watch;
  watch->env = env;
  watch->handle = handle;
  napi_value name, object, close_function;
  if (napi_create_reference(env, argv[1], 1, &watch->callback) != napi_ok ||
      napi_create_string_utf8(env, "sidecar-init:readable", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_object(env, &object) != napi_ok || napi_async_init(env, object, name, &watch->context) != napi_ok ||
      napi_create_function(env, "close", NAPI_AUTO_LENGTH, watch_close, watch, &close_function) != napi_ok ||
      napi_set_named_property(env, object, "close", close_function) != napi_ok ||
      napi_wrap(env, object, watch, finalize_watch, NULL, NULL) != napi_ok) {
    /* Not wrapped, so no finalizer will: the handle is already on the loop and must be closed. */
    if (watch->callback != NULL) napi_delete_reference(env, watch->callback);
    if (watch->context != NULL) napi_async_destroy(env, watch->context);
    *(void **)handle = NULL;
    uv_close((uv_handle_t *)handle, on_handle_closed);
    free(watch);
    snprintf(failed, sizeof failed, "%s: could not set up the watch", what);
    return throw_message(env, failed);
  }
  uv_unref((uv_handle_t *)handle);
  err = uv_poll_start(handle, events, on_ready);
  if (err != 0) {
    stop_watch(watch);
    return throw_errno(env, "uv_poll_start", -err);
  }
  return object;
}

/* watchReadable(fd, onReadable): { close() }. Each time fd is readable (a
 * connection or a datagram waiting). */
static napi_value watch_readable(napi_env env, napi_callback_info info) {
  return start_watch(env, info, SIDECAR_UV_READABLE, "watchReadable", "onReadable");
}

/* watchWritable(fd, onWritable): { close() }. Each time fd can take more
 * bytes: the log's non-blocking pipe, after a write it could not take whole
 * (NonBlockingSink in src/output/queued-sink.ts). */
static napi_value watch_writable(napi_env env, napi_callback_info info) {
  return start_watch(env, info, SIDECAR_UV_WRITABLE, "watchWritable", "onWritable");
}

napi_status define_unix_socket(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"unixDgramBind", NULL, unix_dgram_bind, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unixDgramReceive", NULL, unix_dgram_receive, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unixStreamListen", NULL, unix_stream_listen, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unixAccept", NULL, unix_accept, NULL, NULL, NULL, napi_enumerable, NULL},
    {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unixConnectAndClose", NULL, unix_connect_and_close, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unixConnect", NULL, unix_connect, NULL, NULL, NULL, napi_enumerable, NULL},
    {"watchReadable", NULL, watch_readable, NULL, NULL, NULL, napi_enumerable, NULL},
    {"watchWritable", NULL, watch_writable, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
