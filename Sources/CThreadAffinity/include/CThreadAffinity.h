// Linux scheduler calls that Swift's Glibc module does not expose (they need _GNU_SOURCE).
#ifndef CTHREADAFFINITY_H
#define CTHREADAFFINITY_H

/// The CPU the calling thread is running on, or -1.
int csched_current_cpu(void);

/// The calling thread's kernel thread id.
int csched_thread_id(void);

/// The number of CPUs an affinity mask can name.
int csched_cpu_capacity(void);

/// Records the process's affinity as it is now (the main thread's), as the one `csched_unpin` restores
/// and `csched_is_allowed` consults. Call it before any thread is pinned; later calls do nothing.
void csched_remember_affinity(void);

/// Whether the process may run on `cpu`, by the affinity `csched_remember_affinity` recorded.
int csched_is_allowed(int cpu);

/// Allows the calling thread only `cpu`, which moves it there now. Returns 0 on success.
int csched_pin(int cpu);

/// Gives thread `thread_id` back the process's original affinity. Returns 0 on success.
int csched_unpin(int thread_id);

/// Starts a detached thread that runs `body(context)` and ends. With `cpu` ≥ 0 the thread is created
/// allowed only that CPU, so it runs there from its first instruction (a new thread otherwise starts
/// on its creator's CPU and waits for it). Returns 0 on success; on failure `body` is not called.
int csched_spawn(int cpu, void (*body)(void *context), void *context);

#endif
