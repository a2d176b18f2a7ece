/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock-preload: which signal handler interrupted a wait, for SA_RESTART.
 *
 * Linux restarts a blocking recv (no SO_RCVTIMEO) interrupted by a handler
 * installed with SA_RESTART, and fails it with EINTR otherwise; poll, select
 * and epoll_wait fail with EINTR either way (signal(7), "Interruption of
 * system calls and library functions by signal handlers"). A preloaded recv
 * sleeps in poll(), which the kernel never restarts, so the preload has to
 * know which handler ran:
 *
 *   sigaction(sig, act)   the application's handler kept in handlers[sig];
 *                         the kernel is given trampoline() with its flags
 *                         (SA_SIGINFO added)
 *   trampoline(sig)       counts the run in this thread, notes sig, calls the
 *                         application's handler
 *   sigaction(sig, NULL, old)  the application's handler shown, not the
 *                         trampoline
 *   signal(sig, h)        glibc's signal() (SA_RESTART, sig blocked in h) on
 *                         the sigaction above: glibc's own calls its internal
 *                         sigaction, which this library does not see
 *
 * A wait that spins (a blocking send waiting for a free buffer, a recv, poll, select or
 * epoll_wait before it sleeps) asks pl_sig_interrupts() between its looks: a handler that
 * ran meanwhile ends it as the EINTR of a sleep would.
 *
 * After an EINTR, pl_sig_restarts() says whether every handler that ran since
 * pl_sig_mark() has SA_RESTART in the kernel now (siginterrupt() changes it
 * there). A handler installed behind the library's back (the raw system call)
 * is not seen: the wait then fails with EINTR.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "preload_priv.h"

typedef void (*pl_sigfn)(int, siginfo_t *, void *);

/* The application's handler of each signal that has the trampoline in the kernel. */
static struct {
	void *fn;     /* its sa_handler or sa_sigaction */
	bool siginfo; /* it asked SA_SIGINFO */
} handlers[_NSIG];

/* Handlers run in this thread (the trampoline), and the signal of the last one. */
static __thread unsigned int sig_runs __attribute__((tls_model("initial-exec")));
static __thread int sig_last __attribute__((tls_model("initial-exec")));
/* ...of which, run with no SA_RESTART when installed */
static __thread unsigned int sig_eintr_runs __attribute__((tls_model("initial-exec")));
static bool restarts[_NSIG];

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static void
real_sigaction_resolve(void)
{
	if (__atomic_load_n(&real_sigaction, __ATOMIC_ACQUIRE) == NULL)
		__atomic_store_n(&real_sigaction, dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
}

static void
trampoline(int sig, siginfo_t *si, void *uc)
{
	void *fn = __atomic_load_n(&handlers[sig].fn, __ATOMIC_ACQUIRE);

	sig_runs++;
	sig_last = sig;
	if (!__atomic_load_n(&restarts[sig], __ATOMIC_RELAXED))
		sig_eintr_runs++;
	if (fn == NULL)
		return;
	if (handlers[sig].siginfo)
		((pl_sigfn)fn)(sig, si, uc);
	else
		((void (*)(int))fn)(sig);
}

static bool
is_function(const struct sigaction *act)
{
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

/* @p old as the application installed it: its handler and flags for the trampoline. */
static void
old_show(struct sigaction *old, void *fn, bool siginfo)
{
	if (old->sa_sigaction != trampoline)
		return;
	if (siginfo) {
		old->sa_sigaction = (pl_sigfn)fn;
	} else {
		old->sa_handler = (void (*)(int))fn;
		old->sa_flags &= ~SA_SIGINFO;
	}
}

int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction k;
	void *prev_fn;
	bool prev_siginfo;
	int rc;

	real_sigaction_resolve();
	if (sig <= 0 || sig >= _NSIG) {
		errno = EINVAL;
		return -1;
	}
	prev_fn = handlers[sig].fn;
	prev_siginfo = handlers[sig].siginfo;
	if (act == NULL || !is_function(act)) {
		rc = real_sigaction(sig, act, old);
	} else {
		handlers[sig].siginfo = (act->sa_flags & SA_SIGINFO) != 0;
		__atomic_store_n(
			&restarts[sig], (act->sa_flags & SA_RESTART) != 0, __ATOMIC_RELAXED);
		__atomic_store_n(&handlers[sig].fn,
			handlers[sig].siginfo ? (void *)act->sa_sigaction : (void *)act->sa_handler,
			__ATOMIC_RELEASE);
		k = *act;
		k.sa_sigaction = trampoline;
		k.sa_flags |= SA_SIGINFO;
		rc = real_sigaction(sig, &k, old);
	}
	if (old != NULL && rc == 0)
		old_show(old, prev_fn, prev_siginfo);
	return rc;
}

sighandler_t
signal(int sig, sighandler_t h)
{
	struct sigaction act = { .sa_handler = h, .sa_flags = SA_RESTART }, old;

	sigemptyset(&act.sa_mask);
	if (sig > 0 && sig < _NSIG)
		sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

void
pl_sig_mark(struct pl_sig_mark *m)
{
	m->runs = sig_runs;
	m->eintr_runs = sig_eintr_runs;
}

bool
pl_sig_restarts(const struct pl_sig_mark *m)
{
	struct sigaction now;

	if (sig_runs == m->runs || sig_eintr_runs != m->eintr_runs)
		return false; /* no handler seen, or one without SA_RESTART */
	real_sigaction_resolve();
	/* siginterrupt() changes the flags in the kernel, not through sigaction() above */
	return real_sigaction(sig_last, NULL, &now) == 0 && (now.sa_flags & SA_RESTART) != 0;
}

bool
pl_sig_interrupts(struct pl_sig_mark *m, bool restartable)
{
	if (sig_runs == m->runs)
		return false;
	if (restartable && pl_sig_restarts(m)) {
		pl_sig_mark(m);
		return false;
	}
	return true;
}
