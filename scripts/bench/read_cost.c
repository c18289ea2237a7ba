/* read_cost.c - the kernel's share of reading one notification at a slow rate: what a blocking read costs (the
 * floor's way, ../shared/bench/floor_sub.c) against heartd's AcquireNotify poller (epoll_wait on a set of sockets
 * and timers, then recvmmsg with kernel timestamps). A child writes one 6-byte datagram every PERIOD ms into a
 * SOCK_SEQPACKET socketpair, as bluetoothd does for AcquireNotify; the parent reads them one of three ways and
 * prints its CPU per datagram (CLOCK_PROCESS_CPUTIME_ID; the child's CPU is not counted).
 *   cc -O2 -o .build/bench/read_cost scripts/bench/read_cost.c && .build/bench/read_cost [period_ms] [count]
 * Modes: read (blocking read), recvmsg-ts (blocking recvmsg with SO_TIMESTAMPNS), epoll-recvmmsg-ts (heartd's).
 * docs/BENCHMARKS.md cites it ("What 1/s costs above the floor"). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_READ, MODE_RECVMSG_TS, MODE_EPOLL_RECVMMSG_TS };
static const char *names[] = {"read", "recvmsg-ts", "epoll-recvmmsg-ts"};

static double cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* One datagram, the way `mode` reads it; returns how many were read (0: the stream ended). */
static int read_one(enum mode mode, int fd, int ep) {
    char buf[8][64], control[8][64];
    struct iovec io[8];
    struct mmsghdr mm[8];
    if (mode == MODE_READ) return read(fd, buf[0], sizeof buf[0]) > 0;
    if (mode == MODE_RECVMSG_TS) {
        struct msghdr h = {0};
        io[0] = (struct iovec){buf[0], sizeof buf[0]};
        h.msg_iov = &io[0], h.msg_iovlen = 1, h.msg_control = control[0], h.msg_controllen = sizeof control[0];
        return recvmsg(fd, &h, 0) > 0;
    }
    struct epoll_event ready[8];
    while (epoll_wait(ep, ready, 8, -1) <= 0) {}
    memset(mm, 0, sizeof mm);
    for (int i = 0; i < 8; i++) {
        io[i] = (struct iovec){buf[i], sizeof buf[i]};
        mm[i].msg_hdr.msg_iov = &io[i], mm[i].msg_hdr.msg_iovlen = 1;
        mm[i].msg_hdr.msg_control = control[i], mm[i].msg_hdr.msg_controllen = sizeof control[i];
    }
    int n = recvmmsg(fd, mm, 8, MSG_DONTWAIT, NULL);
    return n > 0 ? n : 0;
}

static double measure(enum mode mode, long period, long count) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) exit(1);
    pid_t child = fork();
    if (child == 0) {
        close(sv[0]);
        char value[6] = {0x10, 70, 0x00, 0x04, 0x00, 0x04};  /* flags, 70 bpm, two RR */
        for (long i = 0; i <= count; i++) {
            usleep(period * 1000);
            if (write(sv[1], value, sizeof value) < 0) _exit(1);
        }
        _exit(0);
    }
    close(sv[1]);
    int fd = sv[0], ep = epoll_create1(0), one = 1;
    if (mode != MODE_READ) setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    if (mode == MODE_EPOLL_RECVMMSG_TS) {
        fcntl(fd, F_SETFL, O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
        for (int i = 0; i < 5; i++) {  /* what else heartd's set holds: deadline timers and a wake-up */
            int other = i < 4 ? timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK) : eventfd(0, EFD_NONBLOCK);
            struct itimerspec far = {{0, 0}, {3600, 0}};
            if (i < 4) timerfd_settime(other, 0, &far, NULL);
            ev.data.fd = other;
            epoll_ctl(ep, EPOLL_CTL_ADD, other, &ev);
        }
    }
    if (!read_one(mode, fd, ep)) exit(1);  /* the first one is not counted: page faults, first calls */
    double start = cpu_us();
    long got = 0;
    while (got < count) {
        int n = read_one(mode, fd, ep);
        if (n == 0) break;
        got += n;
    }
    double per = (cpu_us() - start) / (got ? got : 1);
    waitpid(child, NULL, 0);
    close(fd), close(ep);
    return per;
}

int main(int argc, char **argv) {
    long period = argc > 1 ? atol(argv[1]) : 1000, count = argc > 2 ? atol(argv[2]) : 20;
    for (int m = MODE_READ; m <= MODE_EPOLL_RECVMMSG_TS; m++)
        printf("period_ms=%ld datagrams=%ld mode=%s cpu_us_per_datagram=%.1f\n", period, count, names[m],
               measure(m, period, count));
    return 0;
}
