/* The pidfd system call numbers, for C libraries whose headers predate them.
 * They are the same on every architecture (Linux 5.1 and 5.3 added them to
 * the common syscall table). Used by pidfd.c and signal-forward.c. */
#ifndef SIDECAR_INIT_PIDFD_SYSCALLS_H
#define SIDECAR_INIT_PIDFD_SYSCALLS_H

#include <sys/syscall.h>

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#endif
