// SPDX-License-Identifier: GPL-2.0
/* Test input for scripts/coccinelle/locks/semaphore_internals.cocci. */
struct list_head { struct list_head *next, *prev; };
struct semaphore { int lock; unsigned int count; struct list_head wait_list; };
struct counter { unsigned int count; struct list_head wait_list; };
struct dev { struct semaphore sem; struct counter stats; int count; };
struct xfs_buf { struct semaphore b_sema; };

#define buf_islocked(bp) \
	sem_is_locked(&(bp)->b_sema)

int printk(const char *fmt, ...);
int list_empty(const struct list_head *head);

int locked(struct dev *d)
{
	return sem_is_locked(&d->sem);
}

int locked_le(struct semaphore *s)
{
	return sem_is_locked(s);
}

void show(struct dev *d, struct semaphore *s)
{
	printk("%u %u\n", sem_count(&d->sem), sem_count(s));
}

int idle(struct dev *d, struct semaphore *s)
{
	return !sem_has_waiters(&d->sem) && sem_has_waiters(s);
}

/* Not semaphores: must not be touched. */
int other(struct dev *d, struct counter *c)
{
	return d->count + d->stats.count + c->count +
	       list_empty(&c->wait_list);
}

/* A write: reported, never rewritten (the fix depends on the caller). */
void reset(struct dev *d)
{
	d->sem.count = 1;
}
