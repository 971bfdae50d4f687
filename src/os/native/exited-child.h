/* Peeking at an exited child without reaping it: the reaper's question, asked
 * by its pass on every SIGCHLD (child-watch.c) and from JavaScript (reaper.c). */
#ifndef SIDECAR_INIT_EXITED_CHILD_H
#define SIDECAR_INIT_EXITED_CHILD_H

#include <sys/types.h>

/* The pid of one exited child, left unreaped (waitid with WNOWAIT): its status
 * stays for whoever owns it. 0 when none has exited; -1 with errno set on
 * failure (ECHILD: no child at all). */
pid_t peek_exited_child(void);

#endif
