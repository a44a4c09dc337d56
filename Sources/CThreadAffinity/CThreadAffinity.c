#define _GNU_SOURCE
#include "CThreadAffinity.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static cpu_set_t original;
static int have_original;
static pthread_once_t original_once = PTHREAD_ONCE_INIT;

static void read_original(void) {
    have_original = sched_getaffinity(getpid(), sizeof original, &original) == 0;
}

void csched_remember_affinity(void) { pthread_once(&original_once, read_original); }

int csched_current_cpu(void) { return sched_getcpu(); }

int csched_thread_id(void) { return (int)syscall(SYS_gettid); }

int csched_cpu_capacity(void) { return CPU_SETSIZE; }

int csched_is_allowed(int cpu) {
    pthread_once(&original_once, read_original);
    return have_original && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &original);
}

int csched_pin(int cpu) {
    pthread_once(&original_once, read_original);
    if (!have_original || cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(cpu, &only);
    return sched_setaffinity(0, sizeof only, &only);
}

int csched_unpin(int thread_id) {
    pthread_once(&original_once, read_original);
    if (!have_original) return -1;
    return sched_setaffinity(thread_id, sizeof original, &original);
}
struct spawned {
    void (*body)(void *);
    void *context;
};

static void *run_spawned(void *argument) {
    struct spawned spawned = *(struct spawned *)argument;
    free(argument);
    spawned.body(spawned.context);
    return NULL;
}

int csched_spawn(int cpu, void (*body)(void *context), void *context) {
    struct spawned *spawned = malloc(sizeof *spawned);
    if (!spawned) return -1;
    spawned->body = body;
    spawned->context = context;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(cpu, &only);
        pthread_attr_setaffinity_np(&attributes, sizeof only, &only);
    }
    pthread_t thread;
    int status = pthread_create(&thread, &attributes, run_spawned, spawned);
    pthread_attr_destroy(&attributes);
    if (status != 0) free(spawned);
    return status;
}
#else
void csched_remember_affinity(void) {}
int csched_current_cpu(void) { return -1; }
int csched_thread_id(void) { return 0; }
int csched_cpu_capacity(void) { return 0; }
int csched_is_allowed(int cpu) { (void)cpu; return 0; }
int csched_pin(int cpu) { (void)cpu; return -1; }
int csched_unpin(int thread_id) { (void)thread_id; return -1; }
int csched_spawn(int cpu, void (*body)(void *context), void *context) { (void)cpu; (void)body; (void)context; return -1; }
#endif
