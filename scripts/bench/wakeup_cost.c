/* wakeup_cost.c - the CPU of one bare thread wake-up on this machine: a thread blocks on a timerfd that fires
 * every PERIOD ms and does nothing else; prints the process's CPU per wake-up (CLOCK_PROCESS_CPUTIME_ID).
 *   cc -O2 -o .build/bench/wakeup_cost scripts/bench/wakeup_cost.c && .build/bench/wakeup_cost [period_ms] [count]
 * docs/ARCHITECTURE.md cites it ("No periodic tick anywhere"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static double cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    long period = argc > 1 ? atol(argv[1]) : 100, count = argc > 2 ? atol(argv[2]) : 100;
    int fd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec its = {{period / 1000, (period % 1000) * 1000000}, {period / 1000, (period % 1000) * 1000000}};
    timerfd_settime(fd, 0, &its, NULL);
    uint64_t n;
    if (read(fd, &n, 8) != 8) return 1;  /* first wake-up: page faults etc. are not counted */
    double start = cpu_us();
    for (long i = 0; i < count; i++)
        if (read(fd, &n, 8) != 8) return 1;
    printf("period_ms=%ld wakeups=%ld cpu_us_per_wakeup=%.1f\n", period, count, (cpu_us() - start) / count);
    return 0;
}
