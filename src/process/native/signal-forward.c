/*
 * A signal for the app passed on from the signal handler itself, so that
 * nothing JavaScript is doing (a long collection, a slow synchronous call, a
 * bug) delays it: tini's promise. JavaScript keeps deciding where each signal
 * goes (the lifecycle's forwardRoute); it pushes that route here whenever it
 * changes (setSignalRoute), and the handler sends along it at once.
 *
 * The handler is installed on top of libuv's, after JavaScript has listened
 * for the signal (process.on), and calls libuv's when done: JavaScript then
 * hears of the signal exactly as before, one event per delivery, and asks
 * here (takeForwarded) whether it was passed on already, which it logs, or is
 * still its own to handle (no route: a stop signal, the app not running, a
 * rewrite to none). libuv installs its handler once per signal, when the
 * first listener starts, and removes it only when the last one stops; the
 * supervisor's listeners stay until the exit, so later listeners (Node's tty
 * listens for SIGWINCH) never replace this handler.
 *
 * The handler may run on any thread, while JavaScript changes the route: the
 * route is plain atomics, written in an order that keeps a signal from a
 * target it was not routed to (the signals cleared first, the target changed,
 * the signals set again; the one target is the app, which runs once), and a
 * signal that finds no route is JavaScript's, as it always was. The app alone is signalled through a pidfd:
 * once libuv has reaped it its pid may name another process before
 * JavaScript has cleared the route, while the pidfd then fails with ESRCH. A
 * pidfd that is replaced is not closed at once (a handler on another thread
 * may be about to use it; its number could then name another file): the last
 * RETIRED_MAX are kept open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "napi-util.h"
#include "pidfd-syscalls.h"

/* Replaced pidfds kept open, oldest closed first (see above). */
#define RETIRED_MAX 8

typedef struct {
  /* The signal sent on, or 0: no route, JavaScript decides. */
  atomic_int send_as;
  /* Deliveries passed on (or found the app gone) and not yet taken by JavaScript. */
  atomic_int forwarded;
  atomic_int gone;
  bool installed;
  struct sigaction previous;
} slot_t;

static slot_t slots[NSIG];
/* The route's target: a process group (a negative pgid) or the app alone (its pidfd); 0 and -1 when neither. */
static atomic_int target_group = 0;
static atomic_int target_pidfd = -1;
/* JavaScript's thread only. */
static int target_pid = 0;
static int retired[RETIRED_MAX];
static int retired_count = 0;

/* What takeForwarded answers. */
enum { TAKEN_NONE = 0, TAKEN_FORWARDED = 1, TAKEN_GONE = 2 };

static void chain(slot_t *slot, int signum, siginfo_t *info, void *context) {
  const struct sigaction *previous = &slot->previous;
  if (previous->sa_flags & SA_SIGINFO) {
    if (previous->sa_sigaction != NULL) previous->sa_sigaction(signum, info, context);
  } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != NULL) {
    previous->sa_handler(signum);
  }
}

/* Only async-signal-safe calls: kill, the pidfd syscall, atomics. */
static void on_signal(int signum, siginfo_t *info, void *context) {
  int saved = errno;
  slot_t *slot = &slots[signum];
  int send_as = atomic_load(&slot->send_as);
  if (send_as > 0) {
    int group = atomic_load(&target_group);
    int fd = atomic_load(&target_pidfd);
    long result = -1;
    errno = ESRCH;
    /* Never kill(0): that is our own group. */
    if (group < 0) result = kill(group, send_as);
    else if (fd >= 0) result = syscall(SYS_pidfd_send_signal, fd, send_as, NULL, 0);
    if (result == 0) atomic_fetch_add(&slot->forwarded, 1);
    else if (errno == ESRCH) atomic_fetch_add(&slot->gone, 1);
    /* Anything else (EPERM): JavaScript sends it itself, and reports what fails. */
  }
  chain(slot, signum, info, context);
  errno = saved;
}

/* forwardSignals(signals: number[]): void. Each must already have a JavaScript listener (libuv's handler underneath). */
static napi_value forward_signals(napi_env env, napi_callback_info info) {
  napi_value list;
  uint32_t length;
  if (!read_args(env, info, 1, &list) || !read_array(env, list, "forwardSignals: signals", &length)) return NULL;
  for (uint32_t index = 0; index < length; index++) {
    napi_value element;
    int signum;
    char name[64];
    snprintf(name, sizeof name, "forwardSignals: signals[%u]", index);
    if (napi_get_element(env, list, index, &element) != napi_ok || !read_int(env, element, name, 1, NSIG - 1, &signum)) {
      return NULL;
    }
    slot_t *slot = &slots[signum];
    if (slot->installed) continue;
    struct sigaction previous;
    if (sigaction(signum, NULL, &previous) != 0) return throw_errno(env, "sigaction", errno);
    if (!(previous.sa_flags & SA_SIGINFO) && (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN)) {
      return throw_message(env, "forwardSignals: listen for the signal first (process.on): JavaScript hears of it through that handler");
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_signal;
    /* As libuv's own: every signal blocked while it runs, interrupted calls restarted. */
    sigfillset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    slot->previous = previous;
    if (sigaction(signum, &action, NULL) != 0) return throw_errno(env, "sigaction", errno);
    slot->installed = true;
  }
  return NULL;
}

/* unforwardSignals(): void. libuv's handlers back; a route pushed later does nothing. */
static napi_value unforward_signals(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  for (int signum = 1; signum < NSIG; signum++) {
    slot_t *slot = &slots[signum];
    atomic_store(&slot->send_as, 0);
    if (!slot->installed) continue;
    sigaction(signum, &slot->previous, NULL);
    slot->installed = false;
  }
  return NULL;
}

static void retire(int fd) {
  if (fd < 0) return;
  if (retired_count == RETIRED_MAX) {
    close(retired[0]);
    memmove(retired, retired + 1, (RETIRED_MAX - 1) * sizeof *retired);
    retired_count--;
  }
  retired[retired_count++] = fd;
}

/*
 * setSignalRoute(target: number, routes: number[]): boolean. target: -pgid
 * (the app's group), pid (the app alone) or 0 (no route); routes: pairs
 * [signal, sent as, ...], every other signal unrouted. False when the app
 * alone cannot be given a pidfd (a kernel before 5.3): every signal then
 * stays JavaScript's.
 */
static napi_value set_signal_route(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint32_t length;
  int target;
  if (!read_args(env, info, 2, argv) || !read_int(env, argv[0], "setSignalRoute: target", -INT_MAX, INT_MAX, &target) ||
      !read_array(env, argv[1], "setSignalRoute: routes", &length)) {
    return NULL;
  }
  if (length % 2 != 0 || length > 2 * NSIG) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "setSignalRoute: routes must be pairs [signal, sent as, ...], at most one per signal");
    return NULL;
  }
  int pairs[2 * NSIG];
  for (uint32_t index = 0; index < length; index++) {
    napi_value element;
    char name[64];
    snprintf(name, sizeof name, "setSignalRoute: routes[%u]", index);
    if (napi_get_element(env, argv[1], index, &element) != napi_ok || !read_int(env, element, name, 1, NSIG - 1, &pairs[index])) {
      return NULL;
    }
  }
  /* Cleared first: a signal arriving now is JavaScript's, never sent to a target it was not routed to. */
  for (int signum = 1; signum < NSIG; signum++) atomic_store(&slots[signum].send_as, 0);
  bool routed = true;
  int previous_fd = atomic_load(&target_pidfd);
  if (target > 0 && target == target_pid && previous_fd >= 0) {
    /* The same app: its pidfd stays. */
  } else {
    int fd = -1;
    if (target > 0) {
      long opened = syscall(SYS_pidfd_open, (pid_t)target, 0);
      fd = opened < 0 ? -1 : (int)opened;
      routed = fd >= 0;
    }
    atomic_store(&target_group, target < 0 ? target : 0);
    atomic_store(&target_pidfd, fd);
    /* Only once no handler can load it any more. */
    retire(previous_fd);
    target_pid = fd >= 0 ? target : 0;
  }
  if (routed && target != 0) {
    for (uint32_t index = 0; index < length; index += 2) {
      atomic_store(&slots[pairs[index]].send_as, pairs[index + 1]);
    }
  }
  napi_value result;
  if (napi_get_boolean(env, routed, &result) != napi_ok) return NULL;
  return result;
}

/* takeForwarded(signal): 0 (JavaScript's to handle), 1 (passed on), 2 (the app was gone): one delivery's outcome. */
static napi_value take_forwarded(napi_env env, napi_callback_info info) {
  napi_value arg;
  int signum;
  if (!read_args(env, info, 1, &arg) || !read_int(env, arg, "takeForwarded: signal", 1, NSIG - 1, &signum)) return NULL;
  slot_t *slot = &slots[signum];
  int taken = TAKEN_NONE;
  int count = atomic_load(&slot->forwarded);
  while (count > 0 && !atomic_compare_exchange_weak(&slot->forwarded, &count, count - 1)) {
  }
  if (count > 0) {
    taken = TAKEN_FORWARDED;
  } else {
    count = atomic_load(&slot->gone);
    while (count > 0 && !atomic_compare_exchange_weak(&slot->gone, &count, count - 1)) {
    }
    if (count > 0) taken = TAKEN_GONE;
  }
  napi_value result;
  if (napi_create_int32(env, taken, &result) != napi_ok) return NULL;
  return result;
}

napi_status define_signal_forward(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"forwardSignals", NULL, forward_signals, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unforwardSignals", NULL, unforward_signals, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setSignalRoute", NULL, set_signal_route, NULL, NULL, NULL, napi_enumerable, NULL},
    {"takeForwarded", NULL, take_forwarded, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
