#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the down_async() mutations of lib/semaphore.c (20 of
# mutations/*.patch; the others are written by hand) after the code moved:
# each entry is a name, a description, the old text (must occur once) and
# the new text.  Run from the repository root after make tree:
#   python3 tools/testing/semaphore/mkmut.py build/linux/lib/semaphore.c \
#       tools/testing/semaphore/mutations
# then "make test" (its step "mutations apply") or mutate.sh --check.
import difflib, os, sys
src, outdir = sys.argv[1], sys.argv[2]
text = open(src).read()
M = [
("resubmit-pending",
 "down_async() does not refuse a request whose grant has not started its function yet: it is submitted again and the pending grant's status is overwritten.",
 "\t    req->waiter.state == SEM_WAITER_QUEUED ||\n\t    READ_ONCE(req->status) != SEM_ASYNC_IDLE)\n",
 "\t    req->waiter.state == SEM_WAITER_QUEUED)\n"),
("resubmit-queued",
 "down_async() does not refuse a request that is still queued on its semaphore: it is queued a second time.",
 "\t    req->waiter.state == SEM_WAITER_QUEUED ||\n",
 ""),
("cancel-sync-no-refusal",
 "down_async() does not refuse a request for which sem_async_cancel_sync() runs: a function that resubmits itself is submitted again behind the cancel.",
 "\tif (atomic_read(&req->cancelling) ||\n\t    req->waiter.state",
 "\tif (req->waiter.state"),
("cancelling-kept",
 "sem_async_cancel_sync() never drops its refusal: down_async() refuses the request for ever after.",
 "\tatomic_dec(&req->cancelling);\n",
 ""),
("status-cleared-late",
 "the work function frees the request for resubmission only after its function returned, so a function cannot submit its own request again.",
 "\tstatus = xchg(&req->status, SEM_ASYNC_IDLE);\n\treq->func(req, status);\n",
 "\tstatus = READ_ONCE(req->status);\n\treq->func(req, status);\n\tWRITE_ONCE(req->status, SEM_ASYNC_IDLE);\n"),
("take-back-keeps-unit",
 "cancelling a granted request whose function has not started takes the work back but keeps the grant's unit: the unit is lost.",
 "\t\tgive_back = !xchg(&req->status, SEM_ASYNC_IDLE);\n",
 "\t\txchg(&req->status, SEM_ASYNC_IDLE);\n"),
("take-back-keeps-status",
 "cancelling a granted request whose function has not started leaves the grant's status in place: down_async() refuses the request for ever after.",
 "\t\tgive_back = !xchg(&req->status, SEM_ASYNC_IDLE);\n",
 "\t\tgive_back = !READ_ONCE(req->status);\n"),
("cancel-no-take-back",
 "cancel does not take a granted request's pending work back: the function runs although the cancel reported it would not.",
 "\t\t   cancel_work(&req->work)) {\n",
 "\t\t   work_pending(&req->work)) {\n"),
("cancel-sync-no-wait",
 "sem_async_cancel_sync() does not wait for a running function: the request may be freed while its function runs.",
 "\tif (!WARN_ON_ONCE(!in_task() || current_work() == &req->work))\n\t\tcancel_work_sync(&req->work);\n",
 "\tWARN_ON_ONCE(!in_task() || current_work() == &req->work);\n"),
("cancel-untraced",
 "cancel takes a request off its semaphore, or its pending work back, without the sem_entry_cancel event.",
 "\t\ttrace_sem_entry_cancel(sem, &req->waiter);\n\t}\n\traw_spin_unlock_irqrestore(&sem->lock, flags);\n\tif (give_back)\n",
 "\t}\n\traw_spin_unlock_irqrestore(&sem->lock, flags);\n\tif (give_back)\n"),
("shutdown-skips-requests",
 "sem_shutdown() fails queued down_async() requests without queueing their functions: they never learn of it.",
 "\t\t\tsem_async_queue(container_of(waiter, struct sem_async,\n\t\t\t\t\t\t     waiter), -ESHUTDOWN);\n",
 "\t\t\twaiter->state = SEM_WAITER_IDLE;\n"),
("shutdown-refuses",
 "down_async() on a shut-down semaphore refuses the request instead of running its function with -ESHUTDOWN.",
 "\t\tret = sem_async_queue(req, -ESHUTDOWN);\n",
 "\t\tret = false;\n"),
("grant-keeps-queued",
 "a granted request stays marked queued: a later cancel takes it off a list it is not on, and down_async() refuses it.",
 "\tlockdep_assert_held(&sem->lock);\n\treq->waiter.state = SEM_WAITER_IDLE;\n",
 "\tlockdep_assert_held(&sem->lock);\n"),
("entry-takes-request",
 "down_entry() accepts a down_async() request's entry: up() then calls its grant function, which a request does not have.",
 "\treturn waiter->grant && !waiter->task && !waiter->async;",
 "\treturn !waiter->task;"),
("grant-fail-drops-unit",
 "a grant whose work cannot be queued keeps the unit instead of passing it to the next waiter: the unit is lost.",
 "\t\t\t\t\t\t waiter), 0)) {\n",
 "\t\t\t\t\t\t waiter), 0) || 1) {\n"),
("immediate-fail-keeps-unit",
 "down_async() whose work cannot be queued at once returns false but keeps the unit it took.",
 "\t\tgive_back = !ret;\n",
 ""),
("first-prev",
 "when the oldest waiter leaves, the newest becomes the first (the circular list is followed the wrong way), so FIFO order breaks.",
 "\t\t\t\t    list_next_entry(waiter, list);\n",
 "\t\t\t\t    list_prev_entry(waiter, list);\n"),
("lifo",
 "waiters are queued at the head of the list (LIFO).",
 "\t\tlist_add_tail(&waiter->list, &sem->first_waiter->list);\n",
 "\t\tlist_add_tail(&waiter->list, &sem->first_waiter->list);\n\t\tsem->first_waiter = waiter;\n"),
("waiters-bit-stuck",
 "SEM_WAITERS is never cleared when the last waiter leaves, so sem_has_waiters() stays true and every later up() takes the lock.",
 "\tif (!sem->first_waiter && (atomic_read(&sem->count) & SEM_WAITERS)) {\n",
 "\tif (!sem->first_waiter && 0 && (atomic_read(&sem->count) & SEM_WAITERS)) {\n"),
("cancel-uninitialised",
 "sem_async_cancel() of a request never initialised (zeroed) does not refuse it: it takes the lock of a NULL semaphore.",
 "\tif (WARN_ON_ONCE(!sem))\n\t\treturn false;\n\traw_spin_lock_irqsave(&sem->lock, flags);\n\tif (req->waiter.state == SEM_WAITER_QUEUED) {\n",
 "\traw_spin_lock_irqsave(&sem->lock, flags);\n\tif (req->waiter.state == SEM_WAITER_QUEUED) {\n"),
]
a = text.splitlines(keepends=True)
for name, desc, old, new in M:
    n = text.count(old)
    if n != 1:
        sys.exit(f"{name}: the text occurs {n} times")
    b = text.replace(old, new).splitlines(keepends=True)
    diff = difflib.unified_diff(a, b, "a/lib/semaphore.c", "b/lib/semaphore.c", n=3)
    body = "".join(diff)
    # git apply wants "--- a/..." headers without dates: difflib gives them so.
    with open(os.path.join(outdir, name + ".patch"), "w") as f:
        f.write("Mutation: " + desc + "\n\n" + body)
print(len(M), "mutations written")
