/*
 * A signal for the app passed on from the signal handler itself, so that
 * nothing JavaScript is doing (a long collection, a slow synchronous call, a
 * bug) delays it: tini's promise. JavaScript keeps deciding where each signal
 * goes (the lifecycle's forwardRoute); it pushes that route here whenever it
 * changes (setSignalRoute), and the handler sends along it at once.
 *
 * What follows a forward is deferred and coalesced, so that neither a burst
 * nor a spaced series wakes JavaScript right after the kill, when it would
 * compete with the app the signal has just woken (bench/signal-forward.ts):
 * the handler counts each signal passed on (or that found the app gone) and
 * does not call libuv's handler for it; the first count since JavaScript last
 * took them wakes the loop once (uv_async_send, async-signal-safe), whose
 * callback, in C, starts a timer of the window JavaScript gave; only when that
 * ends is JavaScript called, once, and takes every count so far
 * (takeForwardCounts), which it logs as one line per signal with its count.
 * JavaScript also takes them itself before it handles any other event, so
 * its log and the lifecycle hear of them in the order they came. Memory is a
 * few counters per signal however many arrive: a flood is one wake and one
 * line per signal per window.
 *
 * A signal that some other JavaScript listens for too (Node's tty listens
 * for SIGWINCH; JavaScript says which: setChainedSignals) is still handed to
 * libuv's handler after the forward, so that listener hears of every
 * delivery; the supervisor's own listener then asks (takeForwarded) whether
 * the handler passed it on already. A signal that finds no route (a stop
 * signal, the app not running, a rewrite to none, EPERM) always goes on to
 * libuv's handler: JavaScript's to handle, as it always was.
 *
 * The handler is installed on top of libuv's, after JavaScript has listened
 * for the signal (process.on). libuv installs its handler once per signal,
 * when the first listener starts, and removes it only when the last one
 * stops; the supervisor's listeners stay until the exit, so later listeners
 * never replace this handler.
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
 *
 * A flood must not take the loop's thread itself (pace): the kernel delivers
 * a pending signal on every return to user space, so two same-uid processes
 * sending as fast as they can keep a thread in handlers, and Node's other
 * threads too, while the loop's timers (the grace, a deadline) wait. So a
 * thread other than the loop's takes each handled signal at most once and
 * then blocks them all for good (the mask its handler returns to), and the
 * loop's thread, once it took HOLD_AFTER within HOLD_WINDOW_NS, blocks them
 * all until the release timer, RELEASE_MS later, unblocks them. A blocked
 * signal stays pending, once, however often it is sent: a flood costs the
 * loop's thread at most HOLD_AFTER deliveries per HOLD_WINDOW_NS and
 * RELEASE_MS, and a held SIGCHLD is delivered at the release (the reaper's
 * pass reaps every exited child, however many SIGCHLDs it stands for).
 *
 * SIGCHLD is batched the same way, alone: one that comes within
 * CHLD_BATCH_NS of the previous one is held until the release, so a storm of
 * orphans dying one after another (a process pool churning) wakes the loop
 * and runs the reaper's pass about once per RELEASE_MS, each pass reaping
 * all that died meanwhile, instead of once per orphan. A child that exits
 * after a quiet spell is reaped at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <node_api.h>

#include "addon.h"
#include "napi-util.h"
#include "pidfd-syscalls.h"
#include "uv-declarations.h"

/* The handler's counters are 64-bit atomics: they must be lock-free to be touched in a signal handler. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

/* Replaced pidfds kept open, oldest closed first (see above). */
#define RETIRED_MAX 8
/*
 * Once the loop's thread took this many handled signals within
 * HOLD_WINDOW_NS, all of them are held (blocked) until the release,
 * RELEASE_MS later: 12,800 deliveries a second at the most, far above the
 * pace of signals that wait for an answer (the app's answer wakes the
 * sender), far below what two flooding processes send.
 */
#define HOLD_AFTER 128
#define HOLD_WINDOW_NS 10000000LL
#define RELEASE_MS 10
/* A SIGCHLD this soon after the previous one is held until the release: the exits of a storm reaped in batches. */
#define CHLD_BATCH_NS 10000000LL

typedef struct {
  /* The signal sent on, or 0: no route, JavaScript decides. */
  atomic_int send_as;
  /* Another JavaScript listener hears of this signal: libuv's handler is called after a forward too. */
  atomic_bool chained;
  /* Since JavaScript last took the counts: deliveries passed on, deliveries that found the app gone, and both. */
  atomic_ullong forwarded;
  atomic_ullong gone;
  atomic_ullong pending;
  /* The sequence number of the first of them: the order of the lines. */
  atomic_ullong first;
  /* Deliveries passed on and handed to libuv's handler, not yet asked about by the supervisor's listener. */
  atomic_uint chained_taken;
  /*
   * Deliveries with no route, not yet handed to libuv's handler: the loop's
   * thread hands them over as one delivery (hand_over), never the handler,
   * so that a flood can neither fill libuv's signal pipe (whose writes are
   * dropped when it is full: a SIGCHLD lost for good) nor keep its reader
   * looping while timers wait.
   */
  atomic_ullong unrouted;
  /* Handed over and not yet asked about by the listener (takeHandedOver): how many deliveries its calls stand for. */
  atomic_ullong handed;
  /* Handed over in this window already: the next one waits for the window's end. JavaScript's thread only. */
  bool handed_over;
  bool installed;
  struct sigaction previous;
} slot_t;

static slot_t slots[NSIG];
/* The route's target: a process group (a negative pgid) or the app alone (its pidfd); 0 and -1 when neither. */
static atomic_int target_group = 0;
static atomic_int target_pidfd = -1;
/* Counts every first delivery since a take, across signals. */
static atomic_ullong sequence = 0;
/* Set by the first count since JavaScript last took them: that one wakes the loop. */
static atomic_bool wake_pending = false;
/* Set by the first delivery with no route since the loop last handed them over: that one wakes the loop too. */
static atomic_bool unrouted_pending = false;
/* The loop's thread's deliveries since window_start (CLOCK_MONOTONIC, ns). Its handlers only. */
static atomic_llong window_start = 0;
static atomic_uint in_window = 0;
/* Set by the handler that held every handled signal: the wake starts the release timer, which clears it. */
static atomic_bool held = false;
/* When the loop's thread last took SIGCHLD (CLOCK_MONOTONIC, ns), and whether its handler held SIGCHLD alone. */
static atomic_llong last_chld = 0;
static atomic_bool chld_held = false;
/* Set once by forwardSignals, before any handler is installed: the wake, and the thread that runs the loop. */
static uv_async_t *wake = NULL;
static pid_t loop_tid = 0;
/* JavaScript's thread only. */
static uv_timer_t *window_timer = NULL;
static bool window_armed = false;
static uv_timer_t *release_timer = NULL;
static bool release_armed = false;
static uint64_t window_ms = 0;
static napi_env callback_env = NULL;
static napi_ref callback = NULL;
static napi_async_context callback_context = NULL;
static int target_pid = 0;
static int retired[RETIRED_MAX];
static int retired_count = 0;


static void chain(slot_t *slot, int signum, siginfo_t *info, void *context) {
  const struct sigaction *previous = &slot->previous;
  if (previous->sa_flags & SA_SIGINFO) {
    if (previous->sa_sigaction != NULL) previous->sa_sigaction(signum, info, context);
  } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != NULL) {
    previous->sa_handler(signum);
  }
}

/* One delivery handled here: counted, and the loop woken if it is the first since JavaScript took the counts. Async-signal-safe. */
static void count(slot_t *slot, atomic_ullong *counter) {
  atomic_fetch_add(counter, 1);
  if (atomic_fetch_add(&slot->pending, 1) == 0) atomic_store(&slot->first, atomic_fetch_add(&sequence, 1));
  if (!atomic_exchange(&wake_pending, true) && wake != NULL) uv_async_send(wake);
}

/* Only async-signal-safe calls: kill, the pidfd syscall, atomics, uv_async_send. */
static void deliver(slot_t *slot, int signum, siginfo_t *info, void *context) {
  int send_as = atomic_load(&slot->send_as);
  if (send_as > 0) {
    int group = atomic_load(&target_group);
    int fd = atomic_load(&target_pidfd);
    long result = -1;
    errno = ESRCH;
    /* Never kill(0): that is our own group. */
    if (group < 0) result = kill(group, send_as);
    else if (fd >= 0) result = syscall(SYS_pidfd_send_signal, fd, send_as, NULL, 0);
    /* Anything else (EPERM): JavaScript sends it itself, and reports what fails. */
    if (result == 0 || errno == ESRCH) {
      count(slot, result == 0 ? &slot->forwarded : &slot->gone);
      if (!atomic_load(&slot->chained)) return;
      atomic_fetch_add(&slot->chained_taken, 1);
    }
  }
  if (atomic_load(&slot->chained)) {
    /* Another listener hears of every delivery (Node's tty of SIGWINCH): as libuv would. */
    chain(slot, signum, info, context);
  } else {
    atomic_fetch_add(&slot->unrouted, 1);
    if (!atomic_exchange(&unrouted_pending, true) && wake != NULL) uv_async_send(wake);
  }
}

/* Every handled signal added to a mask. */
static void add_handled(sigset_t *mask) {
  for (int signum = 1; signum < NSIG; signum++) {
    if (slots[signum].installed) sigaddset(mask, signum);
  }
}

/*
 * What the interrupted thread blocks once its handler returns (the mask in
 * its context, restored by sigreturn): every handled signal, for good, on a
 * thread other than the loop's, and on the loop's once it took HOLD_AFTER
 * within HOLD_WINDOW_NS, and SIGCHLD alone when it came within CHLD_BATCH_NS
 * of the previous one. Async-signal-safe: a syscall, clock_gettime, atomics,
 * uv_async_send.
 */
static void pace(int signum, void *context) {
  if (context == NULL) return;
  sigset_t *mask = &((ucontext_t *)context)->uc_sigmask;
  if ((pid_t)syscall(SYS_gettid) != loop_tid) {
    add_handled(mask);
    return;
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
  if (ns - atomic_load(&window_start) > HOLD_WINDOW_NS) {
    atomic_store(&window_start, ns);
    atomic_store(&in_window, 0);
  }
  if (signum == SIGCHLD && ns - atomic_exchange(&last_chld, ns) < CHLD_BATCH_NS) {
    sigaddset(mask, SIGCHLD);
    if (!atomic_exchange(&chld_held, true) && wake != NULL) uv_async_send(wake);
  }
  if (atomic_fetch_add(&in_window, 1) + 1 < HOLD_AFTER) return;
  add_handled(mask);
  if (!atomic_exchange(&held, true) && wake != NULL) uv_async_send(wake);
}

static void on_signal(int signum, siginfo_t *info, void *context) {
  int saved = errno;
  slot_t *slot = &slots[signum];
  deliver(slot, signum, info, context);
  pace(signum, context);
  errno = saved;
}

/* RELEASE_MS after a hold: what was held unblocked on the loop's thread, which takes what is pending of it at once. */
static void on_release(uv_timer_t *timer) {
  (void)timer;
  release_armed = false;
  sigset_t released;
  sigemptyset(&released);
  if (atomic_exchange(&held, false)) {
    atomic_store(&in_window, 0);
    atomic_store(&window_start, 0);
    add_handled(&released);
  }
  if (atomic_exchange(&chld_held, false)) sigaddset(&released, SIGCHLD);
  pthread_sigmask(SIG_UNBLOCK, &released, NULL);
}

static void on_window(uv_timer_t *timer);

static bool any_pending(void) {
  for (int signum = 1; signum < NSIG; signum++) {
    if (atomic_load(&slots[signum].pending) > 0) return true;
  }
  return false;
}

static void arm_window(void) {
  if (window_armed) return;
  window_armed = true;
  uv_timer_start(window_timer, on_window, window_ms, 0);
}

/*
 * The deliveries with no route since the last hand-over, given to libuv's
 * handler (and so to JavaScript's listener) as one delivery per signal: at
 * once for a signal not handed over in this window, and for SIGCHLD always
 * (the reaper's pass reaps every exited child, however many SIGCHLDs it
 * stands for); the rest when the window ends. So libuv's pipe holds at most
 * one message per signal per wake, and a listener hears of a flooded signal
 * at most once per window. On the loop's thread, with every signal blocked:
 * libuv's handler takes libuv's lock, which a handler interrupting it here
 * would wait for forever.
 */
static bool hand_over(bool window_over) {
  bool left = false;
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  atomic_store(&unrouted_pending, false);
  for (int signum = 1; signum < NSIG; signum++) {
    slot_t *slot = &slots[signum];
    if (!slot->installed) continue;
    if (window_over) slot->handed_over = false;
    if (atomic_load(&slot->unrouted) == 0) continue;
    if (slot->handed_over && signum != SIGCHLD) {
      left = true;
      continue;
    }
    atomic_fetch_add(&slot->handed, atomic_exchange(&slot->unrouted, 0));
    slot->handed_over = true;
    left = left || signum != SIGCHLD;
    chain(slot, signum, NULL, NULL);
  }
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
  return left;
}

/* The window is over: what waited is handed over, and JavaScript is called once, unless it took the counts itself meanwhile. */
static void on_window(uv_timer_t *timer) {
  (void)timer;
  window_armed = false;
  /* Handed over now: the next window holds back what comes after. */
  if (hand_over(true)) arm_window();
  if (!any_pending()) return;
  napi_handle_scope scope;
  napi_value function;
  if (napi_open_handle_scope(callback_env, &scope) != napi_ok) return;
  if (napi_get_reference_value(callback_env, callback, &function) == napi_ok) {
    call_js(callback_env, callback_context, function, 0, NULL);
  }
  napi_close_handle_scope(callback_env, scope);
}

/* The handler's wake: deliveries with no route handed over, and the window starts (no JavaScript runs here), unless one is already running. */
static void on_wake(uv_async_t *async) {
  (void)async;
  if ((atomic_load(&held) || atomic_load(&chld_held)) && !release_armed) {
    release_armed = true;
    uv_timer_start(release_timer, on_release, RELEASE_MS, 0);
  }
  if (atomic_load(&unrouted_pending) && hand_over(false)) arm_window();
  if (atomic_load(&wake_pending)) arm_window();
}

/* The wake and the window's timer, once per process; unref'd: they never keep the process alive. False with an exception pending. */
static bool set_up_wake(napi_env env, napi_value on_forwarded, int64_t window) {
  if (wake != NULL) return true;
  uv_loop_t *loop;
  napi_value name;
  if (napi_get_uv_event_loop(env, (struct uv_loop_s **)&loop) != napi_ok) {
    throw_message(env, "forwardSignals: no event loop");
    return false;
  }
  uv_async_t *async = calloc(1, uv_handle_size(SIDECAR_UV_ASYNC));
  uv_timer_t *timer = calloc(1, uv_handle_size(SIDECAR_UV_TIMER));
  uv_timer_t *release = calloc(1, uv_handle_size(SIDECAR_UV_TIMER));
  if (async == NULL || timer == NULL || release == NULL) {
    free(async);
    free(timer);
    free(release);
    throw_message(env, "forwardSignals: out of memory");
    return false;
  }
  if (napi_create_reference(env, on_forwarded, 1, &callback) != napi_ok ||
      napi_create_string_utf8(env, "sidecar-init:forwarded", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, NULL, name, &callback_context) != napi_ok) {
    free(async);
    free(timer);
    free(release);
    throw_message(env, "forwardSignals: could not set up the callback");
    return false;
  }
  int err = uv_async_init(loop, async, on_wake);
  if (err != 0) {
    free(async);
    free(timer);
    free(release);
    /* libuv's errors are negated errnos on Linux. */
    throw_errno(env, "uv_async_init", -err);
    return false;
  }
  uv_timer_init(loop, timer);
  uv_timer_init(loop, release);
  uv_unref((uv_handle_t *)async);
  uv_unref((uv_handle_t *)timer);
  uv_unref((uv_handle_t *)release);
  callback_env = env;
  window_ms = (uint64_t)window;
  window_timer = timer;
  release_timer = release;
  loop_tid = (pid_t)syscall(SYS_gettid);
  wake = async;
  return true;
}

/*
 * forwardSignals(signals: number[], onForwarded: () => void, windowMs): void.
 * Each signal must already have a JavaScript listener (libuv's handler
 * underneath). onForwarded is called at most once per windowMs, windowMs
 * after the first signal passed on since the counts were last taken.
 */
static napi_value forward_signals(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint32_t length;
  int64_t window;
  if (!read_args(env, info, 3, argv) || !read_array(env, argv[0], "forwardSignals: signals", &length)) return NULL;
  if (length > NSIG) return throw_message(env, "forwardSignals: signals must list each signal at most once");
  int signums[NSIG];
  for (uint32_t index = 0; index < length; index++) {
    napi_value element;
    char name[64];
    snprintf(name, sizeof name, "forwardSignals: signals[%u]", index);
    if (napi_get_element(env, argv[0], index, &element) != napi_ok || !read_int(env, element, name, 1, NSIG - 1, &signums[index])) {
      return NULL;
    }
  }
  if (!read_function(env, argv[1], "forwardSignals: onForwarded") ||
      !read_integer(env, argv[2], "forwardSignals: windowMs", 0, INT32_MAX, &window) || !set_up_wake(env, argv[1], window)) {
    return NULL;
  }
  for (uint32_t index = 0; index < length; index++) {
    int signum = signums[index];
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
  /* What a flood left held is libuv's again at once (while the handled signals are still known). */
  if (release_timer != NULL) uv_timer_stop(release_timer);
  on_release(NULL);
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

/* setChainedSignals(signals: number[]): void. The signals other JavaScript listens for too: libuv's handler hears of every delivery of those. */
static napi_value set_chained_signals(napi_env env, napi_callback_info info) {
  napi_value list;
  uint32_t length;
  bool chained[NSIG] = {false};
  if (!read_args(env, info, 1, &list) || !read_array(env, list, "setChainedSignals: signals", &length)) return NULL;
  for (uint32_t index = 0; index < length; index++) {
    napi_value element;
    int signum;
    char name[64];
    snprintf(name, sizeof name, "setChainedSignals: signals[%u]", index);
    if (napi_get_element(env, list, index, &element) != napi_ok || !read_int(env, element, name, 1, NSIG - 1, &signum)) {
      return NULL;
    }
    chained[signum] = true;
  }
  /* Each flag stored once, to its new value: a signal whose flag stays never sees it change. */
  for (int signum = 1; signum < NSIG; signum++) atomic_store(&slots[signum].chained, chained[signum]);
  return NULL;
}

/* takeForwarded(signal): boolean. One delivery libuv's handler heard of: true when this handler passed it on (or found the app gone) first. */
static napi_value take_forwarded(napi_env env, napi_callback_info info) {
  napi_value arg;
  int signum;
  if (!read_args(env, info, 1, &arg) || !read_int(env, arg, "takeForwarded: signal", 1, NSIG - 1, &signum)) return NULL;
  slot_t *slot = &slots[signum];
  unsigned count = atomic_load(&slot->chained_taken);
  while (count > 0 && !atomic_compare_exchange_weak(&slot->chained_taken, &count, count - 1)) {
  }
  napi_value result;
  if (napi_get_boolean(env, count > 0, &result) != napi_ok) return NULL;
  return result;
}

/* takeHandedOver(signal): number. The deliveries with no route handed to libuv's handler since the last take: what the listener's call stands for. */
static napi_value take_handed_over(napi_env env, napi_callback_info info) {
  napi_value arg;
  int signum;
  if (!read_args(env, info, 1, &arg) || !read_int(env, arg, "takeHandedOver: signal", 1, NSIG - 1, &signum)) return NULL;
  napi_value result;
  if (napi_create_double(env, (double)atomic_exchange(&slots[signum].handed, 0), &result) != napi_ok) return NULL;
  return result;
}

typedef struct {
  int signum;
  unsigned long long first;
  unsigned long long forwarded;
  unsigned long long gone;
} taken_t;

/*
 * takeForwardCounts(): number[]: [signal, passed on, found the app gone, ...]
 * since the last take, in the order each signal first came; the counters
 * start again from zero. A delivery counted while this runs is in this take
 * or the next, never lost: the wake is re-armed first.
 */
static napi_value take_forward_counts(napi_env env, napi_callback_info info) {
  (void)info;
  taken_t taken[NSIG];
  int taken_count = 0;
  atomic_store(&wake_pending, false);
  for (int signum = 1; signum < NSIG; signum++) {
    slot_t *slot = &slots[signum];
    if (atomic_load(&slot->pending) == 0) continue;
    atomic_store(&slot->pending, 0);
    taken_t entry = {signum, atomic_load(&slot->first), atomic_exchange(&slot->forwarded, 0), atomic_exchange(&slot->gone, 0)};
    /* Both zero: a delivery counted between the two stores, already in the last take. */
    if (entry.forwarded == 0 && entry.gone == 0) continue;
    int at = taken_count++;
    while (at > 0 && taken[at - 1].first > entry.first) {
      taken[at] = taken[at - 1];
      at--;
    }
    taken[at] = entry;
  }
  napi_value result;
  if (napi_create_array_with_length(env, (size_t)taken_count * 3, &result) != napi_ok) return NULL;
  for (int index = 0; index < taken_count; index++) {
    double values[3] = {taken[index].signum, (double)taken[index].forwarded, (double)taken[index].gone};
    for (int field = 0; field < 3; field++) {
      napi_value number;
      if (napi_create_double(env, values[field], &number) != napi_ok ||
          napi_set_element(env, result, (uint32_t)(index * 3 + field), number) != napi_ok) {
        return NULL;
      }
    }
  }
  return result;
}

napi_status define_signal_forward(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"forwardSignals", NULL, forward_signals, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unforwardSignals", NULL, unforward_signals, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setSignalRoute", NULL, set_signal_route, NULL, NULL, NULL, napi_enumerable, NULL},
    {"takeForwarded", NULL, take_forwarded, NULL, NULL, NULL, napi_enumerable, NULL},
    {"takeHandedOver", NULL, take_handed_over, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setChainedSignals", NULL, set_chained_signals, NULL, NULL, NULL, napi_enumerable, NULL},
    {"takeForwardCounts", NULL, take_forward_counts, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  return napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
}
