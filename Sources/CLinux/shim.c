#define _GNU_SOURCE
#include "CLinux.h"
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/timerfd.h>
#include <unistd.h>

_Static_assert(sizeof(clinux_mmsghdr) == sizeof(struct mmsghdr), "clinux_mmsghdr must match struct mmsghdr");
_Static_assert(offsetof(clinux_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len), "msg_len offset");

int clinux_recvmmsg_waitforone(int fd, clinux_mmsghdr *vec, unsigned int count) {
    return recvmmsg(fd, (struct mmsghdr *)vec, count, MSG_WAITFORONE, NULL);
}

int clinux_enable_timestampns(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

int clinux_timestampns(const struct msghdr *msg, struct timespec *ts) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            memcpy(ts, CMSG_DATA(c), sizeof *ts);
            return 1;
        }
    }
    return 0;
}

unsigned int clinux_timestampns_space(void) {
    return CMSG_SPACE(sizeof(struct timespec));
}

int clinux_peer_closed(int fd) {
    struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP, .revents = 0 };
    if (poll(&p, 1, 0) < 0) return -1;
    return (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)) != 0;
}

void clinux_set_thread_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}

int clinux_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
}

int clinux_timerfd_arm(int fd, double seconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (seconds <= 0) {
        spec.it_value.tv_nsec = 1;  /* all zero would disarm */
        return timerfd_settime(fd, 0, &spec, NULL);
    }
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = (long)((seconds - (double)spec.it_value.tv_sec) * 1e9);
    if (spec.it_value.tv_nsec >= 1000000000L) spec.it_value.tv_nsec = 999999999L;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int clinux_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int clinux_epoll_add(int epfd, int fd, unsigned long long token) {
    struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = token };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
}

int clinux_epoll_remove(int epfd, int fd) {
    struct epoll_event e = { 0 };  /* ignored, but kernels before 2.6.9 wanted it non-NULL */
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &e);
}

int clinux_epoll_wait(int epfd, unsigned long long *tokens, int *hangup, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = events[i].data.u64;
        hangup[i] = (events[i].events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) != 0;
    }
    return n;
}

int clinux_sem_wait_until(sem_t *sem, long long deadline_ns) {
    if (deadline_ns < 0) {
        while (sem_wait(sem) != 0) {}  /* EINTR only: sem is valid */
        return 1;
    }
    struct timespec at = { .tv_sec = (time_t)(deadline_ns / 1000000000LL), .tv_nsec = (long)(deadline_ns % 1000000000LL) };
    for (;;) {
        if (sem_clockwait(sem, CLOCK_MONOTONIC, &at) == 0) return 1;
        if (errno != EINTR) return 0;  /* ETIMEDOUT (EINVAL cannot happen: tv_nsec is in range) */
    }
}

int clinux_gettid(void) {
    return (int)gettid();
}

int clinux_set_nocow(int fd) {
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) return -1;
    if (flags & FS_NOCOW_FL) return 0;
    flags |= FS_NOCOW_FL;
    return ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

int clinux_is_btrfs(int fd) {
    struct statfs s;
    if (fstatfs(fd, &s) != 0) return -1;
    return s.f_type == BTRFS_SUPER_MAGIC ? 1 : 0;
}
