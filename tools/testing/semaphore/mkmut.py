#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Write the mutations of lib/semaphore.c (mutations/*.patch) from the
# series' file: each entry is a name, a description and one or more pairs
# (old text, which must occur once; new text).  Run from the repository
# root after make tree, whenever lib/semaphore.c changed:
#   python3 tools/testing/semaphore/mkmut.py build/linux/lib/semaphore.c \
#       tools/testing/semaphore/mutations
# then "make test" (its step "mutations apply") or mutate.sh --check.
import difflib, glob, os, sys
src, outdir = sys.argv[1], sys.argv[2]
text = open(src).read()
M = [
# The classic semaphore (part 1).
("lifo", "waiters are queued at the head of the list (LIFO).",
 [("\t\tlist_add_tail(&waiter->list, &sem->first_waiter->list);\n",
   "\t\tlist_add_tail(&waiter->list, &sem->first_waiter->list);\n\t\tsem->first_waiter = waiter;\n")]),
("first-prev", "when the oldest waiter leaves, the newest becomes the first (the circular list is followed the wrong way), so FIFO order breaks.",
 [("\t\t\t\t    list_next_entry(waiter, list);\n", "\t\t\t\t    list_prev_entry(waiter, list);\n")]),
("waiters-bit-stuck", "SEM_WAITERS is never cleared when the last waiter leaves, so sem_has_waiters() stays true and every later up() takes the lock.",
 [("\tif (!sem->first_waiter && (atomic_read(&sem->count) & SEM_WAITERS)) {\n",
   "\tif (!sem->first_waiter && 0 && (atomic_read(&sem->count) & SEM_WAITERS)) {\n")]),
("no-waiters-bit", "a waiter queues without setting SEM_WAITERS, so the lock-free up() frees the unit instead of handing it over: the waiter is stranded.",
 [("\t\t} else if (atomic_try_cmpxchg_relaxed(&sem->count, &c,\n\t\t\t\t\t\t      c | SEM_WAITERS)) {\n",
   "\t\t} else if (atomic_try_cmpxchg_relaxed(&sem->count, &c, c)) {\n")]),
("timeout-loses-grant", "a waiter whose timeout ran out looks at its grant no more: granted as it times out, it returns -ETIME and the unit is lost.",
 [("\t\tif (waiter.granted)\n", "\t\tif (waiter.granted && timeout > 0)\n")]),
("trylock-ignores-count", "down_trylock() reports success when no unit is free.",
 [("\treturn !sem_take_fast(sem);\n", "\tsem_take_fast(sem);\n\treturn 0;\n")]),
("up-guess-drops", "an up() whose first, constant guess fails on a count of 1 returns without releasing its unit.",
 [("\tif (likely(atomic_try_cmpxchg_release(&sem->count, &c, 1)))\n",
   "\tif (likely(atomic_try_cmpxchg_release(&sem->count, &c, 1)) || c == 1)\n")]),
("up-increments", "up() increments the count while someone waits, instead of handing the unit to the oldest waiter.",
 [("\twhile (!((c + 1U) & SEM_WAITERS)) {\n", "\twhile ((c & SEM_COUNT_MAX) != SEM_COUNT_MAX) {\n")]),
("up-overflow-unchecked", "the up() fast path tests only the waiters bit, not the carry into it: at 2^30 - 1 units an up() sets SEM_WAITERS with nobody queued.",
 [("\twhile (!((c + 1U) & SEM_WAITERS)) {\n", "\twhile (!(c & SEM_WAITERS)) {\n")]),
("down-guess-takes-all", "a down whose first, constant guess fails takes every free unit at once.",
 [("\t\treturn true;\n\tdo {\n\t\tif (!(c & SEM_COUNT_MAX))\n",
   "\t\treturn true;\n\tif ((c & SEM_COUNT_MAX) && atomic_try_cmpxchg_acquire(&sem->count, &c, 0))\n\t\treturn true;\n\tdo {\n\t\tif (!(c & SEM_COUNT_MAX))\n")]),
("free-under-lock", "an up() that finds nobody queued frees the unit before it unlocks: a down() that takes it and frees the semaphore (one used as a completion) has it written by the unlock.",
 [("\t\traw_spin_unlock_irqrestore(&sem->lock, flags);\n\t\tif (granted) {\n",
   "\t\tif (!granted)\n\t\t\tatomic_inc_return_release(&sem->count);\n\t\traw_spin_unlock_irqrestore(&sem->lock, flags);\n\t\tif (!granted)\n\t\t\treturn;\n\t\tif (granted) {\n")]),
# Wait entries and down_async() (part 2).
("cancel-lies", "sem_waiter_cancel() reports an entry that is not queued (granted already) as removed.",
 [("\t\t\t  sem, waiter, queued_on);\n\t\treturn false;\n", "\t\t\t  sem, waiter, queued_on);\n\t\treturn true;\n")]),
("cancel-wrong-sem", "sem_waiter_cancel() of an entry queued on another semaphore takes it off that list under the wrong lock.",
 [("\tif (queued_on != sem) {\n", "\tif (!queued_on) {\n")]),
("cancel-keeps-queued", "a removed entry stays marked queued: down_entry() refuses it for ever after.",
 [("\tsem_debug_entry(waiter, false);\n\tWRITE_ONCE(waiter->sem, NULL);\n\ttrace_sem_entry_cancel(sem, waiter);\n",
   "\tsem_debug_entry(waiter, false);\n\ttrace_sem_entry_cancel(sem, waiter);\n")]),
("cancel-untraced", "sem_waiter_cancel() removes an entry without the sem_entry_cancel event.",
 [("\tWRITE_ONCE(waiter->sem, NULL);\n\ttrace_sem_entry_cancel(sem, waiter);\n", "\tWRITE_ONCE(waiter->sem, NULL);\n")]),
("grant-keeps-queued", "a granted entry stays marked queued: down_entry() refuses it, and a cancel takes it off a list it is not on.",
 [("\tWRITE_ONCE(waiter->sem, NULL);\n\twaiter->grant(waiter, status);\n", "\twaiter->grant(waiter, status);\n")]),
("entry-queued-twice", "down_entry() of an entry that is already queued queues it a second time.",
 [("\tif (!WARN_ONCE(READ_ONCE(waiter->sem),\n\t\t       \"semaphore %p: wait entry %p is queued\\n\", sem, waiter))\n\t\tret = __down_entry(sem, waiter);\n",
   "\tret = __down_entry(sem, waiter);\n")]),
("shutdown-ignored", "down_entry() and down_async() on a shut-down semaphore take units and queue as before: nobody may ever grant them.",
 [("\tif (atomic_read(&sem->count) & SEM_SHUTDOWN) {\n", "\tif (0) {\n")]),
("shutdown-refuses", "down_entry() and down_async() on a shut-down semaphore fail without calling the grant function: a request's function never learns of it.",
 [("\t\twaiter->grant(waiter, -ESHUTDOWN);\n\t\treturn false;\n", "\t\treturn false;\n")]),
("shutdown-skips-entries", "sem_shutdown() leaves the queued entries and requests queued: they are never failed.",
 [("\t\tsem_grant(sem, waiter, -ESHUTDOWN);\n", "")]),
("shutdown-skips-last", "sem_shutdown() stops before the newest waiter: it is never failed.",
 [("\tfor (; waiter; waiter = waiter == last ? NULL : next) {\n",
   "\tfor (; waiter && waiter != last; waiter = next) {\n")]),
("grant-wrong-status", "a request's grant records status 0 whatever it is given: a function failed by sem_shutdown() believes it holds a unit.",
 [("\treq->status = status;\n", "\treq->status = 0;\n")]),
("resubmit-pending", "down_async() does not refuse a request that is pending (queued, or granted with its function not started): it is submitted again.",
 [("\tif (!req->pending && !atomic_read(&req->cancelling)) {\n", "\tif (!atomic_read(&req->cancelling)) {\n")]),
("cancel-sync-no-refusal", "down_async() does not refuse a request for which sem_async_cancel_sync() runs: a function that resubmits itself is submitted again behind the cancel.",
 [("\tif (!req->pending && !atomic_read(&req->cancelling)) {\n", "\tif (!req->pending) {\n")]),
("cancelling-kept", "sem_async_cancel_sync() never drops its refusal: down_async() refuses the request for ever after.",
 [("\tatomic_dec(&req->cancelling);\n", "")]),
("cancel-keeps-pending", "a request taken off its semaphore stays pending: down_async() refuses it for ever after.",
 [("\treq->pending = false;\n\treturn true;\n", "\treturn true;\n")]),
("status-cleared-late", "the work function marks the request idle only after its function returned, so a function cannot submit its own request again.",
 [("\tstatus = req->status;\n\treq->pending = false;\n\traw_spin_unlock_irq(&req->sem->lock);\n\treq->func(req, status);\n",
   "\tstatus = req->status;\n\traw_spin_unlock_irq(&req->sem->lock);\n\treq->func(req, status);\n\treq->pending = false;\n")]),
("cancel-sync-no-wait", "sem_async_cancel_sync() does not wait for a granted function: the request may be freed while its function runs.",
 [("\tif (!WARN_ON_ONCE(current_work() == &req->work))\n\t\tflush_work(&req->work);\n",
   "\tWARN_ON_ONCE(current_work() == &req->work);\n")]),
]
a = text.splitlines(keepends=True)
for old in glob.glob(os.path.join(outdir, "*.patch")):
    os.remove(old)
for name, desc, pairs in M:
    new = text
    for o, n in pairs:
        if new.count(o) != 1:
            sys.exit(f"{name}: the text occurs {new.count(o)} times")
        new = new.replace(o, n)
    body = "".join(difflib.unified_diff(a, new.splitlines(keepends=True),
                                        "a/lib/semaphore.c", "b/lib/semaphore.c", n=3))
    # git apply wants "--- a/..." headers without dates: difflib gives them so.
    with open(os.path.join(outdir, name + ".patch"), "w") as f:
        f.write("Mutation: " + desc + "\n\n" + body)
print(len(M), "mutations written")
