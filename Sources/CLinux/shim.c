#define _GNU_SOURCE
#include "CLinux.h"
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/timerfd.h>

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
