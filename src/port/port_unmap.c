/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * munmap() that waits for the workers: see dp_port_unmap_guard() in dp_port.h.
 *
 *   memif interrupt thread            worker (preempted in rx_burst, resumes)
 *   clear CONNECTED                   ... reads ring->head   <- still mapped
 *   memif_free_regions
 *     munmap -> here: wait ---------> walk ends: quiescent state
 *     SYS_munmap            <-------  next rx_burst sees !CONNECTED: returns 0
 *
 * The executable defines munmap, so the PMDs' calls (through their PLT) bind
 * to this one; glibc's own internal unmaps (free) do not come here. While the
 * guard is off it is the plain system call.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "dp_port.h"

static struct rte_rcu_qsbr *guard_qsv;
static unsigned int guard_inside; /* threads in munmap() that may use guard_qsv */

void
dp_port_unmap_guard(struct rte_rcu_qsbr *qsv)
{
	__atomic_store_n(&guard_qsv, qsv, __ATOMIC_SEQ_CST);
	/* off: no one may still be reading the old qsv when its owner frees it */
	while (qsv == NULL && __atomic_load_n(&guard_inside, __ATOMIC_SEQ_CST) != 0)
		rte_pause();
}

/*
 * Also in the ASan builds: neither gcc 12's libasan nor clang 14's ASan runtime
 * intercepts munmap (they wrap mmap only; their own unmaps are raw system calls),
 * so this definition takes no sanitizer's place.
 */
int
munmap(void *addr, size_t len)
{
	struct rte_rcu_qsbr *qsv;
	unsigned int lcore;

	if (__atomic_load_n(&guard_qsv, __ATOMIC_RELAXED) == NULL)
		return (int)syscall(SYS_munmap, addr, len);
	/* not from a worker lcore: it would wait for itself. The main lcore and
	 * non-EAL threads (the interrupt thread is one) wait. */
	lcore = rte_lcore_id();
	if (lcore == LCORE_ID_ANY || lcore == rte_get_main_lcore()) {
		__atomic_add_fetch(&guard_inside, 1, __ATOMIC_SEQ_CST);
		qsv = __atomic_load_n(&guard_qsv, __ATOMIC_SEQ_CST);
		if (qsv != NULL)
			rte_rcu_qsbr_synchronize(qsv, RTE_QSBR_THRID_INVALID);
		__atomic_sub_fetch(&guard_inside, 1, __ATOMIC_SEQ_CST);
	}
	return (int)syscall(SYS_munmap, addr, len);
}
