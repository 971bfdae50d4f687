#define _GNU_SOURCE
#include "exited-child.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

pid_t peek_exited_child(void) {
  siginfo_t found;
  int result;
  do {
    /* WNOHANG leaves si_pid untouched when nothing has exited: zero it first. */
    memset(&found, 0, sizeof found);
    result = waitid(P_ALL, 0, &found, WEXITED | WNOHANG | WNOWAIT);
  } while (result == -1 && errno == EINTR);
  return result == -1 ? -1 : found.si_pid;
}
