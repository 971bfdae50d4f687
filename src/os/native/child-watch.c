/*
 * The reaper's pass on every SIGCHLD, done here rather than in JavaScript.
 * Each orphan that dies is one SIGCHLD; here a pass is a few syscalls per
 * zombie, at most PASS_MAX per turn of the loop (a burst of thousands never
 * holds it), and JavaScript hears of what was reaped in batches: at once after
 * a quiet spell or when a child it claimed (the app on a terminal) is among
 * them, else at most once per interval while a storm lasts. Measured
 * (bench/reap-storm.ts), this took a few percent off a storm's cost to PID 1:
 * most of it is Node's own work per wake-up, which stays.
 *
 * Whom to reap is decided as before (reaper.ts): every exited child but those
 * libuv owns, whose exit status libuv must get. The registry of those is the
 * JavaScript Set the spawner keeps, asked here with Set.prototype.has (a
 * builtin: no JavaScript runs). A zombie libuv owns at the head of the list
 * blocks the pass (waitid cannot skip it): JavaScript is told at once, and its
 * own pass reaps the rest by pid.
 *
 * The signal and timer handles are libuv's, on Node's loop, unref'd: they never
 * keep the process alive by themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <node_api.h>

#include "addon.h"
#include "exited-child.h"
#include "napi-util.h"
#include "uv-declarations.h"

/* Zombies reaped in one pass; the rest in the next turn of the loop, so that a
 * burst of thousands never holds the loop (signals, probes) for long. */
#define PASS_MAX 1024

typedef struct {
  napi_env env;
  uv_loop_t *loop;
  napi_ref owned;
  napi_ref has;
  napi_ref claimed;
  napi_ref claimed_has;
  napi_ref callback;
  napi_async_context context;
  uv_signal_t *signal;
  uv_timer_t *timer;
  uint64_t interval_ms;
  uint64_t last_delivery;
  /* [pid, status, pid, status, ...] reaped and not yet handed to JavaScript. */
  int32_t *pending;
  size_t pending_len;
  size_t pending_cap;
  bool blocked;
  bool more;
  /* A claimed child (its exit is awaited) was reaped: hand over now. */
  bool urgent;
  /* Inside the JavaScript callback, which may stop the watch: it is then freed after the callback returns. */
  bool delivering;
  bool released;
} child_watch_t;

/* One per process: there is one reaper. */
static child_watch_t *active = NULL;

static void free_handle(uv_handle_t *handle) {
  free(handle);
}

static void release(napi_env env, child_watch_t *watch) {
  napi_async_destroy(env, watch->context);
  free(watch->pending);
  free(watch);
}

/* A watch whose setup failed part-way: what was made of it so far (the watch is calloc'd: NULL is not made). */
static void discard(napi_env env, child_watch_t *watch) {
  napi_ref *refs[] = {&watch->owned, &watch->has, &watch->claimed, &watch->claimed_has, &watch->callback};
  for (size_t index = 0; index < sizeof refs / sizeof refs[0]; index++) {
    if (*refs[index] != NULL) napi_delete_reference(env, *refs[index]);
  }
  if (watch->context != NULL) napi_async_destroy(env, watch->context);
  free(watch);
}

/* Room for one more pair, made before a child is reaped: a status once taken is never dropped. */
static bool reserve(child_watch_t *watch) {
  if (watch->pending_len + 2 <= watch->pending_cap) return true;
  size_t cap = watch->pending_cap == 0 ? 64 : watch->pending_cap * 2;
  int32_t *grown = realloc(watch->pending, cap * sizeof *grown);
  if (grown == NULL) return false;
  watch->pending = grown;
  watch->pending_cap = cap;
  return true;
}

/* collection.has(pid), with its own builtin `has` (no JavaScript runs); `unsure` when it cannot be asked. */
static bool has_pid(napi_env env, napi_value collection, napi_value has, pid_t pid, bool unsure) {
  napi_value argument, result;
  bool yes = unsure;
  if (napi_create_int32(env, pid, &argument) != napi_ok) return unsure;
  if (napi_call_function(env, collection, has, 1, &argument, &result) != napi_ok) return unsure;
  if (napi_get_value_bool(env, result, &yes) != napi_ok) return unsure;
  return yes;
}

static void run_pass(child_watch_t *watch) {
  napi_env env = watch->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value owned, has, claimed, claimed_has;
  if (napi_get_reference_value(env, watch->owned, &owned) != napi_ok ||
      napi_get_reference_value(env, watch->has, &has) != napi_ok ||
      napi_get_reference_value(env, watch->claimed, &claimed) != napi_ok ||
      napi_get_reference_value(env, watch->claimed_has, &claimed_has) != napi_ok) {
    watch->blocked = true;
    napi_close_handle_scope(env, scope);
    return;
  }
  watch->more = false;
  for (int reaped = 0;; reaped++) {
    if (reaped == PASS_MAX) {
      watch->more = true;
      break;
    }
    pid_t pid = peek_exited_child();
    if (pid <= 0) break; /* none exited, or no child at all (ECHILD) */
    /* Unsure means owned: a status libuv waits for is never taken. */
    if (has_pid(env, owned, has, pid, true) || !reserve(watch)) {
      watch->blocked = true;
      break;
    }
    int status;
    pid_t got;
    do {
      got = waitpid(pid, &status, WNOHANG);
    } while (got == -1 && errno == EINTR);
    /* Cannot happen for a zombie just seen; JavaScript's pass looks again. */
    if (got <= 0) {
      watch->blocked = true;
      break;
    }
    watch->pending[watch->pending_len++] = pid;
    watch->pending[watch->pending_len++] = status;
    if (has_pid(env, claimed, claimed_has, pid, false)) watch->urgent = true;
  }
  napi_close_handle_scope(env, scope);
}

static void deliver(child_watch_t *watch, uint64_t now) {
  napi_env env = watch->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  size_t count = watch->pending_len;
  bool blocked = watch->blocked;
  void *data = NULL;
  napi_value buffer, pairs, flag, callback;
  if (napi_create_arraybuffer(env, count * sizeof(int32_t), &data, &buffer) != napi_ok ||
      napi_create_typedarray(env, napi_int32_array, count, buffer, 0, &pairs) != napi_ok ||
      napi_get_boolean(env, blocked, &flag) != napi_ok || napi_get_reference_value(env, watch->callback, &callback) != napi_ok) {
    napi_close_handle_scope(env, scope);
    return;
  }
  if (count > 0) memcpy(data, watch->pending, count * sizeof(int32_t));
  watch->pending_len = 0;
  watch->blocked = false;
  watch->urgent = false;
  watch->last_delivery = now;
  napi_value argv[2] = {pairs, flag};
  watch->delivering = true;
  call_js(env, watch->context, callback, 2, argv);
  watch->delivering = false;
  if (watch->released) release(env, watch);
  napi_close_handle_scope(env, scope);
}

static void on_timer(uv_timer_t *timer);

/* After a pass: hand over now when due, else when the interval is over; pass again next turn if one stopped at PASS_MAX. */
static void settle(child_watch_t *watch) {
  uint64_t now = uv_now(watch->loop);
  bool waiting = watch->pending_len > 0 || watch->blocked;
  if (waiting && (watch->blocked || watch->urgent || now - watch->last_delivery >= watch->interval_ms)) {
    deliver(watch, now);
    /* The callback may have stopped the watch (and freed it). */
    if (active != watch) return;
    waiting = false;
  }
  if (watch->more) {
    uv_timer_start(watch->timer, on_timer, 0, 0);
  } else if (waiting) {
    uv_timer_start(watch->timer, on_timer, watch->last_delivery + watch->interval_ms - now, 0);
  }
}

static void on_timer(uv_timer_t *timer) {
  child_watch_t *watch = *(child_watch_t **)timer; /* the first field of every libuv handle is `void *data` */
  if (watch == NULL || watch != active) return;
  if (watch->more) run_pass(watch);
  settle(watch);
}

static void on_sigchld(uv_signal_t *signal, int signum) {
  (void)signum;
  child_watch_t *watch = *(child_watch_t **)signal;
  if (watch == NULL || watch != active) return;
  run_pass(watch);
  settle(watch);
}

/* watchChildren(owned: Set<number>, claimed: Map<number, …>, onReaped(pairs: Int32Array, blocked: boolean), intervalMs): void */
static napi_value watch_children(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  napi_value has, claimed_has;
  int64_t interval;
  if (!read_args(env, info, 4, argv)) return NULL;
  if (active != NULL) return throw_message(env, "watchChildren: already watching");
  /* Their own `has`, looked up once: the pass calls it with no JavaScript run. */
  if (!read_object(env, argv[0], "watchChildren: owned") || napi_get_named_property(env, argv[0], "has", &has) != napi_ok ||
      !read_function(env, has, "watchChildren: owned.has") || !read_object(env, argv[1], "watchChildren: claimed") ||
      napi_get_named_property(env, argv[1], "has", &claimed_has) != napi_ok ||
      !read_function(env, claimed_has, "watchChildren: claimed.has") || !read_function(env, argv[2], "watchChildren: onReaped") ||
      !read_integer(env, argv[3], "watchChildren: intervalMs", 0, INT32_MAX, &interval)) {
    return NULL;
  }
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, (struct uv_loop_s **)&loop) != napi_ok) return throw_message(env, "watchChildren: no event loop");

  child_watch_t *watch = calloc(1, sizeof *watch);
  uv_signal_t *signal = calloc(1, uv_handle_size(SIDECAR_UV_SIGNAL));
  uv_timer_t *timer = calloc(1, uv_handle_size(SIDECAR_UV_TIMER));
  napi_value name;
  if (watch == NULL || signal == NULL || timer == NULL) {
    free(watch);
    free(signal);
    free(timer);
    return throw_message(env, "watchChildren: out of memory");
  }
  watch->env = env;
  watch->loop = loop;
  watch->interval_ms = (uint64_t)interval;
  watch->signal = signal;
  watch->timer = timer;
  if (napi_create_reference(env, argv[0], 1, &watch->owned) != napi_ok ||
      napi_create_reference(env, has, 1, &watch->has) != napi_ok ||
      napi_create_reference(env, argv[1], 1, &watch->claimed) != napi_ok ||
      napi_create_reference(env, claimed_has, 1, &watch->claimed_has) != napi_ok ||
      napi_create_reference(env, argv[2], 1, &watch->callback) != napi_ok ||
      napi_create_string_utf8(env, "sidecar-init:reaper", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, NULL, name, &watch->context) != napi_ok) {
    discard(env, watch);
    free(signal);
    free(timer);
    return throw_message(env, "watchChildren: could not set up the watch");
  }
  int err = uv_signal_init(loop, signal);
  if (err != 0) {
    discard(env, watch);
    free(signal);
    free(timer);
    /* libuv's errors are negated errnos on Linux. */
    return throw_errno(env, "uv_signal_init", -err);
  }
  /* Cannot fail on Linux (it only fills in the handle); the close below needs it initialised either way. */
  uv_timer_init(loop, timer);
  *(child_watch_t **)signal = watch;
  *(child_watch_t **)timer = watch;
  uv_unref((uv_handle_t *)signal);
  uv_unref((uv_handle_t *)timer);
  err = uv_signal_start(signal, on_sigchld, SIGCHLD);
  if (err != 0) {
    *(child_watch_t **)signal = NULL;
    *(child_watch_t **)timer = NULL;
    uv_close((uv_handle_t *)signal, free_handle);
    uv_close((uv_handle_t *)timer, free_handle);
    discard(env, watch);
    return throw_errno(env, "uv_signal_start(SIGCHLD)", -err);
  }
  /* A long pause since the last delivery: the first batch is handed over at once. */
  watch->last_delivery = uv_now(loop) - watch->interval_ms;
  active = watch;
  return NULL;
}

/* unwatchChildren(): Int32Array of the pairs reaped and not yet handed over (empty when none or not watching). */
static napi_value unwatch_children(napi_env env, napi_callback_info info) {
  (void)info;
  child_watch_t *watch = active;
  size_t count = watch == NULL ? 0 : watch->pending_len;
  void *data = NULL;
  napi_value buffer, pairs;
  if (napi_create_arraybuffer(env, count * sizeof(int32_t), &data, &buffer) != napi_ok ||
      napi_create_typedarray(env, napi_int32_array, count, buffer, 0, &pairs) != napi_ok) {
    return NULL;
  }
  if (watch == NULL) return pairs;
  if (count > 0) memcpy(data, watch->pending, count * sizeof(int32_t));
  active = NULL;
  uv_signal_stop(watch->signal);
  uv_timer_stop(watch->timer);
  *(child_watch_t **)watch->signal = NULL;
  *(child_watch_t **)watch->timer = NULL;
  uv_close((uv_handle_t *)watch->signal, free_handle);
  uv_close((uv_handle_t *)watch->timer, free_handle);
  napi_delete_reference(env, watch->owned);
  napi_delete_reference(env, watch->has);
  napi_delete_reference(env, watch->claimed);
  napi_delete_reference(env, watch->claimed_has);
  napi_delete_reference(env, watch->callback);
  if (watch->delivering) watch->released = true;
  else release(env, watch);
  return pairs;
}

napi_status define_child_watch(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"watchChildren", NULL, watch_children, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unwatchChildren", NULL, unwatch_children, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
