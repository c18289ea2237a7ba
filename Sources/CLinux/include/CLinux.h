#ifndef CLINUX_H
#define CLINUX_H
/* Linux socket calls Swift's Glibc module does not export: glibc declares recvmmsg and struct mmsghdr only
 * under _GNU_SOURCE, and SO_TIMESTAMPNS / CMSG_* are macros. The implementations are in shim.c (built with
 * _GNU_SOURCE); this header stays importable without it. */
#include <semaphore.h>
#include <sys/socket.h>
#include <time.h>

/* Same layout as glibc's struct mmsghdr (checked in shim.c). */
typedef struct {
    struct msghdr msg_hdr;
    unsigned int msg_len;
} clinux_mmsghdr;

/* recvmmsg(2) with MSG_WAITFORONE: blocks for the first datagram, then takes what is already queued. */
int clinux_recvmmsg_waitforone(int fd, clinux_mmsghdr *vec, unsigned int count);

/* setsockopt(SO_TIMESTAMPNS, 1): the kernel stamps each received datagram. 0 on success, -1 + errno. */
int clinux_enable_timestampns(int fd);

/* The SCM_TIMESTAMPNS control message of a received message, if any: 1 and *ts filled, else 0. */
int clinux_timestampns(const struct msghdr *msg, struct timespec *ts);

/* Bytes of control buffer one SCM_TIMESTAMPNS needs (CMSG_SPACE). */
unsigned int clinux_timestampns_space(void);

/* Whether the peer of a connected socket has hung up (poll with POLLRDHUP, no wait): 1, 0, or -1 + errno. */
int clinux_peer_closed(int fd);

/* Names the calling thread for the kernel (top -H, perf, /proc/PID/task/TID/comm); at most 15 bytes are kept. */
void clinux_set_thread_name(const char *name);

/* timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC): a blocking timer descriptor. fd, or -1 + errno. */
int clinux_timerfd_create(void);

/* Arms a timerfd to expire once at the absolute CLOCK_MONOTONIC time `seconds` (<= 0: at once). 0, or -1 + errno. */
int clinux_timerfd_arm(int fd, double seconds);

/* An epoll set (EPOLL_CLOEXEC). fd, or -1 + errno. */
int clinux_epoll_create(void);

/* Watches `fd` for input and hang-up (EPOLLIN | EPOLLRDHUP, level-triggered), reported with `token`. 0, or -1 + errno. */
int clinux_epoll_add(int epfd, int fd, unsigned long long token);

/* Stops watching `fd`. 0, or -1 + errno. */
int clinux_epoll_remove(int epfd, int fd);

/* epoll_wait for at most `max` (<= 64) ready descriptors: their tokens, and hangup[i] = 1 when the kernel reported
 * EPOLLHUP, EPOLLRDHUP or EPOLLERR. The count, or -1 + errno. */
int clinux_epoll_wait(int epfd, unsigned long long *tokens, int *hangup, int max, int timeout_ms);

/* Waits for a post of `sem` until the absolute CLOCK_MONOTONIC time `deadline_ns` (sem_clockwait, glibc >= 2.30;
 * deadline_ns < 0: no limit), retrying when a signal interrupts the wait. 1: a post was taken, 0: the deadline
 * passed. A wall-clock change moves nothing (sem_timedwait would wait on CLOCK_REALTIME). */
int clinux_sem_wait_until(sem_t *sem, long long deadline_ns);

/* Marks an empty file not copy-on-write (FS_NOCOW_FL, chattr +C): on btrfs its blocks are then rewritten in place.
 * 0, or -1 + errno (EOPNOTSUPP and the like where the file system has no such flag). */
int clinux_set_nocow(int fd);

/* Whether the file system holding fd is btrfs (fstatfs magic). 1, 0, or -1 + errno. */
int clinux_is_btrfs(int fd);

/* The calling thread's kernel id (gettid). */
int clinux_gettid(void);

#endif
