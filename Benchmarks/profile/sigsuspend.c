/* LD_PRELOAD for running textmeasure-serve under valgrind 3.19 (serve.py): the main thread, after
 * dispatch_main, waits in libdispatch's sigsuspend(&mask) on a static mask, and valgrind dies on that
 * call (SIGSEGV inside valgrind, at the mask's address). The same call with a copy of the mask on the
 * stack runs. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy;
    memcpy(&copy, mask, sizeof copy);
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
